"""Relevance of a text to a topic in the vector space model (the cosine of WL eq. 4).

The document vector holds TF-IDF weights (WL eq. 3) over all of its terms, so a page that
mentions a topic word once among thousands of other words scores low. WL eq. 4 sums over the
topic's terms only; on THUCNews and Wikispeedia that variant ranks worse (benchmarks/topic_relevance.py).
"""
import math
from typing import Mapping

from models.termstats import TermStats, tfidf_weights
from models.topic import Topic


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """cos<a, b> of two sparse vectors; 0 when either is empty or all zero."""
    if len(a) > len(b):
        a, b = b, a
    dot = sum(weight * b.get(term, 0.0) for term, weight in a.items())
    norms = math.sqrt(sum(w * w for w in a.values()) * sum(w * w for w in b.values()))
    return dot / norms if norms else 0.0


def terms_relevance(terms: list[str], topic: Topic, stats: TermStats) -> float:
    """cos(topic keyword weights, TF-IDF weights of the terms)."""
    if not any(term in topic.term_weights for term in terms):
        return 0.0  # no shared term, no dot product: most links' words, so skip the weights
    return cosine(topic.term_weights, tfidf_weights(terms, stats))


def corpus_relevance(topic: Topic, documents: list[list[str]]) -> list[float]:
    """Relevance of each tokenised document, with TF-IDF statistics over all of them."""
    stats = TermStats.from_documents(documents)
    return [terms_relevance(terms, topic, stats) for terms in documents]

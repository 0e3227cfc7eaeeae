"""Relevance of a text to a topic in the vector space model (WL eq. 4, DTH, SSAPS).

The document vector holds TF-IDF weights (WL eq. 3) over all of its terms, so a page that
mentions a topic word once among thousands of other words scores low. WL eq. 4 sums over the
topic's terms only; on THUCNews and Wikispeedia that variant ranks worse (benchmarks/topic_relevance.py).
"""
import math
from typing import Mapping

from models import text
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
    return cosine(topic.term_weights, tfidf_weights(terms, stats))


def text_relevance(document: str, topic: Topic, stats: TermStats) -> float:
    return terms_relevance(text.tokenize(document), topic, stats)


def corpus_relevance(topic: Topic, documents: list[list[str]]) -> list[float]:
    """Relevance of each tokenised document, with TF-IDF statistics over all of them."""
    stats = TermStats.from_documents(documents)
    return [terms_relevance(terms, topic, stats) for terms in documents]


ANCHOR_SHARE = 0.3  # WL's ∂
# How much of the parent page's relevance a link inherits, by the block it sits in (SSAPS: a
# noise block passes on nothing, a navigation block a constant share γ).
PARENT_SHARE_BY_BLOCK = {'content': 1.0, 'related': 1.0, 'navigation': 0.5, 'noise': 0.0}


def link_relevance(anchor_terms: list[str], page_relevance: float, topic: Topic, stats: TermStats,
                   block: str = 'content') -> float:
    """Predicted relevance of a link's target: WL's R(l) = ∂·R(anchor) + (1−∂)·R(page containing l),
    with the page's share scaled by the link's block as in SSAPS.

    `anchor_terms` are the terms of the anchor text, its surrounding text and the URL's words,
    so a link without anchor text (an image) still says something through its context and URL.
    """
    inherited = PARENT_SHARE_BY_BLOCK.get(block, 1.0) * page_relevance
    return ANCHOR_SHARE * terms_relevance(anchor_terms, topic, stats) + (1 - ANCHOR_SHARE) * inherited

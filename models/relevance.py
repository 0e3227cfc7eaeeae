"""Relevance of a text to a topic in the vector space model: one function per paper.

* `terms_relevance`: the cosine over all of the text's terms with WL eq. 3's TF-IDF weights.
  A page that mentions a topic word once among thousands of other words scores low (about
  0.002 on real pages, the scale SSAPS eq. 5 implies). Focal's own strategies use it: on
  THUCNews and Wikispeedia it ranks pages better than the restricted form
  (benchmarks/topic_relevance.py), and Shark-Search and SSAPS score whole pages this way.
* `topic_words_relevance`: WL eq. 4 read literally, both sums over the topic's terms only, so
  an on-topic page scores near 1 and WL's thresholds (R(l) >= 0.2, beta = 0.62-0.70) apply.
* `dth_relevance`: DTH eq. 1 with eq. 2's weights (raw count x log(N / df), no +1).
"""
import dataclasses
import math
from typing import Mapping

from models.segment import tfidf_cosine
from models.termstats import Terms, TermStats, term_counts
from models.topic import Topic


def cosine(a: Mapping[str, float], b: Mapping[str, float], a_squares: float | None = None) -> float:
    """cos<a, b> of two sparse vectors; 0 when either is empty or all zero. `a_squares`: the sum of
    a's squared weights, when the caller has it (a topic's, the same for every page and link)."""
    if len(a) > len(b):
        dot = sum(weight * a.get(term, 0.0) for term, weight in b.items())
    else:
        dot = sum(weight * b.get(term, 0.0) for term, weight in a.items())
    if a_squares is None:
        a_squares = sum(w * w for w in a.values())
    norms = math.sqrt(a_squares * sum(w * w for w in b.values()))
    return dot / norms if norms else 0.0


def terms_relevance(terms: Terms, topic: Topic, stats: TermStats) -> float:
    """cos(topic keyword weights, TF-IDF weights of all the terms): cosine(topic.term_weights,
    tfidf_weights(terms, stats)) summed left to right (as Python 3.11's sum() adds), in one compiled
    loop without a dict of the weights (models/segment.pyx tfidf_cosine: a real page has ~700 terms,
    an English article a few thousand, and a link's words are scored this way too)."""
    keywords = topic.term_weights
    if keywords.keys().isdisjoint(terms):
        return 0.0  # no shared term, no dot product: most links' words, so skip the weights
    counts, total = term_counts(terms)
    return tfidf_cosine(counts, total, stats.idfs, keywords, topic.squared_weights)


def topic_words_relevance(terms: Terms, topic: Topic, stats: TermStats) -> float:
    """WL eq. 4: the cosine with the page vector restricted to the topic's n terms, clamped to
    [0, 1] (a term on every page crawled has a negative eq. 3 weight; WL's energies are in [0, 1])."""
    keywords = topic.term_weights
    if keywords.keys().isdisjoint(terms):
        return 0.0
    counts, total = term_counts(terms)
    page = {term: n / total * stats.idf(term) for term, n in counts.items() if term in keywords}
    dot = sum(weight * keywords[term] for term, weight in page.items())
    norms = math.sqrt(sum(w * w for w in keywords.values()) * sum(w * w for w in page.values()))
    return min(1.0, max(0.0, dot / norms)) if norms else 0.0


def dth_relevance(terms: Terms, topic: Topic, stats: TermStats) -> float:
    """DTH eq. 1: cos(TextRank topic vector, tf x log(N / df)) over all the page's terms (eq. 2)."""
    if topic.term_weights.keys().isdisjoint(terms):
        return 0.0
    documents = max(stats.documents, 1)
    page = {term: n * math.log(documents / max(stats.document_frequency.get(term, 0), 1))
            for term, n in term_counts(terms)[0].items()}
    return cosine(topic.term_weights, page, topic.squared_weights)


RELEVANCE_FUNCTIONS = {'vsm': terms_relevance, 'wl-eq4': topic_words_relevance, 'dth-eq1': dth_relevance}


@dataclasses.dataclass(frozen=True)
class TopicRelevance:
    """The relevance functions bound to a topic and the crawl's statistics (what a strategy scores with)."""
    topic: Topic
    stats: TermStats

    def __call__(self, terms: Terms, kind: str = 'vsm') -> float:
        return RELEVANCE_FUNCTIONS[kind](terms, self.topic, self.stats)

    def of_parts(self, *parts: Terms, kind: str = 'vsm') -> float:
        """The relevance of the parts' terms together (a link's anchor, context and URL words), in
        their order; 0.0, as every kind gives it, when no part holds a topic word, without joining
        them: most links' words hold none."""
        keywords = self.topic.term_weights.keys()
        for part in parts:
            if not keywords.isdisjoint(part):
                return self([term for terms in parts for term in terms], kind)
        return 0.0


def corpus_relevance(topic: Topic, documents: list[list[str]]) -> list[float]:
    """Relevance of each tokenised document, with TF-IDF statistics over all of them."""
    stats = TermStats.from_documents(documents)
    return [terms_relevance(terms, topic, stats) for terms in documents]

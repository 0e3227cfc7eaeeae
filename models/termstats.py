"""Document statistics and TF-IDF term weights (WL eq. 3).

The round pipeline counts D_i over every page in Beam (transforms/termstats.py, committed as the
term_stats table); `TermStats` holds the counts one page's scoring looks up.
"""
import collections
import dataclasses
import math
from typing import Iterable


@dataclasses.dataclass
class TermStats:
    """D (documents seen) and D_i (documents containing term i) of WL eq. 3."""
    documents: int = 0
    document_frequency: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    # idf of the terms looked up since the counts last changed (a round's pages share most terms):
    # the counts change through add_document only
    _idf: dict = dataclasses.field(default_factory=dict, init=False, repr=False, compare=False)

    def add_document(self, terms: Iterable[str]) -> 'TermStats':
        self.documents += 1
        self.document_frequency.update(set(terms))
        self._idf.clear()
        return self

    @classmethod
    def from_documents(cls, documents: Iterable[Iterable[str]]) -> 'TermStats':
        stats = cls()
        for terms in documents:
            stats.add_document(terms)
        return stats

    def idf(self, term: str) -> float:
        """lg(D / (1 + D_i)): 0 or below for a term in every document; lg(D) for an unseen one."""
        weight = self._idf.get(term)
        if weight is None:
            weight = self._idf[term] = (math.log10(self.documents / (1 + self.document_frequency.get(term, 0)))
                                        if self.documents else 0.0)
        return weight


def tfidf_weights(terms: list[str], stats: TermStats) -> dict[str, float]:
    """w_ij = n_ij / sum_k n_kj * lg(D / (1 + D_i)), exactly WL eq. 3."""
    if not terms:
        return {}
    counts = collections.Counter(terms)
    total, known, idf = len(terms), stats._idf, stats.idf
    # the idf cache read here first: a method call per term was a third of scoring a page (a 0.0
    # weight is looked up again by idf(), which returns the same 0.0)
    return {term: n / total * (known.get(term) or idf(term)) for term, n in counts.items()}

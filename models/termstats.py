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

    def add_document(self, terms: Iterable[str]) -> 'TermStats':
        self.documents += 1
        self.document_frequency.update(set(terms))
        return self

    @classmethod
    def from_documents(cls, documents: Iterable[Iterable[str]]) -> 'TermStats':
        stats = cls()
        for terms in documents:
            stats.add_document(terms)
        return stats

    def idf(self, term: str) -> float:
        """lg(D / (1 + D_i)): 0 or below for a term in every document; lg(D) for an unseen one."""
        if self.documents == 0:
            return 0.0
        return math.log10(self.documents / (1 + self.document_frequency.get(term, 0)))


def tfidf_weights(terms: list[str], stats: TermStats) -> dict[str, float]:
    """w_ij = n_ij / sum_k n_kj * lg(D / (1 + D_i)), exactly WL eq. 3."""
    if not terms:
        return {}
    counts = collections.Counter(terms)
    total = len(terms)
    return {term: n / total * stats.idf(term) for term, n in counts.items()}

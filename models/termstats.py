"""Document statistics that grow as pages arrive, and TF-IDF term weights (WL eq. 3).

`TermStats` is a monoid: statistics gathered on different workers merge into the same result
as one pass over all documents, which is what a Beam CombineFn needs.
"""
import collections
import dataclasses
import math
from typing import Iterable, Mapping


@dataclasses.dataclass
class TermStats:
    """D (documents seen) and D_i (documents containing term i) of WL eq. 3."""
    documents: int = 0
    document_frequency: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def add_document(self, terms: Iterable[str]) -> 'TermStats':
        self.documents += 1
        self.document_frequency.update(set(terms))
        return self

    def merge(self, other: 'TermStats') -> 'TermStats':
        self.documents += other.documents
        self.document_frequency.update(other.document_frequency)
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

    def to_dict(self) -> dict:
        return {'documents': self.documents, 'document_frequency': dict(self.document_frequency)}

    @classmethod
    def from_dict(cls, data: Mapping) -> 'TermStats':
        return cls(int(data['documents']), collections.Counter(data['document_frequency']))


def tfidf_weights(terms: list[str], stats: TermStats) -> dict[str, float]:
    """w_ij = n_ij / sum_k n_kj * lg(D / (1 + D_i)), exactly WL eq. 3."""
    if not terms:
        return {}
    counts = collections.Counter(terms)
    total = len(terms)
    return {term: n / total * stats.idf(term) for term, n in counts.items()}

"""Document statistics and TF-IDF term weights (WL eq. 3).

The round pipeline counts D_i over every page in Beam (transforms/termstats.py, committed as the
term_stats table); `TermStats` holds the counts one page's scoring looks up.
"""
import collections
import dataclasses
from typing import Iterable, Mapping, Sequence

from models.segment import counted, idf

# A text's index terms: in order, or as term -> occurrences in order of first occurrence (a page's
# terms are counted once, in the Extract stage; a count of each term is all TF-IDF reads).
Terms = Sequence[str] | Mapping[str, int]


class IdfTable(dict):
    """term -> lg(D / (1 + D_i)) for fixed counts, computed the first time a term is looked up (a
    round's pages share most terms): 0 or below for a term in every document, lg(D) for an unseen
    one. A hit is a plain dict lookup, without a Python call (a third of scoring a page was the call)."""

    def __init__(self, documents: int, document_frequency: Mapping[str, int]):
        super().__init__()
        self.documents, self.document_frequency = documents, document_frequency

    def __missing__(self, term: str) -> float:
        weight = self[term] = idf(self.documents, self.document_frequency.get(term, 0))
        return weight


@dataclasses.dataclass
class TermStats:
    """D (documents seen) and D_i (documents containing term i) of WL eq. 3."""
    documents: int = 0
    document_frequency: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    idfs: IdfTable = dataclasses.field(init=False, repr=False, compare=False)  # anew whenever the counts change

    def __post_init__(self):
        self.idfs = IdfTable(self.documents, self.document_frequency)

    def add_document(self, terms: Iterable[str]) -> 'TermStats':
        """The counts change only here."""
        self.documents += 1
        self.document_frequency.update(set(terms))
        self.idfs = IdfTable(self.documents, self.document_frequency)
        return self

    @classmethod
    def from_documents(cls, documents: Iterable[Iterable[str]]) -> 'TermStats':
        stats = cls()
        for terms in documents:
            stats.add_document(terms)
        return stats

    def idf(self, term: str) -> float:
        """lg(D / (1 + D_i)): 0 or below for a term in every document; lg(D) for an unseen one."""
        return self.idfs[term]


def term_counts(terms: Terms) -> tuple[Mapping[str, int], int]:
    """(term -> occurrences in order of first occurrence, occurrences in all) of a text's terms."""
    if type(terms) in (list, tuple) or not isinstance(terms, Mapping):  # the type first: the ABC's check is slow
        return counted(terms), len(terms)
    return terms, sum(terms.values())


def tfidf_weights(terms: Terms, stats: TermStats) -> dict[str, float]:
    """w_ij = n_ij / sum_k n_kj * lg(D / (1 + D_i)), exactly WL eq. 3."""
    if not terms:
        return {}
    counts, total = term_counts(terms)
    idfs = stats.idfs
    return {term: n / total * idfs[term] for term, n in counts.items()}

"""TF-IDF document statistics gathered across workers (WL eq. 3's D and D_i)."""
import apache_beam as beam

from models.termstats import TermStats


class CombineTermStatsFn(beam.CombineFn):
    """Tokenised pages in, one TermStats out; partial statistics merge on any worker."""

    def create_accumulator(self) -> TermStats:
        return TermStats()

    def add_input(self, accumulator: TermStats, terms: list[str]) -> TermStats:
        return accumulator.add_document(terms)

    def merge_accumulators(self, accumulators) -> TermStats:
        merged = TermStats()
        for accumulator in accumulators:
            merged.merge(accumulator)
        return merged

    def extract_output(self, accumulator: TermStats) -> TermStats:
        return accumulator


class GatherTermStats(beam.PTransform):
    """PCollection of term lists -> a single-element PCollection holding their TermStats."""

    def expand(self, pages):
        return pages | 'CombineTermStats' >> beam.CombineGlobally(CombineTermStatsFn())

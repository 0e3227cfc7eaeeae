"""The rank step after a round as a Beam pipeline:

    pages, links of rounds 1..N -> CrawlPageRank -> ranks/N/pagerank
                                -> RankPages     -> ranks/N/ranking, ranks/N/vocabulary

`build_rank` returns the pipeline unrun (runners/ranks.py runs it and commits the ranks like a
round). It reads the committed pages and links in batches (pyarrow tables) and writes its tables
into the pending ranks directory as Beam shards.
"""
import posixpath

import apache_beam as beam
import pyarrow as pa
from apache_beam.options.pipeline_options import PipelineOptions

from models import ranking
from models.pagerank import iterations_for
from pipelines import schema
from pipelines.committed import ReadCommitted
from pipelines.local import new_pipeline
from pipelines.state import CrawlDir, PendingRound
from transforms.pagerank import CrawlPageRank
from transforms.parquet import TABLES, WriteParquet
from transforms.rank import RankPages


class WriteTableBatches(beam.PTransform):
    """pyarrow tables -> Parquet shards of one rank table, each stamped with the ranks' round."""

    def __init__(self, pending: PendingRound, table: str):
        super().__init__()
        self.pending = pending
        self.table = table

    def expand(self, tables):
        table_schema, number = schema.RANK_TABLES[self.table], self.pending.round

        def stamped(table: pa.Table) -> pa.Table:
            return table.append_column('round', pa.array([number] * table.num_rows, pa.int32()))

        return (tables
                | 'Stamp' >> beam.Map(stamped)
                | 'Write' >> WriteParquet(posixpath.join(self.pending.uri, self.table), table_schema, TABLES))


def _vocabulary_table(words: list[str]) -> pa.Table:
    return pa.table({'term': pa.array(words, pa.string()), 'index': pa.array(range(len(words)), pa.int32())})


def build_rank(options: PipelineOptions, crawl: CrawlDir, pending: PendingRound, topic, seeds: list[str],
               pagerank_mode: str, combination: str, alpha: float, negatives=None) -> beam.Pipeline:
    """Ranks of every page of the committed rounds up to `pending.round`. `pagerank_mode` is local or
    beam; `negatives` is (URLs, documents) of models.ranking.read_negatives, or None."""
    rounds = [number for number in crawl.committed_rounds() if number <= pending.round]
    pipeline = new_pipeline(options)
    pages = pipeline | 'ReadPages' >> ReadCommitted(crawl, 'pages', rounds, columns=ranking.PAGE_COLUMNS,
                                                    batched=True)
    links = pipeline | 'ReadLinks' >> ReadCommitted(crawl, 'links', rounds, columns=['url', 'dst'], batched=True)
    pages = pages | 'NonEmpty' >> beam.Filter(lambda batch: batch.num_rows > 0)
    ranks = {'pages': pages, 'links': links} | 'PageRank' >> CrawlPageRank(pagerank_mode, iterations_for())
    ranks | 'WritePageRank' >> WriteTableBatches(pending, 'pagerank')
    negative_urls, negative_documents = negatives or ((), ())
    ranked = ({'pages': pages, 'pagerank': ranks}
              | 'RankPages' >> RankPages(topic, seeds, combination, alpha, negative_urls, negative_documents))
    ranked['ranking'] | 'WriteRanking' >> WriteTableBatches(pending, 'ranking')
    (ranked[RankPages.VOCABULARY]
     | 'VocabularyTable' >> beam.Map(_vocabulary_table)
     | 'WriteVocabulary' >> WriteTableBatches(pending, 'vocabulary'))
    return pipeline


"""Reading a crawl's committed tables inside a Beam pipeline.

The driver only names the files (from the rounds' manifests, each checked against its size);
the workers read the rows. So the state a round builds on (the previous candidates, every URL
already requested, the crawl's term statistics) reaches the workers through the runner's I/O,
never through the driver's memory or the pickled job graph.
"""
import apache_beam as beam

from pipelines.state import CrawlDir


class ReadCommitted(beam.PTransform):
    """Rows (dicts) of one table of some committed rounds (every committed round when none given);
    with `batched`, pyarrow tables of rows instead, for transforms that work on columns."""

    def __init__(self, crawl: CrawlDir, table: str, rounds: list[int] | None = None,
                 columns: list[str] | None = None, kind: str = 'rounds', batched: bool = False):
        super().__init__()
        self.paths = [crawl.uri(path) for path in crawl.committed_files(table, rounds, kind)]
        self.columns = columns
        self.batched = batched

    def expand(self, pbegin):
        if not self.paths:
            return pbegin | 'NoFiles' >> beam.Create([])
        read = beam.io.ReadAllFromParquetBatched if self.batched else beam.io.ReadAllFromParquet
        return (pbegin
                | 'CommittedFiles' >> beam.Create(self.paths)
                | 'ReadParquet' >> read(columns=self.columns))

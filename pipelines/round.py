"""One crawl round as a Beam pipeline: frontier -> Fetch -> Extract -> Score -> Graph -> Parquet.

`build_round` returns the pipeline unrun (the driver runs it and commits the round): it reads
the frontier the driver wrote into the pending round directory and writes fetch_log, pages and
links there as Beam shards (`<table>-NNNNN-of-NNNNN.parquet`), which the commit checks against
pipelines/schema.py.
"""
import posixpath

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from models.fetch import FetchPolicy
from models.termstats import TermStats
from models.topic import Topic
from models.urls import host_of
from pipelines import schema
from transforms.fetch import FetchHostBatchFn
from transforms.extract import ExtractPagesFn
from transforms.score import ScorePagesFn
from transforms.termstats import GatherTermStats


class WriteTable(beam.PTransform):
    """Rows -> Parquet shards of one crawl table in a pending round directory."""

    def __init__(self, directory: str, table: str):
        super().__init__()
        self.directory = directory
        self.table = table

    def expand(self, rows):
        return rows | beam.io.WriteToParquet(
            posixpath.join(self.directory, self.table), schema.ROUND_TABLES[self.table],
            file_name_suffix='.parquet', shard_name_template='-SSSSS-of-NNNNN')


def build_round(options: PipelineOptions, round_directory: str, round_number: int, topic: Topic,
                prior_stats: TermStats, policy: FetchPolicy) -> beam.Pipeline:
    pipeline = beam.Pipeline(options=options)
    fetched = (
        pipeline
        | 'ReadFrontier' >> beam.io.ReadFromParquet(posixpath.join(round_directory, 'frontier.parquet'),
                                                    columns=['url'])
        | 'KeyByHost' >> beam.Map(lambda row: (host_of(row['url']), row['url']))
        | 'GroupByHost' >> beam.GroupByKey()
        | 'FetchHostBatch' >> beam.ParDo(FetchHostBatchFn(policy, round_number)).with_outputs('pages', main='log'))
    fetched.log | 'WriteFetchLog' >> WriteTable(round_directory, 'fetch_log')

    extracted = fetched.pages | 'ExtractPages' >> beam.ParDo(ExtractPagesFn())
    round_stats = extracted | 'Tokens' >> beam.Map(lambda page: page['tokens']) | GatherTermStats()
    scored = extracted | 'ScorePages' >> beam.ParDo(
        ScorePagesFn(topic, prior_stats, round_number), beam.pvalue.AsSingleton(round_stats)
    ).with_outputs('links', main='pages')
    scored.pages | 'WritePages' >> WriteTable(round_directory, 'pages')
    scored.links | 'WriteLinks' >> WriteTable(round_directory, 'links')
    return pipeline

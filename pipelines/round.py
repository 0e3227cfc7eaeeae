"""One crawl round as a Beam pipeline:

    frontier -> Fetch -> Extract -> Score -> UpdateFrontier -> Parquet (fetch_log, pages, links,
                                                                candidates, term_stats)

`build_round` returns the pipeline unrun (the driver runs it and commits the round). It reads
the frontier the driver wrote into the pending round directory, and what it needs of earlier
rounds (the last candidates and term statistics, every URL already requested) from their
committed files; it writes its tables into the pending directory as Beam shards
(`<table>-NNNNN-of-NNNNN.parquet`), which the commit checks against pipelines/schema.py.
This is the one place the stages are wired together.
"""
import posixpath

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from models.settings import CrawlSettings
from models.strategies import make_strategy
from pipelines import schema
from pipelines.committed import ReadCommitted
from pipelines.state import CrawlDir, PendingRound
from transforms.extract import Extract
from transforms.fetch import Fetch, reached_urls
from transforms.frontier import UpdateFrontier
from transforms.score import Score


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


def prior_documents(crawl: CrawlDir, rounds: list[int]) -> int:
    """Pages fetched in these committed rounds (D of WL eq. 3), from their manifests."""
    return sum(crawl.manifest(number)['tables'].get('pages', {}).get('rows', 0) for number in rounds)


def build_round(options: PipelineOptions, crawl: CrawlDir, pending: PendingRound, settings: CrawlSettings,
                discovered: list[dict] = ()) -> beam.Pipeline:
    """The round `pending.round` of `crawl`, built on the rounds committed before it; `discovered`
    are candidate rows found other than as this round's links (seeds waiting for room)."""
    number, out = pending.round, pending.uri
    earlier = [r for r in crawl.committed_rounds() if r < number]
    previous = earlier[-1:]
    pipeline = beam.Pipeline(options=options)

    frontier = pipeline | 'ReadFrontier' >> beam.io.ReadFromParquet(
        posixpath.join(out, 'frontier.parquet'), columns=['url', 'depth', 'position'])
    fetched = frontier | 'Fetch' >> Fetch(settings.fetch.policy(), number)
    fetched[Fetch.LOG] | 'WriteFetchLog' >> WriteTable(out, 'fetch_log')

    extracted = fetched[Fetch.PAGES] | 'Extract' >> Extract()
    prior_terms = pipeline | 'ReadTermStats' >> ReadCommitted(crawl, 'term_stats', previous)
    scored = extracted | 'Score' >> Score(settings.topic, make_strategy(settings.strategy, settings.strategy_params),
                                          number, prior_documents(crawl, earlier), prior_terms)
    scored[Score.PAGES] | 'WritePages' >> WriteTable(out, 'pages')
    scored[Score.LINKS] | 'WriteLinks' >> WriteTable(out, 'links')
    scored[Score.TERM_STATS] | 'WriteTermStats' >> WriteTable(out, 'term_stats')

    earlier_log = pipeline | 'ReadEarlierFetchLog' >> ReadCommitted(
        crawl, 'fetch_log', earlier, columns=['url', 'final_url', 'redirects'])
    reached = ((earlier_log, fetched[Fetch.LOG])
               | 'AllFetchLogs' >> beam.Flatten()
               | 'ReachedUrls' >> beam.FlatMap(reached_urls))
    previous_candidates = pipeline | 'ReadCandidates' >> ReadCommitted(crawl, 'candidates', previous)
    found = ((scored[Score.FOUND], pipeline | 'Discovered' >> beam.Create(list(discovered)))
             | 'FoundCandidates' >> beam.Flatten())
    candidates = ({'previous': previous_candidates, 'found': found, 'reached': reached}
                  | 'UpdateFrontier' >> UpdateFrontier(number))
    candidates | 'WriteCandidates' >> WriteTable(out, 'candidates')
    return pipeline

"""One crawl round as a Beam pipeline:

    frontier -> Fetch -> Extract -> Score -> UpdateFrontier -> Parquet (fetch_log, pages, links,
                                                                candidates, term_stats)
    (discovery rounds: Discover -> ChooseDiscovered -> frontier, discover_log; then the same)

`build_round` returns the pipeline unrun (the driver runs it and commits the round). It reads
the frontier the driver wrote into the pending round directory, and what it needs of earlier
rounds (the last candidates and term statistics, every URL already requested) from their
committed files; it writes its tables into the pending directory as Beam shards
(`<table>-NNNNN-of-NNNNN.parquet`), which the commit checks against pipelines/schema.py.
This is the one place the stages are wired together.
"""
import collections
import math
import posixpath

import apache_beam as beam
import pyarrow as pa
import pyarrow.compute as pc
from apache_beam.options.pipeline_options import PipelineOptions

from models.discovery import DiscoveryPlan, home_page, outlink_rows
from models.search import LINKGRAPH
from models.settings import CrawlSettings
from models.strategies import RoundContext, Strategy, make_strategy
from models.termstats import TermStats
from pipelines import schema
from pipelines.committed import ReadCommitted
from pipelines.local import new_pipeline
from pipelines.state import CrawlDir, PendingRound
from transforms.discover import LINK_COLUMNS, ChooseDiscovered, Discover
from transforms.extract import Extract, link_columns
from transforms.fetch import Fetch, reached_urls
from transforms.frontier import UpdateFrontier
from transforms.parquet import COLUMNS, ROWS, TABLES, WriteParquet
from transforms.score import Score


class WriteTable(beam.PTransform):
    """Rows -> Parquet shards of one crawl table in a pending round directory (transforms/parquet.py).
    `elements`: ROWS, COLUMNS (each a batch of columns: a page's links, ~100 on a real page) or
    TABLES (pyarrow tables with the table's columns, cast to its schema)."""

    def __init__(self, directory: str, table: str, elements: str = ROWS):
        super().__init__()
        self.directory = directory
        self.table = table
        self.elements = elements

    def expand(self, rows):
        return rows | WriteParquet(posixpath.join(self.directory, self.table), schema.ROUND_TABLES[self.table],
                                   self.elements)


def prior_documents(crawl: CrawlDir, rounds: list[int]) -> int:
    """Pages fetched in these committed rounds (D of WL eq. 3), from their manifests."""
    return sum(crawl.manifest(number)['tables'].get('pages', {}).get('rows', 0) for number in rounds)


def round_context(crawl: CrawlDir, settings: CrawlSettings, number: int) -> RoundContext:
    """What the strategy may read of the rounds committed before round `number` (models/strategies/base.py)."""
    earlier = [r for r in crawl.committed_rounds() if r < number]
    seed_urls = settings.seed_urls()[0]
    seeds = pa.array(seed_urls, pa.string())

    def read(table: str, columns: list[str] | None = None) -> pa.Table:
        parts = [crawl.read_table(table, r, columns=columns) for r in earlier]
        if parts:
            return pa.concat_tables(parts)
        empty = schema.ROUND_TABLES[table]
        return (pa.schema([empty.field(c) for c in columns]) if columns else empty).empty_table()

    def seed_pages(columns: list[str]) -> pa.Table:
        """Every round's page URLs are read, the other columns only of the rounds that fetched a seed."""
        parts = []
        for r in earlier:
            is_seed = pc.is_in(crawl.read_table('pages', r, columns=['url'])['url'], value_set=seeds)
            if pc.any(is_seed).as_py():
                parts.append(crawl.read_table('pages', r, columns=columns).filter(is_seed))
        return pa.concat_tables(parts) if parts else pa.schema([schema.PAGES.field(c) for c in columns]).empty_table()

    def term_stats(terms: set[str]) -> TermStats:
        table = crawl.read_table('term_stats', earlier[-1], columns=['term', 'documents']) if earlier else None
        if table is not None:
            table = table.filter(pc.is_in(table['term'], pa.array(sorted(terms), pa.string())))
        counts = dict(zip(table['term'].to_pylist(), table['documents'].to_pylist())) if table is not None else {}
        return TermStats(prior_documents(crawl, earlier), collections.Counter(counts))

    return RoundContext(number, settings.topic, seed_urls, read, seed_pages, term_stats)


def build_round(options: PipelineOptions, crawl: CrawlDir, pending: PendingRound, settings: CrawlSettings,
                discovered: list[dict] = (), plan: DiscoveryPlan | None = None, count: int = 0,
                progress_path: str | None = None) -> beam.Pipeline:
    """The round `pending.round` of `crawl`, built on the rounds committed before it; `discovered`
    are candidate rows found other than as this round's links (seeds waiting for room). With a
    discovery `plan` the round's `count` URLs come from its Discover stage, which writes the frontier;
    otherwise the driver has written the frontier. Fetch appends a byte per URL to `progress_path`
    (runners/progress.py) when given."""
    number, out = pending.round, pending.uri
    earlier = [r for r in crawl.committed_rounds() if r < number]
    previous = earlier[-1:]
    strategy = make_strategy(settings.strategy, settings.strategy_params)
    strategy.prepare(round_context(crawl, settings, number))
    blocks, words = strategy.needs_blocks, settings.topic.dictionary_words
    pipeline = new_pipeline(options)

    earlier_reached = (pipeline
                       | 'ReadEarlierFetchLog' >> ReadCommitted(crawl, 'fetch_log', earlier,
                                                                columns=['url', 'final_url', 'redirects'])
                       | 'EarlierReachedUrls' >> beam.FlatMap(reached_urls))
    if plan is None:
        frontier = pipeline | 'ReadFrontier' >> beam.io.ReadFromParquet(
            posixpath.join(out, 'frontier.parquet'), columns=['url', 'depth', 'position', 'inherited'])
        fetched = frontier | 'Fetch' >> Fetch(settings.fetch.policy(), number, progress_path)
        fetch_log, extracted = fetched[Fetch.LOG], fetched[Fetch.PAGES] | 'Extract' >> Extract(blocks, words)
    else:
        frontier, fetch_log, extracted = discovery_round(pipeline, crawl, earlier, plan, settings, strategy,
                                                         number, count, earlier_reached, out, progress_path)
        frontier | 'WriteFrontier' >> WriteTable(out, 'frontier')
    fetch_log | 'WriteFetchLog' >> WriteTable(out, 'fetch_log')

    prior_terms = pipeline | 'ReadTermStats' >> ReadCommitted(crawl, 'term_stats', previous, batched=True)
    scored = extracted | 'Score' >> Score(settings.topic, strategy, number, prior_documents(crawl, earlier), prior_terms)
    scored[Score.PAGES] | 'WritePages' >> WriteTable(out, 'pages')
    scored[Score.LINKS] | 'WriteLinks' >> WriteTable(out, 'links', COLUMNS)
    scored[Score.TERM_STATS] | 'WriteTermStats' >> WriteTable(out, 'term_stats', TABLES)

    reached = ((earlier_reached, fetch_log | 'ReachedUrls' >> beam.FlatMap(reached_urls))
               | 'AllReachedUrls' >> beam.Flatten())
    previous_candidates = pipeline | 'ReadCandidates' >> ReadCommitted(crawl, 'candidates', previous, batched=True)
    candidates = ({'previous': previous_candidates, 'found': scored[Score.FOUND],
                   'waiting': pipeline | 'Discovered' >> beam.Create(list(discovered)), 'reached': reached}
                  | 'UpdateFrontier' >> UpdateFrontier(number, schema.CANDIDATES))
    candidates | 'WriteCandidates' >> WriteTable(out, 'candidates', TABLES)
    return pipeline


def hub_outlink_rows(page: dict) -> list[dict]:
    """A fetched hub page's outlinks as BC's found rows (models.discovery.outlink_rows)."""
    links = link_columns(page['links'])
    return outlink_rows(page['final_url'], page['position'],
                        [(url, block, index) for index, (url, block) in enumerate(zip(links['url'], links['block']))],
                        'BC')


def discovery_round(pipeline, crawl: CrawlDir, earlier: list[int], plan: DiscoveryPlan, settings: CrawlSettings,
                    strategy: Strategy, number: int, count: int, earlier_reached, out: str,
                    progress_path: str | None = None):
    """The Discover stage and what it fetches: (frontier rows, fetch-log rows, extracted pages).
    BC through a search provider fetches in two waves: the backlink pages (hubs, at most
    plan.hub_share of the round), then the hubs' outlinks; every other operator fetches what it found."""
    policy, blocks, words, strategy = (settings.fetch.policy(), strategy.needs_blocks,
                                       settings.topic.dictionary_words, strategy.name)
    links = pipeline | 'ReadEarlierLinks' >> ReadCommitted(crawl, 'links', earlier, columns=LINK_COLUMNS, batched=True)
    discovered = links | 'Discover' >> Discover(plan, number, settings.fetch.proxy)
    discovered[Discover.LOG] | 'WriteDiscoverLog' >> WriteTable(out, 'discover_log')
    if plan.site_mode:  # DISCO: one page, the home page, of each site not seen before
        discovered = {Discover.FOUND: discovered[Discover.FOUND] | 'HomePages' >> beam.Map(
            lambda row: {**row, 'url': home_page(row['url'])})}
        earlier_reached = ((earlier_reached, earlier_reached | 'ReachedSites' >> beam.Map(home_page))
                           | 'ReachedAndTheirSites' >> beam.Flatten())
    if plan.operator != 'BC' or plan.provider == LINKGRAPH or plan.site_mode:  # no hubs to fetch first
        frontier = ({'found': discovered[Discover.FOUND], 'reached': earlier_reached}
                    | 'ChooseDiscovered' >> ChooseDiscovered(count, number, strategy))
        fetched = frontier | 'Fetch' >> Fetch(policy, number, progress_path)
        return frontier, fetched[Fetch.LOG], fetched[Fetch.PAGES] | 'Extract' >> Extract(blocks, words)
    hubs = ({'found': discovered[Discover.FOUND], 'reached': earlier_reached}
            | 'ChooseHubs' >> ChooseDiscovered(max(1, math.floor(count * plan.hub_share)), number, strategy))
    hub_fetch = hubs | 'FetchHubs' >> Fetch(policy, number, progress_path)
    hub_pages = hub_fetch[Fetch.PAGES] | 'ExtractHubs' >> Extract(blocks, words)
    hub_outlinks = hub_pages | 'HubOutlinks' >> beam.FlatMap(hub_outlink_rows)
    known = ((earlier_reached, hubs | 'HubUrls' >> beam.Map(lambda row: row['url']),
              hub_fetch[Fetch.LOG] | 'HubsReached' >> beam.FlatMap(reached_urls))
             | 'KnownAfterHubs' >> beam.Flatten())
    outlinks = ({'found': hub_outlinks, 'reached': known}
                | 'ChooseHubOutlinks' >> ChooseDiscovered(count, number, strategy,
                                                          hubs | 'CountHubs' >> beam.combiners.Count.Globally()))
    fetched = outlinks | 'Fetch' >> Fetch(policy, number, progress_path)
    return ((hubs, outlinks) | 'AllFetched' >> beam.Flatten(),
            (hub_fetch[Fetch.LOG], fetched[Fetch.LOG]) | 'AllFetchLogs' >> beam.Flatten(),
            (hub_pages, fetched[Fetch.PAGES] | 'Extract' >> Extract(blocks, words)) | 'AllPages' >> beam.Flatten())

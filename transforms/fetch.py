"""Fetch: each host's batch of URLs fetched in turn by one worker, politely, several hosts at
once (models.fetch)."""
import datetime
import logging
import time

import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.transforms.window import GlobalWindows

from models.fetch import OUTCOMES, FetchPolicy, Fetcher, HostFetchPool
from models.urls import host_of

PROGRESS_SECONDS = 10.0
log = logging.getLogger(__name__)


class FetchHostBatchFn(beam.DoFn):
    """(host, frontier rows) -> one fetch-log row per attempt; fetched HTML pages on 'pages'.

    One host's URLs go to one worker, so the per-host delay and robots.txt cache hold without
    coordination between workers. A worker fetches up to policy.hosts_at_once of its bundle's hosts at
    once (a thread each, one request at a time per host) and yields each result from the bundle's
    thread as it arrives, so the stages fused after Fetch (extraction) run while the other hosts'
    requests wait on the network and on their delay. A page carries its frontier row's depth,
    position and inherited value, which Score passes on.
    """

    def __init__(self, policy: FetchPolicy, round_number: int, progress_path: str | None = None):
        self.policy = policy
        self.round = round_number
        self.progress_path = progress_path
        self.outcomes = {outcome: Metrics.counter(self.__class__, outcome) for outcome in OUTCOMES}

    def setup(self):
        self.fetcher = Fetcher(self.policy)
        self.pool = HostFetchPool(self.fetcher.fetch, self.policy.hosts_at_once)
        self.fetched = 0
        self.last_report = time.monotonic()
        self.progress = None
        if self.progress_path:
            try:
                self.progress = open(self.progress_path, 'ab', buffering=0)
            except OSError:
                pass  # a worker whose disk will not take the file (a remote one, say): no display, same fetch

    def teardown(self):
        self.pool.close()
        self.fetcher.close()
        if self.progress:
            self.progress.close()

    def start_bundle(self):
        if self.pool.outstanding:  # a failed bundle's fetches, if the runner reuses this instance
            self.pool.close()
            self.pool = HostFetchPool(self.fetcher.fetch, self.policy.hosts_at_once)

    def process(self, host_batch):
        _, frontier_rows = host_batch
        self.pool.submit(sorted(frontier_rows, key=lambda row: row['position']), lambda row: row['url'])
        yield from self._outputs(wait=False)

    def finish_bundle(self):
        for output in self._outputs(wait=True):
            if isinstance(output, beam.pvalue.TaggedOutput):
                yield beam.pvalue.TaggedOutput(output.tag, GlobalWindows.windowed_value_at_end_of_window(output.value))
            else:
                yield GlobalWindows.windowed_value_at_end_of_window(output)

    def _outputs(self, wait: bool):
        """The log rows and pages of the URLs fetched so far (or of all the bundle's, waiting)."""
        for chosen, result in self.pool.completed(wait):
            self.outcomes[result.outcome].inc()
            for attempt in result.attempts:
                yield {'round': self.round, 'url': result.url, 'attempt': attempt.attempt,
                       'outcome': attempt.outcome, 'http_status': attempt.http_status,
                       'final_url': attempt.final_url, 'redirects': attempt.redirects,
                       'content_type': attempt.content_type, 'bytes': attempt.bytes,
                       'started_at': attempt.started_at, 'elapsed_ms': attempt.elapsed_ms,
                       'error': attempt.error}
            if result.outcome == 'ok':
                yield beam.pvalue.TaggedOutput(Fetch.PAGES, {
                    'url': result.url, 'final_url': result.final.final_url,
                    'host': host_of(result.final.final_url), 'body': result.body,
                    'content_type': result.final.content_type, 'depth': chosen['depth'],
                    'position': chosen['position'], 'inherited': chosen['inherited'],
                    'fetched_at': result.final.started_at or datetime.datetime.now(datetime.timezone.utc)})
            self._report_progress()

    def _report_progress(self):
        """A byte per URL to the driver's progress file (runners/progress.py) when it has one, and a
        line now and then on long rounds (DirectRunner shows it; cluster workers log it)."""
        if self.progress:
            try:
                self.progress.write(b'.')
            except OSError:
                self.progress = None  # a full disk, say: the display is not worth failing a fetch for
        self.fetched += 1
        if time.monotonic() - self.last_report >= PROGRESS_SECONDS:
            self.last_report = time.monotonic()
            log.warning('round %d: this worker has fetched %d URLs so far', self.round, self.fetched)


class Fetch(beam.PTransform):
    """Frontier rows -> {'log': a fetch-log row per attempt, 'pages': fetched HTML pages}."""
    LOG, PAGES = 'log', 'pages'

    def __init__(self, policy: FetchPolicy, round_number: int, progress_path: str | None = None):
        super().__init__()
        self.policy = policy
        self.round = round_number
        self.progress_path = progress_path

    def expand(self, frontier):
        fetched = (frontier
                   | 'KeyByHost' >> beam.Map(lambda row: (host_of(row['url']), row))
                   | 'GroupByHost' >> beam.GroupByKey()
                   | 'FetchHostBatch' >> beam.ParDo(FetchHostBatchFn(self.policy, self.round, self.progress_path))
                   .with_outputs(self.PAGES, main=self.LOG))
        return {self.LOG: fetched[self.LOG], self.PAGES: fetched[self.PAGES]}


def reached_urls(log_row: dict):
    """Every URL a fetch attempt requested or was redirected through: none is a candidate again."""
    yield log_row['url']
    if log_row['final_url']:
        yield log_row['final_url']
    yield from log_row['redirects'] or ()

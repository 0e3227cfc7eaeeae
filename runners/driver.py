"""The round driver: select -> run the round pipeline -> commit -> learn, until the budget is spent.

All the driver knows is in the crawl directory: crawl.json (the settings) and the committed
rounds. Starting, resuming after a crash and running one round per invocation (a scheduler's
batch job) are the same loop: replay the committed rounds into the strategy, then go on.
A round is committed whole or discarded whole, also on Ctrl-C.
"""
import collections
import dataclasses
import sys
import time

import pyarrow.compute as pc
from apache_beam.options.pipeline_options import PipelineOptions

from models.fetch import FetchPolicy
from models.strategies import STRATEGIES, FoundLink, FrontierStrategy
from models.termstats import TermStats
from models.topic import Topic, topic_from_dict
from models.urls import UrlError, host_of, normalize_url
from pipelines.round import build_round
from pipelines.state import CrawlDir, final_outcomes

RELEVANT = 0.05  # relevance (a cosine) at which the progress line counts a page as judged relevant
NOT_REQUESTED = ('robots_disallowed', 'policy_refused')  # refused before any request: not in the budget


class CrawlError(Exception):
    """The crawl cannot go on as asked; the message says what to do."""


@dataclasses.dataclass
class RoundReport:
    round: int
    fetched: int
    outcomes: dict
    judged_relevant: int
    new_hosts: int
    seconds: float

    def line(self) -> str:
        outcomes = ', '.join(f'{k} {v}' for k, v in sorted(self.outcomes.items(), key=lambda i: -i[1]))
        return (f'round {self.round}: fetched {self.fetched} ({outcomes}); judged relevant '
                f'{self.judged_relevant}; new hosts {self.new_hosts}; {self.seconds:.1f} s')


def fetch_policy(config: dict) -> FetchPolicy:
    return FetchPolicy(host_delay=config['delay'], proxy=config.get('proxy'),
                       read_timeout=config['timeout'], total_timeout=3 * config['timeout'],
                       allowed_hosts=frozenset(config.get('allow_hosts', [])),
                       connect_timeout=min(5.0, config['timeout']))


class Driver:
    def __init__(self, crawl: CrawlDir, beam_args: list[str], progress=print):
        self.crawl = crawl
        self.config = crawl.config
        self.beam_args = beam_args
        self.progress = progress
        self.topic: Topic = topic_from_dict(self.config['topic'], source=f'{crawl.root}/crawl.json')
        self.strategy: FrontierStrategy = STRATEGIES[self.config['strategy']]()
        self.requested: set[str] = set()
        self.hosts: set[str] = set()
        self.stats = TermStats()
        for number in crawl.committed_rounds():
            self._learn(number)

    def _learn(self, number: int) -> dict:
        """Replay one committed round into the strategy, the seen-set and the term statistics."""
        log = self.crawl.read_table('fetch_log', number)
        pages = self.crawl.read_table('pages', number)
        links = self.crawl.read_table('links', number)
        final = final_outcomes(log)
        self.requested |= {url for url, outcome in final.items() if outcome not in NOT_REQUESTED}
        fetched = set(final) | {u for u in log.column('final_url').to_pylist() if u}
        found = [FoundLink(s, d, p) for s, d, p in zip(links.column('url').to_pylist(),
                                                      links.column('dst').to_pylist(),
                                                      links.column('predicted_relevance').to_pylist())]
        self.strategy.update(number, fetched, found)
        terms = pages.column('terms')
        self.stats.documents += len(pages)
        if len(pages):
            counts = pc.value_counts(pc.list_flatten(terms))
            self.stats.document_frequency.update(dict(zip(counts.field('values').to_pylist(),
                                                          counts.field('counts').to_pylist())))
        new_hosts = {host_of(u) for u in pages.column('final_url').to_pylist()} - self.hosts
        self.hosts |= new_hosts
        return {'fetched': len(final), 'outcomes': collections.Counter(final.values()),
                'judged_relevant': sum(r >= RELEVANT for r in pages.column('relevance').to_pylist()),
                'new_hosts': len(new_hosts)}

    @property
    def pages_fetched(self) -> int:
        """URLs requested so far, whatever the answer: what the budget counts. URLs refused before
        any request (robots.txt, address policy) are recorded but cost nothing."""
        return len(self.requested)

    def _frontier(self, number: int, count: int) -> list[dict]:
        if number == 1:
            rows, seen = [], set()
            for seed in self.config['seeds']:
                try:
                    url = normalize_url(seed)
                except UrlError as error:
                    self.progress(f'warning: seed skipped: {error}')
                    continue
                if url not in seen:
                    seen.add(url)
                    rows.append({'url': url, 'operator': 'seed', 'priority': 1.0, 'parent_url': None})
            return [dict(row, round=number, strategy=self.strategy.name, depth=-1) for row in rows[:count]]
        return [{'round': number, 'url': c.url, 'strategy': self.strategy.name, 'operator': 'link',
                 'priority': c.priority, 'depth': c.depth, 'parent_url': c.parent_url}
                for c in self.strategy.select(count)]

    def run(self, max_rounds: int | None = None) -> int:
        budget, rounds_run = self.config['budget'], 0
        while self.pages_fetched < budget and (max_rounds is None or rounds_run < max_rounds):
            number = (self.crawl.last_committed_round() or 0) + 1
            frontier = self._frontier(number, min(self.config['round_size'], budget - self.pages_fetched))
            if not frontier:
                print(f'focal: the frontier is empty after round {number - 1}, with {self.pages_fetched} of '
                      f'{budget} pages fetched: no unfetched link is left. Add seeds (more, or from other '
                      'sites), allow more hosts, or look for robots refusals and errors with `focal inspect`.',
                      file=sys.stderr)
                return 0
            self._run_round(number, frontier)
            rounds_run += 1
        if self.pages_fetched >= budget:
            self.progress(f'budget of {budget} pages spent: {self.pages_fetched} URLs requested in '
                          f'{len(self.crawl.committed_rounds())} rounds')
        return 0

    def _run_round(self, number: int, frontier: list[dict]) -> None:
        started = time.monotonic()
        pending = self.crawl.begin(number)
        try:
            pending.write_table('frontier', frontier)
            options = PipelineOptions(self.beam_args or ['--runner=DirectRunner'])
            pipeline = build_round(options, pending.path, number, self.topic, self.stats,
                                   fetch_policy(self.config))
            pipeline.run().wait_until_finish()
            pending.commit()
        except BaseException:
            pending.discard()
            raise
        report = self._learn(number)
        self.progress(RoundReport(number, report['fetched'], dict(report['outcomes']), report['judged_relevant'],
                                  report['new_hosts'], time.monotonic() - started).line())


def new_crawl_config(topic: Topic, seeds: list[str], strategy: str, budget: int, round_size: int,
                     delay: float, timeout: float, proxy: str | None, allow_hosts: list[str],
                     task: dict | None) -> dict:
    if strategy not in STRATEGIES:
        raise CrawlError(f'unknown strategy {strategy!r}: choose one of {", ".join(STRATEGIES)}')
    if not seeds:
        raise CrawlError('no seed URLs: give --seeds FILE (one URL a line) or a task/topic with seeds')
    return {'topic': {'name': topic.name, 'language': topic.language, 'keywords': topic.keywords,
                      'seeds': seeds, 'description': topic.description},
            'seeds': seeds, 'strategy': strategy, 'budget': budget, 'round_size': round_size,
            'delay': delay, 'timeout': timeout, 'proxy': proxy, 'allow_hosts': allow_hosts, 'task': task,
            'python': sys.version.split()[0]}

"""Every setting of a crawl in one object, with its defaults in one place.

`CrawlSettings` is what `focal crawl`, `focal demo` and the benchmarks build, what crawl.json
stores (`to_dict` / `from_dict`), and what the driver and the round pipeline read. A resumed
crawl reads it back, so it runs with the same strategy, parameters, fetch policy, random seed
and Beam runner as the rounds before it.
"""
import dataclasses
import sys

from models import ranking_options
from models.pagerank import AUTO, MODES as PAGERANK_MODES
from models.fetch import FetchPolicy
from models.topic import Topic, topic_from_dict
from models.urls import UrlError, normalize_url

DEFAULT_BUDGET = 1000
DEFAULT_ROUND_SIZE = 100
DEFAULT_STRATEGY = 'best-first'
DEFAULT_DELAY = 1.0
DEFAULT_TIMEOUT = 10.0
DEFAULT_HOSTS_AT_ONCE = FetchPolicy.hosts_at_once
DEFAULT_HOST_TIMEOUTS = FetchPolicy.host_timeouts
DEFAULT_RANDOM_SEED = 0


class SettingsError(ValueError):
    """Settings that cannot run a crawl; the message says what to change."""


@dataclasses.dataclass
class FetchSettings:
    """Politeness and limits of every request (models.fetch.FetchPolicy is built from these)."""
    delay: float = DEFAULT_DELAY        # seconds between requests to one host
    timeout: float = DEFAULT_TIMEOUT    # read timeout; a whole response gets three times this
    proxy: str | None = None            # e.g. the sandbox server: http://127.0.0.1:8642
    allow_hosts: list[str] = dataclasses.field(default_factory=list)  # private/loopback hosts allowed
    hosts_at_once: int = DEFAULT_HOSTS_AT_ONCE  # hosts each worker fetches at the same time
    host_timeouts: int = DEFAULT_HOST_TIMEOUTS  # timeouts in a row that give a host up for the round; 0: never

    def __post_init__(self):
        if not isinstance(self.hosts_at_once, int) or self.hosts_at_once < 1:
            raise SettingsError(f'hosts at once {self.hosts_at_once!r}: give a whole number of 1 or more')
        if not isinstance(self.host_timeouts, int) or self.host_timeouts < 0:
            raise SettingsError(f'host timeouts {self.host_timeouts!r}: give a whole number of 0 (never give a '
                                'host up) or more')

    def policy(self) -> FetchPolicy:
        return FetchPolicy(host_delay=self.delay, proxy=self.proxy, read_timeout=self.timeout,
                           total_timeout=3 * self.timeout, connect_timeout=min(5.0, self.timeout),
                           allowed_hosts=frozenset(self.allow_hosts), hosts_at_once=self.hosts_at_once,
                           host_timeouts=self.host_timeouts)


@dataclasses.dataclass
class RankSettings:
    """How the rank step ranks the pages found (models/ranking.py, transforms/pagerank.py)."""
    alpha: float = ranking_options.DEFAULT_ALPHA                # PageRank's share in the combination (DWDBRM eq. 8: 0.2)
    combination: str = ranking_options.DEFAULT_COMBINATION      # eq8, mean or rrf
    pagerank: str = AUTO                                # local (scipy on one worker), beam, or auto by graph size
    negatives: str | None = None                        # a file of negative example URLs or pages for LR

    def __post_init__(self):
        try:
            ranking_options.check_combination(self.combination, self.alpha)
        except ranking_options.RankingError as error:
            raise SettingsError(str(error)) from None
        if self.pagerank not in PAGERANK_MODES:
            raise SettingsError(f'PageRank mode {self.pagerank!r}: choose one of {", ".join(PAGERANK_MODES)}')


@dataclasses.dataclass
class CrawlSettings:
    topic: Topic
    seeds: list[str]
    strategy: str = DEFAULT_STRATEGY
    strategy_params: dict = dataclasses.field(default_factory=dict)  # the strategy's defaults filled in
    budget: int = DEFAULT_BUDGET            # URLs requested (robots and policy refusals cost nothing)
    round_size: int = DEFAULT_ROUND_SIZE    # URLs chosen per round
    random_seed: int = DEFAULT_RANDOM_SEED  # seeds the strategy's random generator (selector state)
    fetch: FetchSettings = dataclasses.field(default_factory=FetchSettings)
    beam_args: list[str] = dataclasses.field(default_factory=list)  # e.g. ['--runner=DirectRunner']
    rank: RankSettings = dataclasses.field(default_factory=RankSettings)
    task: dict | None = None                # sandbox task the crawl is judged by: file, label, relevant_column

    def __post_init__(self):
        from models.strategies import strategy_class  # the registry imports settings' neighbours
        if not self.seeds:
            raise SettingsError('no seed URLs: give --seeds FILE (one URL a line) or a task/topic with seeds')
        if self.budget < 1 or self.round_size < 1:
            raise SettingsError(f'budget and round size must be 1 or more (got {self.budget}, {self.round_size})')
        self.strategy_params = strategy_class(self.strategy).complete_params(self.strategy_params)

    def seed_urls(self) -> tuple[list[str], list[str]]:
        """The seeds normalised, each once, in the order given; and why any was skipped."""
        urls, skipped = {}, []  # a dict keeps the order: a list's `in` made 2,000 seeds cost 0.05 s
        for seed in self.seeds:
            try:
                urls.setdefault(normalize_url(seed))
            except UrlError as error:
                skipped.append(str(error))
        return list(urls), skipped

    def to_dict(self) -> dict:
        document = dataclasses.asdict(self)
        document['topic'] = {'name': self.topic.name, 'language': self.topic.language,
                             'keywords': self.topic.keywords, 'seeds': self.topic.seeds,
                             'description': self.topic.description}
        document['python'] = sys.version.split()[0]
        return document

    @classmethod
    def from_dict(cls, data: dict, source: str = 'crawl.json') -> 'CrawlSettings':
        known = {field.name for field in dataclasses.fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        try:
            values['topic'] = topic_from_dict(data['topic'], source=source)
            values['fetch'] = FetchSettings(**data.get('fetch', {}))
            values['rank'] = RankSettings(**data.get('rank', {}))
            return cls(**values)
        except (KeyError, TypeError) as error:
            raise SettingsError(f'{source} does not hold the settings of a crawl ({error}): '
                                'was it written by this Focal release?') from None

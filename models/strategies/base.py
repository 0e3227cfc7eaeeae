"""The strategy interface every crawling strategy fits (best-first, BFS, and the seed papers').

A strategy is two pure pieces and a state:

* `score_page(page, relevance)` and `score_link(link, parent, relevance)` run inside the round
  pipeline's Score stage: the page's relevance in the strategy's paper's sense and whether it is
  judged relevant, then for each outlink the link's priority, depth budget and carried value (or
  None: the strategy does not want the link in its frontier). The stage asks for a page's links
  at once (`score_links`: score_link for each, or the strategy's own columns). They see only the
  page and its links, so they run on any worker; what they need of earlier rounds (the
  judgment's threshold, a dictionary) `prepare(context)` reads before the round is built.
* `choose(candidates, k, state, rng, context)` runs in the driver between rounds on the committed
  candidates table (pipelines/schema.py CANDIDATES) and returns the rows it fetches next and its
  new state. It works on columns (pyarrow), never a Python sort of the whole pool.
* The state is a JSON-able dict committed with the round (selector/NNNNNN.json) together with
  the random generator's state, so a resumed crawl chooses exactly as an uninterrupted one.
"""
import dataclasses
import math
import statistics
from typing import Callable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from models.relevance import TopicRelevance
from models.termstats import TermStats
from models.topic import Topic

NO_DEPTH = -1  # the depth column of strategies that keep no depth budget
UNLIMITED_DEPTH = 2 ** 31 - 1  # DTH's k = infinity (the depth column is int32; merging keeps the largest)
# A page is judged relevant when its relevance reaches this share of the seed pages' median
# relevance (both on the strategy's own relevance scale, with the crawl's latest statistics). The
# seeds taught the topic its words, so they score far above other relevant pages; the shares
# were chosen for the best F1 against the labels of 300-page crawls of the sandbox's 房产 task
# only (the other tasks are held out), README "The link-level strategies".
RELEVANT_SHARE = {'vsm': 0.05, 'dth-eq1': 0.15, 'wl-eq4': 0.2}

# (terms, kind) -> relevance to the crawl's topic (models.relevance.TopicRelevance; kind 'vsm',
# 'wl-eq4' or 'dth-eq1'). It knows the document frequencies of the page's and its links' words
# only (what the round looks up), so give it words of the page and its links.
Relevance = TopicRelevance


class StrategyError(ValueError):
    """A strategy or parameter that does not exist; the message lists what does."""


@dataclasses.dataclass(frozen=True)
class RoundContext:
    """What a strategy may read of the committed rounds before round `round` (built by
    pipelines/state.py CrawlDir.round_context): every committed round's rows of a table, the last
    round's (candidates, term_stats), and the crawl's document statistics for some terms."""
    round: int
    topic: Topic
    seeds: Sequence[str]                                  # normalised seed URLs
    read: Callable[[str, list[str] | None], pa.Table]     # (table, columns) over every committed round
    seed_pages: Callable[[list[str]], pa.Table]           # (columns) of the committed pages requested as seeds
    term_stats: Callable[[set[str]], TermStats]           # D and D_i of these terms after the last round


@dataclasses.dataclass(frozen=True)
class PageFeatures:
    """A fetched page as the Score stage sees it."""
    url: str                       # as requested (a seed is known by it)
    final_url: str
    terms: Mapping[str, int]       # index terms of the title and main text -> occurrences, in order of first occurrence
    blocks: Sequence[tuple[str, Sequence[str]]]  # (class, terms) of each content and related block (needs_blocks)
    depth: int                     # the depth budget it was fetched with
    inherited: float | None        # the value the link that reached it carried (LinkScore.inherited)


@dataclasses.dataclass(frozen=True)
class PageScore:
    relevance: float               # the page's relevance in the strategy's paper's sense
    relevant: bool                 # judged relevant (the calibrated judgment)
    blocks: tuple = ()             # relevance of each of PageFeatures.blocks, when the strategy scores them


@dataclasses.dataclass(frozen=True)
class ParentPage:
    """What a link inherits from the page it was found on."""
    url: str              # the page's final URL
    relevance: float      # the page's relevance to the topic
    depth: int            # the depth budget the page was fetched with (its frontier row)
    position: int         # the page's place in its round's frontier (0 = chosen first)
    relevant: bool = False          # the page was judged relevant
    inherited: float | None = None  # what the link that reached the page carried
    blocks: tuple = ()              # PageScore.blocks


class LinkFeatures(NamedTuple):
    """An outlink as a strategy's score_link sees it: its words and their relevance, kept apart."""
    url: str
    anchor: str
    block: str                        # content, related, navigation or noise (SSAPS blocks)
    anchor_terms: Sequence[str]
    context_terms: Sequence[str]      # empty outside content and related blocks
    url_terms: Sequence[str]
    anchor_relevance: float
    context_relevance: float
    url_relevance: float
    block_index: int | None = None    # its block's place in PageFeatures.blocks (content or related blocks)


class LinkBatch(NamedTuple):
    """A page's outlinks as columns: a sequence per LinkFeatures field, a value per link in document
    order. The Score stage hands a strategy a page's links at once (score_links): a LinkFeatures and
    a call per link (~100 a real page) were most of the stage."""
    url: Sequence[str]
    anchor: Sequence[str]
    block: Sequence[str]
    anchor_terms: Sequence[Sequence[str]]
    context_terms: Sequence[Sequence[str]]
    url_terms: Sequence[Sequence[str]]
    anchor_relevance: Sequence[float]
    context_relevance: Sequence[float]
    url_relevance: Sequence[float]
    block_index: Sequence[int | None]

    @classmethod
    def of(cls, links: Sequence[LinkFeatures]) -> 'LinkBatch':
        return cls(*zip(*links)) if links else cls(*([()] * len(cls._fields)))

    def rows(self) -> Iterator[LinkFeatures]:
        return map(LinkFeatures._make, zip(*self))


class _LinkScoreFields(NamedTuple):
    priority: float
    depth: int = NO_DEPTH
    inherited: float | None = None    # carried to the page the link leads to (PageFeatures.inherited)


class LinkScore(_LinkScoreFields):
    """A link's priority, depth budget and carried value. A named tuple, not a frozen dataclass:
    score_link makes one per link (~100 a real page), and a frozen dataclass with its check took
    twice as long to make (0.64 against 0.34 µs)."""
    __slots__ = ()

    def __new__(cls, priority: float, depth: int = NO_DEPTH, inherited: float | None = None):
        _check_priority(priority)
        return tuple.__new__(cls, (priority, depth, inherited))


def _check_priority(priority) -> None:
    """A NaN would sort as the best or worst candidate depending on the sort: a priority is refused
    where it is made. The comparison is False for NaN and the infinities (the float test first: fast)."""
    if not (priority.__class__ is float and -math.inf < priority < math.inf) and not (
            isinstance(priority, (int, float)) and math.isfinite(priority)):
        raise StrategyError(f'a link priority must be a finite number, not {priority!r}: fix the strategy\'s '
                            'score_link (return None to drop a link) or score_links (a priority of None drops it)')


class LinkScores(NamedTuple):
    """score_links' answer for a LinkBatch, a value per link: its priority (None: the strategy does
    not keep the link), depth budget and carried value (LinkScore's fields)."""
    priority: Sequence[float | None]
    depth: Sequence[int]
    inherited: Sequence[float | None]

    @classmethod
    def of(cls, scores: Sequence[LinkScore | None]) -> 'LinkScores':
        kept = [score or _DROPPED for score in scores]
        return cls([score.priority for score in kept], [score.depth for score in kept],
                    [score.inherited for score in kept])

    def checked(self) -> 'LinkScores':
        """These scores, when every priority kept is a finite number (LinkScore's rule, for
        strategies that compute their columns without a LinkScore per link)."""
        for priority in self.priority:
            if priority is not None:
                _check_priority(priority)
        return self


_DROPPED = tuple.__new__(LinkScore, (None, NO_DEPTH, None))  # LinkScores.of's values of a link score_link dropped


class Strategy:
    """Base class: subclasses set `name` and `defaults`, and implement score_link and choose."""
    name = ''
    defaults: dict = {}
    needs_ranking = False  # True: the driver ranks the pages found (ranks/NNNNNN) after every round
    discovers = False      # True: rounds come from plan() and the Discover stage, not choose()
    needs_blocks = False   # True: Extract tokenises each content and related block (PageFeatures.blocks)
    randomised = False     # True: choose() draws from its random generator (a bench repeats it per random seed)
    relevance_kind = 'vsm'  # the page relevance of the strategy's paper (models.relevance)
    summary = ''           # one line for `focal crawl --help`

    def __init__(self, params: dict | None = None):
        self.params = self.complete_params(params or {})
        self.seeds: frozenset = frozenset()
        self.threshold: float | None = None  # of the relevant-page judgment; set by prepare()

    @classmethod
    def complete_params(cls, params: dict) -> dict:
        """The parameters with every default filled in, also inside a table such as a share per block
        (giving one block's share keeps the others'); an unknown name is an error."""
        unknown = sorted(set(params) - set(cls.defaults))
        if unknown:
            known = ', '.join(cls.defaults) or 'none'
            raise StrategyError(f'strategy {cls.name} has no parameter {", ".join(unknown)} (its parameters: {known})')
        return {name: {**default, **params.get(name, {})} if isinstance(default, dict) else params.get(name, default)
                for name, default in cls.defaults.items()}

    def seed_depth(self) -> int:
        """The depth budget a seed URL starts with."""
        return NO_DEPTH

    def initial_state(self) -> dict:
        return {}

    def prepare(self, context: RoundContext) -> None:
        """Read what scoring round `context.round` needs of the earlier rounds: the seeds, and the
        threshold of the relevant-page judgment (RELEVANT_SHARE of the seed pages' median
        relevance, recomputed with the latest statistics; none before a seed page is fetched)."""
        self.seeds = frozenset(context.seeds)
        self.threshold = None
        seeds = context.seed_pages(['terms', 'term_counts'])
        if not seeds.num_rows:
            return
        pages = [dict(zip(terms, counts)) for terms, counts in zip(seeds['terms'].to_pylist(),
                                                                    seeds['term_counts'].to_pylist())]
        relevance = TopicRelevance(context.topic, context.term_stats({t for page in pages for t in page}))
        median = statistics.median(relevance(page, self.relevance_kind) for page in pages)
        self.threshold = self.params.get('relevant_share', RELEVANT_SHARE[self.relevance_kind]) * median

    def judged_relevant(self, url: str, relevance: float) -> bool:
        """A seed page is relevant (the user gave it as an example); another page when its
        relevance reaches the threshold `prepare` calibrated."""
        return url in self.seeds or (self.threshold is not None and relevance >= self.threshold and relevance > 0)

    def score_page(self, page: PageFeatures, relevance: Relevance) -> PageScore:
        value = relevance(page.terms, self.relevance_kind)
        return PageScore(value, self.judged_relevant(page.url, value))

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore | None:
        raise NotImplementedError

    def score_links(self, links: LinkBatch, parent: ParentPage, relevance: Relevance) -> LinkScores:
        """A page's outlinks at once, as the Score stage asks: score_link for each, unless the
        strategy computes the columns at once itself (best-first)."""
        return LinkScores.of([self.score_link(link, parent, relevance) for link in links.rows()])

    def choose(self, candidates: pa.Table, k: int, state: dict, rng: np.random.Generator,
               context: RoundContext | None = None) -> tuple[pa.Table, dict]:
        raise NotImplementedError


def top_k(candidates: pa.Table, k: int, sort_keys: list[tuple[str, str]]) -> pa.Table:
    """The first k rows in sort_keys order (a partial selection, then a sort of those k only).
    sort_keys must end in a unique column (the URL) so that ties never depend on row order."""
    if k <= 0 or candidates.num_rows == 0:
        return candidates.slice(0, 0)
    if k < candidates.num_rows:
        candidates = candidates.take(pc.select_k_unstable(candidates, k=k, sort_keys=sort_keys))
    return candidates.sort_by(sort_keys)

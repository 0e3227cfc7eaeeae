"""The strategy interface every crawling strategy fits (best-first, BFS, and the seed papers').

A strategy is two pure pieces and a state:

* `score_link(link, parent, relevance)` runs inside the round pipeline's Score stage, once per
  outlink of every fetched page, and gives the link's priority and depth budget (or None: the
  strategy does not want the link in its frontier). It sees only the link's features and its
  parent page's, so it runs on any worker.
* `choose(candidates, k, state, rng)` runs in the driver between rounds on the committed
  candidates table (pipelines/schema.py CANDIDATES) and returns the rows it fetches next and its
  new state. It works on columns (pyarrow), never a Python sort of the whole pool.
* The state is a JSON-able dict committed with the round (selector/NNNNNN.json) together with
  the random generator's state, so a resumed crawl chooses exactly as an uninterrupted one.
"""
import dataclasses
import math
from typing import Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

NO_DEPTH = -1  # the depth column of strategies that keep no depth budget

# terms -> relevance to the crawl's topic. It knows the document frequencies of the page's and its
# links' words only (what the round looks up), so give it words of the page and its links.
Relevance = Callable[[Sequence[str]], float]


class StrategyError(ValueError):
    """A strategy or parameter that does not exist; the message lists what does."""


@dataclasses.dataclass(frozen=True)
class ParentPage:
    """What a link inherits from the page it was found on."""
    url: str              # the page's final URL
    relevance: float      # the page's relevance to the topic
    depth: int            # the depth budget the page was fetched with (its frontier row)
    position: int         # the page's place in its round's frontier (0 = chosen first)


@dataclasses.dataclass(frozen=True)
class LinkFeatures:
    """An outlink as the Score stage sees it: its words and their relevance, kept apart."""
    url: str
    anchor: str
    block: str                        # content, related, navigation or noise (SSAPS blocks)
    anchor_terms: Sequence[str]
    context_terms: Sequence[str]      # empty outside content and related blocks
    url_terms: Sequence[str]
    anchor_relevance: float
    context_relevance: float
    url_relevance: float


@dataclasses.dataclass(frozen=True)
class LinkScore:
    priority: float
    depth: int = NO_DEPTH

    def __post_init__(self):
        # A NaN would sort as the best or worst candidate depending on the sort; refuse it where it is made.
        if not isinstance(self.priority, (int, float)) or not math.isfinite(self.priority):
            raise StrategyError(f'a link priority must be a finite number, not {self.priority!r}: '
                                'fix the strategy\'s score_link (return None to drop a link)')


class Strategy:
    """Base class: subclasses set `name` and `defaults`, and implement score_link and choose."""
    name = ''
    defaults: dict = {}
    needs_ranking = False  # True: the driver ranks the pages found (ranks/NNNNNN) after every round
    discovers = False      # True: rounds come from plan() and the Discover stage, not choose()


    def __init__(self, params: dict | None = None):
        self.params = self.complete_params(params or {})

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

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore | None:
        raise NotImplementedError

    def choose(self, candidates: pa.Table, k: int, state: dict,
               rng: np.random.Generator) -> tuple[pa.Table, dict]:
        raise NotImplementedError


def top_k(candidates: pa.Table, k: int, sort_keys: list[tuple[str, str]]) -> pa.Table:
    """The first k rows in sort_keys order (a partial selection, then a sort of those k only).
    sort_keys must end in a unique column (the URL) so that ties never depend on row order."""
    if k <= 0 or candidates.num_rows == 0:
        return candidates.slice(0, 0)
    if k < candidates.num_rows:
        candidates = candidates.take(pc.select_k_unstable(candidates, k=k, sort_keys=sort_keys))
    return candidates.sort_by(sort_keys)

"""How the driver chooses the next round's URLs: the Strategy interface, best-first and BFS.

A strategy sees each committed round once (`update`: what was fetched, which links were found
and how promising the crawl judged them) and then `select`s up to `count` URLs nobody fetched
yet. Its whole state is rebuilt by replaying `update` over the committed rounds, so a resumed
crawl chooses exactly as an uninterrupted one. Later strategies (bandit, WL, SSAPS, DTH) plug
in through the same two methods.
"""
import dataclasses
from typing import Iterable


@dataclasses.dataclass
class Candidate:
    url: str
    priority: float          # the best predicted relevance of any link to the URL
    parent_url: str | None
    found_round: int
    order: int               # discovery order, for stable ties
    depth: int = -1          # unused by best-first and BFS


@dataclasses.dataclass(frozen=True)
class FoundLink:
    src: str
    dst: str
    predicted_relevance: float


class FrontierStrategy:
    """Keeps every known, unfetched URL; subclasses say which come first."""
    name = ''

    def __init__(self):
        self.candidates: dict[str, Candidate] = {}
        self.fetched: set[str] = set()
        self._discovered = 0

    def sort_key(self, candidate: Candidate):
        raise NotImplementedError

    def update(self, round_number: int, fetched_urls: Iterable[str], links: Iterable[FoundLink]) -> None:
        """Learn from a committed round: its fetched URLs (requested and final) and its links."""
        for url in fetched_urls:
            self.fetched.add(url)
            self.candidates.pop(url, None)
        for link in links:
            if link.dst in self.fetched:
                continue
            known = self.candidates.get(link.dst)
            if known is None:
                self._discovered += 1
                self.candidates[link.dst] = Candidate(link.dst, link.predicted_relevance, link.src,
                                                      round_number, self._discovered)
            elif link.predicted_relevance > known.priority:
                known.priority, known.parent_url = link.predicted_relevance, link.src

    def select(self, count: int) -> list[Candidate]:
        """The `count` best candidates, removed from the pool (a crash re-reads the state)."""
        chosen = sorted(self.candidates.values(), key=self.sort_key)[:count]
        for candidate in chosen:
            del self.candidates[candidate.url]
        return chosen


class BestFirst(FrontierStrategy):
    """Highest predicted link relevance first (the classic focused crawler)."""
    name = 'best-first'

    def sort_key(self, candidate: Candidate):
        return -candidate.priority, candidate.order


class BreadthFirst(FrontierStrategy):
    """Oldest discovery first: the unfocused baseline."""
    name = 'bfs'

    def sort_key(self, candidate: Candidate):
        return candidate.found_round, candidate.order


STRATEGIES = {strategy.name: strategy for strategy in (BestFirst, BreadthFirst)}

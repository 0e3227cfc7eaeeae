"""The baselines every paper compares against: best-first, breadth-first and a random crawler."""
import numpy as np
import pyarrow as pa

from models.strategies.base import (NO_DEPTH, LinkBatch, LinkFeatures, LinkScore, LinkScores, ParentPage, Relevance,
                                    Strategy, top_k)

# Discovery order: the round a URL was first found in, then its parent's place in that round's
# frontier, then the link's place on the parent page; the URL breaks what is left.
DISCOVERY_ORDER = [('first_round', 'ascending'), ('parent_position', 'ascending'),
                   ('link_index', 'ascending'), ('url', 'ascending')]


class BestFirst(Strategy):
    """Highest predicted link relevance first: the classic focused crawler (WL's OPS baseline).

    Priority = share·R(anchor, context and URL words) + (1 − share)·inherited, where inherited is
    the parent page's relevance scaled by the link's block (a noise block passes on nothing, a
    navigation block half). The share is WL's ∂ = 0.3; the block scaling is Focal's own.
    """
    name = 'best-first'
    summary = 'highest predicted link relevance first (anchor, context and URL words; the parent by block)'
    defaults = {'anchor_share': 0.3,
                'parent_share_by_block': {'content': 1.0, 'related': 1.0, 'navigation': 0.5, 'noise': 0.0}}

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore:
        [priority] = self.score_links(LinkBatch.of([link]), parent, relevance).priority
        return LinkScore(priority)

    def score_links(self, links: LinkBatch, parent: ParentPage, relevance: Relevance) -> LinkScores:
        share, by_block = self.params['anchor_share'], self.params['parent_share_by_block']
        inherited = {block: by_block.get(block, 1.0) * parent.relevance for block in set(links.block)}
        priority = [share * relevance.of_parts(anchor, context, url) + (1 - share) * inherited[block]
                    for anchor, context, url, block in zip(links.anchor_terms, links.context_terms, links.url_terms,
                                                           links.block)]
        return LinkScores(priority, [NO_DEPTH] * len(priority), [None] * len(priority))

    def choose(self, candidates: pa.Table, k: int, state: dict, rng: np.random.Generator, context=None):
        return top_k(candidates, k, [('priority', 'descending'), ('url', 'ascending')]), state


class BreadthFirst(Strategy):
    """Oldest discovery first: the unfocused baseline (WL's BFS)."""
    name = 'bfs'
    summary = 'breadth-first: the oldest discovery first (the unfocused baseline)'

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore:
        return LinkScore(0.0)

    def choose(self, candidates: pa.Table, k: int, state: dict, rng: np.random.Generator, context=None):
        return top_k(candidates, k, DISCOVERY_ORDER), state


class RandomChoice(Strategy):
    """Any known URL with equal chance: the floor a focused strategy must beat."""
    name = 'random'
    randomised = True
    summary = 'any known URL with equal chance (the floor)'

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore:
        return LinkScore(0.0)

    def choose(self, candidates: pa.Table, k: int, state: dict, rng: np.random.Generator, context=None):
        pool = candidates.sort_by('url')  # one order whatever the shards' order, so the draw repeats
        picked = rng.choice(pool.num_rows, size=min(k, pool.num_rows), replace=False)
        return pool.take(picked), {'draws': state.get('draws', 0) + len(picked)}

"""The seed papers' link-level strategies and their baselines, each with its paper's relevance
(models/relevance.py) and parameters (../shared/SEEDS_SPEC.md §2c, §2d, §3):

* `shark`: OSSA, the classic Shark-Search (Hersovici et al. 1998), SSAPS's baseline.
* `ssaps`: SSAPS, Shark-Search over page blocks (R = w1·R_p + w2·R_B + w3·R_A).
* `dth`: DTH's dynamic tunnelling through irrelevant pages, with a URL-term dictionary.
* `parent-first`: DTH's "BFS" baseline: every outlink inherits its parent page's relevance.

A page "relevant" to a strategy is the calibrated judgment of base.Strategy.judged_relevant.
"""
import dataclasses
from urllib.parse import urlsplit

import pyarrow.compute as pc

from models import text
from models.strategies.base import (RELEVANT_SHARE, UNLIMITED_DEPTH, LinkFeatures, LinkScore, PageFeatures,
                                    PageScore, ParentPage, Relevance, RoundContext, Strategy, StrategyError, top_k)
from models.strategies.baselines import DISCOVERY_ORDER
from models.urls import host_of

BEST_FIRST_ORDER = [('priority', 'descending'), *DISCOVERY_ORDER]  # ties breadth-first


class HighestPriorityFirst(Strategy):
    """Chooses the highest priorities, ties breadth-first (in discovery order)."""

    def choose(self, candidates, k, state, rng, context=None):
        return top_k(candidates, k, BEST_FIRST_ORDER), state


class ParentFirst(HighestPriorityFirst):
    """DTH's "BFS": a priority queue in which every outlink gets its parent page's relevance (DTH
    eq. 1), ties breadth-first. It differs from best-first, which scores each link's own words."""
    name = 'parent-first'
    summary = "DTH's baseline: each link inherits its parent page's relevance (DTH eq. 1)"
    relevance_kind = 'dth-eq1'
    defaults = {'relevant_share': RELEVANT_SHARE[relevance_kind]}

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore:
        return LinkScore(parent.relevance)


class DepthBounded(HighestPriorityFirst):
    """Shark-Search's depth rule, shared by OSSA and SSAPS: seeds start with depth D; a link from a
    relevant page (or, in SSAPS, a link scored above delta) gets D, another its page's depth - 1,
    and a link whose depth would fall below 0 is not followed."""

    def seed_depth(self) -> int:
        return self.params['depth']

    def child_depth(self, renewed: bool, parent: ParentPage) -> int | None:
        depth = self.params['depth'] if renewed else parent.depth - 1
        return depth if depth >= 0 else None


class Shark(DepthBounded):
    """OSSA, the classic Shark-Search: potential = gamma·inherited + (1 − gamma)·neighbourhood, with
    inherited = decay·sim(parent) (or decay·the parent's own inherited score when sim is 0) and
    neighbourhood = beta·sim(anchor) + (1 − beta)·(1 if the anchor scores, else sim(anchor context)).
    Cosines over whole texts (SSAPS eq. 5); the constants are the ones Shark-Search re-implementations use."""
    name = 'shark'
    summary = 'OSSA, classic Shark-Search: inherited score with decay, anchor and anchor context, depth D'
    relevance_kind = 'vsm'
    defaults = {'depth': 3, 'decay': 0.5, 'beta': 0.8, 'gamma': 0.8,
                'relevant_share': RELEVANT_SHARE[relevance_kind]}

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore | None:
        depth = self.child_depth(parent.relevant, parent)
        if depth is None:
            return None
        p = self.params
        inherited = p['decay'] * (parent.relevance if parent.relevance > 0 else parent.inherited or 0.0)
        anchor = link.anchor_relevance
        neighbourhood = p['beta'] * anchor + (1 - p['beta']) * (1.0 if anchor > 0 else link.context_relevance)
        return LinkScore(p['gamma'] * inherited + (1 - p['gamma']) * neighbourhood, depth, inherited)


def first_level(url: str, page_url: str) -> bool:
    """SSAPS's U_p: a link to the page's own host whose path has at most one segment (/ or /sports/)."""
    parts = urlsplit(url)
    return host_of(url) == host_of(page_url) and len([s for s in parts.path.split('/') if s]) <= 1


class Ssaps(DepthBounded):
    """SSAPS: R = w1·R_p + w2·R_B + w3·R_A (eq. 4). R_p sums the cosines of the page's content and
    related-link blocks (eq. 1); R_B is the cosine of a related link's own block, gamma for a
    first-level navigation link, else 0 (eq. 2); R_A the anchor's cosine in related blocks (eq. 3).
    A link with R > delta gets depth D. delta and gamma have no value in the paper: chosen by a
    sweep of 1,000-page crawls of the sandbox's 房产 task (benchmarks/strategies.py --sweep; README)."""
    name = 'ssaps'
    summary = 'SSAPS: block-level Shark-Search, R = R_p + R_B + R_A over content and related-link blocks'
    needs_blocks = True
    relevance_kind = 'vsm'
    defaults = {'depth': 3, 'delta': 0.1, 'gamma': 0.05, 'w1': 1.0, 'w2': 1.0, 'w3': 1.0,
                'relevant_share': RELEVANT_SHARE[relevance_kind]}

    def score_page(self, page: PageFeatures, relevance: Relevance) -> PageScore:
        """The whole-page judgment of the base class, plus each block's cosine (for R_p and R_B)."""
        return dataclasses.replace(super().score_page(page, relevance),
                                   blocks=tuple(relevance(terms, self.relevance_kind) for _, terms in page.blocks))

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore | None:
        p = self.params
        block_relevance = anchor = 0.0
        if link.block == 'related' and link.block_index is not None:
            block_relevance, anchor = parent.blocks[link.block_index], link.anchor_relevance
        elif link.block == 'navigation' and first_level(link.url, parent.url):
            block_relevance = p['gamma']
        score = p['w1'] * sum(parent.blocks) + p['w2'] * block_relevance + p['w3'] * anchor
        depth = self.child_depth(score > p['delta'], parent)
        return None if depth is None else LinkScore(score, depth)


class Dth(Strategy):
    """DTH: a relevant page's outlinks get pv = its relevance and unlimited depth; an irrelevant
    page's get pv = 0 and a tunnel budget k: the first irrelevant page sets k = k_depth and spends
    one (first_step 'literal'; 'predict' lets a predicted-relevant link keep k_depth), later ones
    keep k for links predicted relevant (w1·R_anchor + w2·R_context + w3·R_url > link_threshold)
    and give k − 1 to the others; at k = 0 the tunnel ends. Tunnel links are followed depth-first.
    R_url is the share of the URL's words in a dictionary learned from the URLs of pages judged
    relevant (words more common there than in other pages' URLs, on 2 pages or more). A link
    carries the irrelevant pages crossed since the last relevant one: on a relevant page, the
    tunnel's length. The weights are 1/3 each (the paper gives none); link_threshold was chosen by
    a sweep of 1,000-page crawls of the sandbox's 房产 task (benchmarks/strategies.py --sweep; README)."""
    name = 'dth'
    summary = 'DTH: dynamic tunnelling through irrelevant pages (k_depth 12), links predicted by anchor, context, URL'
    relevance_kind = 'dth-eq1'
    FIRST_STEPS = ('literal', 'predict')
    defaults = {'k_depth': 12, 'w1': 1 / 3, 'w2': 1 / 3, 'w3': 1 / 3, 'link_threshold': 0.15,
                'first_step': 'literal', 'relevant_share': RELEVANT_SHARE[relevance_kind]}

    def __init__(self, params: dict | None = None):
        super().__init__(params)
        if self.params['first_step'] not in self.FIRST_STEPS:
            raise StrategyError(f'first_step {self.params["first_step"]!r}: choose one of {", ".join(self.FIRST_STEPS)}')
        self.url_terms: frozenset = frozenset()

    def seed_depth(self) -> int:
        return UNLIMITED_DEPTH

    def prepare(self, context: RoundContext) -> None:
        super().prepare(context)
        pages = context.read('pages', ['final_url', 'relevant'])
        self.url_terms = url_dictionary(pages['final_url'].to_pylist(), pages['relevant'].to_pylist())

    def predicted_relevant(self, link: LinkFeatures, relevance: Relevance) -> bool:
        p = self.params
        url = sum(term in self.url_terms for term in link.url_terms) / len(link.url_terms) if link.url_terms else 0.0
        score = (p['w1'] * relevance(link.anchor_terms, self.relevance_kind)
                 + p['w2'] * relevance(link.context_terms, self.relevance_kind) + p['w3'] * url)
        return score > p['link_threshold']

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore | None:
        if parent.relevant:
            return LinkScore(parent.relevance, UNLIMITED_DEPTH, 0.0)
        crossed = (parent.inherited or 0.0) + 1
        if parent.depth == UNLIMITED_DEPTH:
            k = self.params['k_depth']
            keep = self.params['first_step'] == 'predict' and self.predicted_relevant(link, relevance)
        elif parent.depth <= 0:
            return None
        else:
            k, keep = parent.depth, self.predicted_relevant(link, relevance)
        return LinkScore(0.0, k if keep else k - 1, crossed)

    def choose(self, candidates, k, state, rng, context=None):
        """Highest pv first; relevant pages' links breadth-first, tunnel links (pv 0) depth-first:
        the latest found first, the larger budget (predicted relevant) first."""
        order = pc.if_else(pc.greater(candidates['priority'], 0), candidates['first_round'],
                           pc.negate(candidates['first_round']))
        ordered = candidates.append_column('tunnel_order', order)
        chosen = top_k(ordered, k, [('priority', 'descending'), ('tunnel_order', 'ascending'),
                                    ('depth', 'descending'), *DISCOVERY_ORDER[1:]])
        return chosen.drop_columns(['tunnel_order']), state


def url_dictionary(urls: list[str], relevant: list[bool], min_pages: int = 2) -> frozenset:
    """DTH's topic URL words: words on `min_pages` or more relevant pages' URLs and more common
    there (share of pages) than on the other pages' URLs."""
    counts = {True: {}, False: {}}
    for url, is_relevant in zip(urls, relevant):
        for term in set(text.url_terms(url).split()):
            counts[bool(is_relevant)][term] = counts[bool(is_relevant)].get(term, 0) + 1
    totals = {kind: sum(1 for r in relevant if bool(r) == kind) for kind in (True, False)}
    if not totals[True] or not totals[False]:
        return frozenset()  # nothing to tell topic words from every URL's ("www", "html") yet
    return frozenset(term for term, n in counts[True].items()
                     if n >= min_pages and n / totals[True] > counts[False].get(term, 0) / totals[False])

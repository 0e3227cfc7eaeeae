"""WL: the Wang–Landau focused crawler with region competition (../shared/SEEDS_SPEC.md §2b, §3).

The queue holds fetched pages not yet expanded (§3 item 1, the target reading of eq. 5): a
page P_l reached by link l has the energy E(l) = R(l) = ∂·R(anchor_l) + (1 − ∂)·R(P_l), both
WL eq. 4 cosines over the topic's words. It enters the queue when R(l) >= 0.2 or its WL-form
PageRank (eq. 6, mean 1) is >= 2; seeds always do. The chain of Algorithm 1 picks the page to
expand: a proposal X2 comes from region competition (the host with the highest mean energy,
then a roulette wheel inside it), is accepted with min(exp(ln g(E1) − ln g(E2)), 1), and five
rejections in a row fall back to the queue's best page. Expanding a page fetches all of its
links not yet requested. One round runs the chain until the round's batch is full; a page
whose links overflow the batch finishes first in the next round. The chain's whole state
(ln g, H, ln f, L, X1, the pages expanded) is the committed selector state, so a resumed crawl
chooses exactly as an uninterrupted one.
"""
import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from models import pagerank
from models.strategies.base import (RELEVANT_SHARE, LinkFeatures, LinkScore, ParentPage, Relevance, RoundContext,
                                    Strategy, StrategyError)

BINS = 50


def energy_bin(energy: float) -> str:
    """The energy's bin of width 1/BINS over [0, 1], as a JSON key."""
    return str(min(int(max(energy, 0.0) * BINS), BINS - 1))


class WangLandau(Strategy):
    name = 'wl'
    randomised = True
    summary = 'WL: Wang-Landau sampling over link energies with region competition by host (expands pages)'
    relevance_kind = 'wl-eq4'
    FLATNESS = ('algorithm', 'mean')
    defaults = {'anchor_share': 0.3, 'min_link_relevance': 0.2, 'min_pagerank': 2.0, 'f0': math.e,
                'flatness_interval': 1000, 'flatness': 'algorithm', 'flatness_k': 0.8, 'rejections': 5,
                'max_steps': 1_000_000, 'relevant_share': RELEVANT_SHARE[relevance_kind]}

    def __init__(self, params: dict | None = None):
        super().__init__(params)
        if self.params['flatness'] not in self.FLATNESS:
            raise StrategyError(f'flatness {self.params["flatness"]!r}: choose one of {", ".join(self.FLATNESS)} '
                                '(algorithm: every H >= ln 2 / ln f, Algorithm 1 step 10; mean: every H >= k·mean H)')
        if not self.params['f0'] > 1:
            raise StrategyError(f'f0 must be above 1 (the paper starts at e), not {self.params["f0"]}')

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore:
        """Every link is followed when its page is expanded; it carries R(anchor) to the page it reaches."""
        anchor = relevance(link.anchor_terms, self.relevance_kind)
        return LinkScore(anchor, inherited=anchor)

    def energy(self, relevance: float, anchor: float | None) -> float:
        """E(l) = R(l), eq. 5; a seed (no anchor) has E = R(P_seed) (§3 item 4)."""
        if anchor is None:
            return relevance
        return self.params['anchor_share'] * anchor + (1 - self.params['anchor_share']) * relevance

    def initial_state(self) -> dict:
        return {'ln_g': {}, 'hist': {}, 'ln_f': math.log(self.params['f0']), 'stage': 0, 'steps': 0,
                'current': None, 'current_energy': None, 'expanded': [], 'unfinished': None, 'stopped': False}

    def choose(self, candidates: pa.Table, k: int, state: dict, rng: np.random.Generator,
               context: RoundContext | None = None):
        if context is None:
            raise StrategyError('wl chooses from the crawl\'s pages and links: give it the round context')
        state = {**state, 'ln_g': dict(state['ln_g']), 'hist': dict(state['hist']),
                 'expanded': list(state['expanded'])}
        links = context.read('links', ['url', 'dst', 'link_index'])
        expanded = set(state['expanded'])
        queue = self._queue(context, links, expanded)
        children = _children(links, candidates)
        batch: list[str] = []
        chosen = set()

        def expand(page: str) -> None:
            links = [url for url in children.get(page, []) if url not in chosen]
            room = k - len(batch)
            batch.extend(links[:room])
            chosen.update(links[:room])
            queue.remove(page)
            if page not in expanded:
                expanded.add(page)
                state['expanded'].append(page)
            state['unfinished'] = page if len(links) > room else None

        if state['unfinished']:  # its links overflowed the last batch: finish it first
            expand(state['unfinished'])
        while len(batch) < k and queue and not state['stopped']:
            page = self._step(queue, state, rng)
            if page is not None:
                expand(page)
        if not batch:
            return candidates.slice(0, 0), state
        index = {url: i for i, url in enumerate(candidates['url'].to_pylist())}
        return candidates.take(pa.array([index[url] for url in batch], pa.int64())), state

    def _queue(self, context: RoundContext, links: pa.Table, expanded: set[str]) -> 'Queue':
        """The fetched pages not expanded yet that enter the queue: seeds, E >= 0.2, or WL PageRank >= 2
        over the committed links (`links`: url, dst)."""
        pages = context.read('pages', ['url', 'final_url', 'host', 'relevance', 'inherited'])
        graph = pagerank.LinkGraph.from_edges(*pagerank.crawl_edges(links, {}).columns)
        ranks = pagerank.wl_form(pagerank.pagerank(graph).ranks, graph.size)
        rank_of = dict(zip(graph.nodes.to_pylist(), ranks.tolist()))
        seeds = set(context.seeds)
        queue = Queue()
        for url, final, host, relevance, anchor in zip(*(pages[c].to_pylist() for c in pages.column_names)):
            energy = self.energy(relevance, anchor)
            if final in expanded or final in queue.energy:
                continue
            if (url in seeds or energy >= self.params['min_link_relevance']
                    or rank_of.get(final, 0.0) >= self.params['min_pagerank']):
                queue.add(final, host, energy)
        return queue

    def _step(self, queue: 'Queue', state: dict, rng: np.random.Generator) -> str | None:
        """Algorithm 1 steps 2-7 and 10-11 until a page to expand is found (None: the chain stopped)."""
        p = self.params
        if state['current'] is None:  # step 2
            state['current'] = queue.best()
            state['current_energy'] = queue.energy[state['current']]
            self._visit(state, energy_bin(state['current_energy']), new_only=True)
        rejections = 0
        while True:
            proposal = queue.compete(rng, exclude=state['current'])
            if proposal is None:  # the queue holds only X1
                return state['current'] if state['current'] in queue.energy else None
            state['steps'] += 1  # step 4
            energy = queue.energy[proposal]
            now, then = energy_bin(state['current_energy']), energy_bin(energy)
            self._visit(state, then, new_only=True)  # step 5
            accept = math.exp(min(0.0, state['ln_g'][now] - state['ln_g'][then]))
            if rng.random() < accept:  # step 6
                state['current'], state['current_energy'] = proposal, energy
                self._visit(state, then)
                chosen = proposal
            else:
                self._visit(state, now)
                rejections += 1
                chosen = None
                if rejections >= p['rejections']:  # step 7
                    chosen = queue.best()
                    state['current'], state['current_energy'] = chosen, queue.energy[chosen]
                    self._visit(state, energy_bin(queue.energy[chosen]), new_only=True)
            if state['steps'] % p['flatness_interval'] == 0:
                self._flatness(state)
            if chosen is not None or state['stopped']:
                return chosen

    def _visit(self, state: dict, energy: str, new_only: bool = False) -> None:
        """A new bin starts with ln g = 0 and H = 1; a visit adds ln f to ln g and 1 to H."""
        if energy not in state['ln_g']:
            state['ln_g'][energy], state['hist'][energy] = 0.0, 1
        elif not new_only:
            state['ln_g'][energy] += state['ln_f']
            state['hist'][energy] += 1

    def _flatness(self, state: dict) -> None:
        """Step 10-11: a flat histogram halves ln f (f <- sqrt f) and resets H; L_max stops the chain."""
        hist = list(state['hist'].values())
        if self.params['flatness'] == 'algorithm':
            flat = all(h >= math.log(2) / state['ln_f'] for h in hist)
        else:
            flat = all(h >= self.params['flatness_k'] * sum(hist) / len(hist) for h in hist)
        if flat:
            state['ln_f'] /= 2
            state['stage'] += 1
            state['hist'] = {energy: 0 for energy in state['hist']}
        if state['steps'] >= self.params['max_steps']:
            state['stopped'] = True


class Queue:
    """WL's queue of pages to expand, grouped by host for region competition."""

    def __init__(self):
        self.energy: dict[str, float] = {}
        self.hosts: dict[str, dict[str, float]] = {}
        self.host_of: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self.energy)

    def add(self, url: str, host: str, energy: float) -> None:
        self.energy[url], self.host_of[url] = energy, host
        self.hosts.setdefault(host, {})[url] = energy

    def remove(self, url: str) -> None:
        if url in self.energy:
            del self.energy[url]
            members = self.hosts[self.host_of[url]]
            del members[url]
            if not members:
                del self.hosts[self.host_of[url]]

    def best(self) -> str:
        """The page with the highest energy (the URL breaks ties)."""
        return min(self.energy, key=lambda url: (-self.energy[url], url))

    def compete(self, rng: np.random.Generator, exclude: str | None) -> str | None:
        """Region competition: the host whose pages have the highest mean energy wins, then a
        roulette wheel (p ∝ energy; equal chances when all are 0) picks one of its pages."""
        best_host, best_mean = None, -math.inf
        for host in sorted(self.hosts):
            members = [e for url, e in self.hosts[host].items() if url != exclude]
            if members and sum(members) / len(members) > best_mean:
                best_host, best_mean = host, sum(members) / len(members)
        if best_host is None:
            return None
        urls = sorted(url for url in self.hosts[best_host] if url != exclude)
        weights = np.array([max(self.energy[url], 0.0) for url in urls])
        chances = weights / weights.sum() if weights.sum() > 0 else None
        return urls[rng.choice(len(urls), p=chances)]


def _children(links: pa.Table, candidates: pa.Table) -> dict[str, list[str]]:
    """Each fetched page's links (url, dst, link_index) not yet requested (in the candidates), in
    page order, each once."""
    links = links.filter(pc.is_in(links['dst'], value_set=candidates['url']))
    links = links.sort_by([('url', 'ascending'), ('link_index', 'ascending')])
    children: dict[str, list[str]] = {}
    for source, target in zip(links['url'].to_pylist(), links['dst'].to_pylist()):
        known = children.setdefault(source, [])
        if target not in known:
            known.append(target)
    return children

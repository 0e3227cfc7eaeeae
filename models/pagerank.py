"""PageRank by power iteration on a scipy CSR matrix (DWDBRM eq. 7, WL eq. 6).

The graph is a set of directed edges between URLs: a page votes once for each page it links to,
however often it names it (duplicate edges count once); a self-loop is an edge like any other
(`crawl_edges`, the crawl's link graph, drops them). A page with
no outlinks (dangling: most are pages not fetched yet) spreads its rank over every page, and
the teleport is uniform, so the ranks sum to 1 and equal `networkx.pagerank` on a DiGraph.

WL eq. 6 writes the un-normalised form `PR(p) = (1 − α) + α·Σ PR(v)/|C(v)|`, whose mean is 1
("PR ≥ 2" keeps pages about twice as important as the average): `wl_form` is N times the
normalised rank, which is that form with the dangling pages' rank spread the same way.

The Beam transform (transforms/pagerank.py) runs the same iteration, a fixed number of steps
(`iterations_for`), so both give one answer within `TOLERANCE`.
"""
from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from scipy import sparse  # imported where used: ~0.12 s, and Beam workers import this module (WL) unused

DAMPING = 0.85          # α of WL eq. 6, c of DWDBRM eq. 7 (its paper gives none; 0.85 is Page and Brin's)
TOLERANCE = 1e-9        # bound on the L1 distance of the answer from the exact ranks
MAX_ITERATIONS = 1000   # a cap that a damping below 1 never reaches before TOLERANCE
LOCAL, BEAM, AUTO = 'local', 'beam', 'auto'
MODES = (AUTO, LOCAL, BEAM)   # where PageRank runs: scipy on one worker, Beam's iteration, or by size
AUTO_LOCAL_EDGES = 50_000_000  # up to this many links a graph fits one worker (CSR: ~12 bytes an edge)
EDGES = pa.schema([('source', pa.string()), ('target', pa.string())])  # crawl_edges' table


class PageRankError(ValueError):
    """A damping, tolerance or graph PageRank cannot use."""


def check_damping(damping: float) -> None:
    if not 0 <= damping < 1:
        raise PageRankError(f'the damping factor must be in [0, 1), not {damping}')


def resolve_mode(mode: str, links: int) -> str:
    """LOCAL or BEAM for a crawl with this many links; AUTO is LOCAL while the graph fits one worker."""
    if mode not in MODES:
        raise PageRankError(f'PageRank mode {mode!r}: choose one of {", ".join(MODES)}')
    if mode == AUTO:
        return LOCAL if links <= AUTO_LOCAL_EDGES else BEAM
    return mode


def iterations_for(tolerance: float = TOLERANCE, damping: float = DAMPING) -> int:
    """Steps from the uniform start that bring any graph within `tolerance` (L1) of its ranks:
    each step shrinks the distance by the damping, and the start is at most 2 away."""
    check_damping(damping)
    if damping == 0:
        return 1
    return max(1, math.ceil(math.log(tolerance / 2) / math.log(damping)))


@dataclasses.dataclass
class LinkGraph:
    """Nodes (URLs) and distinct edges between them, as indices into `nodes`."""
    nodes: pa.Array      # string, each URL once
    sources: np.ndarray  # int64
    targets: np.ndarray  # int64

    @classmethod
    def from_edges(cls, sources: pa.Array, targets: pa.Array, nodes: pa.Array | None = None) -> 'LinkGraph':
        """The graph of these (source, target) URL pairs, plus isolated `nodes`."""
        sources, targets = pa.array(sources, pa.string()), pa.array(targets, pa.string())
        ends = [sources, targets] + ([pa.array(nodes, pa.string())] if nodes is not None else [])
        names = pc.unique(pa.concat_arrays(ends)) if sum(len(a) for a in ends) else pa.array([], pa.string())
        names = names.take(pc.sort_indices(names))  # one node order (and one float sum order) whatever the input order
        src = pc.index_in(sources, value_set=names).to_numpy(zero_copy_only=False).astype(np.int64)
        dst = pc.index_in(targets, value_set=names).to_numpy(zero_copy_only=False).astype(np.int64)
        distinct = np.unique(src * len(names) + dst) if len(src) else np.zeros(0, np.int64)
        return cls(names, distinct // max(len(names), 1), distinct % max(len(names), 1))

    @property
    def size(self) -> int:
        return len(self.nodes)

    def out_degree(self) -> np.ndarray:
        return np.bincount(self.sources, minlength=self.size)

    def in_degree(self) -> np.ndarray:
        return np.bincount(self.targets, minlength=self.size)


@dataclasses.dataclass
class PageRankResult:
    ranks: np.ndarray    # per node of the graph, summing to 1
    iterations: int
    converged: bool      # the last step moved the ranks by less than the tolerance allows


def transition_matrix(graph: LinkGraph) -> sparse.csr_matrix:
    """Row = target, column = source, weight 1/outdegree(source): M·x gives each page its inflow."""
    from scipy import sparse
    out_degree = graph.out_degree()
    return sparse.csr_matrix((1.0 / out_degree[graph.sources], (graph.targets, graph.sources)),
                             shape=(graph.size, graph.size))


def pagerank(graph: LinkGraph, damping: float = DAMPING, tolerance: float = TOLERANCE,
             max_iterations: int = MAX_ITERATIONS) -> PageRankResult:
    """The PageRank of every node of the graph."""
    return power_iteration(transition_matrix(graph), np.flatnonzero(graph.out_degree() == 0), damping,
                           tolerance, max_iterations)


def power_iteration(matrix: sparse.csr_matrix, dangling: np.ndarray, damping: float = DAMPING,
                    tolerance: float = TOLERANCE, max_iterations: int = MAX_ITERATIONS) -> PageRankResult:
    """x ← α·(M·x + dangling mass / N) + (1 − α)/N from x = 1/N, stopping when a step moves x by at
    most tolerance·(1 − α)/α in L1 (then x is within `tolerance` of the ranks). `dangling` holds
    the indices of the nodes without outlinks. Vectors are updated in place: a step streams the
    matrix once and the rank vectors a few times."""
    check_damping(damping)
    n = matrix.shape[0]
    if n == 0:
        return PageRankResult(np.zeros(0), 0, True)
    stop = tolerance * (1 - damping) / damping if damping else math.inf
    ranks, change = np.full(n, 1.0 / n), np.empty(n)
    for iteration in range(1, max_iterations + 1):
        spread = matrix @ ranks
        spread *= damping
        spread += (damping * ranks[dangling].sum() + 1 - damping) / n
        np.subtract(spread, ranks, out=change)
        ranks = spread
        if np.abs(change, out=change).sum() <= stop:
            return PageRankResult(ranks, iteration, True)
    return PageRankResult(ranks, max_iterations, False)


def wl_form(ranks: np.ndarray, nodes: int) -> np.ndarray:
    """WL eq. 6's un-normalised PageRank, mean 1: N (the graph's nodes) times the normalised ranks."""
    return ranks * nodes


def crawl_edges(links: pa.Table, aliases: dict[str, str]) -> pa.Table:
    """Links of fetched pages (url = source page, dst) as graph edges (source, target): a link to a
    URL that redirected points at the page it reached, and a page's links to itself are dropped
    (a page does not vote for itself)."""
    targets = links['dst'].combine_chunks()
    if aliases:
        index = pc.index_in(targets, value_set=pa.array(list(aliases), pa.string()))
        targets = pc.coalesce(pc.take(pa.array(list(aliases.values()), pa.string()), index), targets)
    sources = links['url'].combine_chunks()
    edges = pa.table({'source': sources, 'target': targets}, schema=EDGES)
    return edges.filter(pc.not_equal(sources, targets))


def ranks_table(urls, ranks, nodes: int) -> pa.Table:
    """url, pagerank (over the graph's nodes, summing to 1) and pagerank_wl (WL eq. 6, mean 1)."""
    ranks = np.asarray(ranks, dtype=np.float64)
    return pa.table({'url': pa.array(urls, pa.string()), 'pagerank': ranks, 'pagerank_wl': wl_form(ranks, nodes)})

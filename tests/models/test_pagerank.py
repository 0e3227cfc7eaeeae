"""PageRank in scipy (models/pagerank.py) equals networkx.pagerank, and gives WL eq. 6's form."""
import networkx as nx
import numpy as np
import pyarrow as pa
import pytest

from models import pagerank as pr

GRAPHS = {
    'dangling, self-loop, duplicates, isolated': (
        [('a', 'b'), ('a', 'b'), ('b', 'c'), ('c', 'a'), ('c', 'c'), ('d', 'c'), ('e', 'a'), ('a', 'f')], ['z', 'a']),
    'a chain into a dangling end': ([('1', '2'), ('2', '3'), ('3', '4')], []),
    'only self-loops': ([('x', 'x'), ('y', 'y')], ['w']),
    'two cycles and a bridge': ([('a', 'b'), ('b', 'a'), ('c', 'd'), ('d', 'c'), ('b', 'c')], []),
}


def random_graph(seed: int, nodes: int = 200, edges: int = 900):
    rng = np.random.default_rng(seed)
    return ([(f'p{a}', f'p{b}') for a, b in zip(rng.integers(0, nodes, edges), rng.zipf(1.6, edges) % nodes)],
            [f'p{i}' for i in range(nodes + 10)])  # ten isolated pages, many dangling ones


def ranks_of(edges, nodes, **options):
    graph = pr.LinkGraph.from_edges([s for s, _ in edges], [t for _, t in edges], nodes)
    result = pr.pagerank(graph, **options)
    return dict(zip(graph.nodes.to_pylist(), result.ranks)), result, graph


def networkx_ranks(edges, nodes, damping=pr.DAMPING):
    graph = nx.DiGraph()  # a DiGraph keeps one edge per pair: duplicates count once, as in Focal
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    return nx.pagerank(graph, alpha=damping, tol=1e-15, max_iter=100_000)


@pytest.mark.parametrize('name', [*GRAPHS, 'random 1', 'random 2'])
def test_pagerank_equals_networkx(name):
    edges, nodes = GRAPHS[name] if name in GRAPHS else random_graph(int(name[-1]))
    ours, result, _ = ranks_of(edges, nodes)
    theirs = networkx_ranks(edges, nodes)
    assert result.converged and set(ours) == set(theirs)
    assert max(abs(ours[url] - theirs[url]) for url in theirs) < 1e-9
    assert sum(ours.values()) == pytest.approx(1.0, abs=1e-12)


def test_other_dampings_equal_networkx_too():
    edges, nodes = random_graph(3)
    for damping in (0.5, 0.95):
        ours, _, _ = ranks_of(edges, nodes, damping=damping)
        theirs = networkx_ranks(edges, nodes, damping)
        assert max(abs(ours[url] - theirs[url]) for url in theirs) < 1e-9


def test_the_wl_form_is_eq6_with_the_dangling_rank_spread_and_has_mean_one():
    edges, nodes = random_graph(4)
    ours, result, graph = ranks_of(edges, nodes)
    wl = pr.wl_form(result.ranks, graph.size)
    assert wl.mean() == pytest.approx(1.0)
    out_degree = graph.out_degree()
    inflow = np.zeros(graph.size)
    np.add.at(inflow, graph.targets, wl[graph.sources] / out_degree[graph.sources])
    dangling = wl[out_degree == 0].sum() / graph.size
    assert np.allclose(wl, (1 - pr.DAMPING) + pr.DAMPING * (inflow + dangling), atol=1e-7)


def test_a_fixed_number_of_iterations_reaches_the_tolerance():
    edges, nodes = random_graph(5)
    exact, _, _ = ranks_of(edges, nodes, tolerance=1e-14)
    # a negative tolerance never stops early: exactly that many steps, as the Beam transform runs
    fixed, result, _ = ranks_of(edges, nodes, tolerance=-1.0, max_iterations=pr.iterations_for())
    assert result.iterations == pr.iterations_for() == 132
    assert sum(abs(fixed[url] - exact[url]) for url in exact) <= pr.TOLERANCE


def test_an_empty_graph_and_bad_dampings():
    assert pr.pagerank(pr.LinkGraph.from_edges([], [])).ranks.size == 0
    with pytest.raises(pr.PageRankError, match='damping'):
        pr.pagerank(pr.LinkGraph.from_edges(['a'], ['b']), damping=1.0)
    with pytest.raises(pr.PageRankError, match='local, beam'):
        pr.resolve_mode('gpu', 10)
    assert pr.resolve_mode('auto', 10) == 'local' and pr.resolve_mode('auto', pr.AUTO_LOCAL_EDGES + 1) == 'beam'


def test_crawl_edges_follow_redirects_and_drop_links_to_the_page_itself():
    links = pa.table({'url': ['http://a.test/', 'http://a.test/', 'http://a.test/', 'http://b.test/'],
                      'dst': ['http://a.test/', 'http://old.test/', 'http://b.test/', 'http://new.test/']})
    edges = pr.crawl_edges(links, {'http://old.test/': 'http://new.test/', 'http://b.test/x': 'http://b.test/'})
    assert list(zip(edges['source'].to_pylist(), edges['target'].to_pylist())) == [
        ('http://a.test/', 'http://new.test/'), ('http://a.test/', 'http://b.test/'),
        ('http://b.test/', 'http://new.test/')]

"""PageRank in Beam (transforms/pagerank.py) on FnApiRunner gives scipy's answer (models/pagerank.py)."""
import apache_beam as beam
import numpy as np
import pyarrow as pa
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that

from models import pagerank as pr
from transforms.pagerank import CrawlPageRank, PageRank

STEPS = 20


def scipy_ranks(edges, nodes, steps=STEPS):
    graph = pr.LinkGraph.from_edges([s for s, _ in edges], [t for _, t in edges], nodes)
    result = pr.pagerank(graph, tolerance=-1.0, max_iterations=steps)  # exactly `steps` steps
    return dict(zip(graph.nodes.to_pylist(), result.ranks))


def equals_within(expected: dict, tolerance: float, rank=lambda value: value):
    def check(actual):
        found = {url: rank(value) for url, value in actual}
        assert set(found) == set(expected), f'nodes differ: {set(found) ^ set(expected)}'
        worst = max(abs(found[url] - expected[url]) for url in expected)
        assert worst <= tolerance, f'largest difference {worst}'
    return check


def test_beam_pagerank_equals_scipy_on_the_same_graph():
    rng = np.random.default_rng(7)
    edges = [(f'p{a}', f'p{b}') for a, b in zip(rng.integers(0, 120, 500), rng.zipf(1.5, 500) % 120)]
    edges += [('p1', 'p1'), ('p2', 'p3'), ('p2', 'p3')]  # a self-loop and a duplicate edge
    nodes = [f'p{i}' for i in range(125)]              # five isolated pages; many dangling ones
    with BeamTestPipeline('FnApiRunner') as pipeline:
        ranks = ({'edges': pipeline | 'Edges' >> beam.Create(edges), 'nodes': pipeline | 'Nodes' >> beam.Create(nodes)}
                 | PageRank(STEPS))
        assert_that(ranks, equals_within(scipy_ranks(edges, nodes), 1e-9))


def test_both_modes_of_the_crawl_pagerank_rank_the_same_graph():
    pages = pa.table({'url': ['http://a.test/', 'http://b.test/old', 'http://c.test/'],
                      'final_url': ['http://a.test/', 'http://b.test/', 'http://c.test/']})
    links = pa.table({'url': ['http://a.test/', 'http://a.test/', 'http://b.test/', 'http://c.test/', 'http://c.test/'],
                      'dst': ['http://b.test/old', 'http://a.test/', 'http://c.test/', 'http://a.test/', 'http://d.test/']})
    edges = [('http://a.test/', 'http://b.test/'), ('http://b.test/', 'http://c.test/'),
             ('http://c.test/', 'http://a.test/'), ('http://c.test/', 'http://d.test/')]
    converged = scipy_ranks(edges, [], steps=pr.MAX_ITERATIONS)
    with BeamTestPipeline('FnApiRunner') as pipeline:
        inputs = {'pages': pipeline | 'Pages' >> beam.Create([pages]),
                  'links': pipeline | 'Links' >> beam.Create([links[:2], links[2:]])}
        for mode, steps, expected in ((pr.LOCAL, 0, converged), (pr.BEAM, STEPS, scipy_ranks(edges, [], STEPS))):
            tables = inputs | f'{mode}PageRank' >> CrawlPageRank(mode, steps)
            rows = tables | f'{mode}Rows' >> beam.FlatMap(lambda table: zip(
                table['url'].to_pylist(), zip(table['pagerank'].to_pylist(), table['pagerank_wl'].to_pylist())))
            assert_that(rows, equals_within(expected, 1e-9, rank=lambda value: value[0]), label=f'{mode}Ranks')
            assert_that(rows, equals_within({url: 4 * rank for url, rank in expected.items()}, 1e-9,
                                            rank=lambda value: value[1]), label=f'{mode}WlForm')

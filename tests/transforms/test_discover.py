"""Discover and ChooseDiscovered (transforms/discover.py) on FnApiRunner: the four operators on
committed link batches and on the sandbox server's search API."""
import apache_beam as beam
import pyarrow as pa
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from models.discovery import DiscoveryPlan
from models.topic import load_task
from sandbox.server import SandboxServer, open_web
from transforms.discover import Discover, ChooseDiscovered

A, B, C, D, E = (f'http://{name}.test/' for name in 'abcde')
LINKS = [  # (source page, target, block, place on the page)
    (A, B, 'navigation', 0), (A, C, 'content', 1), (A, D, 'content', 2),
    (B, A, 'content', 0), (B, C, 'content', 1), (B, E, 'related', 2),
    (E, A, 'noise', 0), (E, C, 'content', 1), (D, 'http://f.test/', 'content', 0)]


def link_batches():
    rows = [{'url': u, 'dst': d, 'block': b, 'link_index': i} for u, d, b, i in LINKS]
    return [pa.Table.from_pylist(rows[:4]), pa.Table.from_pylist(rows[4:])]


def test_forward_crawl_follows_content_links_first():
    plan = DiscoveryPlan('FC', inputs=(A, E))
    with BeamTestPipeline('FnApiRunner') as pipeline:
        result = pipeline | beam.Create(link_batches()) | Discover(plan, 3)
        assert_that(result['found'] | beam.Map(lambda r: (r['source_rank'], r['rank'], r['url'], r['parent_url'])),
                    equal_to([(0, 0, C, A), (0, 1, D, A), (0, 2, B, A), (1, 0, C, E), (1, 1, A, E)]))
        assert_that(result['log'], equal_to([]), label='NoCalls')


def test_the_link_graph_gives_backlinks_and_co_cited_pages():
    with BeamTestPipeline('FnApiRunner') as pipeline:
        batches = pipeline | beam.Create(link_batches())
        backlinks = batches | 'BC' >> Discover(DiscoveryPlan('BC', inputs=(C, 'http://none.test/')), 3)
        related = batches | 'RS' >> Discover(DiscoveryPlan('RS', inputs=(C,)), 3)
        # A, B and E link to C (the backlinks); then their own outlinks, content and related links first
        assert_that(backlinks['found'] | 'BCRows' >> beam.Map(lambda r: (r['source'], r['rank'], r['url'])),
                    equal_to([(C, 0, A), (C, 1, B), (C, 2, E), (A, 0, C), (A, 1, D), (A, 2, B),
                              (B, 0, A), (B, 1, C), (B, 2, E), (E, 0, C), (E, 1, A)]), label='backlinks')
        assert_that(backlinks['log'] | 'BCLog' >> beam.Map(lambda r: (r['query'], r['results'], r['outcome'])),
                    equal_to([(C, 3, 'ok'), ('http://none.test/', 0, 'empty')]), label='calls')
        # A, B and E link to C; beside C they link to A (twice: B, E), D, B and E (once each)
        assert_that(related['found'] | 'RSRows' >> beam.Map(lambda r: (r['rank'], r['url'])),
                    equal_to([(0, A), (1, B), (2, D), (3, E)]), label='related')


def test_choose_discovered_skips_what_was_reached_and_takes_each_source_s_first_results_first():
    rows = [{'url': url, 'operator': 'KS', 'source': source, 'source_rank': rank_of_source, 'rank': rank,
             'parent_url': None, 'title': None, 'snippet': None}
            for rank_of_source, (source, urls) in enumerate((('q1', [A, B, C]), ('q2', [D, A, E])))
            for rank, url in enumerate(urls)]
    with BeamTestPipeline('FnApiRunner') as pipeline:
        chosen = ({'found': pipeline | 'Found' >> beam.Create(rows), 'reached': pipeline | 'Reached' >> beam.Create([D])}
                  | ChooseDiscovered(3, 4, 'ks'))
        assert_that(chosen | beam.Map(lambda r: (r['position'], r['url'], r['operator'], r['round'])),
                    equal_to([(0, A, 'KS', 4), (1, B, 'KS', 4), (2, C, 'KS', 4)]))  # C (q1's third) before E (q2's)


def test_search_operators_ask_the_sandbox_server(news_web_dir):
    seeds = load_task(news_web_dir / 'tasks' / '房产.yaml').topic.seeds[:2]
    with SandboxServer(*open_web(news_web_dir)) as server:
        plans = {'KS': DiscoveryPlan('KS', queries=('房产 楼盘', '房产 房价'), provider=f'sandbox:{server.proxy_url}',
                                     results_per_call=5),
                 'RS': DiscoveryPlan('RS', inputs=tuple(seeds), provider='sandbox', results_per_call=5)}
        with BeamTestPipeline('FnApiRunner') as pipeline:
            batches = pipeline | beam.Create([])
            for name, plan in plans.items():
                result = batches | name >> Discover(plan, 2, proxy=server.proxy_url)
                assert_that(result['found'] | f'{name}Count' >> beam.combiners.Count.Globally(), equal_to([10]),
                            label=f'{name}Found')
                assert_that(result['log'] | f'{name}Log' >> beam.Map(lambda r: (r['operator'], r['results'], r['outcome'],
                                                                                r['requests'])),
                            equal_to([(name, 5, 'ok', 1)] * 2), label=f'{name}Calls')

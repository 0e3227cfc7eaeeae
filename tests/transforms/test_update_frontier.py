"""UpdateFrontier on FnApiRunner: previous candidates + found links − every URL reached, in tables."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from models.frontier import seed_candidate
from pipelines.schema import CANDIDATES
from transforms.fetch import reached_urls
from transforms.frontier import PartitionRowsFn, UpdateFrontier
from transforms.tables import rows_table


def row(url, priority, round_number, parent='http://p.test/', times_linked=1):
    return {'round': round_number, 'url': url, 'host': url.split('/')[2], 'priority': priority, 'depth': -1,
            'operator': 'link', 'parent_url': parent, 'parent_relevance': 0.5, 'block': 'content',
            'anchor': 'a', 'anchor_relevance': 0.1, 'context_relevance': 0.0, 'url_relevance': 0.0,
            'first_round': round_number, 'parent_position': 0, 'link_index': 0, 'times_linked': times_linked,
            'title': None, 'snippet': None}


def columns(rows):
    """Rows as the Score stage gives a page's found rows: a batch of columns."""
    return {name: [row.get(name) for row in rows] for name in CANDIDATES.names}


PREVIOUS = [row('http://a.test/1', 0.2, 1, times_linked=2), row('http://a.test/2', 0.9, 1),
            row('http://b.test/1', 0.4, 1)]
FOUND = [row('http://a.test/1', 0.6, 2, parent='http://q.test/'), row('http://c.test/1', 0.3, 2),
         row('http://c.test/1', 0.1, 2), row('http://d.test/old', 0.8, 2), row('http://e.test/hop', 0.5, 2)]
WAITING = [seed_candidate('http://c.test/1', 3, -1, 2), seed_candidate('http://f.test/', 4, -1, 2),
           seed_candidate('http://a.test/2', 5, -1, 2)]
LOG = [{'url': 'http://a.test/2', 'final_url': 'http://a.test/2', 'redirects': []},
       {'url': 'http://b.test/1', 'final_url': 'http://z.test/', 'redirects': ['http://e.test/hop']},
       {'url': 'http://d.test/old', 'final_url': None, 'redirects': None}]


def test_the_new_candidates_are_merged_and_never_hold_a_url_reached():
    with BeamTestPipeline('FnApiRunner') as pipeline:
        candidates = ({'previous': pipeline | 'Previous' >> beam.Create([rows_table(PREVIOUS, CANDIDATES)]),
                       'found': pipeline | 'Found' >> beam.Create([columns(FOUND[:2]), columns(FOUND[2:])]),
                       'waiting': pipeline | 'Waiting' >> beam.Create(WAITING),
                       'reached': pipeline | 'Log' >> beam.Create(LOG) | beam.FlatMap(reached_urls)}
                      | UpdateFrontier(2, CANDIDATES))
        summary = candidates | beam.FlatMap(lambda table: [(r['url'], r['priority'], r['parent_url'], r['first_round'],
                                                            r['times_linked'], r['round']) for r in table.to_pylist()])
        # a seed waiting keeps its place (priority 1.0, first round 0) and counts no link
        assert_that(summary, equal_to([('http://a.test/1', 0.6, 'http://q.test/', 1, 3, 2),
                                       ('http://c.test/1', 1.0, None, 0, 2, 2),
                                       ('http://f.test/', 1.0, None, 0, 0, 2)]))


def test_rows_are_merged_in_their_url_partition_whatever_the_batches(monkeypatch):
    """Many URLs, in batches smaller than a bundle: each URL's rows meet in one partition, so every
    URL comes out once, merged as if all its rows were merged at once."""
    monkeypatch.setattr(PartitionRowsFn, 'BATCH_ROWS', 7)
    found = [row(f'http://h{n % 5}.test/{n % 40}', (n * 7 % 10) / 10, 2, parent=f'http://p{n}.test/') for n in range(200)]
    with BeamTestPipeline('FnApiRunner') as pipeline:
        candidates = ({'previous': pipeline | 'Previous' >> beam.Create([]),
                       'found': pipeline | 'Found' >> beam.Create([columns(found[n:n + 9]) for n in range(0, 200, 9)]),
                       'waiting': pipeline | 'Waiting' >> beam.Create([]),
                       'reached': pipeline | 'Reached' >> beam.Create(['http://h0.test/0'])}
                      | UpdateFrontier(2, CANDIDATES))
        merged = candidates | beam.FlatMap(lambda table: [(r['url'], r['priority'], r['times_linked']) for r in table.to_pylist()])
        expected = [(url, max(r['priority'] for r in found if r['url'] == url), 5)
                    for url in sorted({r['url'] for r in found}) if url != 'http://h0.test/0']
        assert_that(merged, equal_to(expected))

"""UpdateFrontier on FnApiRunner: previous candidates + found links − every URL reached."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from models.frontier import seed_candidate
from transforms.fetch import reached_urls
from transforms.frontier import UpdateFrontier


def row(url, priority, round_number, parent='http://p.test/', times_linked=1):
    return {'round': round_number, 'url': url, 'host': url.split('/')[2], 'priority': priority, 'depth': -1,
            'operator': 'link', 'parent_url': parent, 'parent_relevance': 0.5, 'block': 'content',
            'anchor': 'a', 'anchor_relevance': 0.1, 'context_relevance': 0.0, 'url_relevance': 0.0,
            'first_round': round_number, 'parent_position': 0, 'link_index': 0, 'times_linked': times_linked,
            'title': None, 'snippet': None}


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
        candidates = ({'previous': pipeline | 'Previous' >> beam.Create(PREVIOUS),
                       'found': pipeline | 'Found' >> beam.Create(FOUND),
                       'waiting': pipeline | 'Waiting' >> beam.Create(WAITING),
                       'reached': pipeline | 'Log' >> beam.Create(LOG) | beam.FlatMap(reached_urls)}
                      | UpdateFrontier(2))
        summary = candidates | beam.Map(lambda r: (r['url'], r['priority'], r['parent_url'], r['first_round'],
                                                   r['times_linked'], r['round']))
        # a seed waiting keeps its place (priority 1.0, first round 0) and counts no link
        assert_that(summary, equal_to([('http://a.test/1', 0.6, 'http://q.test/', 1, 3, 2),
                                       ('http://c.test/1', 1.0, None, 0, 2, 2),
                                       ('http://f.test/', 1.0, None, 0, 0, 2)]))


def test_found_rows_merged_in_any_grouping_give_the_row_of_merging_them_all():
    import random
    from models.frontier import merge_candidates
    from transforms.frontier import MergeFoundRowsFn
    chance = random.Random(4)
    rows = [{**row('http://a.test/x', chance.choice([0.2, 0.5, 0.9]), 3, parent=f'http://p{n % 4}.test/',
                   times_linked=1), 'depth': chance.randint(-1, 3), 'parent_position': chance.randint(0, 3),
             'link_index': chance.randint(0, 9)} for n in range(40)]
    merge = MergeFoundRowsFn(3)
    for _ in range(20):
        chance.shuffle(rows)
        cut = chance.randint(1, len(rows) - 1)
        parts = []
        for part in (rows[:cut], rows[cut:]):
            merged = merge.create_accumulator()
            for one in part:
                merged = merge.add_input(merged, one)
            parts.append(merged)
        assert merge.extract_output(merge.merge_accumulators(parts)) == merge_candidates(rows, 3)

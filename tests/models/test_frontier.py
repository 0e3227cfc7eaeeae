"""How a URL's candidate rows merge (models/frontier.py), the rule UpdateFrontier applies."""
import random

import pyarrow as pa

from models.frontier import link_candidates, merge_candidates
from models.strategies import LinkBatch, LinkFeatures, LinkScore, LinkScores, ParentPage
from pipelines.schema import CANDIDATES


def found(parent_url, priority, round_number, position=0, index=0, depth=-1):
    """The candidate row of the link at `index` on its page (the links before it dropped by the
    strategy); index None: a row of no known place (a seed's, say)."""
    link = LinkFeatures('http://x.test/a', 'anchor', 'content', ['anchor'], [], ['x', 'test'], 0.4, 0.0, 0.1)
    parent = ParentPage(parent_url, 0.6, 2, position)
    at = index or 0
    scores = LinkScores.of([None] * at + [LinkScore(priority, depth)])
    columns = link_candidates(LinkBatch.of([link] * (at + 1)), scores, parent, round_number)
    assert sorted(columns) == sorted(CANDIDATES.names)
    [row] = [dict(zip(columns, values)) for values in zip(*columns.values())]
    assert row['link_index'] == at
    return {**row, 'link_index': index}


def test_a_link_becomes_a_candidate_row_with_its_features_kept_apart():
    row = found('http://p.test/', 0.5, 3, position=4, index=7, depth=2)
    assert row['url'] == 'http://x.test/a' and row['host'] == 'x.test' and row['operator'] == 'link'
    assert (row['anchor_relevance'], row['context_relevance'], row['url_relevance']) == (0.4, 0.0, 0.1)
    assert (row['parent_relevance'], row['parent_position'], row['link_index']) == (0.6, 4, 7)
    assert (row['first_round'], row['times_linked'], row['depth']) == (3, 1, 2)


def merged(rows, round_number):
    return merge_candidates(pa.Table.from_pylist(rows, CANDIDATES), round_number).to_pylist()


def test_the_best_link_wins_with_the_largest_depth_the_first_round_and_every_link_counted():
    earlier = {**found('http://old.test/', 0.3, 1, depth=3), 'times_linked': 2}
    [row] = merged([found('http://new.test/', 0.9, 4, depth=1), earlier, found('http://low.test/', 0.1, 4)], 4)
    assert row['parent_url'] == 'http://new.test/' and row['priority'] == 0.9
    assert (row['depth'], row['first_round'], row['times_linked'], row['round']) == (3, 1, 4, 4)


def test_equal_priorities_keep_the_link_found_first():
    rows = [found('http://b.test/', 0.5, 2, position=1, index=0), found('http://a.test/', 0.5, 2, position=0, index=9),
            found('http://c.test/', 0.5, 3)]
    assert merged(rows, 3)[0]['parent_url'] == 'http://a.test/'
    assert merged(rows[::-1], 3)[0]['parent_url'] == 'http://a.test/'


def random_rows(chance: random.Random) -> list[dict]:
    """Rows of ten URLs that tie often on each part of the order."""
    return [{**found(chance.choice(['http://p.test/', 'http://q.test/', None]), chance.choice([0.2, 0.5]),
                     chance.randint(1, 3), position=chance.choice([0, 1, None]), index=chance.choice([0, 5, None]),
                     depth=chance.randint(-1, 3)),
             'url': f'http://x.test/{chance.randint(0, 9)}', 'times_linked': chance.randint(0, 2)} for _ in range(300)]


def test_a_round_s_rows_merged_as_they_come_in_any_batches_give_the_rows_of_merging_all_at_once():
    """A round's found rows share their first round, so merging some of them first (the bundle's
    batches) picks the same best row as merging them all with the earlier rounds' at once."""
    chance = random.Random(11)
    rows = random_rows(chance)
    earlier, this_round = [row for row in rows if row['first_round'] < 3], [row for row in rows if row['first_round'] == 3]
    for _ in range(10):
        chance.shuffle(this_round)
        cuts = sorted(chance.sample(range(1, len(this_round)), 3))
        premerged = []
        for batch in (this_round[start:end] for start, end in zip([0, *cuts], [*cuts, len(this_round)])):
            premerged += merged(batch, 4)
        assert len(premerged) < len(this_round) and merged(premerged, 4) == merged(this_round, 4)
        assert merged(earlier + premerged, 4) == merged(rows, 4)


def test_each_url_gets_the_row_of_its_best_link_in_whatever_order_rows_come():
    """Against the rule written row by row: smallest (-priority, first round, page place, link
    place, parent URL), an unknown place after every known one and no parent before any."""
    chance = random.Random(7)
    rows = random_rows(chance)
    unknown = float('inf')

    def preference(row):
        return (-row['priority'], row['first_round'], unknown if row['parent_position'] is None else row['parent_position'],
                unknown if row['link_index'] is None else row['link_index'], row['parent_url'] or '')

    expected = []
    for url in sorted({row['url'] for row in rows}):
        mine = [row for row in rows if row['url'] == url]
        expected.append({**min(mine, key=preference), 'round': 4, 'depth': max(row['depth'] for row in mine),
                         'first_round': min(row['first_round'] for row in mine),
                         'times_linked': sum(row['times_linked'] for row in mine)})
    for _ in range(5):
        chance.shuffle(rows)
        assert merged(rows, 4) == [{name: row.get(name) for name in CANDIDATES.names} for row in expected]

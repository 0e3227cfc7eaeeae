"""How a URL's candidate rows merge (models/frontier.py), the rule UpdateFrontier applies."""
from models.frontier import link_candidate, merge_candidates
from models.strategies import LinkFeatures, LinkScore, ParentPage


def found(parent_url, priority, round_number, position=0, index=0, depth=-1):
    link = LinkFeatures('http://x.test/a', 'anchor', 'content', ['anchor'], [], ['x', 'test'], 0.4, 0.0, 0.1)
    parent = ParentPage(parent_url, 0.6, 2, position)
    return link_candidate(link, parent, LinkScore(priority, depth), index, round_number)


def test_a_link_becomes_a_candidate_row_with_its_features_kept_apart():
    row = found('http://p.test/', 0.5, 3, position=4, index=7, depth=2)
    assert row['url'] == 'http://x.test/a' and row['host'] == 'x.test' and row['operator'] == 'link'
    assert (row['anchor_relevance'], row['context_relevance'], row['url_relevance']) == (0.4, 0.0, 0.1)
    assert (row['parent_relevance'], row['parent_position'], row['link_index']) == (0.6, 4, 7)
    assert (row['first_round'], row['times_linked'], row['depth']) == (3, 1, 2)


def test_the_best_link_wins_with_the_largest_depth_the_first_round_and_every_link_counted():
    earlier = {**found('http://old.test/', 0.3, 1, depth=3), 'times_linked': 2}
    merged = merge_candidates([found('http://new.test/', 0.9, 4, depth=1), earlier,
                               found('http://low.test/', 0.1, 4)], 4)
    assert merged['parent_url'] == 'http://new.test/' and merged['priority'] == 0.9
    assert (merged['depth'], merged['first_round'], merged['times_linked'], merged['round']) == (3, 1, 4, 4)


def test_equal_priorities_keep_the_link_found_first():
    rows = [found('http://b.test/', 0.5, 2, position=1, index=0), found('http://a.test/', 0.5, 2, position=0, index=9),
            found('http://c.test/', 0.5, 3)]
    assert merge_candidates(rows, 3)['parent_url'] == 'http://a.test/'
    assert merge_candidates(rows[::-1], 3)['parent_url'] == 'http://a.test/'

"""The strategy interface on real candidate tables (pipelines/schema.py CANDIDATES)."""
import numpy as np
import pyarrow as pa
import pytest

from models.strategies import (STRATEGIES, LinkBatch, LinkFeatures, LinkScore, LinkScores, ParentPage, StrategyError,
                               make_strategy, strategy_class, top_k)
from models.termstats import TermStats
from models.relevance import TopicRelevance
from models.topic import Topic
from pipelines.schema import CANDIDATES


def candidate(url, priority=0.0, first_round=1, parent_position=0, link_index=0):
    return {'round': 3, 'url': url, 'host': url.split('/')[2], 'priority': priority, 'depth': -1,
            'operator': 'link', 'first_round': first_round, 'parent_position': parent_position,
            'link_index': link_index, 'times_linked': 1}


POOL = [candidate('http://b.test/1', 0.9, 2, 0, 3), candidate('http://a.test/1', 0.9, 1, 1, 0),
        candidate('http://c.test/1', 0.2, 1, 0, 5), candidate('http://a.test/2', 0.95, 2, 0, 1),
        candidate('http://d.test/1', 0.1, 1, 0, 2)]


def table(rows):
    return pa.Table.from_pylist(rows, schema=CANDIDATES)


def chosen_urls(name, rows, k, seed=0, state=None):
    chosen, new_state = make_strategy(name).choose(table(rows), k, state or {}, np.random.default_rng(seed))
    return chosen.column('url').to_pylist(), new_state


def test_best_first_takes_the_highest_priorities_and_breaks_ties_by_url():
    assert chosen_urls('best-first', POOL, 3)[0] == ['http://a.test/2', 'http://a.test/1', 'http://b.test/1']
    assert chosen_urls('best-first', POOL[::-1], 3)[0] == ['http://a.test/2', 'http://a.test/1', 'http://b.test/1']
    assert len(chosen_urls('best-first', POOL, 99)[0]) == 5 and chosen_urls('best-first', [], 3)[0] == []


def test_breadth_first_takes_the_oldest_discovery_first():
    expected = ['http://d.test/1', 'http://c.test/1', 'http://a.test/1', 'http://a.test/2', 'http://b.test/1']
    assert chosen_urls('bfs', POOL, 5)[0] == expected
    assert chosen_urls('bfs', POOL[::-1], 2)[0] == expected[:2]


def test_random_choice_repeats_with_the_same_generator_state_whatever_the_row_order():
    first, state = chosen_urls('random', POOL, 3, seed=7)
    again, _ = chosen_urls('random', POOL[::-1], 3, seed=7)
    assert first == again and len(set(first)) == 3 and state == {'draws': 3}
    draws = {tuple(chosen_urls('random', POOL, 3, seed=seed)[0]) for seed in range(20)}
    assert len(draws) > 5  # it really draws
    assert chosen_urls('random', POOL, 3, state={'draws': 4})[1] == {'draws': 7}


def test_top_k_selects_without_sorting_the_pool_and_orders_the_chosen():
    rows = table([candidate(f'http://h{n % 7}.test/{n}', priority=float(n % 10)) for n in range(1000)])
    best = top_k(rows, 4, [('priority', 'descending'), ('url', 'ascending')])
    assert best.column('priority').to_pylist() == [9.0] * 4
    assert best.column('url').to_pylist() == sorted(best.column('url').to_pylist())
    assert top_k(rows, 0, [('url', 'ascending')]).num_rows == 0


TOPIC = Topic('房产', 'zh', {'房价': 1.0})
STATS = TermStats.from_documents([['房价'], ['足球'], ['天气']])
relevance = TopicRelevance(TOPIC, STATS)


def link(anchor_terms, block='content'):
    return LinkFeatures('http://a.test/x', ''.join(anchor_terms), block, anchor_terms, [], [],
                        relevance(anchor_terms), 0.0, 0.0)


def test_best_first_scores_anchor_words_and_inherits_the_page_by_block():
    strategy = make_strategy('best-first')
    parent = ParentPage('http://a.test/', 0.5, -1, 0)

    def priority(anchor, block='content'):
        return strategy.score_link(link(anchor, block), parent, relevance).priority
    assert priority(['房价']) > priority(['足球']) == pytest.approx(0.7 * 0.5)
    assert priority(['足球'], 'noise') == 0
    assert 0 < priority(['足球'], 'navigation') < priority(['足球'])


def test_a_page_s_links_scored_at_once_score_as_each_alone():
    """score_links, as the Score stage calls it: best-first's own columns and the default (a paper
    strategy's score_link per link, a dropped link's priority None) give what score_link gives."""
    words = [[], ['房价'], ['足球'], ['房价', '足球'], ['天气', '房价', '房价']]
    links = [LinkFeatures(f'http://a.test/{n}', 'x', block, anchor, context, url, relevance(anchor),
                          relevance(context), relevance(url), None)
             for n, (anchor, context, url, block) in enumerate(
                 (a, c, u, b) for a in words for c in words[:3] for u in words[:2]
                 for b in ('content', 'related', 'navigation', 'noise', 'other'))]
    parents = [ParentPage('http://a.test/', 0.5, 0, 0), ParentPage('http://a.test/', 0.0, 2, 0, relevant=True)]
    for strategy in (make_strategy('best-first'), make_strategy('shark'), make_strategy('dth')):
        for parent in parents:
            scores = strategy.score_links(LinkBatch.of(links), parent, relevance)
            alone = [strategy.score_link(link, parent, relevance) for link in links]
            assert scores == LinkScores.of(alone)
    assert make_strategy('shark').score_links(LinkBatch.of(links), parents[0], relevance).priority[0] is None
    for anchor, context, url in zip(words, words[1:], words[2:]):
        assert relevance.of_parts(anchor, context, url) == relevance([*anchor, *context, *url])


def test_a_priority_a_strategy_s_columns_hold_that_is_not_a_finite_number_is_refused():
    batch = LinkBatch.of([link(['房价'])])
    strategy = make_strategy('best-first', {'anchor_share': float('nan')})
    with pytest.raises(StrategyError, match='finite number'):
        strategy.score_links(batch, ParentPage('http://a.test/', 0.5, -1, 0), relevance).checked()


def test_parameters_are_completed_with_defaults_and_unknown_ones_refused():
    assert make_strategy('best-first', {'anchor_share': 0.5}).params['anchor_share'] == 0.5
    assert make_strategy('best-first').params['anchor_share'] == 0.3
    shares = make_strategy('best-first', {'parent_share_by_block': {'navigation': 0.2}}).params['parent_share_by_block']
    assert shares == {'content': 1.0, 'related': 1.0, 'navigation': 0.2, 'noise': 0.0}
    with pytest.raises(StrategyError, match='no parameter depth'):
        make_strategy('bfs', {'depth': 3})
    with pytest.raises(StrategyError, match='best-first, bfs, random'):
        strategy_class('shark-ish')
    assert set(STRATEGIES) == {'best-first', 'bfs', 'random', 'parent-first', 'shark', 'ssaps', 'dth', 'wl', 'bandit',
                               'ks', 'rs', 'fc', 'bc'}


@pytest.mark.parametrize('priority', [float('nan'), float('inf'), None, '0.5'])
def test_a_priority_that_is_not_a_finite_number_is_refused(priority):
    with pytest.raises(StrategyError, match='finite number'):
        LinkScore(priority)

"""The seed papers' link-level strategies (shark, ssaps, dth, parent-first, wl) and their relevance
functions, against hand-computed cases; WL's chain on real pyarrow tables."""
import json
import math

import numpy as np
import pyarrow as pa
import pytest

from models.relevance import TopicRelevance, dth_relevance, terms_relevance, topic_words_relevance
from models.strategies import (UNLIMITED_DEPTH, LinkFeatures, PageFeatures, ParentPage, RoundContext, StrategyError,
                               make_strategy)
from models.strategies.papers import first_level, url_dictionary
from models.strategies.wl import Queue, energy_bin
from models.termstats import TermStats
from models.topic import Topic
from pipelines.schema import CANDIDATES, LINKS, PAGES

TOPIC = Topic('房产', 'zh', {'房价': 1.0, '楼盘': 0.5})
STATS = TermStats.from_documents([['房价', '北京'], ['楼盘'], ['足球'], ['天气', '北京']])
RELEVANCE = TopicRelevance(TOPIC, STATS)


def link(url='http://a.test/x', anchor=(), block='content', context=(), url_terms=(), block_index=None):
    return LinkFeatures(url, ''.join(anchor), block, list(anchor), list(context), list(url_terms),
                        RELEVANCE(list(anchor)), RELEVANCE(list(context)), RELEVANCE(list(url_terms)), block_index)


def test_wl_eq4_is_the_cosine_over_the_topic_words_only():
    page = ['房价', '房价', '北京', '足球', '天气']
    idf = STATS.idf('房价')
    weight = 2 / 5 * idf  # only 房价 of the topic's words is on the page
    expected = weight * 1.0 / math.sqrt((1.0 + 0.25) * weight ** 2)
    assert topic_words_relevance(page, TOPIC, STATS) == pytest.approx(expected)
    assert topic_words_relevance(page, TOPIC, STATS) > terms_relevance(page, TOPIC, STATS)  # other words do not count
    assert topic_words_relevance(['足球'], TOPIC, STATS) == 0.0
    everywhere = TermStats.from_documents([['房价'], ['房价']])  # lg(2 / 3) < 0: clamped to 0
    assert topic_words_relevance(['房价'], TOPIC, everywhere) == 0.0


def test_dth_eq1_weights_raw_counts_by_log_n_over_df():
    page = ['房价', '房价', '北京']
    weights = {'房价': 2 * math.log(4 / 1), '北京': 1 * math.log(4 / 2)}
    expected = weights['房价'] / math.sqrt((1 + 0.25) * (weights['房价'] ** 2 + weights['北京'] ** 2))
    assert dth_relevance(page, TOPIC, STATS) == pytest.approx(expected)
    assert RELEVANCE(page, 'dth-eq1') == dth_relevance(page, TOPIC, STATS)


def test_shark_inherits_with_decay_scores_anchor_then_context_and_bounds_depth():
    shark = make_strategy('shark')
    assert shark.seed_depth() == 3
    relevant = ParentPage('http://a.test/', 0.4, 2, 0, relevant=True)
    score = shark.score_link(link(anchor=['房价']), relevant, RELEVANCE)
    anchor = RELEVANCE(['房价'])
    assert score.inherited == pytest.approx(0.5 * 0.4)
    assert score.priority == pytest.approx(0.8 * 0.2 + 0.2 * (0.8 * anchor + 0.2 * 1.0))  # context counts 1
    assert score.depth == 3  # a relevant page renews the depth
    no_anchor = shark.score_link(link(anchor=['新闻'], context=['楼盘']), relevant, RELEVANCE)
    assert no_anchor.priority == pytest.approx(0.8 * 0.2 + 0.2 * 0.2 * RELEVANCE(['楼盘']))
    unrelated = ParentPage('http://a.test/', 0.0, 1, 0, inherited=0.3)
    score = shark.score_link(link(), unrelated, RELEVANCE)
    assert score.inherited == pytest.approx(0.15) and score.depth == 0  # the parent's own inherited score, decayed
    assert shark.score_link(link(), ParentPage('http://a.test/', 0.0, 0, 0), RELEVANCE) is None  # depth spent


def test_ssaps_adds_page_block_and_anchor_relevance_by_block_class():
    ssaps = make_strategy('ssaps', {'delta': 0.5, 'gamma': 0.2})
    page = PageFeatures('http://a.test/news/1.html', 'http://a.test/news/1.html', ['房价', '足球'],
                        [('content', ['房价', '北京']), ('related', ['楼盘', '足球'])], 3, None)
    scored = ssaps.score_page(page, RELEVANCE)
    assert scored.blocks == (RELEVANCE(['房价', '北京']), RELEVANCE(['楼盘', '足球']))
    assert scored.relevance == RELEVANCE(['房价', '足球'])
    parent = ParentPage(page.final_url, scored.relevance, 1, 0, blocks=scored.blocks)
    r_p = sum(scored.blocks)
    related = ssaps.score_link(link(anchor=['房价'], block='related', block_index=1), parent, RELEVANCE)
    assert related.priority == pytest.approx(r_p + scored.blocks[1] + RELEVANCE(['房价']))
    content = ssaps.score_link(link(anchor=['房价'], block='content', block_index=0), parent, RELEVANCE)
    assert content.priority == pytest.approx(r_p)  # R_B and R_A are 0 outside related-link blocks
    menu = ssaps.score_link(link('http://a.test/house/', anchor=['房价'], block='navigation'), parent, RELEVANCE)
    deep = ssaps.score_link(link('http://a.test/house/2.html', block='navigation'), parent, RELEVANCE)
    assert menu.priority == pytest.approx(r_p + 0.2) and deep.priority == pytest.approx(r_p)
    assert related.depth == 3 if related.priority > 0.5 else related.depth == 0
    low = ParentPage(page.final_url, 0.0, 0, 0, blocks=(0.0, 0.0))
    assert ssaps.score_link(link(block='noise'), low, RELEVANCE) is None  # R <= delta at depth 0: not followed
    assert first_level('http://a.test/sports/', 'http://a.test/x/y.html')
    assert not first_level('http://b.test/', 'http://a.test/') and not first_level('http://a.test/a/b', 'http://a.test/')


def test_dth_tunnels_through_irrelevant_pages_with_a_depth_budget():
    dth = make_strategy('dth')
    assert dth.seed_depth() == UNLIMITED_DEPTH
    relevant = ParentPage('http://a.test/', 0.3, UNLIMITED_DEPTH, 0, relevant=True, inherited=4.0)
    score = dth.score_link(link(), relevant, RELEVANCE)
    assert (score.priority, score.depth, score.inherited) == (0.3, UNLIMITED_DEPTH, 0.0)
    first = ParentPage('http://a.test/', 0.01, UNLIMITED_DEPTH, 0, inherited=0.0)
    assert dth.score_link(link(anchor=['房价']), first, RELEVANCE).depth == 11  # literal: k_depth spent at once
    predicting = make_strategy('dth', {'first_step': 'predict'})
    assert predicting.score_link(link(anchor=['房价']), first, RELEVANCE).depth == 12
    assert predicting.score_link(link(anchor=['足球']), first, RELEVANCE).depth == 11
    inside = ParentPage('http://a.test/', 0.0, 5, 0, inherited=2.0)
    kept = dth.score_link(link(anchor=['房价']), inside, RELEVANCE)
    spent = dth.score_link(link(anchor=['足球']), inside, RELEVANCE)
    assert (kept.depth, spent.depth, kept.priority, kept.inherited) == (5, 4, 0.0, 3.0)
    assert dth.score_link(link(), ParentPage('http://a.test/', 0.0, 0, 0), RELEVANCE) is None
    with pytest.raises(StrategyError, match='first_step'):
        make_strategy('dth', {'first_step': 'sometimes'})


def test_dth_url_dictionary_keeps_words_of_relevant_pages_urls_only():
    urls = ['http://a.test/house/1.html', 'http://b.test/house/2.html', 'http://a.test/sports/1.html',
            'http://c.test/sports/2.html']
    assert url_dictionary(urls, [True, True, False, False]) == {'house'}
    assert url_dictionary(urls, [True, True, True, True]) == frozenset()  # nothing to compare with yet
    dth = make_strategy('dth', {'link_threshold': 0.0})  # the URL alone predicts: 1/3 of a word share
    dth.url_terms = frozenset({'house'})
    inside = ParentPage('http://a.test/', 0.0, 5, 0)
    assert dth.score_link(link(url_terms=['a', 'test', 'house']), inside, RELEVANCE).depth == 5
    assert dth.score_link(link(url_terms=['a', 'test', 'news']), inside, RELEVANCE).depth == 4


def candidates(rows):
    defaults = {'round': 2, 'host': 'a.test', 'depth': -1, 'operator': 'link', 'parent_position': 0,
                'times_linked': 1}
    return pa.Table.from_pylist([{**defaults, **row} for row in rows], schema=CANDIDATES)


def test_dth_chooses_relevant_links_breadth_first_and_tunnel_links_depth_first():
    pool = candidates([
        {'url': 'http://a.test/old-tunnel', 'priority': 0.0, 'depth': 3, 'first_round': 1, 'link_index': 0},
        {'url': 'http://a.test/new-tunnel', 'priority': 0.0, 'depth': 3, 'first_round': 2, 'link_index': 0},
        {'url': 'http://a.test/new-kept', 'priority': 0.0, 'depth': 4, 'first_round': 2, 'link_index': 1},
        {'url': 'http://a.test/old-best', 'priority': 0.5, 'depth': UNLIMITED_DEPTH, 'first_round': 1, 'link_index': 2},
        {'url': 'http://a.test/new-best', 'priority': 0.5, 'depth': UNLIMITED_DEPTH, 'first_round': 2, 'link_index': 0}])
    chosen, _ = make_strategy('dth').choose(pool, 5, {}, np.random.default_rng(0))
    assert chosen.column('url').to_pylist() == ['http://a.test/old-best', 'http://a.test/new-best',
                                                'http://a.test/new-kept', 'http://a.test/new-tunnel',
                                                'http://a.test/old-tunnel']
    assert chosen.schema == CANDIDATES
    parent_first = make_strategy('parent-first')
    assert parent_first.score_link(link(anchor=['房价']), ParentPage('http://a.test/', 0.25, -1, 0), RELEVANCE).priority == 0.25


def test_the_judgment_is_calibrated_on_the_seed_pages_with_the_latest_statistics():
    seeds = ['http://a.test/1', 'http://a.test/2']
    pages = pa.Table.from_pylist([
        {'url': 'http://a.test/1', 'terms': ['北京', '房价'], 'term_counts': [1, 3]},
        {'url': 'http://a.test/2', 'terms': ['房价', '楼盘'], 'term_counts': [1, 1]},
        {'url': 'http://a.test/3', 'terms': ['足球'], 'term_counts': [1]}],
        schema=pa.schema([PAGES.field(c) for c in ('url', 'terms', 'term_counts')]))
    seed_pages = pages.filter(pa.compute.is_in(pages['url'], pa.array(seeds)))
    context = RoundContext(3, TOPIC, seeds, lambda table, columns=None: pages,
                           lambda columns: seed_pages.select(columns), lambda terms: STATS)
    shark = make_strategy('shark', {'relevant_share': 0.5})
    assert shark.threshold is None and not shark.judged_relevant('http://b.test/', 0.9)
    shark.prepare(context)
    medians = sorted([RELEVANCE(['北京', '房价', '房价', '房价']), RELEVANCE(['房价', '楼盘'])])
    assert shark.threshold == pytest.approx(0.5 * sum(medians) / 2)
    assert shark.judged_relevant('http://a.test/1', 0.0)  # a seed is relevant whatever it scores
    assert shark.judged_relevant('http://b.test/', shark.threshold) and not shark.judged_relevant('http://b.test/', 0.0)


def test_wl_energy_bins_and_region_competition():
    assert [energy_bin(e) for e in (0.0, 0.019, 0.02, 0.5, 0.999, 1.0, -0.1)] == ['0', '0', '1', '25', '49', '49', '0']
    queue = Queue()
    for url, host, energy in (('http://a.test/1', 'a.test', 0.9), ('http://a.test/2', 'a.test', 0.1),
                              ('http://b.test/1', 'b.test', 0.6), ('http://b.test/2', 'b.test', 0.6)):
        queue.add(url, host, energy)
    assert queue.best() == 'http://a.test/1'
    rng = np.random.default_rng(3)
    picks = [queue.compete(rng, exclude=None) for _ in range(200)]
    assert set(picks) == {'http://b.test/1', 'http://b.test/2'}  # b's mean 0.6 beats a's 0.5
    assert {queue.compete(rng, exclude='http://b.test/1') for _ in range(50)} == {'http://b.test/2'}  # never X1
    queue.remove('http://b.test/1')
    queue.remove('http://b.test/2')
    picks = [queue.compete(rng, exclude=None) for _ in range(400)]
    share = picks.count('http://a.test/1') / len(picks)
    assert 0.8 < share < 0.97  # roulette: 0.9 / (0.9 + 0.1)


def wl_context(pages, links, seeds):
    tables = {'pages': pa.Table.from_pylist(pages, schema=PAGES), 'links': pa.Table.from_pylist(links, schema=LINKS)}
    def read(table, columns=None):
        return tables[table].select(columns or tables[table].column_names)

    return RoundContext(5, TOPIC, seeds, read, lambda columns: read('pages', columns).slice(0, 0), lambda terms: STATS)


def page(url, relevance, inherited=None):
    return {'round': 1, 'url': url, 'final_url': url, 'host': url.split('/')[2], 'relevance': relevance,
            'relevant': False, 'inherited': inherited, 'terms': [], 'term_counts': []}


def edge(source, target, index):
    return {'round': 1, 'url': source, 'dst': target, 'link_index': index, 'block': 'content'}


def test_wl_expands_pages_chosen_by_its_chain_and_resumes_exactly_from_its_state():
    pages = [page('http://a.test/', 0.9), page('http://a.test/1', 0.5, 0.4), page('http://b.test/1', 0.1, 0.0),
             page('http://c.test/1', 0.8, 0.9)]
    children = {'http://a.test/': ['http://a.test/x1', 'http://a.test/x2', 'http://a.test/x3'],
                'http://a.test/1': ['http://a.test/y1'], 'http://b.test/1': ['http://b.test/z1'],
                'http://c.test/1': ['http://c.test/w1', 'http://a.test/x1']}
    links = [edge(source, target, i) for source, targets in children.items() for i, target in enumerate(targets)]
    pool = candidates([{'url': url, 'priority': 0.1, 'first_round': 1, 'link_index': 0}
                       for url in sorted({t for targets in children.values() for t in targets})])
    context = wl_context(pages, links, ['http://a.test/'])
    wl = make_strategy('wl')
    state = wl.initial_state()
    chosen, state = wl.choose(pool, 2, state, np.random.default_rng(1), context)
    first = chosen.column('url').to_pylist()
    assert len(first) == 2 and state['steps'] >= 0 and state['expanded']
    # b.test/1 has R(l) = 0.07 < 0.2 and no PageRank >= 2: never in the queue
    assert 'http://b.test/z1' not in first and 'http://b.test/1' not in state['expanded']
    saved = json.loads(json.dumps(state))  # what the selector file keeps
    rng_state = np.random.default_rng(9).bit_generator.state
    rest = pool.filter(pa.compute.invert(pa.compute.is_in(pool['url'], pa.array(first))))

    def again(state_dict):
        generator = np.random.PCG64()
        generator.state = rng_state
        return wl.choose(rest, 3, state_dict, np.random.Generator(generator), context)

    second, after = again(saved)
    repeat, after_again = again(json.loads(json.dumps(state)))
    assert second.column('url').to_pylist() == repeat.column('url').to_pylist() and after == after_again
    if state['unfinished']:  # the page whose links overflowed the first batch finishes first
        assert set(children[state['unfinished']]) - set(first) <= set(second.column('url').to_pylist())
    fetched = set(first) | set(second.column('url').to_pylist())
    assert 'http://b.test/z1' not in fetched


def test_wl_runs_its_chain_until_every_queued_page_is_expanded():
    rng = np.random.default_rng(4)
    pages = [page(f'http://h{n % 5}.test/{n}', float(rng.uniform(0.2, 1)), float(rng.uniform(0, 1))) for n in range(40)]
    links = [edge(p['url'], f'{p["url"]}/c{i}', i) for p in pages for i in range(3)]
    pool = candidates([{'url': e['dst'], 'priority': 0.1, 'first_round': 1, 'link_index': 0} for e in links])
    context = wl_context(pages, links, [pages[0]['url']])
    wl = make_strategy('wl', {'rejections': 1, 'flatness_interval': 3})  # step 7 and 10 often
    state, fetched = wl.initial_state(), []
    for _ in range(20):
        left = pool.filter(pa.compute.invert(pa.compute.is_in(pool['url'], pa.array(fetched, pa.string()))))
        chosen, state = wl.choose(left, 7, state, rng, context)
        if not chosen.num_rows:
            break
        fetched += chosen.column('url').to_pylist()
    assert sorted(fetched) == sorted(pool.column('url').to_pylist()) and len(set(fetched)) == len(fetched)
    assert len(state['expanded']) == 40 and state['steps'] > 3 and set(state['ln_g']) == set(state['hist'])


def test_wl_falls_back_to_the_best_page_after_rejections_and_goes_on_from_its_energy():
    queue = Queue()
    for url, host, energy in (('http://a.test/best', 'a.test', 0.9), ('http://a.test/low', 'a.test', 0.0),
                              ('http://b.test/1', 'b.test', 0.6)):
        queue.add(url, host, energy)  # b.test's mean 0.6 beats a.test's 0.45: b.test/1 is proposed
    wl = make_strategy('wl', {'rejections': 1})
    state = {**wl.initial_state(), 'current': 'http://x.test/', 'current_energy': 0.2,
             'ln_g': {'10': 0.0, '30': 9.0}, 'hist': {'10': 1, '30': 1}}
    rng = np.random.default_rng(0)
    assert wl._step(queue, state, rng) == 'http://a.test/best'  # exp(-9): rejected, then the queue's best
    assert state['current'] == 'http://a.test/best' and state['ln_g']['45'] == 0.0 and state['hist']['45'] == 1
    queue.remove('http://a.test/best')
    assert wl._step(queue, state, rng) in ('http://b.test/1', 'http://a.test/low')


def test_wl_flatness_halves_ln_f_and_resets_the_histogram():
    wl = make_strategy('wl', {'flatness_interval': 1})
    state = {**wl.initial_state(), 'ln_g': {'3': 2.0, '10': 1.0}, 'hist': {'3': 2, '10': 1}, 'steps': 1}
    wl._flatness(state)  # ln 2 / ln f = 0.69: every H >= it, so flat
    assert state['ln_f'] == 0.5 and state['hist'] == {'3': 0, '10': 0} and state['stage'] == 1
    state = {**state, 'hist': {'3': 5, '10': 1}}  # ln 2 / 0.5 = 1.39 > 1: not flat
    wl._flatness(state)
    assert state['ln_f'] == 0.5
    with pytest.raises(StrategyError, match='flatness'):
        make_strategy('wl', {'flatness': 'never'})

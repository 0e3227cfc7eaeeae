"""DWDBRM's rankers and their combination (models/ranking.py), against hand-computed cases."""
import math

import numpy as np
import pyarrow as pa
import pytest
from scipy import sparse

from models import ranking
from models.topic import Topic
from pipelines.schema import PAGES

TOPIC = Topic('房产', 'zh', {'房价': 0.8, '楼盘': 0.5, '开发商': 0.3})


def pages_table(pages: dict[str, dict[str, int]], round_number=1) -> pa.Table:
    """Page rows (ranking.PAGE_COLUMNS) from {url: term counts}."""
    return pa.Table.from_pylist(
        [{'round': round_number, 'url': url, 'final_url': url, 'host': url.split('/')[2], 'title': url,
          'terms': sorted(counts), 'term_counts': [counts[t] for t in sorted(counts)]}
         for url, counts in pages.items()], schema=PAGES).select(ranking.PAGE_COLUMNS)


SEEDS = {'http://fang.test/1': {'房价': 3, '楼盘': 1, '上涨': 2, '北京': 1},
         'http://fang.test/2': {'房价': 1, '开发商': 2, '上涨': 1, '市场': 1},
         'http://jia.test/3': {'楼盘': 2, '开发商': 1, '市场': 2, '上涨': 1}}
OTHERS = {'http://fang.test/4': {'房价': 2, '楼盘': 2, '上涨': 1, '市场': 1},
          'http://qiu.test/5': {'足球': 4, '比赛': 2, '北京': 1},
          'http://qiu.test/6': {'篮球': 3, '比赛': 3},
          'http://qiu.test/7': {'足球': 1, '市场': 1, '球员': 2}}


def test_the_vocabulary_is_the_topic_then_terms_shared_by_seed_pages():
    seeds = pages_table(SEEDS)
    # topic terms by weight; then 上涨 (3 seeds), 市场 (2 seeds, 3 occurrences); 北京 is on one seed only
    assert ranking.keyword_vocabulary(seeds, TOPIC) == ['房价', '楼盘', '开发商', '上涨', '市场']
    assert ranking.keyword_vocabulary(seeds, TOPIC, size=4) == ['房价', '楼盘', '开发商', '上涨']
    one_seed = pages_table({'http://fang.test/1': SEEDS['http://fang.test/1']})
    assert ranking.keyword_vocabulary(one_seed, TOPIC)[3:] == ['上涨', '北京']  # one seed: all its terms


def test_page_features_count_the_vocabulary_terms():
    vocabulary = ['房价', '楼盘', '上涨']
    features = ranking.page_features(pages_table({**SEEDS, **OTHERS}), vocabulary)
    assert features.counts.toarray()[:2].tolist() == [[3, 1, 2], [1, 0, 1]]
    assert features.counts.toarray()[4].tolist() == [0, 0, 0]
    assert features.url_length[0] == len('http://fang.test/1') and features.domain_length[0] == len('fang.test')
    assert ranking.terms_features([('x.html', {'楼盘': 5, '别的': 1})], vocabulary).counts.toarray().tolist() == [[0, 5, 0]]


def test_cosine_and_jaccard_are_eq5_and_eq4_averaged_over_the_seeds():
    vocabulary = ['a', 'b', 'c']
    seeds = ranking.page_features(pages_table({'http://s.test/1': {'a': 1, 'b': 1}, 'http://s.test/2': {'c': 2}}),
                                  vocabulary)
    page = ranking.page_features(pages_table({'http://p.test/': {'a': 2, 'c': 2}}), vocabulary)
    # cos((2,0,2), (1,1,0)) = 2/(√8·√2) = 0.5; cos((2,0,2), (0,0,2)) = 4/(√8·2) = √2/2
    assert ranking.mean_similarity(page, seeds, 'cosine')[0] == pytest.approx((0.5 + math.sqrt(2) / 2) / 2)
    # {a,c} vs {a,b}: 1/3; {a,c} vs {c}: 1/2
    assert ranking.mean_similarity(page, seeds, 'jaccard')[0] == pytest.approx((1 / 3 + 1 / 2) / 2)


def test_the_bayesian_ranker_is_bayesian_sets_in_closed_form():
    query = np.array([[1, 0], [1, 1]])
    background = ranking.BayesBackground(np.array([2.0, 1.0]), 4)   # m = (0.5, 0.25)
    constant, weights = ranking.bayesian_sets(sparse.csr_matrix(query), background, c=2.0)
    a, b = np.array([1.0, 0.5]), np.array([1.0, 1.5])
    a_post, b_post = a + [2, 1], b + [0, 1]
    assert weights == pytest.approx(np.log(a_post / a) - np.log(b_post / b))
    assert constant == pytest.approx(np.sum(np.log((a + b) / (a + b + 2)) + np.log(b_post / b)))
    # the score of x is log P(x|S)/P(x) with Beta-Bernoulli marginals: check x = (1, 0) directly
    def marginal(x, alpha, beta):
        return np.prod(np.where(x == 1, alpha / (alpha + beta), beta / (alpha + beta)))
    x = np.array([1, 0])
    assert constant + weights @ x == pytest.approx(np.log(marginal(x, a_post, b_post) / marginal(x, a, b)))


def test_positions_count_from_zero_and_ties_share_their_places():
    assert ranking.positions([3.0, 1.0, 3.0, 2.0]).tolist() == [0.5, 3.0, 0.5, 2.0]


def score_rows(scores: dict[str, list[float]]) -> pa.Table:
    return pa.table({'url': [f'http://p.test/{i}' for i in range(len(scores['nb']))],
                     **{f'score_{name}': scores[name] for name in ranking.SCORES}})


SCORES = {'nb': [3, 2, 1], 'lr': [0.9, 0.8, 0.1], 'ocsvm': [1, 3, 2], 'cosine': [0.5, 0.4, 0.3],
          'jaccard': [0.2, 0.3, 0.1], 'pagerank': [0.1, 0.3, 0.6]}


def test_eq8_combines_positions_with_pagerank_and_smaller_is_better():
    # positions: page 0 -> 0,0,2,0,1 (mean 0.6), pr 2; page 1 -> 1,1,0,1,0 (mean 0.6), pr 1; page 2 -> 2,2,1,2,2 (1.8), pr 0
    ranked = ranking.combine(score_rows(SCORES), 'eq8', 0.2)
    combined = dict(zip(ranked['url'].to_pylist(), ranked['combined'].to_pylist()))
    assert combined == pytest.approx({'http://p.test/0': 0.8 * 0.6 + 0.2 * 2, 'http://p.test/1': 0.8 * 0.6 + 0.2 * 1,
                                      'http://p.test/2': 0.8 * 1.8})
    assert ranked['url'].to_pylist() == ['http://p.test/1', 'http://p.test/0', 'http://p.test/2']
    assert ranked['position'].to_pylist() == [0, 1, 2] and ranked['position_ocsvm'].to_pylist() == [0.0, 2.0, 1.0]
    without_pagerank = ranking.combine(score_rows(SCORES), 'eq8', 0.0)  # 0 and 1 tie: the URL decides
    assert without_pagerank['url'].to_pylist() == ['http://p.test/0', 'http://p.test/1', 'http://p.test/2']


def test_mean_and_rrf_are_larger_is_better():
    mean = ranking.combine(score_rows(SCORES), 'mean', 0.0)
    # min-max normalised: nb 1,.5,0; lr 1,.875,0; ocsvm 0,1,.5; cosine 1,.5,0; jaccard .5,1,0
    assert dict(zip(mean['url'].to_pylist(), mean['combined'].to_pylist())) == pytest.approx(
        {'http://p.test/0': 3.5 / 5, 'http://p.test/1': 3.875 / 5, 'http://p.test/2': 0.5 / 5})
    assert mean['url'].to_pylist()[0] == 'http://p.test/1'
    rrf = ranking.combine(score_rows(SCORES), 'rrf', 0.0)
    first = rrf.to_pylist()[0]  # page 0 by a hair: 3/61 + 1/62 + 1/63 against page 1's 2/61 + 3/62
    assert first['url'] == 'http://p.test/0'
    assert first['combined'] == pytest.approx(np.mean([1 / (60 + p + 1) for p in (0, 0, 2, 0, 1)]))
    with pytest.raises(ranking.RankingError, match='eq8, mean, rrf'):
        ranking.combine(score_rows(SCORES), 'max', 0.2)


def fitted(vocabulary=None):
    pages = pages_table({**SEEDS, **OTHERS})
    vocabulary = vocabulary or ranking.keyword_vocabulary(ranking.seed_rows(pages, list(SEEDS)), TOPIC)
    features = ranking.page_features(pages, vocabulary)
    seeds = features.take(range(len(SEEDS)))
    order = sorted(ranking.negative_order(features, seeds))
    negatives = features.take([row for *_, row in order[:2]])
    return ranking.fit_rankers(seeds, negatives, ranking.BayesBackground.of(features)), features, order


def test_every_ranker_puts_the_real_estate_page_above_the_sports_pages():
    rankers, features, order = fitted()
    assert [url for _, _, url, _ in order][-1] == 'http://fang.test/4'  # most like the seeds: never a negative
    scores = ranking.score_table(features.take(range(3, 7)), rankers)
    for name in ranking.RANKERS:
        column = scores[f'score_{name}'].to_pylist()
        assert column[0] > max(column[1:]), f'{name}: {column}'


def test_the_ranking_table_has_one_row_per_page_with_its_pagerank():
    rankers, features, _ = fitted()
    scores = ranking.score_table(features, rankers)
    again = ranking.score_table(features.take([4]), rankers)  # the same page fetched again later
    again = again.set_column(again.schema.get_field_index('fetched_round'), 'fetched_round', pa.array([9], pa.int32()))
    pagerank = pa.table({'url': ['http://fang.test/4', 'http://elsewhere.test/'], 'pagerank': [0.3, 0.1]})
    table = ranking.ranking_table([scores, again], [pagerank], features.take(range(3)))
    assert table.num_rows == 7 and sorted(table['position'].to_pylist()) == list(range(7))
    rows = {row['url']: row for row in table.to_pylist()}
    assert rows['http://qiu.test/5']['fetched_round'] == 1
    assert rows['http://fang.test/4']['score_pagerank'] == 0.3 and rows['http://qiu.test/6']['score_pagerank'] == 0
    assert {url for url, row in rows.items() if row['seed']} == set(SEEDS)


def test_negatives_come_from_a_file_of_urls_and_local_pages(tmp_path):
    (tmp_path / 'pages').mkdir()
    (tmp_path / 'pages' / 'sport.html').write_text(
        '<html><head><title>足球比赛</title></head><body><p>北京队在足球比赛中获胜，球员表现出色。</p></body></html>',
        encoding='utf-8')
    listing = tmp_path / 'negatives.txt'
    listing.write_text('# pages unlike the domain\nhttp://QIU.test/5\npages/sport.html\n', encoding='utf-8')
    urls, documents = ranking.read_negatives(str(listing))
    assert urls == ['http://qiu.test/5']
    assert documents[0][0].endswith('sport.html') and documents[0][1]['足球比赛'] == 2  # title and text
    listing.write_text('pages/missing.html\n')
    with pytest.raises(ranking.RankingError, match='cannot read the page'):
        ranking.read_negatives(str(listing))
    listing.write_text('# nothing\n')
    with pytest.raises(ranking.RankingError, match='names no page'):
        ranking.read_negatives(str(listing))
    with pytest.raises(ranking.RankingError, match='cannot read the negatives file'):
        ranking.read_negatives(str(tmp_path / 'none.txt'))

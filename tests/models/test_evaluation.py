import datetime

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from models.evaluation import (EvaluationError, GroundTruth, budget_fifths, fetch_order,
                               harvest_curve, summarize)

# Host a: two relevant pages and a robots-disallowed relevant print copy; host b: nothing
# relevant; host c: one relevant page among two.
LABELS = pa.table({
    'url': ['http://a.test/1', 'http://a.test/2', 'http://a.test/print/1', 'http://a.test/3',
            'http://b.test/1', 'http://b.test/2', 'http://c.test/1', 'http://c.test/2'],
    'host': ['a.test'] * 4 + ['b.test'] * 2 + ['c.test'] * 2,
    'kind': ['article', 'article', 'print', 'list', 'article', 'article', 'article', 'article'],
    'labels': [['房产'], ['房产'], ['房产'], [], ['体育'], ['体育'], ['房产'], ['体育']],
    'charset': ['utf-8'] * 8,
    'robots_allowed': [True, True, False, True, True, True, True, True],
    'relevant_房产': [True, True, True, False, False, False, True, False],
    'relevant_体育': [False, False, False, False, True, True, False, True],
})


@pytest.fixture
def truth():
    return GroundTruth(LABELS, 'relevant_房产')


def test_ground_truth_pages_and_hosts(truth):
    assert truth.is_relevant('http://a.test/1') and not truth.is_relevant('http://b.test/1')
    assert not truth.is_relevant('http://a.test/1?hop=2')  # unknown URL
    assert truth.relevant_hosts == {'a.test', 'c.test'}    # c.test: one relevant page suffices
    assert truth.total_relevant_hosts == 2
    assert truth.total_relevant == 3                       # the print copy is robots-disallowed
    assert truth.host('http://d.test/x') == 'd.test'


def test_ground_truth_reads_a_parquet_file(tmp_path):
    pq.write_table(LABELS, tmp_path / 'labels.parquet')
    assert GroundTruth(tmp_path / 'labels.parquet', 'relevant_体育').total_relevant == 3


def test_a_missing_column_is_a_clear_error():
    with pytest.raises(EvaluationError, match='no relevant_游戏 column'):
        GroundTruth(LABELS, 'relevant_游戏')
    with pytest.raises(EvaluationError, match='no robots_allowed'):
        GroundTruth(LABELS.drop_columns(['robots_allowed']), 'relevant_房产')


def test_harvest_curve_of_pages_and_sites(truth):
    urls = ['http://a.test/1', 'http://b.test/1', 'http://a.test/3', 'http://c.test/2',
            'http://unknown.test/x']
    curve = harvest_curve(urls, truth)
    np.testing.assert_allclose(curve.pages, [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5])
    # hosts: a (relevant), b, -, c (relevant although this page of it is not), unknown.test
    np.testing.assert_allclose(curve.sites, [1, 1 / 2, 1 / 2, 2 / 3, 2 / 4])


def test_empty_crawl(truth):
    curve = harvest_curve([], truth)
    assert curve.pages.size == 0 and curve.sites.size == 0
    summary = summarize([], truth)
    assert summary['pages'] == 0 and summary['harvest_rate'] is None and summary['fifths'] == []
    assert summary['recall'] == 0.0


def test_summary_figures(truth):
    urls = ['http://a.test/1', 'http://b.test/1', 'http://a.test/print/1', 'http://c.test/1',
            'http://b.test/2']
    summary = summarize(urls, truth)
    assert summary['pages'] == 5 and summary['relevant_pages'] == 3
    assert summary['harvest_rate'] == pytest.approx(0.6)
    assert (summary['sites'], summary['relevant_sites']) == (3, 2)
    assert summary['site_harvest_rate'] == pytest.approx(2 / 3)
    assert summary['total_relevant'] == 3 and summary['total_relevant_sites'] == 2
    assert summary['recall'] == pytest.approx(1.0)  # an impolite fetch of the print copy counts
    assert summary['budget'] == 5
    assert [pages for pages, _, _ in summary['fifths']] == [1, 2, 3, 4, 5]
    assert summary['fifths'][1] == pytest.approx((2, 0.5, 0.5))
    assert summary['fifths'][-1] == pytest.approx((5, 0.6, 2 / 3))


def test_fifths_of_a_budget_the_crawl_did_not_spend(truth):
    urls = ['http://a.test/1', 'http://b.test/1', 'http://c.test/1', 'http://b.test/2']
    summary = summarize(urls, truth, budget=10)
    assert summary['budget'] == 10
    assert summary['fifths'][0] == pytest.approx((2, 0.5, 0.5))
    assert summary['fifths'][1] == pytest.approx((4, 0.5, 2 / 3))
    assert summary['fifths'][2:] == [(6, None, None), (8, None, None), (10, None, None)]
    with pytest.raises(ValueError, match='budget must be 1 or more'):
        summarize(urls, truth, budget=0)


def test_budget_fifths_round_up():
    assert budget_fifths(200) == [40, 80, 120, 160, 200]
    assert budget_fifths(12) == [3, 5, 8, 10, 12]
    assert budget_fifths(3) == [1, 2, 2, 3, 3]


def test_fetch_order_is_round_then_time_and_keeps_first_fetches():
    def at(second):
        return datetime.datetime(2025, 1, 1, 0, 0, second, tzinfo=datetime.timezone.utc)
    pages = pa.table({'round': pa.array([2, 1, 1, 2, 1], pa.int32()),
                      'url': ['http://r2/early', 'http://r1/late', 'http://r1/early',
                              'http://r1/early', 'http://r1/undated'],
                      'fetched_at': pa.array([at(1), at(30), at(10), at(0), None],
                                             pa.timestamp('ms', tz='UTC'))})
    assert fetch_order(pages) == ['http://r1/early', 'http://r1/late', 'http://r1/undated',
                                  'http://r2/early']

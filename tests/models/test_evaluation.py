import datetime

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from models.evaluation import (EvaluationError, GroundTruth, average_ranks, budget_fifths, dp_checkpoints,
                               fetch_order, harvest_curve, is_site_root, mean_and_sd, paper_harvest, query_precision,
                               segment_sums, summarize, tunnel_histogram, wl_figures)

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



def test_labels_need_only_urls_and_a_relevant_column(tmp_path):
    (tmp_path / 'labels.csv').write_text('url,relevant\nhttp://A.test:80/x,Yes\nhttp://b.test/y,no\n'
                                         'not a url,yes\nhttp://c.test/z,1\n', encoding='utf-8')
    truth = GroundTruth(tmp_path / 'labels.csv', 'relevant')
    assert truth.is_relevant('http://a.test/x')          # normalised like the crawler's URLs
    assert not truth.is_relevant('http://b.test/y') and truth.is_labelled('http://b.test/y')
    assert truth.total_relevant == 2 and truth.relevant_hosts == {'a.test', 'c.test'}  # hosts from the URLs
    assert truth.labelled == 3                            # the unreadable URL is dropped
    by_label = GroundTruth(LABELS, 'labels', relevant_value='体育')  # a list column: one of its values
    assert by_label.is_relevant('http://b.test/1') and not by_label.is_relevant('http://a.test/1')
    by_kind = GroundTruth(LABELS, 'kind', relevant_value='print')
    assert by_kind.is_relevant('http://a.test/print/1') and by_kind.total_relevant == 0  # robots-disallowed


def test_a_labels_file_that_cannot_be_read_is_a_clear_error(tmp_path):
    with pytest.raises(EvaluationError, match='no labels file'):
        GroundTruth(tmp_path / 'missing.csv', 'relevant')
    (tmp_path / 'labels.parquet').write_text('not parquet')
    with pytest.raises(EvaluationError, match='cannot read labels file'):
        GroundTruth(tmp_path / 'labels.parquet', 'relevant')


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


def test_paper_harvest_counts_requests_with_duplicates_and_root_sites(truth):
    # DWDBRM: the denominator counts every retrieved URL, the numerator distinct relevant pages
    requested = ['http://a.test/1', 'http://a.test/1', 'http://c.test/', 'http://a.test/2', 'http://b.test/1']
    rooted = GroundTruth(pa.concat_tables([LABELS, pa.table({
        'url': ['http://c.test/'], 'host': ['c.test'], 'kind': ['home'], 'labels': [['房产']], 'charset': ['utf-8'],
        'robots_allowed': [True], 'relevant_房产': [True], 'relevant_体育': [False]})]), 'relevant_房产')
    figures = paper_harvest(requested, rooted, budget=5)
    assert [pages for pages, _, _ in figures] == [1, 2, 3, 4, 5]
    assert [page for _, page, _ in figures] == pytest.approx([1, 1 / 2, 2 / 3, 3 / 4, 3 / 5])
    assert [site for _, _, site in figures] == [None, None, 1.0, 1.0, 1.0]   # c.test/ is the only root retrieved
    assert paper_harvest(requested[:2], truth, budget=5)[2] == (3, None, None)  # a fifth never reached
    assert is_site_root('http://c.test/') and is_site_root('http://c.test') and not is_site_root('http://c.test/x')
    assert not is_site_root('http://c.test/?q=1')


def test_wl_figures_at_checkpoints():
    assert dp_checkpoints(15000) == [1000, 5000, 10000, 15000]  # WL's own checkpoints
    assert dp_checkpoints(5) == [1, 2, 3, 5] and dp_checkpoints(0) == []
    relevance = np.array([0.9, 0.1, 0.7, 0.3])
    labelled = np.array([True, False, False, True])
    figures = wl_figures(relevance, 0.62, labelled, 4)
    assert (figures['dp'], figures['lp']) == (4, 2)
    assert figures['accuracy'] == 0.5 and figures['accuracy_labels'] == 0.5
    assert figures['ardp'] == pytest.approx(0.5) and figures['sddp'] == pytest.approx(np.sqrt(0.1))  # population SD
    assert figures['arlp'] == pytest.approx(0.8) and figures['sdlp'] == pytest.approx(0.1)
    assert wl_figures(relevance, 0.95, labelled, 2)['arlp'] is None  # no page reached beta


def test_segment_sums_are_cumulative():
    relevance = np.array([0.02, 0.0, 0.01, 0.005, 0.03])
    labelled = np.array([True, False, True, False, True])
    segments = segment_sums(relevance, 0.01, labelled, segments=2)
    assert [s['pages'] for s in segments] == [3, 5]
    assert [s['relevant'] for s in segments] == [2, 3]          # R'p >= threshold
    assert [s['information'] for s in segments] == pytest.approx([0.03, 0.065])
    assert [s['relevant_labels'] for s in segments] == [2, 3]


def test_tunnel_histogram_and_query_precision():
    assert tunnel_histogram([True, True, False, True, True], [2.0, None, 3.0, 2.0, 5.0]) == {2: 2, 5: 1}
    documents = [{'房价': 3, '新闻': 1}, {'房价': 1, '比赛': 5}, {'楼市': 2}, {'比赛': 1}]
    relevant = [True, False, True, False]
    # 房价: both pages that hold it, best tf first (1 relevant of 2); 楼市: one relevant; 股票: none
    assert query_precision(documents, relevant, ['房价', '楼市', '股票'], results=5) == {
        'queries': 3, 'answered': 2, 'returned': 3, 'relevant': 2, 'precision': pytest.approx(2 / 3)}
    assert query_precision(documents, relevant, ['房价'], results=1)['relevant'] == 1  # 3/4 > 1/6
    assert query_precision(documents, relevant, ['股票'])['precision'] is None


def test_average_ranks_reproduce_wl_table_2():
    # WL Table 1 at DP 15,000 (Accuracy, LP = Accuracy x 15,000, ARDP, SDDP), ranked as in its Table 2
    table_1 = {'BFS': (.2029, .3705, .2438), 'OPS': (.6107, .6169, .2339), 'FCSA-host': (.7499, .7003, .1471),
               'MOACO': (.7912, .7780, .1377), 'FCWSEO': (.8322, .8201, .1558), 'WL': (.8828, .6917, .0784)}
    figures = {'accuracy': {name: row[0] for name, row in table_1.items()},
               'lp': {name: round(row[0] * 15000) for name, row in table_1.items()},
               'ardp': {name: row[1] for name, row in table_1.items()},
               'sddp': {name: row[2] for name, row in table_1.items()}}
    assert average_ranks(figures, lower_is_better=['sddp']) == {
        'BFS': 6, 'OPS': 5, 'FCSA-host': 3.5, 'MOACO': 2.5, 'FCWSEO': 2.25, 'WL': 1.75}
    tied = average_ranks({'a': {'x': 1, 'y': 1, 'z': 0}, 'b': {'x': 1, 'y': None, 'z': 2}})
    assert tied == {'x': 1.5, 'y': 1.5, 'z': 3}  # ties share their mean rank; b lacks y, so b is left out
    assert mean_and_sd([1, None, 3]) == (2, pytest.approx(np.sqrt(2))) and mean_and_sd([None]) == (None, None)

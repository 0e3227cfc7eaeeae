import base64
import collections
import datetime
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from models.settings import CrawlSettings
from models.topic import topic_from_dict
from pipelines.state import CrawlDir
from runners import plots
from runners.browser_check import BrowserUnavailable, check_page
from runners.cli import main
from runners.report import ReportError, format_summary, write_report

LABELS = pa.table({
    'url': ['http://house.test/', 'http://house.test/a', 'http://house.test/b',
            'http://house.test/print/a', 'http://sport.test/', 'http://sport.test/x',
            'http://portal.test/house/1'],
    'host': ['house.test'] * 4 + ['sport.test'] * 2 + ['portal.test'],
    'kind': ['home', 'article', 'article', 'print', 'home', 'article', 'article'],
    'labels': [[], ['房产'], ['房产'], ['房产'], [], ['体育'], ['房产']],
    'charset': ['utf-8'] * 7,
    'robots_allowed': [True, True, True, False, True, True, True],
    'relevant_房产': [False, True, True, True, False, False, True],
})
TASK = {'name': '房产', 'language': 'zh', 'keywords': {'房价': 0.8, '楼市': 0.2},
        'seeds': ['http://house.test/'], 'label': '房产', 'relevant_column': 'relevant_房产'}


def at(minute):
    return datetime.datetime(2025, 3, 1, 8, minute, tzinfo=datetime.timezone.utc)


def page(round_number, url, minute, relevance, title, terms=('房价',), relevant=False, final_url=None):
    return {'round': round_number, 'url': url, 'final_url': final_url or url, 'host': url.split('/')[2],
            'title': title, 'text': '房价', 'relevance': relevance, 'relevant': relevant, 'fetched_at': at(minute),
            'terms': list(terms), 'term_counts': [1] * len(terms)}


def attempt(round_number, url, outcome, number=1, status=200, minute=0):
    return {'round': round_number, 'url': url, 'attempt': number, 'outcome': outcome,
            'http_status': status, 'started_at': at(minute)}


def commit_round(crawl, number, frontier, log, pages):
    pending = crawl.begin(number)
    pending.write_table('frontier', [{'round': number, 'url': u, 'strategy': 'best-first',
                                      'operator': 'link', 'priority': 1.0, 'depth': -1} for u in frontier])
    pending.write_table('fetch_log', log)
    pending.write_table('pages', pages)
    pending.write_table('links', [{'round': number, 'url': pages[0]['url'], 'dst': u,
                                   'anchor': 'a', 'block': 'content'} for u in frontier])
    documents = collections.Counter(t for r in crawl.committed_rounds() for row in crawl.read_table('pages', r)
                                    .to_pylist() for t in row['terms'])
    documents.update(t for row in pages for t in row['terms'])
    pending.write_table('term_stats', [{'round': number, 'term': t, 'documents': n} for t, n in documents.items()])
    pending.commit()


def settings(**given) -> dict:
    topic = topic_from_dict(TASK)
    return CrawlSettings(topic=topic, seeds=topic.seeds, strategy='best-first', round_size=4, **given).to_dict()


@pytest.fixture
def crawl_dir(tmp_path):
    crawl = CrawlDir.create(str(tmp_path / 'crawl'), settings())
    commit_round(crawl, 1, ['http://house.test/', 'http://sport.test/', 'http://house.test/print/a'],
                 [attempt(1, 'http://house.test/', 'ok', minute=1), attempt(1, 'http://sport.test/', 'ok', minute=2),
                  attempt(1, 'http://house.test/print/a', 'robots_disallowed', status=None, minute=3)],
                 [page(1, 'http://sport.test/', 2, 0.1, 'Sport home', terms=('比赛',)),
                  page(1, 'http://house.test/', 1, 0.4, 'House home', relevant=True)])
    commit_round(crawl, 2, ['http://house.test/a', 'http://sport.test/x', 'http://portal.test/house/1',
                            'http://house.test/b'],
                 [attempt(2, 'http://house.test/a', 'ok', minute=4),
                  attempt(2, 'http://sport.test/x', 'http_5xx', 1, 503, minute=5),
                  attempt(2, 'http://sport.test/x', 'ok', 2, 200, minute=6),
                  attempt(2, 'http://portal.test/house/1', 'ok', minute=7),
                  attempt(2, 'http://house.test/b', 'timeout', status=None, minute=8)],
                 [page(2, 'http://house.test/a', 5, 0.9, '楼市 <新政>', terms=('房价', '楼市'), relevant=True),
                  page(2, 'http://sport.test/x', 6, 0.2, 'Match', terms=('比赛',)),
                  page(2, 'http://portal.test/house/1', 7, 0.7, 'Portal house', relevant=True,
                       final_url='https://portal.test/house/1')])
    return tmp_path / 'crawl'


@pytest.fixture
def web_dir(tmp_path):
    web = tmp_path / 'web'
    (web / 'tasks').mkdir(parents=True)
    pq.write_table(LABELS, web / 'labels.parquet')
    (web / 'tasks' / 'house.yaml').write_text(yaml.safe_dump(TASK, allow_unicode=True), encoding='utf-8')
    return web


def test_report_files_and_figures(crawl_dir, web_dir, tmp_path):
    report = write_report(crawl_dir, web_dir, web_dir / 'tasks' / 'house.yaml', tmp_path / 'out')
    assert report == tmp_path / 'out' / 'report.html'
    page_html = report.read_text(encoding='utf-8')
    png = (tmp_path / 'out' / 'harvest.png').read_bytes()
    assert png.startswith(b'\x89PNG')
    embedded = re.search(r'src="data:image/png;base64,([^"]+)"', page_html).group(1)
    assert base64.b64decode(embedded) == png
    assert '房产' in page_html and 'relevant_房产' in page_html and 'best-first' in page_html
    assert '<td>rounds committed</td><td>2</td>' in page_html
    assert '<td>pages per round</td><td>4</td>' in page_html
    assert '<td>ok</td><td>5</td>' in page_html          # sport.test/x ended ok after a 503
    assert '<td>timeout</td><td>1</td>' in page_html
    assert '<td>robots_disallowed</td><td>1</td>' in page_html
    assert 'http_5xx' not in page_html
    assert '楼市 &lt;新政&gt;' in page_html                  # titles are escaped

    summary = json.loads((tmp_path / 'out' / 'evaluation.json').read_text(encoding='utf-8'))
    # fetch order: house.test/, sport.test/, house.test/a, sport.test/x, portal.test/house/1
    assert (summary['pages'], summary['relevant_pages']) == (5, 2)
    assert summary['harvest_rate'] == pytest.approx(0.4)
    assert (summary['sites'], summary['relevant_sites']) == (3, 2)
    assert summary['site_harvest_rate'] == pytest.approx(2 / 3)
    assert summary['total_relevant'] == 3 and summary['recall'] == pytest.approx(2 / 3)
    assert [f[1] for f in summary['fifths']] == pytest.approx([0, 0, 1 / 3, 0.25, 0.4])
    assert [f[2] for f in summary['fifths']] == pytest.approx([1, 0.5, 0.5, 0.5, 2 / 3])
    assert summary['outcomes'] == {'ok': 5, 'robots_disallowed': 1, 'timeout': 1}
    assert (summary['task'], summary['strategy'], summary['rounds']) == ('房产', 'best-first', 2)


def test_top_pages_and_rounds_in_the_report(crawl_dir, web_dir, tmp_path):
    page_html = write_report(crawl_dir, web_dir, web_dir / 'tasks' / 'house.yaml',
                             tmp_path / 'out').read_text(encoding='utf-8')
    top = page_html[page_html.index('Top 20 pages'):page_html.index('<h2>Rounds')]
    assert top.index('>http://house.test/a<') < top.index('>http://portal.test/house/1<') \
        < top.index('>http://house.test/<') < top.index('>http://sport.test/x<')
    assert '<td>0.90</td><td>楼市 &lt;新政&gt;</td><td>http://house.test/a</td><td>yes</td>' in top
    rounds = page_html[page_html.index('<h2>Rounds'):]
    assert '<td>1</td><td>3</td><td>3</td><td>2</td><td>0</td><td>3</td>' in rounds
    assert '<td>2</td><td>4</td><td>5</td><td>3</td><td>2</td><td>4</td>' in rounds


def test_the_budget_comes_from_crawl_json_or_the_caller_but_not_beyond_the_pages(crawl_dir, web_dir, tmp_path):
    config = json.loads((crawl_dir / 'crawl.json').read_text())
    (crawl_dir / 'crawl.json').write_text(json.dumps({**config, 'budget': 3}))
    write_report(crawl_dir, web_dir, web_dir / 'tasks' / 'house.yaml', tmp_path / 'a')
    assert json.loads((tmp_path / 'a' / 'evaluation.json').read_text())['budget'] == 3
    (crawl_dir / 'crawl.json').write_text(json.dumps({**config, 'budget': 1000}))
    write_report(crawl_dir, web_dir, web_dir / 'tasks' / 'house.yaml', tmp_path / 'c')
    summary = json.loads((tmp_path / 'c' / 'evaluation.json').read_text())
    assert summary['budget'] == summary['pages'] and None not in summary['fifths'][-1]
    write_report(crawl_dir, web_dir, web_dir / 'tasks' / 'house.yaml', tmp_path / 'b', budget=5)
    assert json.loads((tmp_path / 'b' / 'evaluation.json').read_text())['budget'] == 5


def test_a_crawl_with_no_round_committed_reports_no_pages(tmp_path, web_dir):
    CrawlDir.create(str(tmp_path / 'empty'), settings())
    page_html = write_report(tmp_path / 'empty', web_dir, web_dir / 'tasks' / 'house.yaml',
                             tmp_path / 'out').read_text(encoding='utf-8')
    assert '<td>rounds committed</td><td>0</td>' in page_html
    assert json.loads((tmp_path / 'out' / 'evaluation.json').read_text())['pages'] == 0


def test_missing_inputs_are_clear_errors(crawl_dir, web_dir, tmp_path):
    task = web_dir / 'tasks' / 'house.yaml'
    with pytest.raises(ReportError, match='not a crawl directory'):
        write_report(tmp_path / 'nowhere', web_dir, task, tmp_path / 'out')
    with pytest.raises(ReportError, match=r'cannot read task file .*house\.yaml'):
        write_report(crawl_dir, web_dir, web_dir / 'missing.yaml', tmp_path / 'out')
    topic_only = tmp_path / 'topic.yaml'
    topic_only.write_text(yaml.safe_dump({'name': 'x', 'keywords': {'a': 1.0}}))
    with pytest.raises(ReportError, match='a topic, not a task'):
        write_report(crawl_dir, web_dir, topic_only, tmp_path / 'out')
    (web_dir / 'labels.parquet').unlink()
    with pytest.raises(ReportError, match='no labels.parquet.*focal sandbox build'):
        write_report(crawl_dir, web_dir, task, tmp_path / 'out')
    pq.write_table(LABELS.drop_columns(['relevant_房产']), web_dir / 'labels.parquet')
    with pytest.raises(ReportError, match='no relevant_房产 column'):
        write_report(crawl_dir, web_dir, task, tmp_path / 'out')


def test_format_summary():
    summary = {'pages': 200, 'relevant_pages': 124, 'harvest_rate': 0.62, 'sites': 9,
               'relevant_sites': 5, 'site_harvest_rate': 5 / 9, 'total_relevant': 400,
               'recall': 0.31, 'budget': 200,
               'fifths': [(40, 0.71, 0.5), (80, 0.66, 0.5), (120, 0.6, 0.5), (160, 0.61, 0.5),
                          (200, 0.62, 5 / 9)]}
    assert format_summary(summary).splitlines() == [
        'harvest rate 0.62 (124 of 200 pages relevant), sites 5 of 9 relevant (0.56)',
        'recall 0.31 (124 of 400 relevant pages robots.txt allows)',
        'by fifth of the budget (200 pages): 0.71 0.66 0.60 0.61 0.62',
    ]
    unreached = {**summary, 'fifths': [(40, 0.71, 0.5), (80, None, None)]}
    assert format_summary(unreached).endswith('0.71 n/a')


def test_the_papers_figures_of_a_crawl(crawl_dir, web_dir, tmp_path):
    write_report(crawl_dir, web_dir, web_dir / 'tasks' / 'house.yaml', tmp_path / 'out')
    figures = json.loads((tmp_path / 'out' / 'evaluation.json').read_text(encoding='utf-8'))
    # DWDBRM's counting: requests in order (the robots refusal is none; sport.test/x's retry is one request);
    # sites are root URLs: house.test/ and sport.test/, neither labelled relevant
    assert figures['paper_fifths'] == [[1, 0.0, 0.0], [2, 0.0, 0.0], [3, pytest.approx(1 / 3), 0.0],
                                       [4, 0.25, 0.0], [5, 0.4, 0.0]]
    assert figures['judgment'] == {'judged': 3, 'labelled': 2, 'agree': 2, 'precision': pytest.approx(2 / 3),
                                   'recall': 1.0}
    # DTH: 房价 returns house.test/, house.test/a and the portal page (2 relevant), 楼市 house.test/a
    assert figures['dth']['query_precision'] == {'queries': 2, 'answered': 2, 'returned': 4, 'relevant': 3,
                                                 'precision': 0.75}
    assert figures['dth']['tunnels'] is None and figures['ranking'] is None  # not a dth crawl; never ranked
    assert [s['pages'] for s in figures['ssaps']['segments']] == [1, 2, 3, 4, 5]
    assert [s['relevant_labels'] for s in figures['ssaps']['segments']] == [0, 0, 1, 1, 2]
    assert [c['dp'] for c in figures['wl']['checkpoints']] == [1, 2, 3, 5]  # WL's 1/15, 1/3, 2/3, 1 of 5 pages
    assert figures['wl']['checkpoints'][-1]['accuracy_labels'] == 0.4


def write_csv(path, header, rows):
    path.write_text('\n'.join([header, *rows]) + '\n', encoding='utf-8')
    return str(path)


def test_focal_evaluate_judges_by_csv_labels(crawl_dir, tmp_path, capsys):
    labels = write_csv(tmp_path / 'labels.csv', 'url,label', [
        'http://house.test/a,房产', 'http://portal.test/house/1,房产', 'http://house.test/,首页', 'http://sport.test/x,体育'])
    assert main(['evaluate', str(crawl_dir), '--labels', labels, '--relevant-column', 'label',
                 '--relevant-value', '房产']) == 0
    output = capsys.readouterr().out
    assert 'best-first: 5 pages (4 labelled), 2 relevant: harvest 0.40' in output
    assert 'precision 0.67, recall 1.00 against the labels' in output
    figures = json.loads((crawl_dir / 'report' / 'evaluation.json').read_text(encoding='utf-8'))
    assert (figures['relevant_pages'], figures['labelled_pages'], figures['relevant_column']) == (2, 4, 'label = 房产')
    assert (crawl_dir / 'report' / 'report.html').is_file()
    # a yes/no column, the default name 'relevant', another output directory
    # the portal page redirected to https: labels that name where a page ended up judge it too
    labels = write_csv(tmp_path / 'yes_no.csv', 'url,relevant', ['http://house.test/a,yes', 'http://sport.test/,no',
                                                                 'https://portal.test/house/1,yes'])
    assert main(['evaluate', str(crawl_dir), '--labels', labels, '--out', str(tmp_path / 'elsewhere')]) == 0
    figures = json.loads((tmp_path / 'elsewhere' / 'evaluation.json').read_text())
    assert (figures['relevant_pages'], figures['labelled_pages']) == (2, 3)


def test_focal_evaluate_says_what_is_wrong_with_the_labels(crawl_dir, tmp_path, capsys):
    elsewhere = write_csv(tmp_path / 'other.csv', 'url,relevant', ['http://other.test/1,1', 'http://other.test/2,0'])
    assert main(['evaluate', str(crawl_dir), '--labels', elsewhere]) == 2
    error = capsys.readouterr().err
    assert 'none of the 5 crawled URLs is in the labels (2 labelled URLs)' in error
    assert 'http://house.test/' in error and 'http://other.test/1' in error  # both sides shown
    assert main(['evaluate', str(crawl_dir), '--labels', elsewhere, '--relevant-column', 'score']) == 2
    assert 'no score column' in capsys.readouterr().err
    assert main(['evaluate', str(crawl_dir), '--labels', str(tmp_path / 'missing.csv')]) == 2
    assert 'no labels file' in capsys.readouterr().err
    assert main(['evaluate', str(tmp_path / 'nowhere'), '--labels', elsewhere]) == 2
    assert 'not a crawl directory' in capsys.readouterr().err


def browser_check(page):
    try:
        return check_page(page)
    except BrowserUnavailable as error:
        pytest.skip(str(error))


def test_the_report_loads_in_a_browser_with_its_plots_and_figures(crawl_dir, web_dir, tmp_path):
    seen = browser_check(write_report(crawl_dir, web_dir, web_dir / 'tasks' / 'house.yaml', tmp_path / 'out'))
    assert seen.title == 'Focal crawl report: 房产'
    assert seen.problems() == []
    assert len(seen.images) == 4  # harvest; WL Accuracy; SSAPS relevant pages and information
    figures = json.loads((tmp_path / 'out' / 'evaluation.json').read_text(encoding='utf-8'))
    summary = next(t for t in seen.tables if t[0] == ['figure', 'value'])
    assert ['harvest rate (pages)', f'{figures["harvest_rate"]:.2f}'] in summary
    assert ['relevant pages', str(figures['relevant_pages'])] in summary
    wl = next(t for t in seen.tables if t[0][:2] == ['DP', 'LP'])
    assert [row[0] for row in wl[1:]] == [str(c['dp']) for c in figures['wl']['checkpoints']]


def test_the_browser_check_finds_what_a_reader_would_miss(tmp_path):
    blank = plots.new_figure()
    image = base64.b64encode(plots.png(blank)).decode()
    (tmp_path / 'broken.html').write_text(
        '<!DOCTYPE html><html><head><title>broken</title></head><body>'
        f'<img alt="blank" src="data:image/png;base64,{image}"><img alt="broken" src="data:image/png;base64,AAAA">'
        '<script>undefinedFunction();</script><table><tr><td>1.5</td></tr></table></body></html>')
    seen = browser_check(tmp_path / 'broken.html')
    problems = seen.problems()
    assert any(p.startswith('console: ') and 'undefinedFunction' in p for p in problems)
    assert any(p.startswith('image "blank" is blank') for p in problems)
    assert any(p.startswith('image "broken" does not decode') for p in problems)
    assert seen.cells() == {'1.5'}

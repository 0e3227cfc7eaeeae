"""`focal bench` end to end on real sandbox servers: the same seeds and budget for every strategy,
repeats of the randomised one, bench.csv/md/html whose tables hold the CSV's figures (checked in
headless Chromium), finished crawls reused, an interrupted one resumed to the same figures, and
any WARC with a labels file benched the same way. Also the round progress display."""
import contextlib
import csv
import io
import shutil
import statistics

import pytest
import yaml

from pipelines.state import CrawlDir
from runners import progress
from runners.bench import FIGURES
from runners.browser_check import BrowserUnavailable, check_page
from runners.cli import main
from runners.driver import Driver
from runners.demo import sandbox_settings
from models.topic import load_task
from sandbox.server import SandboxServer, open_web
from models.fetch import FetchPolicy
from transforms.fetch import FetchHostBatchFn
from warc_samples import numbered_pages, write_pages

BENCH = ['--task', '房产', '--strategies', 'bfs,wl', '--budget', '12', '--round-size', '10', '--repeats', '2']


def bench(*args) -> tuple[int, str]:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        code = main(['bench', *args])
    return code, output.getvalue()


def read_rows(out) -> list[dict]:
    with (out / 'bench.csv').open(encoding='utf-8') as file:
        return list(csv.DictReader(file))


def figures_only(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != 'seconds_this_run'} for row in rows]


@pytest.fixture(scope='module')
def benched(news_web_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp('bench') / 'out'
    code, output = bench('--web', str(news_web_dir), *BENCH, '--jobs', '2', '--out', str(out))
    assert code == 0, output
    return out, output


def test_every_strategy_crawls_the_same_task_and_the_randomised_one_repeats(benched):
    out, output = benched
    rows = read_rows(out)
    assert [(r['strategy'], r['repeat'], r['random_seed']) for r in rows] == [
        ('bfs', '0', '0'), ('wl', '0', '0'), ('wl', '1', '1')]
    assert 'crawling 3 crawls, 2 at a time' in output
    assert '[3/3] wl-r1 (wl, random seed 1): ' in output  # the crawls' own lines come from the workers
    for row in rows:
        crawl = CrawlDir.open(row['crawl_dir'])
        assert (crawl.config['budget'], crawl.config['round_size']) == (12, 10)
        assert crawl.config['seeds'] == CrawlDir.open(rows[0]['crawl_dir']).config['seeds']
        assert crawl.config['random_seed'] == int(row['random_seed'])
        assert int(row['pages']) <= 12 and int(row['relevant_pages']) <= int(row['pages'])
    assert rows[1]['crawl_dir'] != rows[2]['crawl_dir']
    markdown = (out / 'bench.md').read_text(encoding='utf-8')
    assert '| figure | column | bfs | wl |' in markdown
    assert '| average rank (1 = best) | average_rank |' in markdown
    wl_pages = [int(r['relevant_pages']) for r in rows if r['strategy'] == 'wl']
    mean, sd = statistics.fmean(wl_pages), statistics.stdev(wl_pages)
    assert f'| {mean:.3f} ± {sd:.3f} |' in markdown.splitlines()[6]  # the relevant-pages row: wl's mean ± sd


def test_the_bench_page_shows_every_plot_and_the_csv_figures(benched):
    out, _ = benched
    try:
        seen = check_page(out / 'bench.html')
    except BrowserUnavailable as error:
        pytest.skip(str(error))
    assert seen.problems() == []
    assert len(seen.images) >= 5  # harvest of pages and sites, WL Accuracy, SSAPS relevant pages and information
    summary = next(t for t in seen.tables if t[0][:2] == ['figure', 'column'])
    strategies = summary[0][2:]
    assert strategies == ['bfs', 'wl']
    cells = {row[1]: dict(zip(strategies, row[2:])) for row in summary[1:]}
    rows = read_rows(out)
    for figure in FIGURES:
        for strategy in strategies:
            values = [float(r[figure.column]) for r in rows if r['strategy'] == strategy and r[figure.column]]
            shown = cells[figure.column][strategy]
            if not values:
                assert shown == 'n/a'
            elif len(values) == 1:
                assert float(shown) == pytest.approx(values[0], abs=5e-4), (figure.column, strategy)
            else:
                mean, sd = shown.split(' ± ')
                assert float(mean) == pytest.approx(statistics.fmean(values), abs=5e-4), (figure.column, strategy)
                assert float(sd) == pytest.approx(statistics.stdev(values), abs=5e-4), (figure.column, strategy)


def test_a_bench_run_again_reuses_its_crawls_and_resumes_an_interrupted_one(benched, news_web_dir, tmp_path):
    out, _ = benched
    before = figures_only(read_rows(out))
    again = tmp_path / 'again'
    shutil.copytree(out, again)
    stopped = again / 'crawls' / 'bfs-r0'
    last = CrawlDir.open(str(stopped)).last_committed_round()
    for path in (f'rounds/{last:06d}', f'ranks/{last:06d}'):  # as if stopped before the last commit
        shutil.rmtree(stopped / path, ignore_errors=True)
    (stopped / 'selector' / f'{last:06d}.json').unlink()
    finished = (again / 'crawls' / 'wl-r0' / 'rounds').stat().st_mtime_ns
    code, output = bench('--web', str(news_web_dir), *BENCH, '--out', str(again))
    assert code == 0, output
    assert output.count('found in') == 3
    assert f'[bfs-r0] round {last}: ' in output              # the interrupted crawl ran its last round again
    assert '[wl-r0] round' not in output                      # the finished ones ran nothing
    assert (again / 'crawls' / 'wl-r0' / 'rounds').stat().st_mtime_ns == finished
    after = figures_only(read_rows(again))
    assert [{k: v for k, v in r.items() if k != 'crawl_dir'} for r in after] == \
        [{k: v for k, v in r.items() if k != 'crawl_dir'} for r in before]
    # other settings into the same directory: refused, nothing crawled
    code, output = bench('--web', str(news_web_dir), *BENCH, '--budget', '30', '--out', str(again))
    assert code == 2


def test_bench_settings_are_checked(news_web_dir, tmp_path, capsys):
    assert main(['bench', '--web', str(news_web_dir), '--task', '房产', '--strategies', 'best-first,nope',
                 '--out', str(tmp_path)]) == 2
    assert '--strategies: unknown nope' in capsys.readouterr().err
    assert main(['bench', '--web', str(news_web_dir), '--task', 'nothing', '--out', str(tmp_path)]) == 2
    assert 'cannot read task file' in capsys.readouterr().err
    assert main(['bench', '--warc', str(tmp_path / 'x.warc.gz'), '--out', str(tmp_path)]) == 2
    assert '--warc needs --labels, --seeds, --topic' in capsys.readouterr().err
    assert main(['bench', '--web', str(news_web_dir), '--task', '房产', '--strategies', 'bfs', '--param',
                 'ssaps:delta=1', '--out', str(tmp_path)]) == 2
    assert 'STRATEGY:NAME=VALUE for a strategy of the bench' in capsys.readouterr().err


def test_any_warc_with_labels_is_benched(tmp_path):
    pages = {**numbered_pages('north.test', 12), **numbered_pages('south.test', 12)}
    warc = write_pages(tmp_path / 'web.warc.gz', pages)
    (tmp_path / 'labels.csv').write_text('url,relevant\n' + ''.join(f'{url},{"yes" if "north" in url else "no"}\n'
                                                                    for url in pages), encoding='utf-8')
    (tmp_path / 'seeds.txt').write_text('http://north.test/p0\nhttp://south.test/p0\n', encoding='utf-8')
    (tmp_path / 'topic.yaml').write_text(yaml.safe_dump({'name': 'north', 'language': 'en',
                                                         'keywords': {'north': 1.0}}), encoding='utf-8')
    code, output = bench('--warc', str(warc), '--labels', str(tmp_path / 'labels.csv'), '--seeds',
                         str(tmp_path / 'seeds.txt'), '--topic', str(tmp_path / 'topic.yaml'),
                         '--strategies', 'bfs', '--budget', '8', '--round-size', '8', '--out', str(tmp_path / 'out'))
    assert code == 0, output
    assert '[1/1] crawling with bfs, repeat 1 (random seed 0)' in output and '[bfs-r0] round 1: fetched 2 (ok 2)' in output
    row, = read_rows(tmp_path / 'out')
    assert (row['task'], row['strategy'], row['pages']) == ('north', 'bfs', '8')
    assert 0 < int(row['relevant_pages']) < 8  # both hosts' chains were followed, only north's pages count
    assert (tmp_path / 'out' / 'bench.html').is_file()


def test_a_round_shows_its_progress_as_lines_when_not_on_a_terminal(news_web_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(progress, 'POLL_SECONDS', 0.05)
    monkeypatch.setattr(progress, 'LINE_SECONDS', 0.0)
    lines = []
    task = load_task(news_web_dir / 'tasks' / '房产.yaml')
    with SandboxServer(*open_web(news_web_dir)) as server:
        settings = sandbox_settings(task, server.proxy_url, budget=5, round_size=5)
        Driver(CrawlDir.create(str(tmp_path / 'crawl'), settings.to_dict()), progress=lines.append,
               progress_bar=False).run()
    shown = [line for line in lines if line.startswith('round 1: ') and 'URLs fetched' in line]
    assert shown and shown[-1].startswith('round 1: 5 of 5 URLs fetched')


def test_a_progress_file_a_worker_cannot_open_leaves_the_fetch_alone(tmp_path):
    fetch = FetchHostBatchFn(FetchPolicy(), 1, str(tmp_path / 'missing-directory' / 'round.progress'))
    fetch.setup()
    try:
        assert fetch.progress is None
        fetch._report_progress()  # counts the URL without a file
        assert fetch.fetched == 1
    finally:
        fetch.teardown()

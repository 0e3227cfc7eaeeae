"""`focal demo`: the seed papers' strategies crawl the Chinese sandbox web side by side, judged by its labels.

Builds the THUCNews sandbox once (cached under --workdir), serves it on a free 127.0.0.1 port
and benches best-first, BFS and the seed papers' strategies on the 房产 (real estate) task:
the same seeds, budget and settings for each, two crawls at a time, each in Beam rounds (runners/bench.py).
What they fetched is compared with the web's ground truth, which the crawler never saw: the
first strategy's crawl gets its own report, the bench its table and plots, and both pages are
opened in headless Chromium to check that they load and every plot shows. Everything stays on
this machine.
"""
import argparse
import csv
import os
import shutil
import time
from pathlib import Path

from models.settings import CrawlSettings, FetchSettings
from models.strategies import STRATEGIES
from runners import report
from runners.bench import BenchOptions, chosen_strategies, run_bench, sandbox_web as bench_web, strategy_params
from runners.browser_check import BrowserUnavailable, check_page
from sandbox.build import ensure_web

DEMO_STRATEGIES = 'best-first,bfs,parent-first,shark,ssaps,dth,wl'


def sandbox_web(workdir: Path) -> Path:
    """The THUCNews sandbox web, built on the first run and reused afterwards."""
    web_dir = workdir / 'web-thucnews'
    print(f'sandbox web: {web_dir} ... ', end='', flush=True)
    print('built now (once, ~15 s)' if ensure_web('thucnews', web_dir) else '(built before)')
    return web_dir


def sandbox_settings(task, proxy_url: str, **settings) -> CrawlSettings:
    """Settings of a crawl of a sandbox task through its server: no per-host delay (the server is
    ours, on this machine), everything else as given or Focal's defaults."""
    return CrawlSettings(topic=task.topic, seeds=list(task.topic.seeds), task=task.summary(),
                         fetch=FetchSettings(delay=0.0, proxy=proxy_url), **settings)


def browser_check(page: Path, expected: set[str] = frozenset()) -> str:
    """One line on what headless Chromium saw of a report."""
    try:
        seen = check_page(page)
    except BrowserUnavailable as error:
        return f'not checked in a browser: {error}'
    problems = seen.problems() + [f'the tables lack {value}' for value in sorted(expected - seen.cells())]
    if problems:
        return 'checked in headless Chromium: PROBLEMS: ' + '; '.join(problems)
    return (f'checked in headless Chromium: loads without console errors, {len(seen.images)} plots decode and are '
            f'drawn, {len(seen.tables)} tables')


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    workdir = Path(args.workdir)
    web_dir = sandbox_web(workdir)
    strategies = chosen_strategies(args.strategies)
    web = bench_web(web_dir, web_dir / 'tasks' / f'{args.label}.yaml')
    out = workdir / f'bench-{args.label}'
    shutil.rmtree(out, ignore_errors=True)  # a demo crawls afresh; `focal bench` reuses finished crawls
    crawls = run_bench(web, BenchOptions(strategies, strategy_params([], strategies), args.budget, args.round_size,
                                         jobs=args.jobs), out)
    first = crawls[strategies[0]]
    page = report.write_report(first['crawl_dir'], web_dir, web_dir / 'tasks' / f'{args.label}.yaml',
                               first['crawl_dir'] / 'report')
    print(f'\n{strategies[0]} crawl (its report: {page}):\n' + report.format_summary(first['figures']))
    print(f'  {browser_check(page, {str(first["figures"]["relevant_pages"])})}')
    with (out / 'bench.csv').open(encoding='utf-8') as rows:
        bench_cells = {row['relevant_pages'] for row in csv.DictReader(rows)}  # one crawl each: whole numbers
    print(f'\nbench of {len(strategies)} strategies: {out / "bench.html"} (also bench.md, bench.csv)\n'
          f'  {browser_check(out / "bench.html", bench_cells)}')
    print(f'\ncrawl directories: {out / "crawls"} (try: focal inspect {first["crawl_dir"]}; focal evaluate '
          f'{first["crawl_dir"]} --labels {web_dir / "labels.parquet"} --relevant-column '
          f'{web.settings["task"]["relevant_column"]})\ndemo took {time.monotonic() - started:.0f} s')
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser('demo', help='bench the strategies on the built-in sandbox web and report',
                                   description=__doc__)
    parser.add_argument('--label', default='房产', help='sandbox task (default: %(default)s)')
    parser.add_argument('--strategies', default=DEMO_STRATEGIES,
                        help=f'comma-separated, the first gets its own report (default: %(default)s; all: '
                             f'{", ".join(STRATEGIES)})')
    parser.add_argument('--budget', type=int, default=200, help='pages per crawl (default: %(default)s)')
    parser.add_argument('--round-size', type=int, default=200, help='URLs per round (default: %(default)s)')
    parser.add_argument('--jobs', type=int, default=min(2, os.cpu_count() or 1),
                        help='crawls at once (default: %(default)s)')
    parser.add_argument('--workdir', default='.demo', help='where the demo writes its files')
    parser.set_defaults(handler=run)

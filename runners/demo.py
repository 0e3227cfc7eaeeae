"""`focal demo`: a focused crawl of the Chinese sandbox web, judged against its labels.

Builds the THUCNews sandbox once (cached under --workdir), serves it on a free 127.0.0.1 port,
crawls the 房产 (real estate) task with the default strategy in Beam rounds, then compares what
was fetched with the web's ground truth (which the crawler never saw) and writes an HTML report
with the harvest curve. Everything stays on this machine.
"""
import argparse
import json
import shutil
import time
from pathlib import Path

from models.settings import CrawlSettings, FetchSettings
from models.strategies import STRATEGIES
from models.topic import load_task
from pipelines.state import CrawlDir
from runners import report
from runners.driver import Driver
from sandbox.build import ensure_web
from sandbox.server import SandboxServer, open_web


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


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    workdir = Path(args.workdir)
    web_dir = sandbox_web(workdir)
    task_path = web_dir / 'tasks' / f'{args.label}.yaml'
    task = load_task(task_path)
    crawl_root = workdir / f'crawl-{args.label}-{args.strategy}'
    shutil.rmtree(crawl_root, ignore_errors=True)
    with SandboxServer(*open_web(web_dir)) as server:
        print(f'sandbox server: {server.proxy_url} (proxy and search API); crawling "{args.label}" from '
              f'{len(task.topic.seeds)} seed pages with {args.strategy}, {args.budget} pages in rounds of '
              f'{args.round_size}')
        settings = sandbox_settings(task, server.proxy_url, strategy=args.strategy, budget=args.budget,
                                    round_size=args.round_size)
        Driver(CrawlDir.create(str(crawl_root), settings.to_dict())).run()
    out = report.write_report(crawl_root, web_dir, task_path, crawl_root / 'report')
    summary = json.loads((out.parent / 'summary.json').read_text(encoding='utf-8'))
    print('\n' + report.format_summary(summary))
    print(f'\nreport: {out}\ncrawl directory: {crawl_root} (try: focal inspect {crawl_root})\n'
          f'demo took {time.monotonic() - started:.0f} s')
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser('demo', help='crawl the built-in sandbox web and report',
                                   description=__doc__)
    parser.add_argument('--label', default='房产', help='sandbox task (default: %(default)s)')
    parser.add_argument('--strategy', default='best-first', choices=list(STRATEGIES))
    parser.add_argument('--budget', type=int, default=600, help='pages to fetch (default: %(default)s)')
    parser.add_argument('--round-size', type=int, default=60, help='URLs per round (default: %(default)s)')
    parser.add_argument('--workdir', default='.demo', help='where the demo writes its files')
    parser.set_defaults(handler=run)

"""Best-first against BFS at the same budget on the sandbox's 房产 and Geography tasks.

Builds the two sandbox webs (or reuses --webs DIR), serves each on 127.0.0.1, crawls each task
with each strategy through `focal crawl`'s driver, and prints the harvest rate of pages and of
sites per fifth of the budget (DWDBRM's measure), judged against the web's labels.

Run: .venv/bin/python benchmarks/crawl_strategies.py [--budget 400] [--round-size 40] [--webs DIR]
"""
import argparse
import tempfile
import time
from pathlib import Path

from models.evaluation import fetch_order, summarize
from pipelines.state import CrawlDir
from runners.crawl_command import task_file_contents
from runners.driver import Driver, new_crawl_config
from runners.report import load_truth
from sandbox.build import ensure_web
from sandbox.server import SandboxServer, open_web

TASKS = (('thucnews', '房产.yaml'), ('wikispeedia', 'geography.yaml'))
STRATEGIES = ('best-first', 'bfs')


def crawl(web_dir: Path, task_name: str, strategy: str, budget: int, round_size: int, out: Path) -> dict:
    task_path = web_dir / 'tasks' / task_name
    topic, seeds, task = task_file_contents(task_path)
    with SandboxServer(*open_web(web_dir)) as server:
        config = new_crawl_config(topic, seeds, strategy, budget, round_size, delay=0.0, timeout=10.0,
                                  proxy=server.proxy_url, allow_hosts=[], task=task)
        Driver(CrawlDir.create(str(out), config), [], progress=lambda line: None).run()
    truth = load_truth(web_dir, task['relevant_column'])
    return summarize(fetch_order(CrawlDir.open(str(out)).read_table('pages')), truth, budget)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--budget', type=int, default=400)
    parser.add_argument('--round-size', type=int, default=40)
    parser.add_argument('--webs', type=Path, help='where the sandbox webs are (built there if missing)')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        webs = args.webs or Path(scratch) / 'webs'
        for corpus, task_name in TASKS:
            web_dir = webs / corpus
            ensure_web(corpus, web_dir)
            results = {}
            for strategy in STRATEGIES:
                started = time.monotonic()
                results[strategy] = crawl(web_dir, task_name, strategy, args.budget, args.round_size,
                                          Path(scratch) / f'{corpus}-{strategy}')
                fifths = ' '.join(f'{p:.2f}' if p is not None else 'n/a' for _, p, _ in results[strategy]['fifths'])
                print(f'{corpus} {task_name[:-5]:10s} {strategy:10s} harvest {results[strategy]["harvest_rate"]:.3f} '
                      f'sites {results[strategy]["site_harvest_rate"]:.3f} by fifth {fifths} '
                      f'({time.monotonic() - started:.0f} s)')
            best, bfs = results['best-first']['harvest_rate'], results['bfs']['harvest_rate']
            print(f'{corpus} {task_name[:-5]}: best-first / BFS harvest rate = {best / bfs if bfs else float("inf"):.2f}')


if __name__ == '__main__':
    main()

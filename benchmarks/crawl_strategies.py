"""Every link strategy of the registry (or --strategies a,b) at the same budget on the sandbox's 房产 and Geography
tasks (benchmarks/discovery.py compares the discovery strategies).

Builds the two sandbox webs (or reuses --webs DIR), serves each on 127.0.0.1, crawls each task
with each strategy through `focal crawl`'s driver, and prints the harvest rate of pages and of
sites per fifth of the budget (DWDBRM's measure), judged against the web's labels.

Run: .venv/bin/python benchmarks/crawl_strategies.py [--budget 400] [--round-size 40] [--webs DIR] [--strategies a,b]
"""
import argparse
import tempfile
import time
from pathlib import Path

from models.evaluation import fetch_order, summarize
from models.strategies import STRATEGIES
from models.topic import load_task
from pipelines.state import CrawlDir
from runners.demo import sandbox_settings
from runners.driver import Driver
from runners.report import load_truth
from sandbox.build import ensure_web
from sandbox.server import SandboxServer, open_web

TASKS = (('thucnews', '房产.yaml'), ('wikispeedia', 'geography.yaml'))


def crawl(web_dir: Path, task_name: str, strategy: str, budget: int, round_size: int, out: Path,
          strategy_params: dict | None = None, seeds: list[str] | None = None, random_seed: int = 0) -> dict:
    """A crawl of a sandbox task through its server (from the task's seeds unless given), judged
    (models.evaluation.summarize)."""
    task = load_task(web_dir / 'tasks' / task_name)
    with SandboxServer(*open_web(web_dir)) as server:
        settings = sandbox_settings(task, server.proxy_url, strategy=strategy, budget=budget, round_size=round_size,
                                    strategy_params=strategy_params or {}, random_seed=random_seed)
        settings.seeds = seeds or settings.seeds
        Driver(CrawlDir.create(str(out), settings.to_dict()), progress=lambda line: None).run()
    truth = load_truth(web_dir, task.relevant_column)
    return summarize(fetch_order(CrawlDir.open(str(out)).read_table('pages')), truth, budget)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--budget', type=int, default=400)
    parser.add_argument('--round-size', type=int, default=40)
    parser.add_argument('--webs', type=Path, help='where the sandbox webs are (built there if missing)')
    parser.add_argument('--strategies', default=','.join(name for name, kind in STRATEGIES.items() if not kind.discovers),
                        help='comma-separated strategy names (default: every registered link strategy)')
    args = parser.parse_args()
    strategies = args.strategies.split(',')
    with tempfile.TemporaryDirectory() as scratch:
        webs = args.webs or Path(scratch) / 'webs'
        for corpus, task_name in TASKS:
            web_dir = webs / corpus
            ensure_web(corpus, web_dir)
            results = {}
            for strategy in strategies:
                started = time.monotonic()
                results[strategy] = crawl(web_dir, task_name, strategy, args.budget, args.round_size,
                                          Path(scratch) / f'{corpus}-{strategy}')
                fifths = ' '.join(f'{p:.2f}' if p is not None else 'n/a' for _, p, _ in results[strategy]['fifths'])
                print(f'{corpus} {task_name[:-5]:10s} {strategy:10s} harvest {results[strategy]["harvest_rate"]:.3f} '
                      f'sites {results[strategy]["site_harvest_rate"]:.3f} by fifth {fifths} '
                      f'({time.monotonic() - started:.0f} s)')
            if 'best-first' in results and 'bfs' in results:
                best, bfs = results['best-first']['harvest_rate'], results['bfs']['harvest_rate']
                print(f'{corpus} {task_name[:-5]}: best-first / BFS harvest rate = '
                      f'{best / bfs if bfs else float("inf"):.2f}')


if __name__ == '__main__':
    main()

"""Domain discovery measured: the bandit against each single operator, best-first and BFS, at equal
budgets from the same seeds, on every task of both sandbox webs (DWDBRM Figs 2-3, DISCO's runs).

Builds the THUCNews and Wikispeedia sandbox webs (or reuses --webs DIR; --scale K builds them K
times wider, with more sites to find), serves each on 127.0.0.1, crawls each task with each
strategy (the discovery strategies search the sandbox server's search API) and prints relevant
pages and relevant sites found, the harvest rate of pages and of sites per fifth of the budget,
the relevant sites reached by each fifth (how fast, when every strategy reaches them all), and the
bandit's arm shares; then, averaged over tasks, the bandit's relevant sites against the
best single operator (goal >= 1.05x, DISCO: 4,222 against 4,024) and against best-first (goal >= 2x).
KS runs twice: with the site words of its input pages left out of its queries (the default) and kept
(ks:site_words=false), printing relevant sites found per query. A run may set strategy parameters:
bandit:reward=sites:count=sites is DISCO's site reward.

Run: .venv/bin/python benchmarks/discovery.py [--budget 1000] [--round-size 100] [--webs DIR] [--scale 1]
     [--strategies bandit,ks,rs,fc,bc,best-first,bfs,ks:site_words=false] [--corpora thucnews,wikispeedia]
     [--one-site]
"""
import argparse
import collections
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import pyarrow.parquet as pq

from crawl_strategies import crawl
from models.evaluation import budget_fifths, fetch_order
from models.topic import load_task
from models.strategies import STRATEGIES
from pipelines.state import CrawlDir
from runners.crawl_command import strategy_params
from runners.report import load_truth
from sandbox.build import READY_TASKS, build_web
from sandbox.site import slug

SINGLE = ('ks', 'rs', 'fc', 'bc')
GOALS = {'best single operator': 1.05, 'best-first': 2.0}


def arm_shares(crawl_dir: Path) -> str:
    crawl = CrawlDir.open(str(crawl_dir))
    operators = collections.Counter(summary['operator'] for summary in crawl.summaries() if 'operator' in summary)
    total = sum(operators.values()) or 1
    return ' '.join(f'{name} {count / total:.0%}' for name, count in sorted(operators.items()))


def sites_by_fifth(crawl_dir: Path, web_dir: Path, relevant_column: str, budget: int) -> list[int]:
    """Relevant sites reached after each fifth of the budget: how fast, not only how many."""
    truth = load_truth(web_dir, relevant_column)
    urls = fetch_order(CrawlDir.open(str(crawl_dir)).read_table('pages'))
    reached, counts = set(), []
    for end in budget_fifths(budget):
        reached.update(host for host in map(truth.host, urls[:end]) if host in truth.relevant_hosts)
        counts.append(len(reached))
    return counts


def one_site_seeds(web_dir: Path, task_name: str, count: int = 5) -> list[str]:
    """The held-out case: seeds from one site, the first seed's, its relevant articles in URL order."""
    task = load_task(web_dir / 'tasks' / task_name)
    host = urlsplit(task.topic.seeds[0]).hostname
    labels = pq.read_table(web_dir / 'labels.parquet', columns=['url', 'host', 'kind', task.relevant_column])
    return sorted(row['url'] for row in labels.to_pylist()
                  if row['host'] == host and row['kind'] == 'article' and row[task.relevant_column])[:count]


def keyword_queries(crawl_dir: Path) -> int:
    log = CrawlDir.open(str(crawl_dir)).read_table('discover_log', columns=['method'])
    return log['method'].to_pylist().count('keyword')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--budget', type=int, default=1000)
    parser.add_argument('--round-size', type=int, default=100)
    parser.add_argument('--webs', type=Path, help='where the sandbox webs are (built there if missing)')
    parser.add_argument('--scale', type=int, default=1, help='build the webs this many times wider (more sites)')
    parser.add_argument('--strategies', default='bandit,ks,rs,fc,bc,best-first,bfs,ks:site_words=false',
                        help='comma-separated runs, each a strategy with any :NAME=VALUE parameters')
    parser.add_argument('--one-site', action='store_true',
                        help="seeds: 5 relevant articles of the first seed's site (the held-out case), not the task's")
    parser.add_argument('--corpora', default=','.join(READY_TASKS), help='which sandbox webs to crawl')
    args = parser.parse_args()
    runs = args.strategies.split(',')
    sites: dict[str, list[int]] = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as scratch:
        webs = args.webs or Path(scratch) / 'webs'
        for corpus in args.corpora.split(','):
            labels = READY_TASKS[corpus]
            web_dir = webs / (corpus if args.scale == 1 else f'{corpus}-x{args.scale}')
            if not (web_dir / 'web.json').is_file():
                build_web(corpus, web_dir, scale=args.scale, progress=False)
            for label in labels:
                task_name = f'{slug(label) or label}.yaml'
                relevant_column = load_task(web_dir / 'tasks' / task_name).relevant_column
                seeds = one_site_seeds(web_dir, task_name) if args.one_site else None
                print(f'\n{corpus} {label}: budget {args.budget}, rounds of {args.round_size}'
                      + (f', seeds {len(seeds)} pages of {urlsplit(seeds[0]).hostname}' if seeds else ''), flush=True)
                for run in runs:
                    strategy, *settings = run.split(':')
                    started = time.monotonic()
                    out = Path(scratch) / f'{corpus}-{label}-{run.replace(":", "-")}'
                    params = strategy_params(argparse.Namespace(
                        strategy_param=settings, params=None, search='sandbox' if STRATEGIES[strategy].discovers else None))
                    result = crawl(web_dir, task_name, strategy, args.budget, args.round_size, out, params, seeds)
                    sites[run].append(result['relevant_sites'])
                    fifths = ' '.join('n/a' if p is None else f'{p:.2f}/{s:.2f}' for _, p, s in result['fifths'])
                    reached = '/'.join(map(str, sites_by_fifth(out, web_dir, relevant_column, args.budget)))
                    extra = f'  arms {arm_shares(out)}' if strategy == 'bandit' else ''
                    if strategy == 'ks':
                        queries = keyword_queries(out)
                        extra = f'  {queries} queries, {result["relevant_sites"] / max(queries, 1):.3f} relevant sites a query'
                    print(f'  {run:18s} pages {result["pages"]:5d} relevant {result["relevant_pages"]:5d} '
                          f'sites {result["relevant_sites"]:3d}/{result["sites"]:3d} of {result["total_relevant_sites"]}; '
                          f'harvest pages/sites by fifth {fifths}; relevant sites by fifth {reached} '
                          f'({time.monotonic() - started:.0f} s){extra}',
                          flush=True)
    tasks = len(next(iter(sites.values())))
    means = {strategy: sum(found) / tasks for strategy, found in sites.items()}
    print(f'\nrelevant sites, mean over {tasks} tasks: ' + ', '.join(f'{s} {m:.1f}' for s, m in means.items()))
    singles = [s for s in SINGLE if s in means]
    for bandit in (run for run in means if run.split(':')[0] == 'bandit'):
        if singles:
            best = max(singles, key=means.get)
            ratio = means[bandit] / means[best] if means[best] else float('inf')
            print(f'{bandit} / best single operator ({best}): {ratio:.2f}x   goal >= {GOALS["best single operator"]}x')
        if 'best-first' in means:
            ratio = means[bandit] / means['best-first'] if means['best-first'] else float('inf')
            print(f'{bandit} / best-first: {ratio:.2f}x   goal >= {GOALS["best-first"]}x')


if __name__ == '__main__':
    main()

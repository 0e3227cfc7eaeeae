"""The link-level strategies side by side (issue 13): every strategy on every sandbox task at one
budget and the same seeds, judged against the webs' labels, with each paper's own measures.

Per task and strategy it prints:
* harvest rate (labels) per fifth of the budget, relevant pages and relevant sites;
* the calibrated relevant-page judgment's precision and recall against the labels;
* WL's measures (Accuracy = LP/DP, ARDP, SDDP, ARLP, SDLP) at four DP checkpoints, with every
  crawl's pages re-scored by WL eq. 4 with the crawl's final statistics and judged by WL's
  calibrated threshold (so every strategy is measured on one scale), plus WL's own DP count
  (pages it queued, R(l) >= 0.2) for the wl crawl;
* SSAPS's sum of relevant pages (P1, and P1/P2) and sum of information per tenth of the budget,
  with R'_p (eq. 5, whole-page cosine, final statistics) and the calibrated judgment;
* DTH's tunnel lengths: for each relevant page reached through irrelevant ones, how many.
Then the papers' orderings: WL > best-first > BFS in Accuracy, SSAPS > OSSA (shark) in relevant
pages and information, DTH > parent-first in relevant pages, the best seed strategy / best-first.

With --sweep it instead crawls the first task (房产: the tasks the sweep never sees stay held out)
with a grid of the parameters the papers leave unspecified (SSAPS delta and gamma, DTH's link
threshold and first tunnel step, WL's R(l) filter) and prints harvest and relevant pages for each.

Run: .venv/bin/python benchmarks/strategies.py [--budget 2000] [--round-size 100] [--webs DIR]
     [--tasks thucnews/房产.yaml,...] [--strategies a,b] [--random-seeds 0,1] [--out DIR] [--sweep]
"""
import argparse
import collections
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from crawl_strategies import crawl
from models.relevance import TopicRelevance
from models.settings import CrawlSettings
from models.strategies import make_strategy
from models.termstats import TermStats
from models.topic import load_task
from pipelines.round import round_context
from pipelines.state import CrawlDir
from runners.report import load_truth
from sandbox.build import ensure_web

TASKS = ('thucnews/房产.yaml', 'thucnews/体育.yaml', 'wikispeedia/geography.yaml', 'wikispeedia/science.yaml')
STRATEGIES = ('best-first', 'bfs', 'parent-first', 'shark', 'ssaps', 'dth', 'wl')
SEED_STRATEGIES = ('shark', 'ssaps', 'dth', 'wl')
SWEEP = {'ssaps': [{'delta': d, 'gamma': g} for d in (0.1, 0.3, 0.6, 1.0) for g in (0.05, 0.3)],
         'dth': [{'link_threshold': t, 'first_step': f} for t in (0.0, 0.05, 0.15) for f in ('literal', 'predict')],
         'wl': [{'min_link_relevance': r} for r in (0.05, 0.1, 0.2)]}


def rescored(crawl_dir: CrawlDir, kind: str) -> tuple[np.ndarray, float]:
    """Every page's relevance of `kind` with the crawl's final statistics, in fetch order, and the
    calibrated threshold of the strategy that uses that relevance."""
    pages = crawl_dir.read_table('pages', columns=['terms', 'term_counts'])
    last = crawl_dir.last_committed_round()
    stats_table = crawl_dir.read_table('term_stats', last, columns=['term', 'documents'])
    documents = sum(crawl_dir.manifest(r)['tables'].get('pages', {}).get('rows', 0)
                    for r in crawl_dir.committed_rounds())
    stats = TermStats(documents, collections.Counter(dict(zip(stats_table['term'].to_pylist(),
                                                              stats_table['documents'].to_pylist()))))
    settings = CrawlSettings.from_dict(crawl_dir.config)
    relevance = TopicRelevance(settings.topic, stats)
    values = np.array([relevance([t for t, n in zip(terms, counts) for _ in range(n)], kind)
                       for terms, counts in zip(pages['terms'].to_pylist(), pages['term_counts'].to_pylist())])
    judge = make_strategy({'vsm': 'shark', 'wl-eq4': 'wl', 'dth-eq1': 'dth'}[kind])
    judge.prepare(round_context(crawl_dir, settings, last + 1))
    return values, judge.threshold


def checkpoints(budget: int, parts: int) -> list[int]:
    return [budget * k // parts for k in range(1, parts + 1)]


def wl_measures(values: np.ndarray, beta: float, dp: int) -> str:
    """Accuracy / ARDP / SDDP (ARLP, SDLP) over the first dp pages (WL eq. 8-12)."""
    part = values[:dp]
    if not len(part):
        return 'n/a'
    lp = part[part >= beta]
    arlp = f' ARLP {lp.mean():.3f} SDLP {lp.std():.3f}' if len(lp) else ''
    return f'Acc {len(lp) / len(part):.3f} ARDP {part.mean():.3f} SDDP {part.std():.3f}{arlp}'


def judgment(crawl_dir: CrawlDir, truth) -> str:
    pages = crawl_dir.read_table('pages', columns=['final_url', 'relevant'])
    judged = np.array(pages['relevant'].to_pylist(), dtype=bool)
    true = np.array([truth.is_relevant(url) for url in pages['final_url'].to_pylist()], dtype=bool)
    hit = (judged & true).sum()
    return (f'judged relevant {judged.sum()} of {len(judged)}: precision {hit / max(1, judged.sum()):.2f}, '
            f'recall {hit / max(1, true.sum()):.2f} (labels: {true.sum()} relevant)')


def report(name: str, crawl_dir: CrawlDir, summary: dict, truth, budget: int) -> dict:
    fifths = ' '.join(f'{p:.2f}' if p is not None else 'n/a' for _, p, _ in summary['fifths'])
    print(f'  {name:12s} harvest {summary["harvest_rate"]:.3f} by fifth {fifths}; relevant pages '
          f'{summary["relevant_pages"]}, relevant sites {summary["relevant_sites"]} of {summary["sites"]}')
    print(f'  {"":12s} {judgment(crawl_dir, truth)}')
    wl_values, beta = rescored(crawl_dir, 'wl-eq4')
    print(f'  {"":12s} WL eq. 4 (beta {beta:.3f}): ' + ' | '.join(
        f'DP {dp}: {wl_measures(wl_values, beta, dp)}' for dp in checkpoints(len(wl_values), 4)))
    vsm_values, threshold = rescored(crawl_dir, 'vsm')
    tenths = checkpoints(len(vsm_values), 10)
    relevant = [int((vsm_values[:end] >= threshold).sum()) for end in tenths]
    info = [float(vsm_values[:end].sum()) for end in tenths]
    print(f'  {"":12s} SSAPS eq. 6 P1 by tenth {" ".join(map(str, relevant))} (P1/P2 {relevant[-1] / len(vsm_values):.3f}); '
          f'eq. 7 info {" ".join(f"{v:.2f}" for v in info)} (threshold {threshold:.4f})')
    if name.startswith('dth'):
        pages = crawl_dir.read_table('pages', columns=['relevant', 'inherited'])
        lengths = collections.Counter(int(crossed) for relevant, crossed in zip(pages['relevant'].to_pylist(),
                                                                                  pages['inherited'].to_pylist())
                                      if relevant and crossed)
        print(f'  {"":12s} DTH tunnels ending on a relevant page: {sum(lengths.values())}; length histogram '
              + (', '.join(f'{k}: {v}' for k, v in sorted(lengths.items())) or 'none'))
    if name.startswith('wl'):
        pages = crawl_dir.read_table('pages', columns=['relevance', 'inherited'])
        strategy = make_strategy('wl')
        energies = [strategy.energy(r, a) for r, a in zip(pages['relevance'].to_pylist(), pages['inherited'].to_pylist())]
        threshold = CrawlSettings.from_dict(crawl_dir.config).strategy_params['min_link_relevance']
        queued = [e >= threshold for e in energies]
        urls = crawl_dir.read_table('pages', columns=['final_url'])['final_url'].to_pylist()
        labelled = sum(truth.is_relevant(url) for url, q in zip(urls, queued) if q)
        print(f'  {"":12s} WL\'s own DP (pages with R(l) >= {threshold}): {sum(queued)} of {len(energies)} fetched, '
              f'{labelled} of them relevant by the labels ({labelled / max(1, sum(queued)):.2f})')
    return {'relevant_pages': summary['relevant_pages'], 'harvest': summary['harvest_rate'],
            'accuracy': float((wl_values >= beta).mean()) if len(wl_values) else 0.0,
            'p1': relevant[-1], 'info': info[-1]}


def ratio(a: float, b: float) -> str:
    return f'{a / b:.2f}x' if b else 'n/a'


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--budget', type=int, default=2000)
    parser.add_argument('--round-size', type=int, default=100)
    parser.add_argument('--webs', type=Path, help='where the sandbox webs are (built there if missing)')
    parser.add_argument('--tasks', default=','.join(TASKS), help='WEB/TASK.yaml, comma-separated')
    parser.add_argument('--strategies', default=','.join(STRATEGIES))
    parser.add_argument('--random-seeds', default='0', help='comma-separated; randomised strategies (wl) run once each')
    parser.add_argument('--param', action='append', default=[], metavar='STRATEGY:NAME=VALUE',
                        help='a strategy parameter, e.g. ssaps:delta=0.2 (repeatable)')
    parser.add_argument('--out', type=Path, help='keep the crawl directories here (default: a temporary directory)')
    parser.add_argument('--sweep', action='store_true', help='sweep the unspecified parameters on the first task')
    args = parser.parse_args()
    if args.sweep:
        return sweep(args)
    params = collections.defaultdict(dict)
    for given in args.param:
        strategy, _, setting = given.partition(':')
        name, _, value = setting.partition('=')
        params[strategy][name] = float(value) if value.replace('.', '', 1).isdigit() else value
    seeds = [int(s) for s in args.random_seeds.split(',')]
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        webs = args.webs or Path(scratch) / 'webs'
        totals = collections.defaultdict(list)
        for task_path in args.tasks.split(','):
            corpus, task_name = task_path.split('/')
            web_dir = webs / corpus
            ensure_web(corpus, web_dir)
            truth = load_truth(web_dir, load_task(web_dir / 'tasks' / task_name).relevant_column)
            print(f'{corpus} {task_name[:-5]}: budget {args.budget}, rounds of {args.round_size}', flush=True)
            results = {}
            for strategy in args.strategies.split(','):
                for seed in seeds if strategy == 'wl' else seeds[:1]:
                    name = strategy if len(seeds) == 1 or strategy != 'wl' else f'{strategy}#{seed}'
                    started = time.monotonic()
                    directory = out / f'{corpus}-{task_name[:-5]}-{name}'
                    summary = crawl(web_dir, task_name, strategy, args.budget, args.round_size, directory,
                                    params.get(strategy), random_seed=seed)
                    results[name] = report(name, CrawlDir.open(str(directory)), summary, truth, args.budget)
                    print(f'  {"":12s} ({time.monotonic() - started:.0f} s)', flush=True)
            for name, figures in results.items():
                totals[name.split('#')[0]].append(figures)
            orderings(results)
        print('mean over tasks:')
        for name, rows in totals.items():
            print(f'  {name:12s} harvest {statistics.mean(r["harvest"] for r in rows):.3f} relevant pages '
                  f'{statistics.mean(r["relevant_pages"] for r in rows):.1f} WL accuracy '
                  f'{statistics.mean(r["accuracy"] for r in rows):.3f}')


def sweep(args) -> None:
    corpus, task_name = args.tasks.split(',')[0].split('/')
    with tempfile.TemporaryDirectory() as scratch:
        web_dir = (args.webs or Path(scratch) / 'webs') / corpus
        ensure_web(corpus, web_dir)
        print(f'sweep on {corpus} {task_name[:-5]}: budget {args.budget}, rounds of {args.round_size}', flush=True)
        for strategy in args.strategies.split(','):
            for params in SWEEP.get(strategy, []):
                name = f'sweep-{strategy}-' + '-'.join(map(str, params.values()))
                directory = (args.out or Path(scratch)) / name
                summary = crawl(web_dir, task_name, strategy, args.budget, args.round_size, directory, params)
                fifths = ' '.join(f'{p:.2f}' for _, p, _ in summary['fifths'] if p is not None)
                print(f'  {strategy} {params}: harvest {summary["harvest_rate"]:.3f} by fifth {fifths}; relevant '
                      f'pages {summary["relevant_pages"]}, relevant sites {summary["relevant_sites"]}', flush=True)


def orderings(results: dict) -> None:
    def mean(strategy, key):
        rows = [r[key] for name, r in results.items() if name.split('#')[0] == strategy]
        return statistics.mean(rows) if rows else None

    def line(text, a, b, key):
        x, y = mean(a, key), mean(b, key)
        if x is not None and y is not None:
            print(f'  {text}: {x:.3f} vs {y:.3f} ({ratio(x, y)})')

    line('WL vs best-first, WL accuracy (paper 1.45x at 15k pages)', 'wl', 'best-first', 'accuracy')
    line('best-first vs BFS, WL accuracy (paper 3.0x)', 'best-first', 'bfs', 'accuracy')
    line('WL vs best-first, harvest (labels)', 'wl', 'best-first', 'harvest')
    line('best-first vs BFS, harvest (labels)', 'best-first', 'bfs', 'harvest')
    line('SSAPS vs OSSA, relevant pages (labels)', 'ssaps', 'shark', 'relevant_pages')
    line('SSAPS vs OSSA, relevant pages P1 (paper 1.34x)', 'ssaps', 'shark', 'p1')
    line('SSAPS vs OSSA, information (paper 1.56x)', 'ssaps', 'shark', 'info')
    line('DTH vs parent-first, relevant pages (labels)', 'dth', 'parent-first', 'relevant_pages')
    best = max((s for s in SEED_STRATEGIES if mean(s, 'harvest') is not None), key=lambda s: mean(s, 'harvest'),
               default=None)
    if best:
        line(f'best seed strategy ({best}) vs best-first, harvest (goal 1.3x)', best, 'best-first', 'harvest')


if __name__ == '__main__':
    main()

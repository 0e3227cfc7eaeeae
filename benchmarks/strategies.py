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

from crawl_strategies import crawl
from models.settings import CrawlSettings
from models.strategies import make_strategy
from models.topic import load_task
from pipelines.state import CrawlDir
from runners.evaluate import evaluate_crawl, rate
from runners.report import load_truth
from sandbox.build import ensure_web

TASKS = ('thucnews/房产.yaml', 'thucnews/体育.yaml', 'wikispeedia/geography.yaml', 'wikispeedia/science.yaml')
STRATEGIES = ('best-first', 'bfs', 'parent-first', 'shark', 'ssaps', 'dth', 'wl')
SEED_STRATEGIES = ('shark', 'ssaps', 'dth', 'wl')
SWEEP = {'ssaps': [{'delta': d, 'gamma': g} for d in (0.1, 0.3, 0.6, 1.0) for g in (0.05, 0.3)],
         'dth': [{'link_threshold': t, 'first_step': f} for t in (0.0, 0.05, 0.15) for f in ('literal', 'predict')],
         'wl': [{'min_link_relevance': r} for r in (0.05, 0.1, 0.2)]}


def report(name: str, crawl_dir: CrawlDir, truth, budget: int) -> dict:
    """Print one crawl's figures (runners/evaluate.py) and return the ones the orderings compare."""
    figures = evaluate_crawl(crawl_dir, truth, budget)
    print(f'  {name:12s} harvest {figures["harvest_rate"]:.3f} by fifth '
          f'{" ".join(rate(p) for _, p, _ in figures["fifths"])}; relevant pages {figures["relevant_pages"]}, '
          f'relevant sites {figures["relevant_sites"]} of {figures["sites"]}')
    judged = figures['judgment']
    print(f'  {"":12s} judged relevant {judged["judged"]} of {figures["pages"]}: precision {rate(judged["precision"])}, '
          f'recall {rate(judged["recall"])} (labels: {judged["labelled"]} relevant)')
    wl = figures['wl']
    print(f'  {"":12s} WL eq. 4 (beta {wl["beta"]:.3f}): ' + ' | '.join(
        f'DP {c["dp"]}: Acc {c["accuracy"]:.3f} ARDP {c["ardp"]:.3f} SDDP {c["sddp"]:.3f}'
        + (f' ARLP {c["arlp"]:.3f} SDLP {c["sdlp"]:.3f}' if c['arlp'] is not None else '')
        for c in wl['checkpoints']))
    ssaps = figures['ssaps']
    relevant = ' '.join(str(segment['relevant']) for segment in ssaps['segments'])
    information = ' '.join(f'{segment["information"]:.2f}' for segment in ssaps['segments'])
    print(f'  {"":12s} SSAPS eq. 6 P1 by tenth {relevant} (P1/P2 {ssaps["p1_share"]:.3f}); eq. 7 info {information} '
          f'(threshold {ssaps["threshold"]:.4f})')
    if figures['dth']['tunnels'] is not None:
        tunnels = figures['dth']['tunnels']
        print(f'  {"":12s} DTH tunnels ending on a relevant page: {sum(tunnels.values())}; length histogram '
              + (', '.join(f'{k}: {v}' for k, v in tunnels.items()) or 'none'))
    if name.startswith('wl'):
        pages = crawl_dir.read_table('pages', columns=['final_url', 'relevance', 'inherited'])
        strategy = make_strategy('wl')
        threshold = CrawlSettings.from_dict(crawl_dir.config).strategy_params['min_link_relevance']
        queued = [strategy.energy(r, a) >= threshold for r, a in zip(pages['relevance'].to_pylist(),
                                                                     pages['inherited'].to_pylist())]
        labelled = sum(truth.is_relevant(url) for url, q in zip(pages['final_url'].to_pylist(), queued) if q)
        print(f'  {"":12s} WL\'s own DP (pages with R(l) >= {threshold}): {sum(queued)} of {len(queued)} fetched, '
              f'{labelled} of them relevant by the labels ({labelled / max(1, sum(queued)):.2f})')
    return {'relevant_pages': figures['relevant_pages'], 'harvest': figures['harvest_rate'],
            'accuracy': wl['checkpoints'][-1]['accuracy'], 'p1': ssaps['p1'], 'info': ssaps['information']}


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
                    crawl(web_dir, task_name, strategy, args.budget, args.round_size, directory,
                          params.get(strategy), random_seed=seed)
                    results[name] = report(name, CrawlDir.open(str(directory)), truth, args.budget)
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

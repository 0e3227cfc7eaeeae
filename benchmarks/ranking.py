"""DWDBRM's ranking measured: each ranker alone and every combination, on sandbox crawls of every
task of both webs (DWDBRM Tables 1-2, with the paper's figures printed beside).

Builds the THUCNews and Wikispeedia sandbox webs (or reuses --webs DIR), crawls each task with
`--strategy` (default bfs: a ranking is only tested when the crawl holds relevant and irrelevant
pages) for --budget pages, lets the driver rank the crawl (`focal rank`'s step), and judges the
committed ranking against the web's labels, which the rankers never see. The seed pages are the
rankers' positives: they are left out of every list before measuring. Figures: P@17, P@35, P@100
(eq. 13), mean rank of the relevant pages (eq. 14), median rank (eq. 15: the 9th of the first 17
relevant pages), and the share of relevant pages among all ranked (what a random order scores).

Run: .venv/bin/python benchmarks/ranking.py [--budget 1000] [--round-size 100] [--strategy bfs] [--webs DIR]
"""
import argparse
import tempfile
import time
from pathlib import Path

import pyarrow.compute as pc

from models import ranking
from models.evaluation import mean_rank, median_rank, precision_at
from models.topic import load_task
from pipelines.state import CrawlDir
from runners.demo import sandbox_settings
from runners.driver import Driver
from runners.ranks import read_ranking
from runners.report import load_truth
from sandbox.build import READY_TASKS, ensure_web
from sandbox.server import SandboxServer, open_web
from sandbox.site import slug

# DWDBRM Tables 1 and 2 (real-estate seeds, 4,242 pages ranked): P@17, P@35, mean rank, median rank.
PAPER = {'nb': (.882, .800, 89.96, 9), 'lr': (.706, .629, 92.14, 12), 'ocsvm': (.765, .857, 105.93, 12),
         'cosine': (.412, .457, 77.29, 18), 'jaccard': (.647, .686, 77.14, 12), 'eq8 a=0.2': (.941, .886, 80.95, 9)}
COMBINED = [(combination, alpha) for combination in ranking.COMBINATIONS for alpha in (ranking.PAPER_ALPHA, 0.0)]
CUTS = (17, 35, 100)


def orders(table) -> dict[str, list[str]]:
    """URLs best first by each ranker alone and by each combination, seed pages left out."""
    lists = {}
    for name in ranking.SCORES:
        by_score = table.sort_by([(f'score_{name}', 'descending'), ('url', 'ascending')])
        lists[name] = by_score.filter(pc.invert(by_score['seed']))['url'].to_pylist()
    for combination, alpha in COMBINED:
        combined = ranking.combine(table, combination, alpha)
        lists[f'{combination} a={alpha:g}'] = combined.filter(pc.invert(combined['seed']))['url'].to_pylist()
    return lists


def measure(urls: list[str], truth) -> dict:
    relevant = [truth.is_relevant(url) for url in urls]
    return {**{f'P@{n}': precision_at(relevant, n) for n in CUTS}, 'MR': mean_rank(relevant),
            'MidR': median_rank(relevant), 'base': sum(relevant) / len(relevant) if relevant else None}


def crawl_and_rank(web_dir: Path, label: str, args, out: Path):
    task = load_task(web_dir / 'tasks' / f'{slug(label) or label}.yaml')
    with SandboxServer(*open_web(web_dir)) as server:
        settings = sandbox_settings(task, server.proxy_url, strategy=args.strategy, budget=args.budget,
                                    round_size=args.round_size)
        crawl = CrawlDir.create(str(out), settings.to_dict())
        Driver(crawl, progress=lambda line: None).run()
    summary = crawl.manifest(crawl.last_committed_round('ranks'), 'ranks')['summary']
    return read_ranking(crawl, crawl.last_committed_round('ranks')), summary, load_truth(web_dir, task.relevant_column)


def cell(value, digits=3) -> str:
    return '   n/a' if value is None else f'{value:6.{digits}f}' if isinstance(value, float) else f'{value:6d}'


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--budget', type=int, default=1000)
    parser.add_argument('--round-size', type=int, default=100)
    parser.add_argument('--strategy', default='bfs')
    parser.add_argument('--webs', type=Path, help='where the sandbox webs are (built there if missing)')
    args = parser.parse_args()
    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        webs = args.webs or Path(scratch) / 'webs'
        for corpus, labels in READY_TASKS.items():
            ensure_web(corpus, webs / corpus)
            for label in labels:
                started = time.monotonic()
                table, summary, truth = crawl_and_rank(webs / corpus, label, args, Path(scratch) / f'{corpus}-{label}')
                print(f'\n{corpus} {label}: {args.strategy} crawl of {args.budget} pages, {summary["pages"]} ranked '
                      f'({summary["seed_pages"]} seeds, {summary["vocabulary"]} keywords, {summary["negatives"]} '
                      f'negatives; rank step {summary["seconds"]:.1f} s; {time.monotonic() - started:.0f} s in all)')
                print(f'  {"ranking":12s} ' + ' '.join(f'{h:>6s}' for h in (*[f'P@{n}' for n in CUTS], 'MR', 'MidR', 'base')))
                for name, urls in orders(table).items():
                    figures = measure(urls, truth)
                    results.setdefault(name, []).append(figures)
                    print(f'  {name:12s} ' + ' '.join(cell(figures[k], 1 if k == 'MR' else 3) for k in
                                                     (*[f'P@{n}' for n in CUTS], 'MR', 'MidR', 'base')))
    print(f'\nmean over the {len(next(iter(results.values())))} tasks (paper: real estate, P@17 P@35 MR MidR)')
    print(f'  {"ranking":12s} ' + ' '.join(f'{h:>6s}' for h in (*[f'P@{n}' for n in CUTS], 'MR', 'MidR')) + '   paper')
    means = {}
    for name, rows in results.items():
        means[name] = {key: sum(r[key] for r in rows if r[key] is not None) / max(1, sum(r[key] is not None for r in rows))
                       for key in (*[f'P@{n}' for n in CUTS], 'MR', 'MidR')}
        paper = PAPER.get(name)
        print(f'  {name:12s} ' + ' '.join(cell(means[name][k], 1 if k in ('MR', 'MidR') else 3)
                                         for k in (*[f'P@{n}' for n in CUTS], 'MR', 'MidR'))
              + (f'   {paper[0]:.3f} {paper[1]:.3f} {paper[2]:.2f} {paper[3]}' if paper else ''))
    singles = [name for name in ranking.SCORES]
    for n in CUTS:
        best_single = max(singles, key=lambda name: means[name][f'P@{n}'])
        best_overall = max(means, key=lambda name: means[name][f'P@{n}'])
        for alpha in (ranking.PAPER_ALPHA, ranking.DEFAULT_ALPHA):
            eq8 = means[f'eq8 a={alpha:g}'][f'P@{n}']
            verdict = 'at or above' if eq8 >= means[best_single][f'P@{n}'] else 'BELOW'
            print(f'P@{n}: eq8 a={alpha:g} {eq8:.3f} is {verdict} the best single ranker ({best_single} '
                  f'{means[best_single][f"P@{n}"]:.3f}); best of all: {best_overall} {means[best_overall][f"P@{n}"]:.3f}')


if __name__ == '__main__':
    main()

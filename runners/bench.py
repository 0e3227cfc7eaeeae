"""`focal bench`: every strategy on one web with the same seeds, budget and settings, side by side.

A bench serves the web itself (a sandbox web directory, or any WARC files with a labels file) on
127.0.0.1, crawls it once per strategy and repeat (repeat r runs with random seed r; a strategy
that draws nothing at random is crawled once and stands for every repeat), judges each crawl
with every paper's measures (runners/evaluate.py) and writes, into --out:

* crawls/STRATEGY-rN/: the crawl directories. A bench run again reuses the crawls that finished
  and resumes the one it was interrupted in, so an interrupted bench picks up where it stopped.
* bench.csv: one row per crawl and figure column; bench.md: mean ± sd of each figure per
  strategy and each strategy's average rank over the figures (WL Tables 2/4/6); bench.html: the
  same tables with the papers' plots, one self-contained file.
"""
import argparse
import csv
import dataclasses
import html
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from models.evaluation import EvaluationError, GroundTruth, average_ranks, mean_and_sd
from models.settings import CrawlSettings, FetchSettings
from models.strategies import STRATEGIES
from models.topic import load_topic
from pipelines.state import CrawlDir
from runners import plots, report
from runners.command import CommandError, parameter_value, positive_int, read_seeds
from runners.driver import Driver
from runners.evaluate import evaluate_crawl, rate
from sandbox.server import SandboxServer, open_warcs, open_web


@dataclasses.dataclass(frozen=True)
class Figure:
    """A column of bench.csv: its name, what it means, where evaluate_crawl's figures hold it, and
    whether smaller is better when strategies are ranked (None: shown, not ranked)."""
    column: str
    label: str
    read: object
    lower_is_better: bool | None = False


def _last_checkpoint(figures: dict, key: str):
    return figures['wl']['checkpoints'][-1][key] if figures.get('wl') else None


def _ranking(figures: dict, key: str):
    return figures['ranking']['rankers']['combined'][key] if figures.get('ranking') else None


def _tunnel_mean(figures: dict):
    tunnels = (figures.get('dth') or {}).get('tunnels')
    if not tunnels:
        return None
    return sum(int(k) * v for k, v in tunnels.items()) / sum(tunnels.values())


FIGURES = (
    Figure('relevant_pages', 'relevant pages (labels)', lambda f: f['relevant_pages']),
    Figure('harvest_rate', 'harvest rate, pages', lambda f: f['harvest_rate']),
    Figure('site_harvest_rate', 'harvest rate, sites', lambda f: f['site_harvest_rate']),
    Figure('relevant_sites', 'relevant sites', lambda f: f['relevant_sites']),
    Figure('recall', 'recall of relevant pages', lambda f: f['recall']),
    *[Figure(f'harvest_fifth_{n}', f'harvest rate at fifth {n}', lambda f, n=n: f['fifths'][n - 1][1], None)
      for n in range(1, 6)],
    Figure('paper_harvest_rate', "DWDBRM's page HR (requests, duplicates counted)",
           lambda f: f['paper_fifths'][-1][1] if f['paper_fifths'] else None),
    Figure('paper_site_harvest_rate', "DWDBRM's site HR (root URLs)",
           lambda f: f['paper_fifths'][-1][2] if f['paper_fifths'] else None),
    Figure('p_at_17', 'final ranking P@17', lambda f: _ranking(f, 'p@17')),
    Figure('p_at_35', 'final ranking P@35', lambda f: _ranking(f, 'p@35')),
    Figure('mean_rank', 'final ranking mean rank (MR)', lambda f: _ranking(f, 'mean_rank'), True),
    Figure('median_rank', 'final ranking median rank (MidR)', lambda f: _ranking(f, 'median_rank'), True),
    Figure('wl_accuracy', 'WL Accuracy (eq. 4 >= beta)', lambda f: _last_checkpoint(f, 'accuracy')),
    Figure('wl_accuracy_labels', 'WL Accuracy by the labels', lambda f: _last_checkpoint(f, 'accuracy_labels'), None),
    Figure('wl_lp', 'WL LP', lambda f: _last_checkpoint(f, 'lp')),
    Figure('wl_ardp', 'WL ARDP', lambda f: _last_checkpoint(f, 'ardp')),
    Figure('wl_sddp', 'WL SDDP', lambda f: _last_checkpoint(f, 'sddp'), True),
    Figure('wl_arlp', 'WL ARLP', lambda f: _last_checkpoint(f, 'arlp'), None),
    Figure('wl_sdlp', 'WL SDLP', lambda f: _last_checkpoint(f, 'sdlp'), None),
    Figure('ssaps_p1', 'SSAPS relevant pages P1 (eq. 6)', lambda f: f['ssaps']['p1'] if f.get('ssaps') else None),
    Figure('ssaps_information', 'SSAPS information (eq. 7)',
           lambda f: f['ssaps']['information'] if f.get('ssaps') else None),
    Figure('dth_precision', 'DTH query precision M/N',
           lambda f: f['dth']['query_precision']['precision'] if f.get('dth') else None),
    Figure('judged_precision', "the crawler's judgment: precision", lambda f: f['judgment']['precision'], None),
    Figure('judged_recall', "the crawler's judgment: recall", lambda f: f['judgment']['recall'], None),
    Figure('dth_tunnel_mean', 'DTH mean tunnel length', _tunnel_mean, None),
)
RUN_COLUMNS = ('task', 'strategy', 'repeat', 'random_seed', 'crawl_dir', 'pages', 'seconds_this_run')
RANDOMISED = frozenset(name for name, cls in STRATEGIES.items() if cls.randomised)
DISCOVERY = frozenset(name for name, cls in STRATEGIES.items() if cls.discovers)


@dataclasses.dataclass
class Web:
    """What a bench crawls and judges by: the server's content, the topic and seeds, the labels."""
    name: str
    archive_and_index: tuple
    settings: dict          # topic, seeds and task of every crawl's CrawlSettings
    truth: GroundTruth
    source: str


def open_bench_web(args: argparse.Namespace) -> Web:
    """The web of `--web DIR --task T`, or of `--warc FILE... --labels --seeds --topic`."""
    if bool(args.web) == bool(args.warc):
        raise CommandError('give either --web WEB_DIR --task NAME (a sandbox web), or --warc FILE... with '
                           '--labels, --seeds and --topic (any replayed web)')
    if args.web:
        if not args.task:
            raise CommandError(f'--web needs --task: one of {", ".join(_task_names(args.web)) or "none found"}')
        task_path = Path(args.task) if args.task.endswith('.yaml') else Path(args.web) / 'tasks' / f'{args.task}.yaml'
        return sandbox_web(args.web, task_path)
    missing = [f'--{name}' for name in ('labels', 'seeds', 'topic') if not getattr(args, name)]
    if missing:
        raise CommandError(f'--warc needs {", ".join(missing)}: the labels judge the crawls, the seeds and topic '
                           'start them')
    topic = load_topic(args.topic)
    seeds = read_seeds(args.seeds)
    try:
        truth = GroundTruth(args.labels, args.relevant_column or 'relevant', args.relevant_value)
    except EvaluationError as error:
        raise CommandError(f'{args.labels}: {error}') from None
    return Web(topic.name, open_warcs(args.warc, progress=True), {'topic': topic, 'seeds': seeds, 'task': None},
               truth, ', '.join(map(str, args.warc)))


def sandbox_web(web_dir: str | Path, task_path: Path) -> Web:
    """A sandbox web and one of its tasks: the topic and seeds, judged by the web's labels."""
    task = report.load_task(task_path, web_dir)
    truth = report.load_truth(web_dir, task.relevant_column)
    return Web(task.topic.name or task.label, open_web(web_dir),
               {'topic': task.topic, 'seeds': list(task.topic.seeds), 'task': task.summary()}, truth,
               f'{web_dir} (task {task_path.name})')


def _task_names(web_dir) -> list[str]:
    return sorted(p.stem for p in (Path(web_dir) / 'tasks').glob('*.yaml'))


def chosen_strategies(given: str) -> list[str]:
    if given == 'all':
        return list(STRATEGIES)
    names = [name.strip() for name in given.split(',') if name.strip()]
    unknown = [name for name in names if name not in STRATEGIES]
    if unknown or not names:
        raise CommandError(f'--strategies: unknown {", ".join(unknown) or "(none given)"}; give "all" or some of '
                           f'{", ".join(STRATEGIES)}')
    return list(dict.fromkeys(names))


def strategy_params(given: list[str], strategies: list[str]) -> dict[str, dict]:
    """--param STRATEGY:NAME=VALUE, VALUE read as JSON when it parses; the discovery strategies
    search the bench's own server."""
    params = {name: ({'search': 'sandbox'} if name in DISCOVERY else {}) for name in strategies}
    for item in given:
        strategy, colon, setting = item.partition(':')
        name, equals, value = setting.partition('=')
        if not (colon and equals and name) or strategy not in params:
            raise CommandError(f'--param {item!r}: write STRATEGY:NAME=VALUE for a strategy of the bench, '
                               'e.g. ssaps:delta=0.2')
        params[strategy][name] = parameter_value(value)
    return params


@dataclasses.dataclass
class Run:
    strategy: str
    repeat: int
    random_seed: int
    path: Path


def planned_runs(strategies: list[str], repeats: int, out: Path) -> list[Run]:
    """One crawl per strategy and repeat; a strategy that draws nothing at random is crawled once
    (its repeats would be the same crawl)."""
    return [Run(name, repeat, repeat, out / 'crawls' / f'{name}-r{repeat}')
            for name in strategies for repeat in range(repeats if name in RANDOMISED else 1)]


def _comparable(config: dict) -> dict:
    """What must match for a crawl directory to be reused: not the server's port, not Beam's options."""
    config = {k: v for k, v in config.items() if k not in ('schema_version', 'created_at', 'beam_args')}
    return {**config, 'fetch': {**config.get('fetch', {}), 'proxy': None}}


def prepare_crawl(run: Run, settings: CrawlSettings) -> bool:
    """Create the run's crawl directory, or check that the one there is this run's (then the crawl
    is resumed: the driver stops at once when it had finished). Returns whether it was there."""
    if not (run.path / 'crawl.json').exists():
        CrawlDir.create(str(run.path), settings.to_dict())
        return False
    crawl = CrawlDir.open(str(run.path))
    wanted, found = _comparable(settings.to_dict()), _comparable(crawl.config)
    if found != wanted:
        changed = sorted(k for k in wanted.keys() | found.keys() if found.get(k) != wanted.get(k))
        raise CommandError(f'{run.path} holds a crawl with other settings ({", ".join(changed)} differ): give '
                           'another --out for a bench with new settings, or remove that directory')
    crawl.update_config(settings.to_dict())  # the server's port of this run
    return True


def crawl_and_evaluate(path: str, name: str, truth: GroundTruth, budget: int, bar: bool) -> tuple[float, dict]:
    """Run (or finish) one crawl, then judge it: its seconds and figures. A function of plain values,
    so that it also runs in a worker process when crawls run in parallel; its lines say whose they are."""
    started = time.monotonic()
    Driver(CrawlDir.open(path), progress=lambda line: print(f'  [{name}] {line}', flush=True),
           progress_bar=bar).run()
    seconds = time.monotonic() - started
    return seconds, evaluate_crawl(CrawlDir.open(path), truth, budget)


def run_crawls(runs: list[Run], settings_of, truth: GroundTruth, budget: int, jobs: int) -> dict[Path, tuple]:
    """Crawl and judge every run, `jobs` at a time; prints where it is."""
    for run in runs:
        if prepare_crawl(run, settings_of(run)):
            print(f'  {run.path.name}: found in {run.path.parent}, resumed if unfinished', flush=True)
    done: dict[Path, tuple] = {}

    def finished(n: int, run: Run) -> None:
        print(f'[{n}/{len(runs)}] {run.path.name} ({run.strategy}, random seed {run.random_seed}): '
              f'{done[run.path][1]["relevant_pages"]} relevant pages of {done[run.path][1]["pages"]} '
              f'({done[run.path][0]:.0f} s)', flush=True)

    if jobs == 1:
        for n, run in enumerate(runs, 1):
            print(f'[{n}/{len(runs)}] crawling with {run.strategy}, repeat {run.repeat + 1} '
                  f'(random seed {run.random_seed})', flush=True)
            done[run.path] = crawl_and_evaluate(str(run.path), run.path.name, truth, budget, None)
            finished(n, run)
        return done
    print(f'crawling {len(runs)} crawls, {jobs} at a time', flush=True)
    with ProcessPoolExecutor(jobs, mp_context=get_context('spawn')) as pool:
        futures = {run.path: pool.submit(crawl_and_evaluate, str(run.path), run.path.name, truth, budget, False)
                   for run in runs}
        for n, run in enumerate(runs, 1):
            done[run.path] = futures[run.path].result()
            finished(n, run)
    return done


def bench_rows(runs: list[Run], done: dict[Path, tuple]) -> tuple[list[dict], dict]:
    """A bench.csv row per run, and each run's figures (for the plots)."""
    rows, figures_of = [], {}
    for run in runs:
        seconds, figures = done[run.path]
        figures_of[(run.strategy, run.repeat)] = figures
        rows.append({'strategy': run.strategy, 'repeat': run.repeat, 'random_seed': run.random_seed,
                     'crawl_dir': str(run.path), 'pages': figures['pages'], 'seconds_this_run': round(seconds, 1),
                     **{f.column: f.read(figures) for f in FIGURES}})
    return rows, figures_of


def summarize_runs(rows: list[dict], strategies: list[str]) -> tuple[dict, dict]:
    """Each figure's values per strategy (one per crawl), and each strategy's average rank (WL Tables
    2/4/6) over the figures that rank (by each figure's mean)."""
    summary = {f.column: {s: [r[f.column] for r in rows if r['strategy'] == s] for s in strategies} for f in FIGURES}
    ranked = {f.column: {s: mean_and_sd(summary[f.column][s])[0] for s in strategies} for f in FIGURES
              if f.lower_is_better is not None}
    ranks = average_ranks(ranked, [f.column for f in FIGURES if f.lower_is_better])
    return summary, ranks


def cell(values: list) -> str:
    """mean ± sd of a figure over a strategy's crawls as bench.md and bench.html print it: one crawl's
    value alone, whole numbers as such, 'n/a' when no crawl has the figure."""
    mean, sd = mean_and_sd(values)
    present = [v for v in values if v is not None]
    if mean is None:
        return 'n/a'
    if len(present) == 1:
        return str(present[0]) if isinstance(present[0], int) else f'{mean:.3f}'
    return f'{mean:.3f} ± {sd:.3f}'


def write_csv(rows: list[dict], task: str, path: Path) -> None:
    with path.open('w', newline='', encoding='utf-8') as file:
        writer = csv.DictWriter(file, [*RUN_COLUMNS, *(f.column for f in FIGURES)])
        writer.writeheader()
        for row in rows:
            writer.writerow({'task': task, **{k: '' if v is None else v for k, v in row.items()}})


def summary_rows(summary: dict, ranks: dict, strategies: list[str]) -> list[list[str]]:
    rows = [[f.label + (' (lower is better)' if f.lower_is_better else '' if f.lower_is_better is not None
                        else ' (not ranked)'), f.column, *(cell(summary[f.column][s]) for s in strategies)]
            for f in FIGURES]
    rows.append(['average rank (1 = best)', 'average_rank',
                 *(f'{ranks[s]:.2f}' if s in ranks else 'n/a' for s in strategies)])
    return rows


def write_markdown(about: dict, summary: dict, ranks: dict, strategies: list[str], path: Path) -> None:
    header = ['figure', 'column', *strategies]
    lines = [f'# Focal bench: {about["task"]}', '',
             f'{about["web"]}; budget {about["budget"]} pages in rounds of {about["round_size"]}; '
             f'{about["repeats"]} repeat(s), mean ± sd over the repeats (random seeds 0..{about["repeats"] - 1}; '
             'a strategy that draws nothing at random is crawled once).', '',
             '| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(row) + ' |' for row in summary_rows(summary, ranks, strategies)]
    ranked = sorted(ranks, key=ranks.get)
    lines += ['', 'Average rank over the ranked figures: ' + ', '.join(f'{s} {ranks[s]:.2f}' for s in ranked), '']
    path.write_text('\n'.join(lines), encoding='utf-8')


def _mean_curve(curves: list[list[float]]) -> list[float]:
    length = min(map(len, curves))
    return [statistics.fmean(curve[i] for curve in curves) for i in range(length)]


def write_html(about: dict, summary: dict, ranks: dict, strategies: list[str], figures_of: dict, path: Path) -> None:
    """bench.html: the summary table, then each picture with a table of its numbers."""
    first = {s: figures_of[(s, 0)] for s in strategies}
    repeats_of = {s: [r for (name, r) in figures_of if name == s] for s in strategies}
    sections = []
    for kind, title in (('pages', 'Harvest rate of pages against pages fetched (DWDBRM Fig. 2)'),
                        ('sites', 'Harvest rate of sites against pages fetched (DWDBRM Fig. 3)')):
        curves = {s: _mean_curve([figures_of[(s, r)]['curves'][kind] for r in repeats_of[s]]) for s in strategies}
        picture = plots.lines({s: (list(range(1, len(c) + 1)), c) for s, c in curves.items()},
                              f'{about["task"]}: {title.split(" (")[0].lower()}', 'pages fetched', 'harvest rate',
                              (0, 1.05))
        column = 1 if kind == 'pages' else 2
        table = report.html_table(['strategy', *(f'fifth {n}' for n in range(1, 6))],
                              [[s, *(rate(mean_and_sd([figures_of[(s, r)]['fifths'][n][column]
                                                               for r in repeats_of[s]])[0])
                                     for n in range(len(first[s]['fifths'])))] for s in strategies])
        sections.append(f'<h2>{html.escape(title)}</h2>\n{report.figure_html(title, picture)}\n{table}')
    for caption, picture in report.paper_plots({s: first[s] for s in strategies}):
        sections.append(f'<h2>{html.escape(caption)}</h2>\n{report.figure_html(caption, picture)}\n'
                        + _picture_table(caption, first))
    summary_table = report.html_table(['figure', 'column', *strategies],
                                  summary_rows(summary, ranks, strategies))
    body = (report.html_table(['', ''], [['task', about['task']], ['web', about['web']],
                                     ['budget', f'{about["budget"]} pages, rounds of {about["round_size"]}'],
                                     ['repeats', f'{about["repeats"]} of each randomised strategy '
                                                  '(mean ± sd; plots: repeat 1, curves: mean)'],
                                     ['strategies', ', '.join(strategies)]], header=False)
            + '\n<h2>Every figure, mean ± sd over the repeats</h2>\n'
            + f'<div id="summary">{summary_table}</div>\n' + '\n'.join(sections))
    path.write_text(report.page(f'Focal bench: {about["task"]}', body), encoding='utf-8')


def _picture_table(caption: str, first: dict) -> str:
    """The numbers behind one of report.paper_plots' pictures (repeat 1 of each strategy)."""
    if caption.startswith('WL'):
        return report.html_table(['strategy', 'DP', 'LP', 'Accuracy', 'ARDP', 'SDDP'],
                             [[s, c['dp'], c['lp'], rate(c['accuracy'], 3), rate(c['ardp'], 3),
                               rate(c['sddp'], 3)]
                              for s, f in first.items() if f.get('wl') for c in f['wl']['checkpoints']])
    if caption.startswith('SSAPS'):
        return report.html_table(['strategy', 'pages', 'relevant (P1)', 'information', 'relevant (labels)'],
                             [[s, g['pages'], g['relevant'], f'{g["information"]:.3f}', g['relevant_labels']]
                              for s, f in first.items() if f.get('ssaps') for g in f['ssaps']['segments']])
    if caption.startswith('DTH'):
        return report.html_table(['strategy', 'tunnel length', 'tunnels'],
                             [[s, k, v] for s, f in first.items() if (f.get('dth') or {}).get('tunnels')
                              for k, v in f['dth']['tunnels'].items()])
    return report.html_table(['strategy', 'round', 'operator', 'reward'],
                         [[s, row['round'], row['operator'], rate(row['reward'])]
                          for s, f in first.items() for row in f['operators']])


@dataclasses.dataclass
class BenchOptions:
    strategies: list[str]
    params: dict[str, dict]
    budget: int
    round_size: int
    repeats: int = 1
    jobs: int = 1


def run_bench(web: Web, options: BenchOptions, out: Path) -> dict[str, dict]:
    """Crawl, judge and write bench.csv, bench.md and bench.html into `out`; returns each strategy's
    first crawl directory and figures ({strategy: {'crawl_dir', 'figures', 'rank'}})."""
    out.mkdir(parents=True, exist_ok=True)
    runs = planned_runs(options.strategies, options.repeats, out)
    print(f'bench of {len(options.strategies)} strategies on {web.source}: budget {options.budget}, rounds of '
          f'{options.round_size}, {options.repeats} repeat(s) of the randomised ones; {len(runs)} crawls into '
          f'{out}/crawls', flush=True)
    with SandboxServer(*web.archive_and_index) as server:
        def settings_of(run: Run) -> CrawlSettings:
            return CrawlSettings(**web.settings, strategy=run.strategy, strategy_params=options.params[run.strategy],
                                 budget=options.budget, round_size=options.round_size, random_seed=run.random_seed,
                                 fetch=FetchSettings(delay=0.0, proxy=server.proxy_url))
        done = run_crawls(runs, settings_of, web.truth, options.budget, options.jobs)
    rows, figures_of = bench_rows(runs, done)
    summary, ranks = summarize_runs(rows, options.strategies)
    about = {'task': web.name, 'web': web.source, 'budget': options.budget, 'round_size': options.round_size,
             'repeats': options.repeats}
    write_csv(rows, web.name, out / 'bench.csv')
    write_markdown(about, summary, ranks, options.strategies, out / 'bench.md')
    write_html(about, summary, ranks, options.strategies, figures_of, out / 'bench.html')
    print_table(summary, ranks, options.strategies)
    return {run.strategy: {'crawl_dir': run.path, 'figures': figures_of[(run.strategy, 0)],
                           'rank': ranks.get(run.strategy)} for run in runs if run.repeat == 0}


def print_table(summary: dict, ranks: dict, strategies: list[str]) -> None:
    """The headline figures, best average rank first."""
    width = max(len('strategy'), *map(len, strategies))
    print('\n' + 'strategy'.ljust(width + 2) + f'{"harvest":17}{"relevant pages":17}{"WL Accuracy":17}{"SSAPS P1":17}'
          'average rank')
    for s in sorted(strategies, key=lambda s: ranks.get(s, float('inf'))):
        print(f'{s:{width}}  {cell(summary["harvest_rate"][s]):15}  {cell(summary["relevant_pages"][s]):15}  '
              f'{cell(summary["wl_accuracy"][s]):15}  {cell(summary["ssaps_p1"][s]):15}  '
              f'{ranks.get(s, float("nan")):.2f}')


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    strategies = chosen_strategies(args.strategies)
    options = BenchOptions(strategies, strategy_params(args.param or [], strategies), args.budget, args.round_size,
                           args.repeats, args.jobs)
    web = open_bench_web(args)
    out = Path(args.out or f'bench-{web.name}')
    run_bench(web, options, out)
    print(f'\nwrote {out / "bench.csv"}, {out / "bench.md"} and {out / "bench.html"} '
          f'({time.monotonic() - started:.0f} s)')
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        'bench', help='every strategy on one web, same seeds and budget, judged side by side',
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    web = parser.add_argument_group('the web (a sandbox web, or any WARC files)')
    web.add_argument('--web', metavar='WEB_DIR', help='a web `focal sandbox build` wrote')
    web.add_argument('--task', metavar='NAME', help='a task of --web (NAME in WEB_DIR/tasks, or a task YAML file)')
    web.add_argument('--warc', nargs='+', metavar='FILE', help='WARC files to replay instead of --web')
    web.add_argument('--labels', metavar='FILE', help='with --warc: CSV or Parquet labels (url and a relevant column)')
    web.add_argument('--relevant-column', metavar='C', help='with --labels: the relevant column (default: relevant)')
    web.add_argument('--relevant-value', metavar='V', help='with --labels: the value of C that means relevant')
    web.add_argument('--seeds', metavar='FILE', help='with --warc: the seed URLs, one a line')
    web.add_argument('--topic', metavar='FILE', help='with --warc: the topic YAML (`focal topic build` writes one)')
    parser.add_argument('--strategies', default='all',
                        help=f'"all" (default) or a comma-separated list of {", ".join(STRATEGIES)}')
    parser.add_argument('--budget', type=positive_int, default=500, help='pages per crawl (default: %(default)s)')
    parser.add_argument('--round-size', type=positive_int, default=50, help='URLs per round (default: %(default)s)')
    parser.add_argument('--repeats', type=positive_int, default=1,
                        help='crawls per randomised strategy, random seeds 0..R-1 (default: %(default)s)')
    parser.add_argument('--param', action='append', metavar='STRATEGY:NAME=VALUE',
                        help='a strategy parameter, e.g. ssaps:delta=0.2 (repeatable)')
    parser.add_argument('--jobs', type=positive_int, default=1,
                        help='crawls run at once, each in its own process (default: %(default)s)')
    parser.add_argument('--out', metavar='DIR', help='where the crawls and bench files go (default: bench-TASK)')
    parser.set_defaults(handler=run)

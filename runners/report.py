"""The report of one crawl against the sandbox's labels: report.html, harvest.png, summary.json.

The report is judged from the outside: it reads a committed crawl directory and the web's
ground truth, never the crawler's own view, and the HTML embeds its plot so it can be mailed
or archived as one file. summary.json holds the figures a benchmark compares across strategies.
"""
import base64
import collections
import html
import io
import json
from pathlib import Path

import pyarrow as pa
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from models.evaluation import EvaluationError, GroundTruth, fetch_order, harvest_curve, summarize
from models.topic import Task, TopicError, load_task as load_task_file
from pipelines.state import CrawlDir, StateError, final_outcomes

TOP_PAGES = 20


class ReportError(ValueError):
    """The crawl or the web lacks what the report needs; the message says what to give instead."""


def load_task(task_file: str | Path, web_dir: str | Path) -> Task:
    """A task file of the sandbox web: a topic plus the label column it is judged by."""
    tasks_dir = Path(web_dir) / 'tasks'
    known = ', '.join(sorted(p.name for p in tasks_dir.glob('*.yaml'))) or 'none'
    try:
        task = load_task_file(task_file)
    except TopicError as error:
        raise ReportError(f'{error}; the tasks of {web_dir} are in {tasks_dir}: {known}') from None
    if not task.relevant_column:
        raise ReportError(f'{task_file} has no relevant_column: it is a topic, not a task; give one of '
                          f'the task files in {tasks_dir} ({known})')
    return task


def load_truth(web_dir: str | Path, relevant_column: str) -> GroundTruth:
    labels = Path(web_dir) / 'labels.parquet'
    if not labels.is_file():
        raise ReportError(f'{web_dir} has no labels.parquet: give the directory `focal sandbox '
                          'build --out DIR` wrote for the web the crawl ran on')
    try:
        return GroundTruth(labels, relevant_column)
    except EvaluationError as error:
        raise ReportError(f'{labels}: {error}') from None


def top_pages(pages: pa.Table, truth: GroundTruth, n: int = TOP_PAGES) -> list[dict]:
    """The crawl's n most relevant pages by its own relevance score, with the labels' verdict."""
    ranked = pages.select(['url', 'title', 'relevance']).sort_by([('relevance', 'descending')])
    chosen = {}
    for row in ranked.to_pylist():
        if len(chosen) == n:
            break
        chosen.setdefault(row['url'], {**row, 'relevant': truth.is_relevant(row['url'])})
    return list(chosen.values())


def round_counts(crawl: CrawlDir, pages: pa.Table, truth: GroundTruth) -> list[dict]:
    """Per committed round: rows of each table (from the manifests) and relevant pages."""
    relevant = collections.Counter(r for r, url in zip(pages.column('round').to_pylist(),
                                                       pages.column('url').to_pylist())
                                   if truth.is_relevant(url))
    counts = []
    for number in crawl.committed_rounds():
        tables = crawl.manifest(number)['tables']
        rows = {table: tables.get(table, {}).get('rows', 0)
                for table in ('frontier', 'fetch_log', 'pages', 'links')}
        counts.append({'round': number, **rows, 'relevant_pages': relevant[number]})
    return counts


def plot_harvest(urls: list[str], truth: GroundTruth, fifths: list[tuple], path: Path) -> bytes:
    """Harvest rate of pages and of sites against pages fetched, budget fifths marked."""
    curve = harvest_curve(urls, truth)
    fetched = range(1, len(urls) + 1)
    figure = Figure(figsize=(8, 4.5), dpi=100)  # the Agg canvas: no display, no pyplot state
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.plot(fetched, curve.pages, label='pages')
    axes.plot(fetched, curve.sites, label='sites')
    for pages, _, _ in fifths:
        axes.axvline(pages, color='grey', linestyle=':', linewidth=1)
    axes.set_xlim(0, max([len(urls), *(pages for pages, _, _ in fifths), 1]))
    axes.set_ylim(0, 1.05)
    axes.set_xlabel('pages fetched (dotted: fifths of the budget)')
    axes.set_ylabel('harvest rate')
    axes.legend(loc='lower right')
    axes.grid(alpha=0.3)
    buffer = io.BytesIO()
    figure.savefig(buffer, format='png', bbox_inches='tight')
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def operator_rounds(crawl: CrawlDir) -> list[dict]:
    """The discovery rounds of a crawl, in order: the operator, what it returned and, once the next
    round was chosen, its reward and the UCB1 scores it was chosen by (from the selector state)."""
    rounds = crawl.committed_rounds()
    summaries = crawl.summaries()
    if not any('operator' in summary for summary in summaries):
        return []
    pulls = {pull['round']: pull for pull in crawl.read_selector(rounds[-1]).get('state', {}).get('pulls', [])}
    table = []
    for number, summary in zip(rounds, summaries):
        if 'operator' in summary:
            pull = pulls.get(number, {})
            table.append({'round': number, 'operator': summary['operator'], 'inputs': summary['inputs'],
                          'returned': summary['discovered'], 'fetched': summary['attempted'],
                          'new_pages': pull.get('new_pages'), 'new_sites': pull.get('new_sites'),
                          'reward': pull.get('reward'), 'ucb': pull.get('ucb')})
    return table


def format_summary(summary: dict) -> str:
    """A few lines for the terminal."""
    lines = [
        f'harvest rate {_rate(summary["harvest_rate"])} ({summary["relevant_pages"]} of '
        f'{summary["pages"]} pages relevant), sites {summary["relevant_sites"]} of '
        f'{summary["sites"]} relevant ({_rate(summary["site_harvest_rate"])})',
        f'recall {_rate(summary["recall"])} ({summary["relevant_pages"]} of '
        f'{summary["total_relevant"]} relevant pages robots.txt allows)',
    ]
    if summary['fifths']:
        lines.append(f'by fifth of the budget ({summary["budget"]} pages): '
                     + ' '.join(_rate(page_harvest) for _, page_harvest, _ in summary['fifths']))
    return '\n'.join(lines)


def write_report(crawl_dir: str | Path, web_dir: str | Path, task_file: str | Path,
                 out_dir: str | Path, budget: int | None = None) -> Path:
    """Write the report of a crawl into out_dir; returns the path of report.html.

    The budget whose fifths are reported is `budget`, else crawl.json's, but never more than the
    HTML pages fetched: the crawl's budget counts requests, and some of them end in errors.
    """
    try:
        crawl = CrawlDir.open(str(crawl_dir))
    except StateError as error:
        raise ReportError(str(error)) from None
    task = load_task(task_file, web_dir)
    truth = load_truth(web_dir, task.relevant_column)
    config = crawl.config
    pages = crawl.read_table('pages')
    urls = fetch_order(pages)
    budget = min(filter(None, (budget or _positive_int(config.get('budget')), len(urls))), default=None)
    summary = summarize(urls, truth, budget)
    outcomes = collections.Counter(final_outcomes(crawl.read_table('fetch_log')).values())
    rounds = round_counts(crawl, pages, truth)
    operators = operator_rounds(crawl)

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    png = plot_harvest(urls, truth, summary['fifths'], out / 'harvest.png')
    about = {'task': task.topic.name or task.label or Path(task_file).stem,
             'label': task.label, 'relevant_column': task.relevant_column,
             'strategy': config.get('strategy'), 'rounds': len(rounds),
             'round_size': config.get('round_size'), 'crawl_dir': str(crawl_dir),
             'web_dir': str(web_dir)}
    document = {**about, **summary, 'outcomes': dict(outcomes.most_common()), 'operators': operators}
    (out / 'summary.json').write_text(json.dumps(document, ensure_ascii=False, indent=2) + '\n',
                                      encoding='utf-8')
    report = out / 'report.html'
    report.write_text(_html(about, summary, outcomes, top_pages(pages, truth), rounds, operators, png),
                      encoding='utf-8')
    return report


def _html(about: dict, summary: dict, outcomes: collections.Counter, top: list[dict],
          rounds: list[dict], operators: list[dict], png: bytes) -> str:
    heading = _table(['', ''], [
        ['task', f'{about["task"]} (judged by {about["relevant_column"]})'],
        ['strategy', about['strategy'] or 'not recorded in crawl.json'],
        ['rounds committed', about['rounds']],
        ['pages per round', about['round_size'] or 'not recorded in crawl.json'],
        ['crawl', about['crawl_dir']], ['web', about['web_dir']],
    ], header=False)
    figures = _table(['figure', 'value'], [
        ['pages fetched', summary['pages']],
        ['relevant pages', summary['relevant_pages']],
        ['harvest rate (pages)', _rate(summary['harvest_rate'])],
        ['sites found', summary['sites']],
        ['relevant sites', f'{summary["relevant_sites"]} of {summary["total_relevant_sites"]} in the web'],
        ['harvest rate (sites)', _rate(summary['site_harvest_rate'])],
        ['recall (of relevant pages robots.txt allows)',
         f'{_rate(summary["recall"])} ({summary["relevant_pages"]} of {summary["total_relevant"]})'],
        ['page budget', summary['budget']],
    ])
    fifths = _table(['fifth', 'pages', 'harvest rate (pages)', 'harvest rate (sites)'],
                    [[n, pages, _rate(page_rate), _rate(site_rate)]
                     for n, (pages, page_rate, site_rate) in enumerate(summary['fifths'], 1)])
    outcome_table = _table(['outcome', 'URLs'], [[k, v] for k, v in outcomes.most_common()])
    top_table = _table(['relevance', 'title', 'url', 'relevant'],
                       [[_rate(p['relevance']), p['title'] or '', p['url'], 'yes' if p['relevant'] else 'no']
                        for p in top])
    round_table = _table(['round', 'frontier', 'fetch attempts', 'pages', 'relevant pages', 'links'],
                         [[r['round'], r['frontier'], r['fetch_log'], r['pages'], r['relevant_pages'],
                           r['links']] for r in rounds])
    shares = collections.Counter(row['operator'] for row in operators)
    operator_section = '' if not operators else (
        '<h2>Discovery operators, round by round</h2>\n'
        + '<p>' + html.escape(', '.join(f'{name} {count} rounds ({count / len(operators):.0%})'
                                        for name, count in shares.most_common())) + '</p>\n'
        + _table(['round', 'operator', 'input pages', 'URLs returned', 'fetched', 'new pages', 'new sites', 'reward',
                  'UCB1 when chosen'],
                 [[r['round'], r['operator'], r['inputs'], r['returned'], r['fetched'], _blank(r['new_pages']),
                   _blank(r['new_sites']), _rate(r['reward']) if r['reward'] is not None else 'pending',
                   ', '.join(f'{name} {"-" if score is None else f"{score:.2f}"}' for name, score in (r['ucb'] or {}).items())]
                  for r in operators]))
    image = base64.b64encode(png).decode('ascii')
    title = html.escape(f'Focal crawl report: {about["task"]}')
    return f'''<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; max-width: 70em; }}
table {{ border-collapse: collapse; margin-bottom: 1.5em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }}
td {{ overflow-wrap: anywhere; }}
</style></head>
<body>
<h1>{title}</h1>
{heading}
<h2>Harvest rate</h2>
{figures}
<img src="data:image/png;base64,{image}" alt="harvest rate of pages and of sites against pages fetched">
<h3>By fifth of the page budget (DWDBRM)</h3>
{fifths}
<h2>Fetch outcomes (last attempt of each URL)</h2>
{outcome_table}
<h2>Top {TOP_PAGES} pages by the crawl's relevance score</h2>
{top_table}
<h2>Rounds</h2>
{round_table}
{operator_section}
</body></html>
'''


def _table(columns: list[str], rows: list[list], header: bool = True) -> str:
    head = '<tr>' + ''.join(f'<th>{html.escape(c)}</th>' for c in columns) + '</tr>' if header else ''
    body = ''.join('<tr>' + ''.join(f'<td>{html.escape(str(cell))}</td>' for cell in row) + '</tr>'
                   for row in rows)
    return f'<table>{head}{body}</table>' if rows else '<p>none</p>'


def _blank(value) -> str:
    return '' if value is None else str(value)


def _rate(value: float | None) -> str:
    return 'n/a' if value is None else f'{value:.2f}'


def _positive_int(value) -> int | None:
    return value if isinstance(value, int) and value > 0 else None

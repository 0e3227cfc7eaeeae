"""The report of one crawl against labels: report.html (one file, plots embedded), evaluation.json
and harvest.png.

The report is judged from the outside: it reads a committed crawl directory and the labels,
never the crawler's own view (runners/evaluate.py computes the figures), and the HTML embeds
its plots so it can be mailed or archived as one file. `focal evaluate`, `focal demo` and
`focal bench` (runners/bench.py) write it; the bench's page reuses its tables and plots.
"""
import base64
import collections
import html
import json
from pathlib import Path

import pyarrow as pa

from models.evaluation import EvaluationError, GroundTruth
from models.topic import Task, TopicError, load_task as load_task_file
from pipelines.state import CrawlDir, StateError
from runners import plots
from runners.evaluate import evaluate_crawl, labelled_urls, rate

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
    ranked = pages.select(['url', 'labelled_url', 'title', 'relevance']).sort_by([('relevance', 'descending')])
    chosen = {}
    for row in ranked.to_pylist():
        if len(chosen) == n:
            break
        chosen.setdefault(row['url'], {**row, 'relevant': truth.is_relevant(row['labelled_url'])})
    return list(chosen.values())


def round_counts(crawl: CrawlDir, pages: pa.Table, truth: GroundTruth) -> list[dict]:
    """Per committed round: rows of each table (from the manifests) and relevant pages."""
    relevant = collections.Counter(r for r, url in zip(pages.column('round').to_pylist(),
                                                       pages.column('labelled_url').to_pylist())
                                   if truth.is_relevant(url))
    counts = []
    for number in crawl.committed_rounds():
        tables = crawl.manifest(number)['tables']
        rows = {table: tables.get(table, {}).get('rows', 0)
                for table in ('frontier', 'fetch_log', 'pages', 'links')}
        counts.append({'round': number, **rows, 'relevant_pages': relevant[number]})
    return counts



def plot_harvest(figures: dict) -> bytes:
    """Harvest rate of pages and of sites against pages fetched, budget fifths marked."""
    fetched = list(range(1, len(figures['curves']['pages']) + 1))
    return plots.lines({'pages': (fetched, figures['curves']['pages']), 'sites': (fetched, figures['curves']['sites'])},
                       f'harvest rate: {figures["strategy"]}', 'pages fetched (dotted: fifths of the budget)',
                       'harvest rate', (0, 1.05), [pages for pages, _, _ in figures['fifths']])


def paper_plots(named: dict[str, dict]) -> list[tuple[str, bytes]]:
    """The papers' pictures of one or more crawls' figures (name -> evaluate_crawl's figures):
    WL's Accuracy against DP, SSAPS's relevant pages and information per segment, DTH's tunnel
    lengths, the bandit's arm choices. A picture none of the crawls has data for is left out."""
    pictures = []
    wl = {name: f['wl']['checkpoints'] for name, f in named.items() if f.get('wl')}
    if wl:
        pictures.append(('WL: Accuracy (eq. 4 relevance >= beta) against pages downloaded', plots.lines(
            {name: ([c['dp'] for c in points], [c['accuracy'] for c in points]) for name, points in wl.items()},
            'WL Accuracy = LP / DP', 'DP (pages downloaded)', 'Accuracy', (0, 1.05), markers=True)))
    ssaps = {name: f['ssaps']['segments'] for name, f in named.items() if f.get('ssaps')}
    if ssaps:
        pictures.append(('SSAPS: relevant pages per segment (eq. 6, P1)', plots.lines(
            {name: ([s['pages'] for s in seg], [s['relevant'] for s in seg]) for name, seg in ssaps.items()},
            'sum of relevant pages', 'pages crawled', "relevant pages (R'p >= threshold)", markers=True)))
        pictures.append(('SSAPS: information per segment (eq. 7)', plots.lines(
            {name: ([s['pages'] for s in seg], [s['information'] for s in seg]) for name, seg in ssaps.items()},
            'sum of information', 'pages crawled', "sum of R'p", markers=True)))
    tunnels = {name: {int(k): v for k, v in f['dth']['tunnels'].items()} for name, f in named.items()
               if f.get('dth') and f['dth'].get('tunnels')}
    if tunnels:
        pictures.append(('DTH: tunnel lengths', plots.bars(
            tunnels, 'tunnels ending on a relevant page', 'irrelevant pages crossed', 'tunnels')))
    arms = {name: [(row['round'], row['operator']) for row in f['operators']] for name, f in named.items()
            if f.get('operators')}
    if arms:
        names = sorted({arm for pulls in arms.values() for _, arm in pulls})
        pictures.append(("the bandit's arm choices", plots.arm_choices(arms, names, 'operator pulled per round')))
    return pictures


def figure_html(caption: str, png_bytes: bytes) -> str:
    image = base64.b64encode(png_bytes).decode('ascii')
    return (f'<figure><img src="data:image/png;base64,{image}" alt="{html.escape(caption)}">'
            f'<figcaption>{html.escape(caption)}</figcaption></figure>')


def format_summary(summary: dict) -> str:
    """A few lines for the terminal."""
    lines = [
        f'harvest rate {rate(summary["harvest_rate"])} ({summary["relevant_pages"]} of '
        f'{summary["pages"]} pages relevant), sites {summary["relevant_sites"]} of '
        f'{summary["sites"]} relevant ({rate(summary["site_harvest_rate"])})',
        f'recall {rate(summary["recall"])} ({summary["relevant_pages"]} of '
        f'{summary["total_relevant"]} relevant pages robots.txt allows)',
    ]
    if summary['fifths']:
        lines.append(f'by fifth of the budget ({summary["budget"]} pages): '
                     + ' '.join(rate(page_harvest) for _, page_harvest, _ in summary['fifths']))
    return '\n'.join(lines)


def write_report(crawl_dir: str | Path, web_dir: str | Path, task_file: str | Path,
                 out_dir: str | Path, budget: int | None = None) -> Path:
    """The report of a crawl of a sandbox task, judged by the web's labels (see write_crawl_report)."""
    try:
        crawl = CrawlDir.open(str(crawl_dir))
    except StateError as error:
        raise ReportError(str(error)) from None
    task = load_task(task_file, web_dir)
    truth = load_truth(web_dir, task.relevant_column)
    about = {'task': task.topic.name or task.label or Path(task_file).stem, 'relevant_column': task.relevant_column,
             'labels': str(Path(web_dir) / 'labels.parquet'), 'crawl_dir': str(crawl_dir)}
    return write_crawl_report(crawl, truth, about, out_dir, budget)[0]


def write_crawl_report(crawl: CrawlDir, truth: GroundTruth, about: dict, out_dir: str | Path,
                       budget: int | None = None) -> tuple[Path, dict]:
    """Judge a crawl (runners/evaluate.py) and write out_dir/evaluation.json, harvest.png and
    report.html; returns the path of report.html and the figures."""
    try:
        figures = evaluate_crawl(crawl, truth, budget)
    except EvaluationError as error:
        raise ReportError(f'{about.get("labels", "the labels")}: {error}') from None
    about = {**about, 'round_size': crawl.config.get('round_size')}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / 'evaluation.json').write_text(json.dumps({**about, **figures}, ensure_ascii=False, indent=1) + '\n',
                                         encoding='utf-8')
    harvest_png = plot_harvest(figures)
    (out / 'harvest.png').write_bytes(harvest_png)
    pages = crawl.read_table('pages', columns=['round', 'url', 'final_url', 'title', 'relevance'])
    pages = pages.append_column('labelled_url', pa.array(labelled_urls(pages, truth), pa.string()))
    report = out / 'report.html'
    report.write_text(_html(about, figures, top_pages(pages, truth), round_counts(crawl, pages, truth), harvest_png),
                      encoding='utf-8')
    return report, figures


def figures_tables(figures: dict) -> str:
    """The papers' tables of one crawl: DWDBRM's fifths and ranking, WL's checkpoints, SSAPS's
    segments, DTH's query precision and tunnels, the crawler's judgment."""
    parts = ['<h3>By fifth of the page budget (DWDBRM)</h3>', html_table(
        ['fifth', 'pages', 'harvest rate (pages)', 'harvest rate (sites)', 'URLs requested (duplicates counted)',
         "DWDBRM's page HR", "DWDBRM's site HR (root URLs)"],
        [[n, pages, rate(page_rate), rate(site_rate), requested, rate(paper_page), rate(paper_site)]
         for n, ((pages, page_rate, site_rate), (requested, paper_page, paper_site))
         in enumerate(zip(figures['fifths'], figures['paper_fifths']), 1)])]
    judged = figures['judgment']
    parts += ["<h3>The crawler's relevant-page judgment against the labels</h3>", html_table(
        ['judged relevant', 'relevant by the labels', 'both', 'precision', 'recall'],
        [[judged['judged'], judged['labelled'], judged['agree'], rate(judged['precision']), rate(judged['recall'])]])]
    ranking = figures['ranking']
    if ranking:
        columns = list(ranking['rankers']['combined'])
        parts += [f'<h3>Final ranking of {ranking["pages"]} pages, {ranking["relevant"]} relevant '
                  '(DWDBRM Tables 1-2)</h3>', html_table(
                      ['ranker', *columns],
                      [[name, *(rate(row[c]) if isinstance(row[c], float) else _blank(row[c]) for c in columns)]
                       for name, row in ranking['rankers'].items()])]
    if figures.get('wl'):
        parts += [f'<h3>WL at its checkpoints (eq. 4 relevance, beta {figures["wl"]["beta"]:.3f})</h3>', html_table(
            ['DP', 'LP', 'Accuracy', 'Accuracy (labels)', 'ARDP', 'SDDP', 'ARLP', 'SDLP'],
            [[c['dp'], c['lp'], *(rate(c[k], 3) for k in ('accuracy', 'accuracy_labels', 'ardp', 'sddp', 'arlp',
                                                           'sdlp'))]
             for c in figures['wl']['checkpoints']])]
    if figures.get('ssaps'):
        parts += [f'<h3>SSAPS per segment (eq. 5-7, threshold {figures["ssaps"]["threshold"]:.4f})</h3>', html_table(
            ['pages', 'relevant (P1)', 'information', 'relevant (labels)'],
            [[s['pages'], s['relevant'], f'{s["information"]:.3f}', s['relevant_labels']]
             for s in figures['ssaps']['segments']])]
    if figures.get('dth'):
        query, tunnels = figures['dth']['query_precision'], figures['dth']['tunnels']
        tunnel_text = ('not a dth crawl' if tunnels is None else
                       ', '.join(f'{k}: {v}' for k, v in tunnels.items()) or 'none')
        parts += ['<h3>DTH (§2d)</h3>', html_table(
            ['topic queries', 'results returned', 'relevant returned', 'precision M/N', 'relevant collected R',
             'tunnels (length: count)'],
            [[query['queries'], query['returned'], query['relevant'], rate(query['precision']),
              figures['dth']['relevant_collected'], tunnel_text]])]
    return '\n'.join(parts)


def _html(about: dict, figures: dict, top: list[dict], rounds: list[dict], harvest_png: bytes) -> str:
    heading = html_table(['', ''], [
        ['task', f'{about["task"]} (judged by {about["relevant_column"]})'],
        ['strategy', figures['strategy'] or 'not recorded in crawl.json'],
        ['rounds committed', len(rounds)],
        ['pages per round', about['round_size'] or 'not recorded in crawl.json'],
        ['crawl', about['crawl_dir']], ['labels', about['labels']],
    ], header=False)
    summary = html_table(['figure', 'value'], [
        ['pages fetched', figures['pages']],
        ['pages the labels hold', figures['labelled_pages']],
        ['relevant pages', figures['relevant_pages']],
        ['harvest rate (pages)', rate(figures['harvest_rate'])],
        ['sites found', figures['sites']],
        ['relevant sites', f'{figures["relevant_sites"]} of {figures["total_relevant_sites"]} in the labels'],
        ['harvest rate (sites)', rate(figures['site_harvest_rate'])],
        ['recall (of relevant pages robots.txt allows)',
         f'{rate(figures["recall"])} ({figures["relevant_pages"]} of {figures["total_relevant"]})'],
        ['page budget', figures['budget']],
    ])
    outcome_table = html_table(['outcome', 'URLs'], [[k, v] for k, v in figures['outcomes'].items()])
    top_table = html_table(['relevance', 'title', 'url', 'relevant'],
                       [[rate(p['relevance']), p['title'] or '', p['url'], 'yes' if p['relevant'] else 'no']
                        for p in top])
    round_table = html_table(['round', 'frontier', 'fetch attempts', 'pages', 'relevant pages', 'links'],
                         [[r['round'], r['frontier'], r['fetch_log'], r['pages'], r['relevant_pages'],
                           r['links']] for r in rounds])
    pictures = '\n'.join(figure_html(caption, picture)
                         for caption, picture in paper_plots({figures['strategy']: figures}))
    return page(f'Focal crawl report: {about["task"]}', f'''{heading}
<h2>Harvest rate</h2>
{summary}
{figure_html('harvest rate of pages and of sites against pages fetched', harvest_png)}
<h2>The papers' measures</h2>
{figures_tables(figures)}
{pictures}
<h2>Fetch outcomes (last attempt of each URL)</h2>
{outcome_table}
<h2>Top {TOP_PAGES} pages by the crawl's relevance score</h2>
{top_table}
<h2>Rounds</h2>
{round_table}
{operator_section(figures['operators'])}''')


def operator_section(operators: list[dict]) -> str:
    if not operators:
        return ''
    shares = collections.Counter(row['operator'] for row in operators)
    return ('<h2>Discovery operators, round by round</h2>\n'
            + '<p>' + html.escape(', '.join(f'{name} {count} rounds ({count / len(operators):.0%})'
                                            for name, count in shares.most_common())) + '</p>\n'
            + html_table(['round', 'operator', 'input pages', 'URLs returned', 'fetched', 'new pages', 'new sites',
                      'reward', 'UCB1 when chosen'],
                     [[r['round'], r['operator'], r['inputs'], r['returned'], r['fetched'], _blank(r['new_pages']),
                       _blank(r['new_sites']), rate(r['reward']) if r['reward'] is not None else 'pending',
                       ', '.join(f'{name} {"-" if score is None else f"{score:.2f}"}'
                                 for name, score in (r['ucb'] or {}).items())]
                      for r in operators]))


def page(title: str, body: str) -> str:
    """A whole self-contained HTML page; CJK text falls back through common CJK fonts."""
    title = html.escape(title)
    return f'''<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif, "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", "PingFang SC";
        margin: 2em; max-width: 75em; }}
table {{ border-collapse: collapse; margin-bottom: 1.5em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }}
td {{ overflow-wrap: anywhere; }}
figure {{ margin: 1em 0 2em 0; }}
figcaption {{ color: #444; }}
img {{ max-width: 100%; }}
</style></head>
<body>
<h1>{title}</h1>
{body}
</body></html>
'''


def html_table(columns: list[str], rows: list[list], header: bool = True) -> str:
    head = '<tr>' + ''.join(f'<th>{html.escape(c)}</th>' for c in columns) + '</tr>' if header else ''
    body = ''.join('<tr>' + ''.join(f'<td>{html.escape(str(cell))}</td>' for cell in row) + '</tr>'
                   for row in rows)
    return f'<table>{head}{body}</table>' if rows else '<p>none</p>'


def _blank(value) -> str:
    return '' if value is None else str(value)



"""Judge a committed crawl against labels with every seed paper's measures (`focal evaluate`).

Any labelled sample judges a crawl: a CSV or Parquet file with a url column and a column
saying which pages are relevant (or a label column and the value that means relevant). The
figures (models/evaluation.py) are read from the committed tables only, never from the
crawler's memory: harvest of pages and sites per fifth of the budget (ours and DWDBRM's
counting), P@N and mean/median rank of the final ranking, WL's five figures at its DP
checkpoints, SSAPS's sums per segment, DTH's tunnel lengths and query precision, the
crawler's own relevant-page judgment against the labels, and the bandit's arm choices.
"""
import collections

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from models import evaluation
from models.evaluation import EvaluationError, GroundTruth
from models.ranking import SCORES
from models.relevance import TopicRelevance
from models.settings import CrawlSettings
from models.strategies import make_strategy
from pipelines.round import round_context
from pipelines.state import CrawlDir, final_outcomes
from runners.driver import NOT_REQUESTED

PRECISION_AT = (17, 35)                     # DWDBRM Table 1
TOPIC_QUERIES = 10                          # DTH's queries: the topic's heaviest words
JUDGE_OF_KIND = {'vsm': 'shark', 'wl-eq4': 'wl', 'dth-eq1': 'dth'}  # a strategy whose judgment uses each scale
CURVE_DIGITS = 4


def pages_in_fetch_order(crawl: CrawlDir) -> pa.Table:
    """The crawl's pages by round then fetch time, each URL once (its first fetch)."""
    pages = crawl.read_table('pages', columns=['round', 'fetched_at', 'url', 'final_url', 'relevant', 'inherited',
                                               'terms', 'term_counts'])
    pages = pages.sort_by([('round', 'ascending'), ('fetched_at', 'ascending')])
    first = {}
    for index, url in enumerate(pages.column('url').to_pylist()):
        first.setdefault(url, index)
    return pages.take(pa.array(sorted(first.values()), pa.int64()))


def labelled_urls(pages: pa.Table, truth: GroundTruth) -> list[str]:
    """Each page's URL as the labels name it: as requested, else where its redirects ended (labels of
    a real web often hold the final https:// or canonical URL)."""
    return [final if not truth.is_labelled(url) and truth.is_labelled(final) else url
            for url, final in zip(pages['url'].to_pylist(), pages['final_url'].to_pylist())]


def requested_in_order(crawl: CrawlDir) -> list[str]:
    """Every URL requested, in order, once per request (a URL requested in two rounds counts twice);
    a refusal before any request (robots.txt, address policy) is a first attempt that is not counted."""
    log = crawl.read_table('fetch_log', columns=['round', 'url', 'attempt', 'outcome', 'started_at'])
    firsts = log.filter(pc.and_(pc.equal(log['attempt'], 1),
                                pc.invert(pc.is_in(log['outcome'], pa.array(NOT_REQUESTED)))))
    return firsts.sort_by([('round', 'ascending'), ('started_at', 'ascending')])['url'].to_pylist()


def check_labels_match(urls: list[str], truth: GroundTruth) -> int:
    """How many crawled URLs the labels hold; none is an error that shows both sides."""
    matched = sum(map(truth.is_labelled, urls))
    if urls and not matched:
        raise EvaluationError(
            f'none of the {len(urls):,} crawled URLs is in the labels ({truth.labelled:,} labelled URLs): the '
            f'labels must name the pages this crawl fetched. Crawled: {", ".join(urls[:3])}; labelled: '
            f'{", ".join(truth.example_urls())}')
    return matched


class Rescoring:
    """The pages' relevance on each paper's scale with the crawl's final statistics, and each scale's
    calibrated relevant-page threshold, so that every strategy is judged alike: the pages' terms and
    the statistics are read once for all the scales."""

    def __init__(self, crawl: CrawlDir, settings: CrawlSettings, pages: pa.Table):
        self.documents = [[t for t, n in zip(terms, counts) for _ in range(n)]
                          for terms, counts in zip(pages['terms'].to_pylist(), pages['term_counts'].to_pylist())]
        self.context = round_context(crawl, settings, crawl.last_committed_round() + 1)
        self.relevance = TopicRelevance(settings.topic,
                                        self.context.term_stats({t for page in self.documents for t in page}))

    def __call__(self, kind: str) -> tuple[np.ndarray, float]:
        judge = make_strategy(JUDGE_OF_KIND[kind])
        judge.prepare(self.context)
        return (np.array([self.relevance(page, kind) for page in self.documents], dtype=float),
                judge.threshold or 0.0)


def ranking_figures(crawl: CrawlDir, truth: GroundTruth) -> dict | None:
    """DWDBRM Tables 1-2 on the crawl's last ranks: P@N, mean and median rank, for the combined
    ranking and for each ranker alone; None when the crawl was never ranked."""
    last = crawl.last_committed_round()
    if last not in crawl.committed_rounds('ranks'):
        return None
    ranking = crawl.read_table('ranking', last, kind='ranks')
    relevant = np.array([truth.is_relevant(url) for url in ranking['url'].to_pylist()], dtype=bool)
    orders = {'combined': ranking['position'].to_numpy()}
    orders.update({name: ranking[f'position_{name}'].to_numpy() for name in SCORES})
    figures = {}
    for name, positions in orders.items():
        in_order = relevant[np.argsort(positions, kind='stable')].tolist()
        figures[name] = {**{f'p@{n}': evaluation.precision_at(in_order, n) for n in PRECISION_AT},
                         'mean_rank': evaluation.mean_rank(in_order),
                         'median_rank': evaluation.median_rank(in_order)}
    return {'round': last, 'pages': ranking.num_rows, 'relevant': int(relevant.sum()), 'rankers': figures}


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


def judgment(judged: np.ndarray, labelled: np.ndarray) -> dict:
    """The crawler's own relevant-page judgment (pages.relevant) against the labels."""
    hits = int((judged & labelled).sum())
    return {'judged': int(judged.sum()), 'labelled': int(labelled.sum()), 'agree': hits,
            'precision': hits / judged.sum() if judged.sum() else None,
            'recall': hits / labelled.sum() if labelled.sum() else None}


def evaluate_crawl(crawl: CrawlDir, truth: GroundTruth, budget: int | None = None) -> dict:
    """Every paper's figures of one committed crawl, JSON-ready.

    The budget whose fifths are reported is `budget`, else crawl.json's, but never more than the
    HTML pages fetched: the crawl's budget counts requests, and some of them end in errors.
    """
    settings = CrawlSettings.from_dict(crawl.config, source=f'{crawl.root}/crawl.json')
    pages = pages_in_fetch_order(crawl)
    urls = labelled_urls(pages, truth)
    matched = check_labels_match(urls, truth)
    budget = min(filter(None, (budget or settings.budget, len(urls))), default=None)
    harvest = evaluation.summarize(urls, truth, budget)
    curve = evaluation.harvest_curve(urls, truth)
    labelled = np.array([truth.is_relevant(url) for url in urls], dtype=bool)
    judged = np.array(pages['relevant'].fill_null(False).to_pylist(), dtype=bool)
    figures = {
        'strategy': settings.strategy, 'strategy_params': settings.strategy_params,
        'random_seed': settings.random_seed, 'rounds': len(crawl.committed_rounds()),
        'labelled_pages': matched, **harvest,
        'paper_fifths': evaluation.paper_harvest(requested_in_order(crawl), truth, budget),
        'curves': {'pages': np.round(curve.pages, CURVE_DIGITS).tolist(),
                   'sites': np.round(curve.sites, CURVE_DIGITS).tolist()},
        'judgment': judgment(judged, labelled),
        'outcomes': dict(collections.Counter(final_outcomes(crawl.read_table('fetch_log')).values()).most_common()),
        'ranking': ranking_figures(crawl, truth),
        'operators': operator_rounds(crawl),
    }
    if not urls:
        return {**figures, 'wl': None, 'ssaps': None, 'dth': None}
    rescored = Rescoring(crawl, settings, pages)
    wl_values, beta = rescored('wl-eq4')
    figures['wl'] = {'beta': beta, 'checkpoints': [evaluation.wl_figures(wl_values, beta, labelled, dp)
                                                   for dp in evaluation.dp_checkpoints(len(urls))]}
    vsm_values, threshold = rescored('vsm')
    segments = evaluation.segment_sums(vsm_values, threshold, labelled)
    figures['ssaps'] = {'threshold': threshold, 'segments': segments,
                        'p1': segments[-1]['relevant'], 'p1_share': segments[-1]['relevant'] / len(urls),
                        'information': segments[-1]['information']}
    queries = sorted(settings.topic.term_weights, key=lambda t: -settings.topic.term_weights[t])[:TOPIC_QUERIES]
    documents = [dict(zip(terms, counts)) for terms, counts in zip(pages['terms'].to_pylist(),
                                                                    pages['term_counts'].to_pylist())]
    figures['dth'] = {'query_precision': evaluation.query_precision(documents, labelled.tolist(), queries),
                      'relevant_collected': int(labelled.sum()),
                      'tunnels': (evaluation.tunnel_histogram(judged, pages['inherited'].to_pylist())
                                  if settings.strategy == 'dth' else None)}
    return figures


def rate(value: float | None, digits: int = 2) -> str:
    """A figure as the reports print it; 'n/a' when there is nothing to divide by."""
    return 'n/a' if value is None else f'{value:.{digits}f}'


def format_evaluation(figures: dict) -> str:
    """The figures a person reads first, a few lines for the terminal."""
    lines = [f'{figures["strategy"]}: {figures["pages"]} pages ({figures["labelled_pages"]} labelled), '
             f'{figures["relevant_pages"]} relevant: harvest {rate(figures["harvest_rate"])}; sites '
             f'{figures["relevant_sites"]} of {figures["sites"]} relevant ({rate(figures["site_harvest_rate"])}); '
             f'recall {rate(figures["recall"])} of {figures["total_relevant"]}']
    if figures['fifths']:
        lines.append(f'harvest by fifth of {figures["budget"]} pages: '
                     + ' '.join(rate(p) for _, p, _ in figures['fifths'])
                     + '; DWDBRM\'s counting (requests, duplicates included): '
                     + ' '.join(rate(p) for _, p, _ in figures['paper_fifths']))
    judged = figures['judgment']
    lines.append(f'the crawler judged {judged["judged"]} pages relevant: precision {rate(judged["precision"])}, '
                 f'recall {rate(judged["recall"])} against the labels')
    if figures['ranking']:
        combined = figures['ranking']['rankers']['combined']
        lines.append(f'final ranking of {figures["ranking"]["pages"]} pages: '
                     + ', '.join(f'{k} {rate(v) if isinstance(v, float) else v}' for k, v in combined.items()))
    if figures.get('wl'):
        last = figures['wl']['checkpoints'][-1]
        lines.append(f'WL at DP {last["dp"]}: Accuracy {rate(last["accuracy"])} (labels '
                     f'{rate(last["accuracy_labels"])}), ARDP {rate(last["ardp"])}, SDDP {rate(last["sddp"])}, '
                     f'ARLP {rate(last["arlp"])}, SDLP {rate(last["sdlp"])}')
    if figures.get('ssaps'):
        lines.append(f'SSAPS: P1 {figures["ssaps"]["p1"]} relevant pages, information '
                     f'{figures["ssaps"]["information"]:.2f}')
    if figures.get('dth'):
        query = figures['dth']['query_precision']
        tunnels = figures['dth']['tunnels']
        lines.append(f'DTH: query precision {rate(query["precision"])} ({query["relevant"]} of {query["returned"]} '
                     f'results of {query["queries"]} topic queries)'
                     + (f'; tunnels {sum(tunnels.values())}, lengths '
                        + ', '.join(f'{k}: {v}' for k, v in tunnels.items()) if tunnels else ''))
    if figures['operators']:
        shares = collections.Counter(row['operator'] for row in figures['operators'])
        lines.append('operators: ' + ', '.join(f'{name} {count} rounds' for name, count in shares.most_common()))
    return '\n'.join(lines)

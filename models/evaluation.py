"""Crawl quality against ground truth: every seed paper's own measures, on any labels.

DWDBRM (after DISCO) judges a strategy by the share of relevant pages among the pages it
fetched, and of relevant sites among the sites it reached, read at each fifth of the page
budget, so a strategy that finds the domain early is told apart from one that gets there
late; its rankers by P@N, mean and median rank. WL reads Accuracy and the mean and spread of
relevance at checkpoints of pages downloaded; SSAPS sums relevant pages and information per
segment of the crawl; DTH counts tunnel lengths and the precision of topic queries over an
index of what was crawled. The labels (a sandbox web's, or a user's labelled sample) are
never shown to the crawler; this module only reads them. It holds the arithmetic; reading a
crawl directory is runners/evaluate.py's job.
"""
import collections
import math
import statistics
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from models.urls import UrlError, host_of, normalize_url

FIFTHS = 5
TRUE_WORDS = frozenset({'true', 't', 'yes', 'y', '1', 'relevant'})


class EvaluationError(ValueError):
    """Ground truth that cannot judge the crawl; the message says what is missing."""


def read_labels(path: str | Path) -> pa.Table:
    """A labels table from a Parquet or CSV file (by its suffix; CSV columns are read as text)."""
    path = Path(path)
    if not path.is_file():
        raise EvaluationError(f'no labels file {path}: give a CSV or Parquet file with a url column')
    try:
        if path.suffix.lower() in ('.csv', '.tsv'):
            return pacsv.read_csv(path, parse_options=pacsv.ParseOptions(
                delimiter='\t' if path.suffix.lower() == '.tsv' else ','),
                convert_options=pacsv.ConvertOptions(strings_can_be_null=False,
                                                     column_types={'url': pa.string()}))
        return pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise EvaluationError(f'cannot read labels file {path} (CSV by a .csv/.tsv suffix, else Parquet): '
                              f'{error}') from None


def _truthy(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in TRUE_WORDS
    return bool(value)


class GroundTruth:
    """Which pages and hosts are relevant to one task, keyed by normalised URL.

    `labels` has a `url` column and either a relevant column (booleans, or text such as
    yes/true/1) or, with `relevant_value`, a label column whose value (or one of whose list
    values) equal to it means relevant. Optional columns: `host` (else the URL's) and
    `robots_allowed` (else every page counts as allowed).

    A host is relevant when at least one of its pages is relevant: a site that publishes the
    domain at all (a portal with a 房产 section, not only a housing site) is one the domain's
    users want found, as DISCO counts sites. Recall's denominator counts only relevant pages a
    polite crawler may fetch (robots_allowed), so obeying robots.txt costs no recall.
    """

    def __init__(self, labels: pa.Table | str | Path, relevant_column: str,
                 relevant_value: str | None = None):
        if not isinstance(labels, pa.Table):
            labels = read_labels(labels)
        missing = [c for c in ('url', relevant_column) if c not in labels.column_names]
        if missing:
            raise EvaluationError(
                f'the labels table has no {", ".join(missing)} column(s); it has '
                f'{", ".join(labels.column_names)}: name the column that says which pages are relevant')
        urls = [_normalized(u) for u in labels.column('url').to_pylist()]
        hosts = (labels.column('host').to_pylist() if 'host' in labels.column_names
                 else [host_of(u) if u else '' for u in urls])
        values = labels.column(relevant_column).to_pylist()
        if relevant_value is None:
            relevant = [_truthy(v) for v in values]
        else:
            relevant = [relevant_value in v if isinstance(v, list) else str(v) == relevant_value
                        for v in values]
        allowed = (labels.column('robots_allowed').fill_null(False).to_pylist()
                   if 'robots_allowed' in labels.column_names else [True] * len(urls))
        rows = [row for row in zip(urls, hosts, relevant, allowed) if row[0]]
        self._host = {u: h for u, h, _, _ in rows}
        self._relevant_urls = frozenset(u for u, _, r, _ in rows if r)
        self.relevant_hosts = frozenset(h for _, h, r, _ in rows if r)
        self.total_relevant = sum(1 for _, _, r, a in rows if r and a)
        self.total_relevant_hosts = len(self.relevant_hosts)
        self.labelled = len(self._host)

    def is_relevant(self, url: str) -> bool:
        """Relevant per the labels; a URL the labels do not hold (a redirect hop, a trap) is not."""
        return url in self._relevant_urls

    def is_labelled(self, url: str) -> bool:
        return url in self._host

    def host(self, url: str) -> str:
        """The labelled host of a page, else the URL's own host ('' when it has none)."""
        return self._host.get(url) or host_of(url)

    def example_urls(self, n: int = 3) -> list[str]:
        return sorted(self._host)[:n]


def _normalized(url) -> str | None:
    try:
        return normalize_url(url) if url else None
    except UrlError:
        return None


class HarvestCurve(NamedTuple):
    """Cumulative harvest rates after each fetched page (index 0 = after the first page)."""
    pages: np.ndarray   # relevant pages fetched / pages fetched
    sites: np.ndarray   # relevant hosts reached / hosts reached


def fetch_order(pages_table: pa.Table) -> list[str]:
    """URLs of a crawl's pages table in fetch order: by round, then fetched_at.

    A URL fetched again later keeps its first place only: harvest counts distinct pages.
    """
    ordered = pages_table.select(['round', 'fetched_at', 'url']).sort_by(
        [('round', 'ascending'), ('fetched_at', 'ascending')])  # stable; unknown times last
    return list(dict.fromkeys(ordered.column('url').to_pylist()))


def harvest_curve(fetched_urls_in_order: Iterable[str], truth: GroundTruth) -> HarvestCurve:
    """Harvest rates as the crawl went; a host is found with the first page fetched from it."""
    urls = list(fetched_urls_in_order)
    relevant = np.fromiter((truth.is_relevant(u) for u in urls), dtype=bool, count=len(urls))
    fetched = np.arange(1, len(urls) + 1)
    hosts_seen: set[str] = set()
    hosts_found = np.zeros(len(urls), dtype=np.int64)
    relevant_hosts_found = np.zeros(len(urls), dtype=np.int64)
    for n, url in enumerate(urls):
        host = truth.host(url)
        if host and host not in hosts_seen:
            hosts_seen.add(host)
            hosts_found[n] = 1
            relevant_hosts_found[n] = host in truth.relevant_hosts
    hosts_found, relevant_hosts_found = np.cumsum(hosts_found), np.cumsum(relevant_hosts_found)
    sites = np.divide(relevant_hosts_found, hosts_found, out=np.zeros(len(urls)), where=hosts_found > 0)
    return HarvestCurve(np.cumsum(relevant) / fetched, sites)


def budget_fifths(budget: int) -> list[int]:
    """Pages fetched at each fifth of the budget, rounded up (budget 12 -> 3, 5, 8, 10, 12)."""
    return [math.ceil(budget * k / FIFTHS) for k in range(1, FIFTHS + 1)]


def summarize(fetched_urls_in_order: Iterable[str], truth: GroundTruth,
              budget: int | None = None) -> dict:
    """The DWDBRM figures of one crawl, JSON-ready; a rate with nothing to divide by is None.

    `fifths` holds (pages, page harvest, site harvest) at each fifth of the budget (the number
    fetched when no budget is given); a fifth the crawl never reached has None rates.
    """
    urls = list(fetched_urls_in_order)
    if budget is not None and budget < 1:
        raise ValueError(f'the page budget must be 1 or more, not {budget}')
    budget = budget or len(urls)
    curve = harvest_curve(urls, truth)
    relevant_pages = sum(map(truth.is_relevant, urls))
    hosts = {h for h in map(truth.host, urls) if h}
    relevant_sites = len(hosts & truth.relevant_hosts)
    fifths = []
    for pages in budget_fifths(budget) if budget else []:
        reached = pages <= len(urls)
        fifths.append((pages, float(curve.pages[pages - 1]) if reached else None,
                       float(curve.sites[pages - 1]) if reached else None))
    return {
        'pages': len(urls),
        'relevant_pages': relevant_pages,
        'harvest_rate': _ratio(relevant_pages, len(urls)),
        'sites': len(hosts),
        'relevant_sites': relevant_sites,
        'site_harvest_rate': _ratio(relevant_sites, len(hosts)),
        'total_relevant': truth.total_relevant,
        'total_relevant_sites': truth.total_relevant_hosts,
        'recall': _ratio(relevant_pages, truth.total_relevant),
        'budget': budget,
        'fifths': fifths,
    }


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


# -- a ranking against ground truth (DWDBRM §5.1, eq. 13-15) ----------------------------------------

MEDIAN_RANK_OF = 17  # DWDBRM's MidR: the middle of the first 17 relevant pages (Table 2)


def precision_at(relevant_in_order: list[bool], n: int) -> float | None:
    """P@N, eq. 13: the share of relevant pages among the first n (None when fewer are ranked)."""
    return sum(relevant_in_order[:n]) / n if len(relevant_in_order) >= n else None


def mean_rank(relevant_in_order: list[bool]) -> float | None:
    """MR, eq. 14: the mean 0-based position of the relevant pages."""
    places = [place for place, relevant in enumerate(relevant_in_order) if relevant]
    return sum(places) / len(places) if places else None


def median_rank(relevant_in_order: list[bool], n: int = MEDIAN_RANK_OF) -> int | None:
    """MidR, eq. 15: the 0-based position of the ⌈n/2⌉-th relevant page among the first n relevant
    ones (the 9th of 17; of all of them when fewer than n are relevant)."""
    places = [place for place, relevant in enumerate(relevant_in_order) if relevant][:n]
    return places[math.ceil(len(places) / 2) - 1] if places else None


# -- DWDBRM §5.2.1's own counting ---------------------------------------------------------------------

def is_site_root(url: str) -> bool:
    """A URL that 'ends at the top-level domain': the site's root, no path, no query."""
    rest = url.split('://', 1)[-1]
    return '/' not in rest.rstrip('/') and '?' not in rest


def paper_harvest(retrieved_in_order: Sequence[str], truth: GroundTruth, budget: int | None = None) -> list[tuple]:
    """(retrieved, page HR, site HR) at each fifth of the budget, counted as DWDBRM counts.

    The denominator is every URL retrieved, duplicates included (the paper's 10,000 results
    de-duplicate to 4,242 pages); the numerator de-duplicates (a page found again is not found
    twice). A site is a root URL retrieved, relevant when the labels call that root page relevant
    ("属于房产类, 且网址以顶级域名结尾"). A fifth the crawl never reached has None rates.
    """
    retrieved = list(retrieved_in_order)
    budget = budget or len(retrieved)
    figures = []
    for end in budget_fifths(budget) if budget else []:
        if end > len(retrieved):
            figures.append((end, None, None))
            continue
        part = retrieved[:end]
        relevant = {u for u in part if truth.is_relevant(u)}
        roots = {u for u in part if is_site_root(u)}
        relevant_roots = {u for u in roots if truth.is_relevant(u)}
        figures.append((end, len(relevant) / end, len(relevant_roots) / len(roots) if roots else None))
    return figures


# -- WL (004) eq. 8-12 at checkpoints of pages downloaded -----------------------------------------------

WL_CHECKPOINTS = (1 / 15, 1 / 3, 2 / 3, 1)  # WL's DP 1,000, 5,000, 10,000 and 15,000 of 15,000


def dp_checkpoints(downloaded: int) -> list[int]:
    """Pages downloaded at WL's checkpoints, scaled to a crawl of `downloaded` pages."""
    return sorted({max(1, round(downloaded * share)) for share in WL_CHECKPOINTS}) if downloaded else []


def wl_figures(relevance: np.ndarray, beta: float, labelled_relevant: np.ndarray, dp: int) -> dict:
    """WL's figures over the first dp pages: Accuracy = LP/DP (LP: pages with R >= beta), ARDP and
    SDDP (mean and population SD of R over DP), ARLP and SDLP (over LP), and Accuracy by the labels."""
    values, labelled = relevance[:dp], labelled_relevant[:dp]
    lp = values[values >= beta]
    return {'dp': int(len(values)), 'lp': int(len(lp)),
            'accuracy': float(len(lp) / len(values)) if len(values) else None,
            'accuracy_labels': float(labelled.mean()) if len(labelled) else None,
            'ardp': float(values.mean()) if len(values) else None,
            'sddp': float(values.std()) if len(values) else None,
            'arlp': float(lp.mean()) if len(lp) else None,
            'sdlp': float(lp.std()) if len(lp) else None}


# -- SSAPS (003) eq. 6-7 per segment ------------------------------------------------------------------

SEGMENTS = 10  # SSAPS: 6,000 pages in 600-page segments


def segment_sums(relevance: np.ndarray, threshold: float, labelled_relevant: np.ndarray,
                 segments: int = SEGMENTS) -> list[dict]:
    """Cumulative sums at the end of each segment: relevant pages by R'_p (eq. 6's P1, a page is
    relevant when R'_p reaches the threshold), information sum of R'_p (eq. 7), relevant pages by
    the labels."""
    total = len(relevance)
    ends = sorted({max(1, math.ceil(total * k / segments)) for k in range(1, segments + 1)}) if total else []
    judged = (relevance >= threshold) & (relevance > 0)
    return [{'pages': end, 'relevant': int(judged[:end].sum()), 'information': float(relevance[:end].sum()),
             'relevant_labels': int(labelled_relevant[:end].sum())} for end in ends]


# -- DTH (002) ----------------------------------------------------------------------------------------

def tunnel_histogram(judged_relevant: Iterable[bool], tunnel_lengths: Iterable[float | None]) -> dict[int, int]:
    """How many relevant pages were reached after crossing 1, 2, ... irrelevant pages (DTH Fig. 5)."""
    lengths = collections.Counter(int(length) for relevant, length in zip(judged_relevant, tunnel_lengths)
                                  if relevant and length)
    return dict(sorted(lengths.items()))


QUERY_RESULTS = 20


def query_precision(documents: Sequence[dict[str, int]], relevant: Sequence[bool], queries: Sequence[str],
                    results: int = QUERY_RESULTS) -> dict:
    """DTH's precision M/N: each query (a topic word) run over an inverted index of the crawled pages
    returns the `results` pages of highest tf-idf for it; M counts the relevant ones returned, N all
    returned, summed over the queries."""
    pages = len(documents)
    postings = collections.defaultdict(list)
    for index, counts in enumerate(documents):
        length = sum(counts.values()) or 1
        for term, count in counts.items():
            postings[term].append((count / length, index))
    returned = hits = answered = 0
    for query in queries:
        found = postings.get(query, [])
        idf = math.log(pages / len(found)) if found else 0.0
        top = sorted(found, key=lambda hit: (-hit[0] * idf, hit[1]))[:results]
        returned += len(top)
        hits += sum(relevant[index] for _, index in top)
        answered += bool(top)
    return {'queries': len(queries), 'answered': answered, 'returned': returned, 'relevant': hits,
            'precision': hits / returned if returned else None}


# -- side by side -------------------------------------------------------------------------------------

def mean_and_sd(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and sample SD of the values that exist (SD 0 for one value, None for none)."""
    present = [v for v in values if v is not None]
    if not present:
        return None, None
    return statistics.fmean(present), statistics.stdev(present) if len(present) > 1 else 0.0


def average_ranks(figures: dict[str, dict[str, float | None]], lower_is_better: Iterable[str] = ()) -> dict[str, float]:
    """WL Tables 2/4/6: rank the strategies on each figure (1 = best, ties share the mean rank), then
    average a strategy's ranks. figures maps figure -> strategy -> value; a figure some strategy lacks
    is left out, since it cannot rank them all."""
    lower = set(lower_is_better)
    strategies = sorted({s for values in figures.values() for s in values})
    ranks = collections.defaultdict(list)
    for figure, values in figures.items():
        if any(values.get(s) is None for s in strategies):
            continue
        ordered = sorted(strategies, key=lambda s: values[s] if figure in lower else -values[s])
        for strategy in strategies:
            key = values[strategy]
            tied = [place for place, other in enumerate(ordered, 1) if values[other] == key]
            ranks[strategy].append(sum(tied) / len(tied))
    return {s: statistics.fmean(ranks[s]) for s in strategies if ranks[s]}

"""Crawl quality against ground truth: harvest rate of pages and of sites (DWDBRM).

DWDBRM (after DISCO) judges a strategy by the share of relevant pages among the pages it
fetched, and of relevant sites among the sites it reached, read at each fifth of the page
budget, so a strategy that finds the domain early is told apart from one that gets there
late. The labels come from the sandbox web and are never shown to the crawler; this module
only reads them, so it is usable on any labels table with the same columns.
"""
import math
from pathlib import Path
from typing import Iterable, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from models.urls import host_of

FIFTHS = 5
LABEL_COLUMNS = ('url', 'host', 'robots_allowed')


class EvaluationError(ValueError):
    """Ground truth that cannot judge the crawl; the message says what is missing."""


class GroundTruth:
    """Which pages and hosts are relevant to one task, keyed by normalised URL.

    A host is relevant when at least one of its pages is relevant: a site that publishes the
    domain at all (a portal with a 房产 section, not only a housing site) is one the domain's
    users want found, as DISCO counts sites. Recall's denominator counts only relevant pages a
    polite crawler may fetch (robots_allowed), so obeying robots.txt costs no recall.
    """

    def __init__(self, labels: pa.Table | str | Path, relevant_column: str):
        if not isinstance(labels, pa.Table):
            labels = pq.read_table(labels)
        missing = [c for c in (*LABEL_COLUMNS, relevant_column) if c not in labels.column_names]
        if missing:
            raise EvaluationError(
                f'the labels table has no {", ".join(missing)} column(s); it has '
                f'{", ".join(labels.column_names)}: give the labels.parquet of the web the task '
                'was built for')
        urls = labels.column('url').to_pylist()
        hosts = labels.column('host').to_pylist()
        relevant = labels.column(relevant_column).fill_null(False).to_pylist()
        allowed = labels.column('robots_allowed').fill_null(False).to_pylist()
        self._host = dict(zip(urls, hosts))
        self._relevant_urls = frozenset(u for u, r in zip(urls, relevant) if r)
        self.relevant_hosts = frozenset(h for h, r in zip(hosts, relevant) if r)
        self.total_relevant = sum(1 for r, a in zip(relevant, allowed) if r and a)
        self.total_relevant_hosts = len(self.relevant_hosts)

    def is_relevant(self, url: str) -> bool:
        """Relevant per the labels; a URL the web does not hold (a redirect hop, a trap) is not."""
        return url in self._relevant_urls

    def host(self, url: str) -> str:
        """The labelled host of a page, else the URL's own host ('' when it has none)."""
        return self._host.get(url) or host_of(url)


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

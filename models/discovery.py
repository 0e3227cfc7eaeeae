"""Domain discovery as DWDBRM (§4.2, Alg. 1, 3) and DISCO do it: four operators applied to the
top-ranked pages, a UCB1 bandit choosing the operator each round, rewarded by where the pages an
operator found land in the next ranking.

Operators (SEEDS_SPEC §2a): KS keyword search with queries of the domain's seed keyword and the
input pages' most frequent meta keywords / description / title terms (10 new ones a round, never the same
twice); RS related search of each input page; FC the input pages' outlinks; BC the input pages'
backlinks (hubs), fetched, then the hubs' outlinks.

Reward of a pull (each reading recorded in crawl.json, SEEDS_SPEC §3 item 5):
* eq9 (default): Σ (1 − pos_i/len)·I_i / k over the k results the operator returned, pos_i the
  result's 0-based place in the new ranking of len pages, I_i = 0 for a result found before;
* alg3: Alg. 3's loop, Σ (1 − index/len) over the ranking's new pages (1 at index 0, 0 at the
  tail), divided by len;
* sites (DISCO): eq. 9 counting only the first page of each host never seen before.
Counts are cumulative per arm: results returned (pages, default) or new sites (DISCO), and μ̄ is
the count-weighted mean of the arm's rewards (DISCO's ucb1.py); UCB1 (eq. 11):
μ̄_op + sqrt(2 ln n / n_op), every arm played once first.
"""
import collections
import dataclasses
import math

import pyarrow as pa
import pyarrow.compute as pc

OPERATORS = ('KS', 'RS', 'FC', 'BC')
OPERATOR_NAMES = {'KS': 'keyword search', 'RS': 'related search', 'FC': 'forward crawl', 'BC': 'backlink crawl'}
METHOD = {'KS': 'keyword', 'RS': 'related', 'BC': 'backlinks'}  # what each searching operator asks; FC asks none
REWARDS = ('eq9', 'alg3', 'sites')
COUNTS = ('pages', 'sites')
INPUT_PAGES = 20            # k: top pages of the ranking used as input (DISCO's k; DWDBRM gives none)
KEYWORDS_PER_ROUND = 10     # new keywords a keyword search: DISCO's first code took 10 (max_keyword=10), its
                            # run() 20 (max_kw = 20): --strategy-param keywords=20
RESULTS_PER_CALL = 50       # DISCO: 50 results a query


@dataclasses.dataclass
class Arm:
    pulls: int = 0
    count: float = 0.0      # n_op: results returned (or new sites), cumulative
    mean: float = 0.0       # μ̄_op, weighted by each pull's count
    rewards: list = dataclasses.field(default_factory=list)  # every pull's μ, in order


def ucb1_scores(arms: dict[str, Arm]) -> dict[str, float]:
    """DWDBRM eq. 11 per arm: μ̄ + sqrt(2 ln n / n_op); inf for an arm not played yet."""
    total = sum(arm.count for arm in arms.values())
    return {name: (math.inf if arm.pulls == 0 else
                   arm.mean + math.sqrt(2 * math.log(max(total, 1.0)) / max(arm.count, 1e-12)))
            for name, arm in arms.items()}


def arms_by_preference(arms: dict[str, Arm], order: tuple = OPERATORS) -> list[str]:
    """Arms best first by UCB1; arms never played first, in `order` (DWDBRM §5.2.1)."""
    scores = ucb1_scores(arms)
    return sorted(arms, key=lambda name: (-scores[name], order.index(name)))


def update_arm(arm: Arm, reward: float, count: float) -> None:
    """Add one pull's reward, weighted by its count (DISCO's batched UCB1 update); a pull that
    returned nothing counts 1 with reward 0, so an empty arm loses its bonus like any other."""
    weight = max(count, 1.0)
    arm.pulls += 1
    arm.rewards.append(reward)
    arm.count += weight
    arm.mean += (reward - arm.mean) * weight / arm.count


def reward(kind: str, positions: dict[str, float], length: int, k: int, new_site_pages: set[str]) -> float:
    """μ of one pull. `positions` are the places, in the new ranking of `length` pages, of the pages
    fetched for the first time after the pull (I_i = 1; the operator's other results were found
    before, or not fetched, and add 0); k is how many URLs the operator returned; `new_site_pages`
    the first page of each host never seen before."""
    if not length:
        return 0.0
    if kind == 'alg3':  # Alg. 3: every new page of the ranking, the tail adds 0, divided by len
        return sum(0.0 if place >= length - 1 else 1 - place / length for place in positions.values()) / length
    counted = positions if kind == 'eq9' else {url: place for url, place in positions.items() if url in new_site_pages}
    return sum(1 - place / length for place in counted.values()) / k if k else 0.0


def keyword_candidates(texts: list[str], tokenize, exclude: set[str], used: set[str],
                       limit: int = KEYWORDS_PER_ROUND) -> list[str]:
    """The most frequent terms (and adjacent term pairs) of the input pages' meta keywords,
    meta description and titles, not used before and not in `exclude` (the domain's seed keyword,
    site words); ties by the term (DISCO's _extract_keywords)."""
    counts = collections.Counter()
    for text in texts:
        terms = [term for term in tokenize(text) if term not in exclude]
        counts.update(terms)
        counts.update(f'{a} {b}' for a, b in zip(terms, terms[1:]))
    ranked = sorted(counts, key=lambda term: (-counts[term], term))
    return [term for term in ranked if term not in used and counts[term] > 0][:limit]


def top_inputs(urls: list[str], used: set[str], k: int = INPUT_PAGES) -> list[str]:
    """The first k URLs of a ranking (best first) not used as input before."""
    return [url for url in urls if url not in used][:k]


def arms_to_dict(arms: dict[str, Arm]) -> dict:
    return {name: dataclasses.asdict(arm) for name, arm in arms.items()}


def arms_from_dict(data: dict) -> dict[str, Arm]:
    return {name: Arm(**values) for name, values in data.items()}


def first_pages_of_new_hosts(urls_in_order: list[str], hosts_before: set[str], host_of) -> set[str]:
    """The first URL of each host not in hosts_before (DISCO's site reward counts these)."""
    seen, firsts = set(hosts_before), set()
    for url in urls_in_order:
        host = host_of(url)
        if host not in seen:
            seen.add(host)
            firsts.add(url)
    return firsts


HUB_SHARE = 0.2             # BC: at most this share of a round's fetches go to the backlink pages (hubs)
LINK_BLOCKS_FIRST = ('content', 'related')  # FC and BC follow a page's content and related links first


@dataclasses.dataclass(frozen=True)
class DiscoveryPlan:
    """What a discovery round does: an operator applied to input pages (or, for KS, queries built
    from them) through a search provider; the round pipeline's Discover stage carries it out."""
    operator: str
    inputs: tuple = ()          # input page URLs, best first
    queries: tuple = ()         # KS queries
    provider: str = 'linkgraph'  # --search: sandbox[:URL], linkgraph, searxng:URL, brave[:URL]
    results_per_call: int = RESULTS_PER_CALL
    hub_share: float = HUB_SHARE
    site_mode: bool = False     # DISCO's site mode: fetch the home page of each newly found site instead

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), 'inputs': list(self.inputs), 'queries': list(self.queries)}


def found_row(url: str, operator: str, source: str, source_rank: int, rank: int, parent_url: str | None = None,
              title: str | None = None, snippet: str | None = None) -> dict:
    """A URL an operator found: from which input page or query (`source`, its place), at which place
    among that source's results (`rank`)."""
    return {'url': url, 'operator': operator, 'source': source, 'source_rank': source_rank, 'rank': rank,
            'parent_url': parent_url, 'title': title, 'snippet': snippet}


def home_page(url: str) -> str:
    """The home page of a URL's site (scheme, host and port; path '/')."""
    scheme, rest = url.split('://', 1)
    return f'{scheme}://{rest.split("/", 1)[0]}/'


def outlink_rows(source: str, source_rank: int, links: list[tuple[str, str, int]], operator: str) -> list[dict]:
    """A page's outlinks (url, block, place on the page) as found rows, content and related links first."""
    ordered = sorted(links, key=lambda link: (link[1] not in LINK_BLOCKS_FIRST, link[2]))
    rows, seen = [], set()
    for url, _, _ in ordered:
        if url != source and url not in seen:
            seen.add(url)
            rows.append(found_row(url, operator, source, source_rank, len(rows), parent_url=source))
    return rows


def choose_discovered(rows: list[dict], limit: int) -> tuple[list[dict], int, int]:
    """The URLs a round fetches of those an operator found: each URL once (its best place), none
    known before (`known`: requested or reached in an earlier round), the first result of every
    source before the second of any (round robin over the input pages or queries), at most `limit`.
    Returns them, how many distinct URLs the operator returned, and how many of those the round
    judges (k of eq. 9: the ones fetched and the ones found before; new ones beyond the round's
    size go unjudged, as if not returned)."""
    best: dict[str, dict] = {}
    for row in rows:
        current = best.get(row['url'])
        if current is None or (row['rank'], row['source_rank']) < (current['rank'], current['source_rank']):
            best[row['url']] = {**row, 'known': row.get('known', False) or bool(current and current.get('known'))}
        elif row.get('known'):
            current['known'] = True
    fresh = sorted((row for row in best.values() if not row['known']),
                   key=lambda row: (row['rank'], row['source_rank'], row['url']))
    chosen = fresh[:max(limit, 0)]
    return chosen, len(best), len(best) - len(fresh) + len(chosen)


SITE_WORD_SHARE = 0.9       # a term whose pages are (nearly) all on one host names the site, not the domain
SITE_WORD_MIN_PAGES = 3
SITE_WORD_MIN_HOSTS = 3     # with fewer hosts crawled, nothing can be told apart


def site_words(hosts: pa.Array, terms: pa.Array, candidates: set[str]) -> set[str]:
    """Candidates that name a site rather than the domain: found on SITE_WORD_MIN_PAGES pages or
    more, at least SITE_WORD_SHARE of them on one host, in a crawl of SITE_WORD_MIN_HOSTS hosts or
    more. `hosts` and `terms` are the pages table's columns (a host and a list of terms a page)."""
    if not candidates or len(pc.unique(hosts)) < SITE_WORD_MIN_HOSTS:
        return set()
    flat = pc.list_flatten(terms)
    pairs = pa.table({'term': flat, 'host': hosts.take(pc.list_parent_indices(terms))})
    pairs = pairs.filter(pc.is_in(pairs['term'], pa.array(sorted(candidates), pa.string())))
    per_host = pairs.group_by(['term', 'host']).aggregate([([], 'count_all')])
    totals = per_host.group_by('term').aggregate([('count_all', 'sum'), ('count_all', 'max')])
    return {term for term, pages, top in zip(totals['term'].to_pylist(), totals['count_all_sum'].to_pylist(),
                                              totals['count_all_max'].to_pylist())
            if pages >= SITE_WORD_MIN_PAGES and top >= SITE_WORD_SHARE * pages}

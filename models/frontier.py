"""Candidate rows of the frontier (pipelines/schema.py CANDIDATES) and how rows for one URL merge.

Every link a strategy scores becomes a candidate row; the round pipeline's UpdateFrontier groups
the previous round's rows and the new ones by URL and merges them here, so the rule is one pure
function whatever runner executes it: the best link's row wins (highest priority, then the one
found first), the depth budget is the largest any link gave (SSAPS keeps the max depth), the first
round is the earliest, and the links are counted. Rows are merged as pyarrow tables (a column at a
time), as UpdateFrontier moves them.
"""
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from models.strategies.base import LinkFeatures, LinkScore, ParentPage
from models.urls import host_of


def link_candidate(link: LinkFeatures, parent: ParentPage, score: LinkScore, link_index: int,
                   round_number: int) -> dict:
    """The candidate row of one scored outlink."""
    return {'round': round_number, 'url': link.url, 'host': host_of(link.url), 'priority': score.priority,
            'depth': score.depth, 'operator': 'link', 'parent_url': parent.url,
            'parent_relevance': parent.relevance, 'block': link.block, 'anchor': link.anchor,
            'anchor_relevance': link.anchor_relevance, 'context_relevance': link.context_relevance,
            'url_relevance': link.url_relevance, 'first_round': round_number,
            'parent_position': parent.position, 'link_index': link_index, 'times_linked': 1,
            'title': None, 'snippet': None, 'inherited': score.inherited}


def seed_candidate(url: str, seed_index: int, depth: int, round_number: int) -> dict:
    """The candidate row of a seed the first round had no room for: it waits like any link, found
    before round 1 (first_round 0) in the order the seeds were given (link_index)."""
    return {'round': round_number, 'url': url, 'host': host_of(url), 'priority': 1.0, 'depth': depth,
            'operator': 'seed', 'parent_url': None, 'parent_relevance': None, 'block': None, 'anchor': None,
            'anchor_relevance': None, 'context_relevance': None, 'url_relevance': None,
            'first_round': 0, 'parent_position': None, 'link_index': seed_index, 'times_linked': 0,
            'title': None, 'snippet': None, 'inherited': None}


# The order that picks a URL's best row: highest priority, then the one found first (earliest
# round, its page's place in that round's frontier, the link's place on the page; unknown places
# last), then the parent URL (none first), so the choice never depends on the order rows come in.
BEST_FIRST = [('priority', 'descending', 'at_end'), ('first_round', 'ascending', 'at_end'),
              ('parent_position', 'ascending', 'at_end'), ('link_index', 'ascending', 'at_end'),
              ('parent_url', 'ascending', 'at_start')]


def preference(row: dict) -> tuple:
    """A row's place in BEST_FIRST, smaller first, for rows merged one at a time."""
    key = []
    for column, order, nulls in BEST_FIRST:
        value = row[column]
        if value is None:
            key.append((nulls == 'at_end', 0))
        else:
            key.append((nulls != 'at_end', -value if order == 'descending' else value))
    return tuple(key)


class CandidateMerger:
    """Rows of one round merged per URL as they come, to what merge_candidates makes of them (but
    for the round), so a batch holds a row per URL: a site's menus link the same URLs from each of
    its pages. Exact: rows found in one round share their first round, so the merged row ranks as
    its best row did, and merging it with others later gives the row of merging all at once."""

    def __init__(self):
        self.by_url = {}  # url -> [best row, largest depth, first round, links, best row's preference or None]

    def __len__(self) -> int:
        return len(self.by_url)

    def add(self, row: dict) -> None:
        merged = self.by_url.get(row['url'])
        if merged is None:
            self.by_url[row['url']] = [row, row['depth'], row['first_round'], row['times_linked'], None]
            return
        priority = merged[0]['priority']
        if row['priority'] > priority:
            merged[0], merged[4] = row, None
        elif row['priority'] == priority:  # a tie (a menu's link on each page of a site): the full order
            if merged[4] is None:
                merged[4] = preference(merged[0])
            key = preference(row)
            if key < merged[4]:
                merged[0], merged[4] = row, key
        merged[1] = max(merged[1], row['depth'])
        merged[2] = min(merged[2], row['first_round'])
        merged[3] += row['times_linked']

    def rows(self) -> list[dict]:
        return [{**best, 'depth': depth, 'first_round': first_round, 'times_linked': links}
                for best, depth, first_round, links, _ in self.by_url.values()]


def merge_candidates(rows: pa.Table, round_number: int) -> pa.Table:
    """Candidate rows of any URLs (earlier rounds' and this one's) -> a row per URL, sorted by URL,
    in this round's table. Columns at once: a round merges ~100 rows a real page."""
    if rows.num_rows == 0:
        return rows
    ordered = rows.sort_by([('url', 'ascending', 'at_end'), *BEST_FIRST])
    urls = ordered['url']
    first = np.ones(len(urls), dtype=bool)
    first[1:] = pc.not_equal(urls[1:], urls[:-1]).to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(first)

    def per_url(column: str, reduce: np.ufunc) -> pa.Array:
        values = ordered[column].to_numpy()
        return pa.array(reduce.reduceat(values, starts), ordered.schema.field(column).type)

    best = ordered.filter(pa.array(first))
    for column, value in (('round', pa.array(np.full(len(starts), round_number), best.schema.field('round').type)),
                          ('depth', per_url('depth', np.maximum)), ('first_round', per_url('first_round', np.minimum)),
                          ('times_linked', per_url('times_linked', np.add))):
        best = best.set_column(best.schema.get_field_index(column), column, value)
    return best

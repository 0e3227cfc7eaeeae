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

from models.strategies.base import LinkBatch, LinkScores, ParentPage
from models.urls import host_of


def link_candidates(links: LinkBatch, scores: LinkScores, parent: ParentPage, round_number: int) -> dict[str, list]:
    """The candidate rows of the links of a page the strategy keeps (a priority that is not None)
    as a batch of columns (transforms/tables.py columns_table): no dict or tuple per link, each
    column made once."""
    kept = [index for index, priority in enumerate(scores.priority) if priority is not None]
    pick = list if len(kept) == len(scores.priority) else (lambda column: [column[index] for index in kept])
    urls, count = pick(links.url), len(kept)
    return {'url': urls, 'host': [host_of(url) for url in urls], 'priority': pick(scores.priority),
            'depth': pick(scores.depth), 'block': pick(links.block), 'anchor': pick(links.anchor),
            'anchor_relevance': pick(links.anchor_relevance), 'context_relevance': pick(links.context_relevance),
            'url_relevance': pick(links.url_relevance), 'link_index': kept, 'inherited': pick(scores.inherited),
            'round': [round_number] * count, 'operator': ['link'] * count,
            'parent_url': [parent.url] * count, 'parent_relevance': [parent.relevance] * count,
            'first_round': [round_number] * count, 'parent_position': [parent.position] * count,
            'times_linked': [1] * count, 'title': [None] * count, 'snippet': [None] * count}


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


def merge_candidates(rows: pa.Table, round_number: int) -> pa.Table:
    """Candidate rows of any URLs (earlier rounds' and this one's) -> a row per URL, sorted by URL,
    in this round's table. Columns at once: a round merges ~100 rows a real page. Merging some of a
    round's rows first (a bundle's, before the shuffle: a site's menus link the same URLs from each
    of its pages) changes nothing: they share their first round, so the merged row ranks as its
    best row did, and merging it with the others later gives the row of merging all at once."""
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

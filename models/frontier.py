"""Candidate rows of the frontier (pipelines/schema.py CANDIDATES) and how rows for one URL merge.

Every link a strategy scores becomes a candidate row; the round pipeline's UpdateFrontier groups
the previous round's rows and the new ones by URL and merges them here, so the rule is one pure
function whatever runner executes it: the best link's row wins (highest priority, then the one
found first), the depth budget is the largest any link gave (SSAPS keeps the max depth), the first
round is the earliest, and the links are counted.
"""
import math
from typing import Iterable

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


def preference(row: dict) -> tuple:
    """Smaller is better: priority, then discovery order; the parent URL makes the order total."""
    unknown = math.inf
    return (-row['priority'], row['first_round'],
            unknown if row['parent_position'] is None else row['parent_position'],
            unknown if row['link_index'] is None else row['link_index'], row['parent_url'] or '')


def merge_candidates(rows: Iterable[dict], round_number: int) -> dict:
    """One URL's rows (from earlier rounds and this one) -> its row in this round's table."""
    rows = list(rows)
    best = min(rows, key=preference)
    return {**best, 'round': round_number,
            'depth': max(row['depth'] for row in rows),
            'first_round': min(row['first_round'] for row in rows),
            'times_linked': sum(row['times_linked'] for row in rows)}

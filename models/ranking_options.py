"""The rank step's names and options (models/ranking.py), apart from the rankers themselves: the
crawl settings and the table schemas read these, and every Beam worker of a round imports both,
so they must not bring scipy and the rankers along."""

RANKERS = ('nb', 'lr', 'ocsvm', 'cosine', 'jaccard')   # DWDBRM's F, |F| = 5
SCORES = (*RANKERS, 'pagerank')
COMBINATIONS = ('eq8', 'mean', 'rrf')
PAPER_ALPHA = 0.2            # DWDBRM's α in eq. 8
DEFAULT_ALPHA = 0.0          # measured (benchmarks/ranking.py): PageRank favours hubs, not domain pages
DEFAULT_COMBINATION = 'eq8'


class RankingError(ValueError):
    """Ranking cannot run as asked; the message says what to do."""


def check_combination(combination: str, alpha: float) -> None:
    if combination not in COMBINATIONS:
        raise RankingError(f'unknown combination {combination!r}: choose one of {", ".join(COMBINATIONS)}')
    if not 0 <= alpha <= 1:
        raise RankingError(f'alpha (the PageRank share) must be in [0, 1], not {alpha}')

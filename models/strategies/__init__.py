"""Crawling strategies by name: the one registry the CLI, the driver and the benchmarks read."""
from models.strategies.base import (NO_DEPTH, UNLIMITED_DEPTH, LinkBatch, LinkFeatures, LinkScore, LinkScores,
                                    PageFeatures, PageScore, ParentPage, RoundContext, Strategy, StrategyError, top_k)
from models.strategies.baselines import BestFirst, BreadthFirst, RandomChoice
from models.strategies.discovery import SINGLE_OPERATORS, Bandit, DiscoveryContext, DiscoveryStrategy
from models.strategies.papers import Dth, ParentFirst, Shark, Ssaps
from models.strategies.wl import WangLandau

STRATEGIES: dict[str, type[Strategy]] = {s.name: s for s in (BestFirst, BreadthFirst, RandomChoice, ParentFirst,
                                                             Shark, Ssaps, Dth, WangLandau, Bandit,
                                                             *SINGLE_OPERATORS)}


def strategy_class(name: str) -> type[Strategy]:
    try:
        return STRATEGIES[name]
    except KeyError:
        raise StrategyError(f'unknown strategy {name!r}: choose one of {", ".join(STRATEGIES)}') from None


def make_strategy(name: str, params: dict | None = None) -> Strategy:
    return strategy_class(name)(params)


__all__ = ['NO_DEPTH', 'STRATEGIES', 'UNLIMITED_DEPTH', 'DiscoveryContext', 'DiscoveryStrategy', 'LinkBatch',
           'LinkFeatures', 'LinkScore', 'LinkScores', 'PageFeatures', 'PageScore', 'ParentPage', 'RoundContext',
           'Strategy', 'StrategyError', 'make_strategy', 'strategy_class', 'top_k']

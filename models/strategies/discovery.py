"""Discovery strategies (DWDBRM / DISCO): each round applies an operator (KS, RS, FC, BC) to the
best pages of the ranking; `bandit` chooses the operator with UCB1, `ks`, `rs`, `fc`, `bc` always
use theirs (the paper's single-operator baselines). models/discovery.py has the formulas.

They choose with `plan(context, state, rng)` instead of from the candidates table: the driver
ranks the crawl after every round (needs_ranking), and a plan is carried out by the round
pipeline's Discover stage. The state (arms, every pull's reward, the input pages and keywords used
per operator, the pull whose reward is pending) is committed with the round, so a resumed crawl
chooses as an uninterrupted one.
"""
import dataclasses
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from models import discovery, search, text
from models.strategies.base import LinkFeatures, LinkScore, ParentPage, Relevance, Strategy, StrategyError
from models.urls import host_of

GIVE_UP_AFTER = 4           # consecutive rounds in which no operator found anything new: discovery stops


@dataclasses.dataclass
class DiscoveryContext:
    """What the driver tells a discovery strategy when it plans round `round`."""
    round: int
    ranking: pa.Table                          # the last ranks (url, host, fetched_round, position), best first
    judged: int                                # k: URLs of the last round's operator it judged (eq. 9)
    page_texts: Callable[[list[str]], list[str]]  # meta keywords, description and title of pages
    seed_keyword: str                          # the domain's word, put in front of every KS query
    site_words: Callable[[set[str]], set[str]]  # which of these terms name a site (models.discovery.site_words)


class DiscoveryStrategy(Strategy):
    """Base of the operator strategies; subclasses set `operators`."""
    discovers = True
    needs_ranking = True
    operators: tuple = discovery.OPERATORS
    defaults = {'search': 'linkgraph', 'input_pages': discovery.INPUT_PAGES, 'reward': 'eq9', 'count': 'pages',
                'results_per_call': discovery.RESULTS_PER_CALL, 'keywords': discovery.KEYWORDS_PER_ROUND,
                'hub_share': discovery.HUB_SHARE, 'site_words': True, 'site_mode': False}

    def __init__(self, params: dict | None = None):
        super().__init__(params)
        if self.params['reward'] not in discovery.REWARDS:
            raise StrategyError(f'reward {self.params["reward"]!r}: choose one of {", ".join(discovery.REWARDS)}')
        if self.params['count'] not in discovery.COUNTS:
            raise StrategyError(f'count {self.params["count"]!r}: choose one of {", ".join(discovery.COUNTS)}')
        try:
            methods = search.provider_methods(self.params['search'])
        except search.ProviderError as error:
            raise StrategyError(str(error)) from None
        self.arms = tuple(op for op in self.operators if op == 'FC' or discovery.METHOD[op] in methods)
        if not self.arms:
            raise StrategyError(f'{self.name} needs a search provider with {discovery.METHOD[self.operators[0]]} '
                                f'search; {self.params["search"]} has {", ".join(methods)}: give --search sandbox, '
                                'searxng:URL or brave for keyword search, sandbox or linkgraph for related and '
                                'backlink search')

    def score_link(self, link: LinkFeatures, parent: ParentPage, relevance: Relevance) -> LinkScore:
        return LinkScore(parent.relevance)  # candidates stay on record; the operators do not read them

    def choose(self, candidates, k, state, rng, context=None):
        raise StrategyError(f'{self.name} plans discovery rounds; it does not choose from the candidates')

    def initial_state(self) -> dict:
        return {'arms': discovery.arms_to_dict({name: discovery.Arm() for name in self.arms}),
                'used_inputs': {name: [] for name in self.arms}, 'used_keywords': [], 'pulls': [],
                'pending': None, 'empty_rounds': 0}

    def plan(self, context: DiscoveryContext, state: dict, rng: np.random.Generator
             ) -> tuple[discovery.DiscoveryPlan | None, dict]:
        """Reward the last round's operator, then the plan of this round (None: nothing left to try)."""
        state = {**state, 'pulls': list(state['pulls'])}
        arms = discovery.arms_from_dict(state['arms'])
        if state['pending']:
            self._reward(context, state, arms)
        used = {name: list(urls_used) for name, urls_used in state['used_inputs'].items()}
        ranked = context.ranking.sort_by('position')['url'].to_pylist()
        scores = discovery.ucb1_scores(arms)
        plan = None
        for operator in discovery.arms_by_preference(arms, self.arms):
            inputs = discovery.top_inputs(ranked, set(used[operator]), self.params['input_pages'])
            queries, keywords, excluded = (), [], set()
            if operator == 'KS' and inputs:
                texts = context.page_texts(inputs)
                if self.params['site_words']:  # the input pages' site names find those sites again, not new ones
                    excluded = context.site_words({term for page in texts for term in text.tokenize(page)})
                keywords = discovery.keyword_candidates(texts, text.tokenize, {context.seed_keyword} | excluded,
                                                        set(state['used_keywords']), self.params['keywords'])
                queries = tuple(f'{context.seed_keyword} {keyword}' for keyword in keywords)
            if inputs and (queries or operator != 'KS'):
                plan = discovery.DiscoveryPlan(operator, tuple(inputs), queries, self.params['search'],
                                               self.params['results_per_call'], self.params['hub_share'],
                                               self.params['site_mode'])
                used[operator] += inputs
                state['used_keywords'] = state['used_keywords'] + keywords
                break
        if plan is None or state['empty_rounds'] >= GIVE_UP_AFTER:
            state.update(arms=discovery.arms_to_dict(arms), used_inputs=used, pending=None)
            return None, state
        state.update(arms=discovery.arms_to_dict(arms), used_inputs=used,
                     pending={'operator': plan.operator, 'round': context.round, 'inputs': len(plan.inputs),
                              'queries': list(plan.queries), 'site_words': sorted(excluded), 'ucb': _finite(scores)})
        return plan, state

    def _reward(self, context: DiscoveryContext, state: dict, arms: dict) -> None:
        """The pending pull's reward (eq. 9, Alg. 3 or DISCO's sites) from the ranking after it."""
        pending, ranking = state['pending'], context.ranking
        rounds = ranking['fetched_round']
        new = ranking.filter(pc.equal(rounds, pending['round']))
        new_urls = new['url'].to_pylist()
        hosts_before = set(ranking.filter(pc.less(rounds, pending['round']))['host'].to_pylist())
        new_sites = discovery.first_pages_of_new_hosts(new.sort_by('position')['url'].to_pylist(), hosts_before, host_of)
        positions = dict(zip(new_urls, new['position'].to_pylist()))
        k = context.judged
        value = discovery.reward(self.params['reward'], positions, ranking.num_rows, k, new_sites)
        count = len(new_sites) if self.params['count'] == 'sites' else k
        discovery.update_arm(arms[pending['operator']], value, count)
        state['empty_rounds'] = 0 if new_urls else state['empty_rounds'] + 1
        state['pulls'].append({**pending, 'reward': value, 'judged': k, 'new_pages': len(new_urls),
                               'new_sites': len(new_sites)})
        state['pending'] = None


def _finite(scores: dict[str, float]) -> dict[str, float | None]:
    """UCB scores for JSON: an arm not played yet has no score (None)."""
    return {name: (None if score == float('inf') else score) for name, score in scores.items()}


class Bandit(DiscoveryStrategy):
    """UCB1 over KS, RS, FC and BC (DWDBRM Alg. 1 and 3, eq. 9-11; DISCO)."""
    name = 'bandit'
    summary = 'DWDBRM/DISCO: UCB1 chooses a discovery operator (KS, RS, FC, BC) every round'


def single_operator(operator: str) -> type[DiscoveryStrategy]:
    """The strategy that always applies one operator (DWDBRM's KS, RS, FC and BC runs)."""
    return type(f'Only{operator}', (DiscoveryStrategy,), {
        'name': operator.lower(), 'operators': (operator,),
        'summary': f'{discovery.OPERATOR_NAMES[operator]} alone, every round (a DWDBRM baseline)',
        '__doc__': f'Every round applies {operator} to the best pages not used as its input before.'})


SINGLE_OPERATORS = tuple(single_operator(operator) for operator in discovery.OPERATORS)

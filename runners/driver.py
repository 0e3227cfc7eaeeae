"""The round driver: choose -> run the round pipeline -> commit, until the budget is spent.

All the driver knows is in the crawl directory: crawl.json (the settings), and of the last
committed round its candidates table, its selector state (the strategy's state and random
generator) and the manifests' summaries. Nothing is replayed, so starting, resuming after a
crash and running one round per invocation (a scheduler's batch job) are the same loop and
choose the same URLs. A round is committed whole or discarded whole, also on Ctrl-C.
"""
import collections
import dataclasses
import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from apache_beam.options.pipeline_options import PipelineOptions

from models import text
from models.discovery import DiscoveryPlan, site_words
from models.frontier import seed_candidate
from models.ranking_options import RankingError
from models.settings import CrawlSettings
from models.strategies import DiscoveryContext, make_strategy
from models.strategies.discovery import GIVE_UP_AFTER
from pipelines import schema
from pipelines.local import metric_total
from pipelines.round import build_round, round_context
from pipelines.state import CrawlDir, PendingRound, final_outcomes
from runners.progress import RoundProgress

NOT_REQUESTED = ('robots_disallowed', 'policy_refused', 'host_unresponsive')  # no request sent: not in the budget
DEFAULT_BEAM_ARGS = ['--runner=DirectRunner']
# From this many URLs a round with the default runner runs in a worker process per core (at most
# MAX_LOCAL_WORKERS): each worker costs ~1 GB and a few CPU-seconds to start, which a small round
# would not win back (benchmarks/real_pages.py measures both).
PARALLEL_ROUND_URLS = 500
MAX_LOCAL_WORKERS = 4


def local_workers_args(workers: int) -> list[str]:
    """Beam options for a DirectRunner round on `workers` local processes (1: in this process).
    Multi-processing, never multi-threading: that mode lost rows of grouped tables in our runs."""
    if workers <= 1:
        return [*DEFAULT_BEAM_ARGS, '--direct_running_mode=in_memory']
    return [*DEFAULT_BEAM_ARGS, '--direct_running_mode=multi_processing', f'--direct_num_workers={workers}']


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 1


class CrawlError(Exception):
    """The crawl cannot go on as asked; the message says what to do."""


@dataclasses.dataclass
class RoundReport:
    round: int
    summary: dict
    candidates: int
    choose_seconds: float     # reading the last candidates and selector state, choosing
    pipeline_seconds: float
    commit_seconds: float     # summarising, checksums, manifest, rename

    def line(self) -> str:
        s = self.summary
        outcomes = ', '.join(f'{k} {v}' for k, v in sorted(s['outcomes'].items(), key=lambda i: -i[1]))
        operator = (f'{s["operator"]} on {s["inputs"]} pages returned {s["discovered"]} URLs '
                    f'({s["search_calls"]} search calls); ' if 'operator' in s else '')
        return (f'round {self.round}: {operator}fetched {s["attempted"]} ({outcomes}); judged relevant '
                f'{s["judged_relevant"]}; new hosts {s["new_hosts"]}; candidates {self.candidates:,}; '
                f'{self.choose_seconds + self.pipeline_seconds + self.commit_seconds:.1f} s (choose '
                f'{self.choose_seconds:.2f}, pipeline {self.pipeline_seconds:.1f}, commit {self.commit_seconds:.2f})')


def new_rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def rng_from_state(state: dict) -> np.random.Generator:
    generator = np.random.PCG64()
    generator.state = state
    return np.random.Generator(generator)


@dataclasses.dataclass
class Choice:
    """What the driver chose for a round: a frontier for a link strategy, a plan for a discovery one."""
    frontier: pa.Table | None
    selector: dict
    discovered: list[dict]
    plan: DiscoveryPlan | None = None

    @property
    def exhausted(self) -> bool:
        return self.plan is None and (self.frontier is None or not self.frontier.num_rows)


class Driver:
    def __init__(self, crawl: CrawlDir, beam_args: list[str] | None = None, progress=print,
                 progress_bar: bool | None = None):
        self.crawl = crawl
        self.progress_bar = progress_bar  # None: a bar when stderr is a terminal
        self.settings = CrawlSettings.from_dict(crawl.config, source=f'{crawl.root}/crawl.json')
        text.use_dictionary_words(self.settings.topic.dictionary_words)  # as the workers segment
        self.given_beam_args = beam_args or self.settings.beam_args
        self.beam_args = self.given_beam_args or DEFAULT_BEAM_ARGS
        self.progress = progress
        self.strategy = make_strategy(self.settings.strategy, self.settings.strategy_params)
        # URLs requested so far, whatever the answer: what the budget counts. URLs refused before
        # any request (robots.txt, address policy) are recorded but cost nothing.
        self.requested = sum(summary.get('requested', 0) for summary in crawl.summaries())
        self.hosts = set(crawl.read_table('pages', columns=['host']).column('host').to_pylist())
        self.reports: list[RoundReport] = []

    def run(self, max_rounds: int | None = None, stop_requested=lambda: False) -> int:
        """Rounds until the budget is spent, `max_rounds` ran, the frontier is empty or
        `stop_requested()` says so (checked before each round)."""
        budget, rounds_run = self.settings.budget, 0
        while (self.requested < budget and (max_rounds is None or rounds_run < max_rounds)
               and not stop_requested()):
            last = self.crawl.last_committed_round()
            number = (last or 0) + 1
            started = time.monotonic()
            count = min(self.settings.round_size, budget - self.requested)
            choice = self._choose(last, number, count)
            if choice.exhausted:
                print(self._exhausted_message(number, budget), file=sys.stderr)
                self._final_rank()
                return 0
            self._run_round(number, choice, count, time.monotonic() - started)
            rounds_run += 1
            if self.strategy.needs_ranking:
                self._rank(number)
        if self.requested >= budget:
            retrieved = sum(summary.get('discovered', 0) for summary in self.crawl.summaries())
            self.progress(f'budget of {budget} pages spent: {self.requested} URLs requested in '
                          f'{len(self.crawl.committed_rounds())} rounds'
                          + (f'; the operators returned {retrieved} URLs (DWDBRM\'s count)' if retrieved else ''))
            self._final_rank()
        return 0

    def _exhausted_message(self, number: int, budget: int) -> str:
        if self.strategy.discovers:
            return (f'focal: discovery found nothing new after round {number - 1}, with {self.requested} of {budget} '
                    'pages fetched: every operator has run out of input pages or found nothing new for '
                    f'{GIVE_UP_AFTER} rounds. Add seeds, or use a search provider (--search) that reaches further.')
        return (f'focal: the frontier is empty after round {number - 1}, with {self.requested} of '
                f'{budget} pages fetched: no unfetched link is left. Add seeds (more, or from other '
                'sites), allow more hosts, or look for robots refusals and errors with `focal inspect`.')

    def _rank(self, number: int) -> None:
        from runners.ranks import rank_round  # here: the rankers bring scipy (~0.08 CPU-s), unused by a crawl's rounds
        report = rank_round(self.crawl, number, self.settings, self.beam_args)
        if not report.reused:
            self.progress(report.line())

    def _final_rank(self) -> None:
        """Every crawl ends ranked; a crawl whose seeds all failed ends without ranks, and says why."""
        last = self.crawl.last_committed_round()
        if last is None:
            return
        try:
            self._rank(last)
        except RankingError as error:
            print(f'focal: the crawl is not ranked: {error}', file=sys.stderr)

    def _choose(self, last: int | None, number: int, count: int) -> Choice:
        """The round's frontier (or discovery plan), the selector state after choosing it and the
        candidate rows the round adds besides its pages' links (the seeds the first round has no room for)."""
        if last is None:
            rng, state = new_rng(self.settings.random_seed), self.strategy.initial_state()
            seeds, depth = self._seed_urls(), self.strategy.seed_depth()
            frontier = pa.Table.from_pylist(
                [{'round': number, 'url': url, 'strategy': self.strategy.name, 'operator': 'seed', 'priority': 1.0,
                  'depth': depth, 'parent_url': None, 'position': position, 'inherited': None}
                 for position, url in enumerate(seeds[:count])], schema=schema.FRONTIER)
            discovered = [seed_candidate(url, index, depth, number) for index, url in enumerate(seeds)
                          if index >= count]
            return Choice(frontier, self._selector(number, state, rng), discovered)
        saved = self.crawl.read_selector(last)
        rng = rng_from_state(saved['rng'])
        if self.strategy.discovers:
            plan, state = self.strategy.plan(self._discovery_context(last, number), saved['state'], rng)
            self._report_pull(saved['state'], state, plan)
            return Choice(None, self._selector(number, state, rng), [], plan)
        chosen, state = self.strategy.choose(self.crawl.read_table('candidates', last), count, saved['state'], rng,
                                             round_context(self.crawl, self.settings, number))
        size = chosen.num_rows
        frontier = pa.table({
            'round': pa.array([number] * size, pa.int32()), 'url': chosen.column('url'),
            'strategy': pa.array([self.strategy.name] * size, pa.string()),
            'operator': chosen.column('operator'), 'priority': chosen.column('priority'),
            'depth': chosen.column('depth'), 'parent_url': chosen.column('parent_url'),
            'position': pa.array(range(size), pa.int32()), 'inherited': chosen.column('inherited')},
            schema=schema.FRONTIER)
        return Choice(frontier, self._selector(number, state, rng), [])

    def _selector(self, number: int, state: dict, rng: np.random.Generator) -> dict:
        return {'round': number, 'strategy': self.strategy.name, 'state': state, 'rng': rng.bit_generator.state}

    def _discovery_context(self, last: int, number: int) -> DiscoveryContext:
        """What a discovery strategy plans from: the ranks after the last round (computed now if a
        crash came between the round's commit and its ranks'), and the pages' meta texts."""
        from runners.ranks import rank_round, read_ranking
        rank_round(self.crawl, last, self.settings, self.beam_args)
        ranking = read_ranking(self.crawl, last).select(['url', 'host', 'fetched_round', 'position'])

        def page_texts(urls: list[str]) -> list[str]:
            pages = self.crawl.read_table('pages', columns=['final_url', 'title', 'meta_keywords', 'meta_description'])
            pages = pages.filter(pc.is_in(pages['final_url'], pa.array(urls, pa.string())))
            return [' \n'.join(filter(None, row)) for row in zip(pages['meta_keywords'].to_pylist(),
                                                                  pages['meta_description'].to_pylist(),
                                                                  pages['title'].to_pylist())]

        def naming_sites(candidates: set[str]) -> set[str]:
            pages = self.crawl.read_table('pages', columns=['host', 'terms'])
            return site_words(pages['host'].combine_chunks(), pages['terms'].combine_chunks(), candidates)

        return DiscoveryContext(number, ranking, self.crawl.manifest(last).get('summary', {}).get('judged', 0),
                                page_texts, self.settings.topic.name, naming_sites)

    def _report_pull(self, before: dict, after: dict, plan) -> None:
        """A line on the last pull's reward and the arms' UCB scores when a discovery strategy chooses."""
        if len(after['pulls']) > len(before['pulls']):
            pull = after['pulls'][-1]
            self.progress(f'{self.strategy.name}: {pull["operator"]} of round {pull["round"]} rewarded '
                          f'{pull["reward"]:.3f} ({pull["judged"]} URLs judged, {pull["new_pages"]} new pages, '
                          f'{pull["new_sites"]} new sites)')
        if plan is not None:
            scores = after['pending']['ucb']
            arms = ', '.join(f'{name} {"-" if score is None else f"{score:.3f}"}' for name, score in scores.items())
            self.progress(f'{self.strategy.name}: UCB1 {arms}; round {after["pending"]["round"]}: {plan.operator} on '
                          f'{len(plan.inputs)} pages' + (f', {len(plan.queries)} queries' if plan.queries else ''))

    def _round_beam_args(self, count: int) -> list[str]:
        """The crawl's Beam options; with none given, a round of PARALLEL_ROUND_URLS URLs or more
        runs on a worker process per core."""
        if self.given_beam_args or count < PARALLEL_ROUND_URLS or usable_cores() < 2:
            return self.beam_args
        return local_workers_args(min(usable_cores(), MAX_LOCAL_WORKERS))

    def _seed_urls(self) -> list[str]:
        """The settings' seeds, normalised, each once, in the order given."""
        urls, skipped = self.settings.seed_urls()
        for reason in skipped:
            self.progress(f'warning: seed skipped: {reason}')
        return urls

    def _run_round(self, number: int, choice: Choice, count: int, choose_seconds: float) -> None:
        pending = self.crawl.begin(number)
        try:
            if choice.frontier is not None:
                pending.write_table('frontier', choice.frontier)
            selector_file = self.crawl.write_selector(number, choice.selector)
            started = time.monotonic()
            with RoundProgress(number, count, self.progress, self.progress_bar) as watch:
                result = build_round(PipelineOptions(self._round_beam_args(count)), self.crawl, pending, self.settings,
                                     choice.discovered, choice.plan, count, watch.path).run()
                result.wait_until_finish()
            pipeline_seconds = time.monotonic() - started
            started = time.monotonic()
            summary = self._summarize(pending)
            if choice.plan is not None:
                summary.update(operator=choice.plan.operator, inputs=len(choice.plan.inputs),
                               discovered=metric_total(result, 'discovered'), judged=metric_total(result, 'judged'),
                               search_calls=pending.read_table('discover_log', ['round']).num_rows)
            manifest = pending.commit(summary, selector_file)
        except BaseException:
            pending.discard()
            raise
        self.requested += summary['requested']
        report = RoundReport(number, summary, manifest['tables'].get('candidates', {}).get('rows', 0),
                             choose_seconds, pipeline_seconds, time.monotonic() - started)
        self.reports.append(report)
        self.progress(report.line())

    def _summarize(self, pending: PendingRound) -> dict:
        """What the manifest keeps of a round: the budget's count and the progress line's figures."""
        final = final_outcomes(pending.read_table('fetch_log', ['url', 'round', 'attempt', 'outcome']))
        pages = pending.read_table('pages', ['host', 'relevant'])
        hosts = set(pages.column('host').to_pylist())
        new_hosts = hosts - self.hosts
        self.hosts |= new_hosts
        return {'requested': sum(outcome not in NOT_REQUESTED for outcome in final.values()),
                'attempted': len(final), 'outcomes': dict(collections.Counter(final.values())),
                'pages': pages.num_rows,
                'judged_relevant': pc.sum(pages['relevant']).as_py() or 0,
                'new_hosts': len(new_hosts)}

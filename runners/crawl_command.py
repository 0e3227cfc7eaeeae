"""`focal crawl` and `focal inspect`."""
import argparse
import collections
import contextlib
import signal
import sys
import threading
from pathlib import Path

import yaml
from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions

from models.settings import (DEFAULT_BUDGET, DEFAULT_DELAY, DEFAULT_HOST_TIMEOUTS, DEFAULT_HOSTS_AT_ONCE,
                             DEFAULT_RANDOM_SEED, DEFAULT_ROUND_SIZE, DEFAULT_STRATEGY, DEFAULT_TIMEOUT, CrawlSettings,
                             FetchSettings, RankSettings)
from models.strategies import STRATEGIES
from models.topic import load_task, load_topic
from runners.command import CommandError, non_negative_int, parameter_value, positive_int, read_seeds
from pipelines.state import CrawlDir, final_outcomes
from runners.driver import MAX_LOCAL_WORKERS, PARALLEL_ROUND_URLS, Driver, local_workers_args
from runners.portable import check_job_endpoint
from runners.rank_command import add_rank_options, given_rank_options

# What a crawl is: --resume keeps these as crawl.json records them.
DEFINING_OPTIONS = ('task', 'topic', 'seeds', 'out', 'strategy', 'strategy_param', 'params', 'round_size', 'random_seed',
                    'alpha', 'combine', 'pagerank', 'negatives')


def settings_from_args(args: argparse.Namespace, beam_args: list[str]) -> CrawlSettings:
    """The settings of a new crawl from `focal crawl`'s options."""
    if args.task:
        task = load_task(args.task)
        topic, seeds, task_summary = task.topic, list(task.topic.seeds), task.summary()
    elif args.topic and args.seeds:
        topic, seeds, task_summary = load_topic(args.topic), read_seeds(args.seeds), None
    else:
        raise CommandError('give --task WEB_DIR/tasks/NAME.yaml, or both --seeds FILE and --topic FILE')
    return CrawlSettings(topic=topic, seeds=seeds, strategy=args.strategy or DEFAULT_STRATEGY,
                         strategy_params=strategy_params(args),
                         budget=_given(args.budget, DEFAULT_BUDGET),
                         round_size=_given(args.round_size, DEFAULT_ROUND_SIZE), random_seed=_given(args.random_seed, DEFAULT_RANDOM_SEED),
                         fetch=FetchSettings(delay=_given(args.delay, DEFAULT_DELAY),
                                             timeout=_given(args.timeout, DEFAULT_TIMEOUT), proxy=args.proxy,
                                             allow_hosts=args.allow_host or [],
                                             hosts_at_once=_given(args.hosts_at_once, DEFAULT_HOSTS_AT_ONCE),
                                             host_timeouts=_given(args.host_timeouts, DEFAULT_HOST_TIMEOUTS)),
                         beam_args=beam_args, task=task_summary, rank=RankSettings(**given_rank_options(args)))


def strategy_params(args: argparse.Namespace) -> dict:
    """--params FILE (a YAML mapping), then --param NAME=VALUE (VALUE read as JSON when it parses:
    numbers, true, lists), then --search."""
    params = _params_file(args.params) if args.params else {}
    for given in args.strategy_param or []:
        name, equals, value = given.partition('=')
        if not equals or not name:
            raise CommandError(f'--param {given!r}: write NAME=VALUE, e.g. --param depth=3')
        params[name] = parameter_value(value)
    if args.search:
        params['search'] = args.search
    return params


def _params_file(path: str) -> dict:
    try:
        params = yaml.safe_load(Path(path).read_text(encoding='utf-8'))
    except OSError as error:
        raise CommandError(f'cannot read parameters file {path}: {error.strerror}') from None
    except yaml.YAMLError as error:
        raise CommandError(f'parameters file {path} is not valid YAML: {error}') from None
    if not isinstance(params, dict):
        raise CommandError(f'parameters file {path} must map parameter names to values, e.g. "depth: 3"')
    return params


def _given(value, default):
    return default if value is None else value


def resume_settings(crawl_dir: CrawlDir, args: argparse.Namespace, beam_args: list[str]) -> None:
    """--resume keeps what defines the crawl; it may spend a new budget, reach the web another way
    (a restarted sandbox's --proxy, another delay) or run on other Beam options. Changes are
    recorded in crawl.json, so the next --resume keeps them."""
    fixed = [f'--{name.replace("_", "-")}' for name in DEFINING_OPTIONS if getattr(args, name) is not None]
    if fixed:
        raise CommandError(f'{", ".join(fixed)} cannot change a crawl being resumed: --resume continues '
                           f'with the settings in {crawl_dir.root}/crawl.json. It takes --budget, --rounds, '
                           '--delay, --hosts-at-once, --timeout, --host-timeouts, --proxy, --allow-host, --search, --workers and Beam options; for other settings '
                           'start a new crawl with --out')
    settings = CrawlSettings.from_dict(crawl_dir.config, source=f'{crawl_dir.root}/crawl.json')
    before = settings.to_dict()
    settings.budget = _given(args.budget, settings.budget)
    settings.fetch.delay = _given(args.delay, settings.fetch.delay)
    settings.fetch.hosts_at_once = _given(args.hosts_at_once, settings.fetch.hosts_at_once)
    settings.fetch.timeout = _given(args.timeout, settings.fetch.timeout)
    settings.fetch.host_timeouts = _given(args.host_timeouts, settings.fetch.host_timeouts)
    settings.fetch.proxy = _given(args.proxy, settings.fetch.proxy)
    settings.fetch.allow_hosts = _given(args.allow_host, settings.fetch.allow_hosts)
    settings.beam_args = beam_args or settings.beam_args
    if args.search:
        if 'search' not in settings.strategy_params:
            raise CommandError(f'--search: strategy {settings.strategy} searches nothing')
        settings.strategy_params = {**settings.strategy_params, 'search': args.search}
    check_job_endpoint(settings.beam_args)
    if settings.to_dict() != before:
        crawl_dir.update_config(settings.to_dict())


@contextlib.contextmanager
def interrupt_recorded():
    """Ctrl-C raises KeyboardInterrupt as usual and is remembered: Beam re-raises one that lands in
    a DoFn as a RuntimeError, and one that lands in a finaliser is only printed."""
    interrupted = threading.Event()

    def on_interrupt(signum, frame):
        interrupted.set()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def with_workers(workers: int | None, beam_args: list[str]) -> list[str]:
    """--workers N as the local runner's Beam options, ahead of any others given."""
    if workers is None:
        return beam_args
    runner = PipelineOptions(beam_args).view_as(StandardOptions).runner or 'DirectRunner'
    if runner not in ('DirectRunner', 'direct'):
        raise CommandError(f'--workers sets how many local processes run a round, and --runner={runner} runs it '
                           'elsewhere: drop --workers (that runner has its own worker options)')
    return [*local_workers_args(workers), *beam_args]


def crawl(args: argparse.Namespace, beam_args: list[str]) -> int:
    beam_args = with_workers(args.workers, beam_args)
    if args.resume:
        crawl_dir = CrawlDir.open(args.resume)
        resume_settings(crawl_dir, args, beam_args)
    else:
        if not args.out:
            raise CommandError('give --out CRAWL_DIR for a new crawl, or --resume CRAWL_DIR')
        settings = settings_from_args(args, beam_args)
        check_job_endpoint(beam_args)
        crawl_dir = CrawlDir.create(args.out, settings.to_dict())
        print(f'crawl {args.out}: topic "{settings.topic.name}", {len(settings.seeds)} seeds, strategy '
              f'{settings.strategy}, budget {settings.budget} pages in rounds of {settings.round_size}')
        if settings.strategy_params:
            print(f'{settings.strategy} parameters: '
                  + ', '.join(f'{name}={value}' for name, value in settings.strategy_params.items()))
    driver = Driver(crawl_dir)
    with interrupt_recorded() as interrupted:
        try:
            code = driver.run(max_rounds=args.rounds, stop_requested=interrupted.is_set)
        except KeyboardInterrupt:
            pass
        except Exception:
            if not interrupted.is_set():
                raise
        if not interrupted.is_set():
            return code
        crawl_dir.discard_unfinished()
    print(f'focal: stopped; a round in progress was discarded, every committed round is kept. '
          f'Continue with: focal crawl --resume {crawl_dir.root}', file=sys.stderr)
    return 130


def inspect(args: argparse.Namespace) -> int:
    crawl_dir = CrawlDir.open(args.crawl_dir)
    config = crawl_dir.config
    rounds = crawl_dir.committed_rounds()
    log = crawl_dir.read_table('fetch_log')
    pages = crawl_dir.read_table('pages')
    links = crawl_dir.read_table('links')
    final = final_outcomes(log)
    candidates = crawl_dir.manifest(rounds[-1])['tables'].get('candidates', {}).get('rows', 0) if rounds else 0
    print(f'{args.crawl_dir}: topic "{config["topic"]["name"]}", strategy {config["strategy"]}, '
          f'budget {config["budget"]}, {len(rounds)} committed rounds, {candidates:,} candidate URLs left')
    print(f'URLs fetched {len(final):,}; pages {len(pages):,} on '
          f'{len(set(pages.column("host").to_pylist())):,} hosts; links {len(links):,}')
    print('outcomes  ' + '  '.join(f'{k} {v:,}' for k, v in collections.Counter(final.values()).most_common()))
    if args.verify:
        for number in rounds:
            crawl_dir.verify(number)
        print(f'checksums: every file of the {len(rounds)} committed rounds matches its manifest')
    best = sorted(zip(pages.column('relevance').to_pylist(), pages.column('title').to_pylist(),
                      pages.column('url').to_pylist()), key=lambda row: -row[0])[:args.top]
    print(f'most relevant pages (of {len(pages):,}):')
    for score, title, url in best:
        print(f'  {score:.3f}  {title[:50]}  {url}')
    return 0


def add_parser(subparsers) -> None:
    crawl_parser = subparsers.add_parser(
        'crawl', help='crawl in rounds, each a Beam pipeline', formatter_class=argparse.RawDescriptionHelpFormatter,
        description='Crawl in rounds (each a Beam pipeline) until the page budget is spent. '
                    'Unknown options are passed to Beam (e.g. --runner, --direct_num_workers) and '
                    'recorded in crawl.json. --resume continues with the recorded settings; it takes a '
                    'new --budget, --rounds, the fetch options, --search and Beam options, and records them.',
        epilog='strategies (--strategy; parameters with --param NAME=VALUE or --params FILE.yaml):\n'
               + '\n'.join(f'  {name:13} {cls.summary}' + (f'\n  {"":13} parameters: {", ".join(cls.defaults)}'
                                                          if cls.defaults else '')
                           for name, cls in STRATEGIES.items()))
    source = crawl_parser.add_argument_group('what to crawl for (new crawls)')
    source.add_argument('--task', help='a sandbox task: WEB_DIR/tasks/NAME.yaml (topic and seeds)')
    source.add_argument('--topic', help='a topic YAML file (`focal topic build` writes one)')
    source.add_argument('--seeds', help='a file of seed URLs, one a line')
    crawl_parser.add_argument('--out', help='the new crawl directory (local path or URI)')
    crawl_parser.add_argument('--resume', metavar='CRAWL_DIR', help='continue a crawl where it stopped, with its recorded settings')
    crawl_parser.add_argument('--strategy', choices=list(STRATEGIES),
                              help=f'how the next round is chosen (default: {DEFAULT_STRATEGY})')
    crawl_parser.add_argument('--budget', type=positive_int,
                              help=f'URLs to request in the whole crawl (default: {DEFAULT_BUDGET}; with '
                                   '--resume, a new total)')
    crawl_parser.add_argument('--round-size', type=positive_int,
                              help=f'URLs fetched per round (default: {DEFAULT_ROUND_SIZE})')
    crawl_parser.add_argument('--param', '--strategy-param', dest='strategy_param', action='append',
                              metavar='NAME=VALUE',
                              help="set one of the strategy's parameters (repeatable), e.g. depth=3 for shark "
                                   'and ssaps, k_depth=8 for dth, reward=alg3 for the discovery strategies; the '
                                   'list below names each strategy\'s parameters, crawl.json records their values')
    crawl_parser.add_argument('--params', metavar='FILE.yaml',
                              help="the strategy's parameters as a YAML mapping (--param overrides it)")
    crawl_parser.add_argument('--search', metavar='PROVIDER',
                              help='where the discovery strategies (bandit, ks, rs, fc, bc) search: sandbox (the '
                                   'sandbox server given as --proxy) or sandbox:URL, linkgraph (the crawl\'s own links; '
                                   'the default), searxng:URL (a SearXNG instance with JSON enabled), brave[:URL] '
                                   '(key in BRAVE_API_KEY)')
    crawl_parser.add_argument('--random-seed', type=int,
                              help="seed of the strategy's random choices: the same seed, the same crawl "
                                   f'(default: {DEFAULT_RANDOM_SEED})')
    crawl_parser.add_argument('--rounds', type=positive_int, help='run at most this many rounds, then stop')
    crawl_parser.add_argument('--delay', type=float,
                              help=f'seconds between requests to one host (default: {DEFAULT_DELAY}; 0 for a '
                                   'sandbox you own)')
    crawl_parser.add_argument('--hosts-at-once', type=positive_int, metavar='N',
                              help='hosts each worker fetches at the same time, one request at a time per host: '
                                   'a host\'s delay is spent on the others (default: '
                                   f'{DEFAULT_HOSTS_AT_ONCE})')
    crawl_parser.add_argument('--timeout', type=float,
                              help='seconds to wait for a response to go on; a whole response gets '
                                   f'three times this (default: {DEFAULT_TIMEOUT})')
    crawl_parser.add_argument('--host-timeouts', type=non_negative_int, metavar='N',
                              help='give a host up for the round after N of its requests in a row time out: '
                                   'its other URLs end in host_unresponsive, not requested (default: '
                                   f'{DEFAULT_HOST_TIMEOUTS}; 0: never)')
    crawl_parser.add_argument('--workers', type=positive_int,
                              help='local processes running each round (Beam DirectRunner; 1: this process). '
                                   f'Default: a process per core, up to {MAX_LOCAL_WORKERS}, for rounds of '
                                   f'{PARALLEL_ROUND_URLS} URLs or more, else 1; with Beam options given, theirs')
    crawl_parser.add_argument('--proxy', help='HTTP proxy for every request, e.g. the sandbox: http://127.0.0.1:8642')
    crawl_parser.add_argument('--allow-host', action='append', metavar='HOST',
                              help='allow a private or loopback host or IP (repeatable)')
    add_rank_options(crawl_parser.add_argument_group(
        'ranking (new crawls; ranks are computed when the crawl ends, and after each round for strategies that rank)'))
    crawl_parser.set_defaults(handler=crawl, takes_beam_args=True)

    inspect_parser = subparsers.add_parser('inspect', help='summarise a crawl directory')
    inspect_parser.add_argument('crawl_dir', metavar='CRAWL_DIR')
    inspect_parser.add_argument('--top', type=positive_int, default=10, help='how many top pages to list')
    inspect_parser.add_argument('--verify', action='store_true',
                                help='check every committed file against the SHA-256 in its manifest')
    inspect_parser.set_defaults(handler=inspect)

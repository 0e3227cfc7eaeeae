"""`focal crawl` and `focal inspect`."""
import argparse
import collections
import sys
from pathlib import Path

from models.settings import (DEFAULT_BUDGET, DEFAULT_DELAY, DEFAULT_RANDOM_SEED, DEFAULT_ROUND_SIZE,
                             DEFAULT_STRATEGY, DEFAULT_TIMEOUT, CrawlSettings, FetchSettings)
from models.strategies import STRATEGIES
from models.topic import load_task, load_topic
from runners.command import CommandError, positive_int
from pipelines.state import CrawlDir, final_outcomes
from runners.driver import Driver


def _seeds(path: str) -> list[str]:
    try:
        lines = Path(path).read_text(encoding='utf-8').splitlines()
    except OSError as error:
        raise CommandError(f'cannot read seeds file {path}: {error.strerror}') from None
    return [line.strip() for line in lines if line.strip() and not line.startswith('#')]


def settings_from_args(args: argparse.Namespace, beam_args: list[str]) -> CrawlSettings:
    """The settings of a new crawl from `focal crawl`'s options."""
    if args.task:
        task = load_task(args.task)
        topic, seeds, task_summary = task.topic, list(task.topic.seeds), task.summary()
    elif args.topic and args.seeds:
        topic, seeds, task_summary = load_topic(args.topic), _seeds(args.seeds), None
    else:
        raise CommandError('give --task WEB_DIR/tasks/NAME.yaml, or both --seeds FILE and --topic FILE')
    return CrawlSettings(topic=topic, seeds=seeds, strategy=args.strategy, budget=args.budget,
                         round_size=args.round_size, random_seed=args.random_seed,
                         fetch=FetchSettings(delay=args.delay, timeout=args.timeout, proxy=args.proxy,
                                             allow_hosts=args.allow_host),
                         beam_args=beam_args, task=task_summary)


def crawl(args: argparse.Namespace, beam_args: list[str]) -> int:
    if args.resume:
        crawl_dir = CrawlDir.open(args.resume)
    else:
        if not args.out:
            raise CommandError('give --out CRAWL_DIR for a new crawl, or --resume CRAWL_DIR')
        settings = settings_from_args(args, beam_args)
        crawl_dir = CrawlDir.create(args.out, settings.to_dict())
        print(f'crawl {args.out}: topic "{settings.topic.name}", {len(settings.seeds)} seeds, strategy '
              f'{settings.strategy}, budget {settings.budget} pages in rounds of {settings.round_size}')
    driver = Driver(crawl_dir, beam_args)
    try:
        return driver.run(max_rounds=args.rounds)
    except KeyboardInterrupt:
        print(f'focal: stopped; the round in progress was discarded, every committed round is kept. '
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
        'crawl', help='crawl in rounds, each a Beam pipeline',
        description='Crawl in rounds (each a Beam pipeline) until the page budget is spent. '
                    'Unknown options are passed to Beam (e.g. --runner, --direct_num_workers) and '
                    'recorded in crawl.json: --resume runs on the same runner unless given others.')
    source = crawl_parser.add_argument_group('what to crawl for (new crawls)')
    source.add_argument('--task', help='a sandbox task: WEB_DIR/tasks/NAME.yaml (topic and seeds)')
    source.add_argument('--topic', help='a topic YAML file (`focal topic build` writes one)')
    source.add_argument('--seeds', help='a file of seed URLs, one a line')
    crawl_parser.add_argument('--out', help='the new crawl directory (local path or URI)')
    crawl_parser.add_argument('--resume', metavar='CRAWL_DIR', help='continue a crawl where it stopped')
    crawl_parser.add_argument('--strategy', default=DEFAULT_STRATEGY, choices=list(STRATEGIES),
                              help='how the next round is chosen (default: %(default)s)')
    crawl_parser.add_argument('--budget', type=positive_int, default=DEFAULT_BUDGET,
                              help='URLs to request (default: %(default)s)')
    crawl_parser.add_argument('--round-size', type=positive_int, default=DEFAULT_ROUND_SIZE,
                              help='URLs fetched per round (default: %(default)s)')
    crawl_parser.add_argument('--random-seed', type=int, default=DEFAULT_RANDOM_SEED,
                              help="seed of the strategy's random choices: the same seed, the same crawl "
                                   '(default: %(default)s)')
    crawl_parser.add_argument('--rounds', type=positive_int, help='run at most this many rounds, then stop')
    crawl_parser.add_argument('--delay', type=float, default=DEFAULT_DELAY,
                              help='seconds between requests to one host (default: %(default)s; 0 for a sandbox you own)')
    crawl_parser.add_argument('--timeout', type=float, default=DEFAULT_TIMEOUT,
                              help='seconds to wait for a response to go on; a whole response gets '
                                   'three times this (default: %(default)s)')
    crawl_parser.add_argument('--proxy', help='HTTP proxy for every request, e.g. the sandbox: http://127.0.0.1:8642')
    crawl_parser.add_argument('--allow-host', action='append', default=[], metavar='HOST',
                              help='allow a private or loopback host or IP (repeatable)')
    crawl_parser.set_defaults(handler=crawl, takes_beam_args=True)

    inspect_parser = subparsers.add_parser('inspect', help='summarise a crawl directory')
    inspect_parser.add_argument('crawl_dir', metavar='CRAWL_DIR')
    inspect_parser.add_argument('--top', type=positive_int, default=10, help='how many top pages to list')
    inspect_parser.add_argument('--verify', action='store_true',
                                help='check every committed file against the SHA-256 in its manifest')
    inspect_parser.set_defaults(handler=inspect)

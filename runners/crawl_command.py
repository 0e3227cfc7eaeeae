"""`focal crawl` and `focal inspect`."""
import argparse
import collections
import sys
from pathlib import Path

import yaml

from models.topic import load_topic
from runners.command import CommandError, positive_int
from pipelines.state import CrawlDir, final_outcomes
from runners.driver import Driver, new_crawl_config


def task_file_contents(path: str | Path) -> tuple:
    """(topic, seeds, task summary) of a sandbox task file: a topic file plus the label it is judged by."""
    topic = load_topic(path)
    data = yaml.safe_load(Path(path).read_text(encoding='utf-8'))
    task = {'file': str(Path(path).resolve()), 'label': data.get('label'),
            'relevant_column': data.get('relevant_column')}
    return topic, list(topic.seeds), task


def _seeds(path: str) -> list[str]:
    try:
        lines = Path(path).read_text(encoding='utf-8').splitlines()
    except OSError as error:
        raise CommandError(f'cannot read seeds file {path}: {error.strerror}') from None
    return [line.strip() for line in lines if line.strip() and not line.startswith('#')]


def crawl(args: argparse.Namespace, beam_args: list[str]) -> int:
    if args.resume:
        crawl_dir = CrawlDir.open(args.resume)
    else:
        if not args.out:
            raise CommandError('give --out CRAWL_DIR for a new crawl, or --resume CRAWL_DIR')
        if args.task:
            topic, seeds, task = task_file_contents(args.task)
        elif args.topic and args.seeds:
            topic, seeds, task = load_topic(args.topic), _seeds(args.seeds), None
        else:
            raise CommandError('give --task WEB_DIR/tasks/NAME.yaml, or both --seeds FILE and --topic FILE')
        config = new_crawl_config(topic, seeds, args.strategy, args.budget, args.round_size, args.delay,
                                  args.timeout, args.proxy, args.allow_host, task)
        crawl_dir = CrawlDir.create(args.out, config)
        print(f'crawl {args.out}: topic "{topic.name}", {len(seeds)} seeds, strategy {args.strategy}, '
              f'budget {args.budget} pages in rounds of {args.round_size}')
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
    print(f'{args.crawl_dir}: topic "{config["topic"]["name"]}", strategy {config["strategy"]}, '
          f'budget {config["budget"]}, {len(rounds)} committed rounds')
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
                    'Unknown options are passed to Beam (e.g. --runner, --direct_num_workers).')
    source = crawl_parser.add_argument_group('what to crawl for (new crawls)')
    source.add_argument('--task', help='a sandbox task: WEB_DIR/tasks/NAME.yaml (topic and seeds)')
    source.add_argument('--topic', help='a topic YAML file (`focal topic build` writes one)')
    source.add_argument('--seeds', help='a file of seed URLs, one a line')
    crawl_parser.add_argument('--out', help='the new crawl directory (local path or URI)')
    crawl_parser.add_argument('--resume', metavar='CRAWL_DIR', help='continue a crawl where it stopped')
    crawl_parser.add_argument('--strategy', default='best-first', choices=['best-first', 'bfs'],
                              help='how the next round is chosen (default: %(default)s)')
    crawl_parser.add_argument('--budget', type=positive_int, default=1000, help='pages to fetch (default: 1000)')
    crawl_parser.add_argument('--round-size', type=positive_int, default=100,
                              help='URLs fetched per round (default: %(default)s)')
    crawl_parser.add_argument('--rounds', type=positive_int, help='run at most this many rounds, then stop')
    crawl_parser.add_argument('--delay', type=float, default=1.0,
                              help='seconds between requests to one host (default: 1; 0 for a sandbox you own)')
    crawl_parser.add_argument('--timeout', type=float, default=10.0,
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

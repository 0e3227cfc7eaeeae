"""`focal sandbox build | serve | stats`: the local test web."""
import argparse
import collections
import signal
import sys
import time
from pathlib import Path

from runners.command import CommandError, positive_int
from sandbox import build, stats
from sandbox.faults import PROFILES, FaultPlan
from sandbox.server import SandboxServer, open_warcs, open_web

DEFAULT_PORT = 8642


def build_command(args: argparse.Namespace) -> int:
    started = time.monotonic()
    manifest = build.build_web(args.corpus, args.out, seed=args.seed, scale=args.scale,
                               force=args.force, progress=not args.quiet)
    print(f'built {args.out}: {manifest["pages"]:,} pages on {manifest["hosts"]} hosts '
          f'({manifest["gbk_hosts"]} in GBK), {manifest["links"]:,} links, tasks: '
          f'{", ".join(manifest["tasks"]) or "none"} ({time.monotonic() - started:.0f} s)')
    print(f'serve it with: focal sandbox serve {args.out}')
    return 0


def serve_command(args: argparse.Namespace) -> int:
    if bool(args.web_dir) == bool(args.warc):
        raise CommandError('give either a web directory (from `focal sandbox build`) or --warc FILE...')
    faults = FaultPlan(args.faults)
    archive, index = open_web(args.web_dir) if args.web_dir else open_warcs(args.warc, progress=True)
    server = SandboxServer(archive, index, faults=faults, port=args.port)
    if faults.rates:
        kinds = collections.Counter(faults.fault_for(url) for url in archive.urls())
        print('faults by kind (URLs): ' + ', '.join(f'{kind} {kinds[kind]:,}' for kind in faults.rates))
    print(f'sandbox: {len(archive):,} pages on {len(archive.hosts())} hosts, faults: {args.faults}\n'
          f'  proxy       {server.proxy_url}  (e.g. curl -x {server.proxy_url} http://HOST/)\n'
          f'  search API  {server.proxy_url}/search?q=...  /related?url=...  /backlinks?url=...\n'
          f'Ctrl-C (or kill PID) stops it.', flush=True)
    previous = {number: signal.signal(number, _stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print('sandbox: stopped', file=sys.stderr)
    finally:
        server.stop()
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 0


def _stop(signal_number, frame):
    """SIGINT or SIGTERM: stop serving and close the connections. Set explicitly, because a shell
    starts a background command with SIGINT ignored, and a server is often started that way."""
    raise KeyboardInterrupt


def stats_command(args: argparse.Namespace) -> int:
    report = stats.web_stats(args.web_dir)
    manifest = report['manifest']
    print(f'{args.web_dir}: corpus {manifest["corpus"]}, seed {manifest["seed"]}, scale {manifest["scale"]}')
    print(f'pages {report["pages"]:,}  hosts {report["hosts"]} ({manifest["gbk_hosts"]} in GBK)  '
          f'links {report["links"]:,}')
    print('kinds   ' + '  '.join(f'{k} {v:,}' for k, v in sorted(report['kinds'].items())))
    print('labels  ' + '  '.join(f'{k} {v:.1%}' for k, v in report['label_shares'].items()))
    for task in report['tasks']:
        share = task['reachable_relevant'] / task['relevant'] if task['relevant'] else 0.0
        distance = f', median {task["median_distance"]:.0f} links away' if task['median_distance'] else ''
        print(f'task {task["label"]} ({task["file"]}): {task["relevant"]:,} relevant pages on '
              f'{task["relevant_hosts"]} hosts ({task["relevant_allowed"]:,} allowed by robots.txt); '
              f'its {task["seeds"]} seeds reach {task["reachable_relevant"]:,} '
              f'of them ({share:.1%}) by links alone{distance}; {task["reachable"]:,} pages reachable in all')
    return 0


def add_parser(subparsers) -> None:
    sandbox_parser = subparsers.add_parser('sandbox', help='build, serve and inspect the local test web')
    commands = sandbox_parser.add_subparsers(dest='sandbox_command', required=True)

    build_parser = commands.add_parser(
        'build', help='turn a labelled corpus into a multi-site web archive',
        description='Build a web of sites from a labelled corpus: web.warc.gz, labels.parquet, '
                    'ready-made tasks in tasks/, and the indexes `focal sandbox serve` needs.')
    build_parser.add_argument('--corpus', required=True, metavar='thucnews|wikispeedia|FILE.jsonl',
                              help='a corpus in ../shared/data, or your own JSON lines file with '
                                   'id, title, text, label and optional links, host')
    build_parser.add_argument('--out', required=True, type=Path, metavar='WEB_DIR')
    build_parser.add_argument('--seed', type=int, default=1, help='random seed (default: %(default)s)')
    build_parser.add_argument('--scale', type=positive_int, default=1, metavar='K',
                              help='replicate the web onto K times as many hosts (default: 1)')
    build_parser.add_argument('--force', action='store_true', help='replace WEB_DIR if it exists')
    build_parser.add_argument('--quiet', action='store_true', help='no progress bars')
    build_parser.set_defaults(handler=build_command)

    serve_parser = commands.add_parser(
        'serve', help='replay a web as an HTTP proxy with a search API on 127.0.0.1',
        description='Serve a built web directory, or any WARC files, on 127.0.0.1: an HTTP proxy '
                    'that answers from the archive, robots.txt per host, and a search API.')
    serve_parser.add_argument('web_dir', nargs='?', type=Path, metavar='WEB_DIR')
    serve_parser.add_argument('--warc', nargs='+', type=Path, metavar='FILE', help='WARC files to replay')
    serve_parser.add_argument('--port', type=int, default=DEFAULT_PORT,
                              help='port on 127.0.0.1 (default: %(default)s; 0 picks a free one)')
    serve_parser.add_argument('--faults', default='none', metavar='PROFILE',
                              help=f'fault profile: {", ".join(PROFILES)}, or a YAML file (default: none)')
    serve_parser.set_defaults(handler=serve_command)

    stats_parser = commands.add_parser(
        'stats', help='pages, hosts, links, labels and task reachability of a built web')
    stats_parser.add_argument('web_dir', type=Path, metavar='WEB_DIR')
    stats_parser.set_defaults(handler=stats_command)

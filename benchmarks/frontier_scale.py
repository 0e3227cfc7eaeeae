"""The frontier at scale: a best-first crawl of at least 50,000 pages of the --scale 8 sandbox web.

Builds the THUCNews web at scale 8 (about 140k pages; or reuses --web DIR), serves it on
127.0.0.1, and runs `focal crawl` as a separate process, as a user would, in rounds of 5,000:
first the rounds a budget of --pages needs if every URL were requested, then `focal crawl --resume`
until the budget is spent (robots.txt refusals cost nothing, so that takes a few more rounds,
the last ones small). Prints per round
the pipeline's seconds, the driver's (choosing from the committed candidates table, and the
commit), the candidates table's rows and the driver's share of the round; at the end the peak
RSS of the crawl processes and the time from `focal crawl --resume` to the first request of the
next round. Goals: driver ≤ 10% of each round, peak RSS ≤ 2 GB, resume start ≤ 10 s.

Run: .venv/bin/python benchmarks/frontier_scale.py [--pages 50000] [--round-size 5000] [--web DIR] [--out DIR]
"""
import argparse
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from sandbox.build import build_web
from sandbox.server import SandboxServer, open_web

ROUND_LINE = re.compile(r'^round (?P<round>\d+): fetched (?P<fetched>\d+) .*candidates (?P<candidates>[\d,]+); '
                        r'(?P<total>[\d.]+) s \(choose (?P<choose>[\d.]+), pipeline (?P<pipeline>[\d.]+), '
                        r'commit (?P<commit>[\d.]+)\)$')
GOALS = {'driver share': 0.10, 'peak RSS GB': 2.0, 'resume start s': 10.0}


def focal(*args: str) -> list[str]:
    return [sys.executable, '-m', 'runners', *args]


def run_crawl(command: list[str], rounds: list[dict]) -> None:
    """Run one `focal crawl` process to its end, collecting its round lines as they come."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors = []
    reader = threading.Thread(target=lambda: errors.extend(process.stderr), daemon=True)
    reader.start()
    for line in process.stdout:
        match = ROUND_LINE.match(line.strip())
        if match:
            row = {k: float(v.replace(',', '')) for k, v in match.groupdict().items()}
            rounds.append(row)
            driver = row['choose'] + row['commit']
            print(f'  round {int(row["round"]):3d}: fetched {int(row["fetched"]):5d}  pipeline {row["pipeline"]:7.1f} s  '
                  f'driver {driver:5.2f} s (choose {row["choose"]:.2f}, commit {row["commit"]:.2f})  '
                  f'share {driver / row["total"]:6.1%}  candidates {int(row["candidates"]):,}', flush=True)
    if process.wait() != 0:
        sys.exit(f'focal crawl failed ({process.returncode}):\n{"".join(errors[-30:])}')


def time_to_first_request(command: list[str], server: SandboxServer, rounds: list[dict]) -> float:
    """Seconds from starting `command` until the sandbox server sees its first request."""
    served = server.requests_served
    started = time.monotonic()
    waiter = {}

    def watch():
        while server.requests_served == served and time.monotonic() - started < 600:
            time.sleep(0.01)
        waiter['seconds'] = time.monotonic() - started
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    run_crawl(command, rounds)
    watcher.join()
    return waiter['seconds']


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--pages', type=int, default=50_000, help='URLs to request in all')
    parser.add_argument('--round-size', type=int, default=5_000)
    parser.add_argument('--web', type=Path, help='a thucnews web built with --scale 8 (built there if missing)')
    parser.add_argument('--out', type=Path, help='where the crawl directory goes (default: a scratch dir)')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        web_dir = args.web or Path(scratch) / 'web'
        if not (web_dir / 'web.json').is_file():
            print(f'building the scale-8 THUCNews web in {web_dir} (about 2 minutes)', flush=True)
            build_web('thucnews', web_dir, scale=8, force=True, progress=False)
        crawl_dir = args.out or Path(scratch) / 'crawl'
        task = web_dir / 'tasks' / '房产.yaml'
        # Round 1 fetches the task's seeds only; the other rounds are full until the budget's end.
        full_rounds = -(-(args.pages - 5) // args.round_size)
        rounds: list[dict] = []
        with SandboxServer(*open_web(web_dir)) as server:
            print(f'crawl of {args.pages:,} pages in rounds of {args.round_size:,} ({full_rounds + 1} rounds), '
                  f'server {server.proxy_url}', flush=True)
            started = time.monotonic()
            run_crawl(focal('crawl', '--task', str(task), '--out', str(crawl_dir), '--budget', str(args.pages),
                            '--round-size', str(args.round_size), '--delay', '0', '--proxy', server.proxy_url,
                            '--rounds', str(full_rounds)), rounds)
            print('  -- focal crawl --resume until the budget is spent --', flush=True)
            resume_start = time_to_first_request(focal('crawl', '--resume', str(crawl_dir)), server, rounds)
            wall = time.monotonic() - started
        peak_gb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    pages = sum(r['fetched'] for r in rounds)  # attempted: requested + refused before any request
    full = [r for r in rounds if r['fetched'] >= args.round_size / 2]
    worst = max(full, key=lambda r: (r['choose'] + r['commit']) / r['total'])
    worst_share = (worst['choose'] + worst['commit']) / worst['total']
    print(f'\n{pages:,.0f} URLs in {len(rounds)} rounds, {wall:.0f} s wall; last candidates table '
          f'{rounds[-1]["candidates"]:,.0f} rows')
    print(f'driver share of a full round: mean {sum((r["choose"] + r["commit"]) / r["total"] for r in full) / len(full):.1%}, '
          f'worst {worst_share:.1%} (round {worst["round"]:.0f})   goal <= {GOALS["driver share"]:.0%}')
    print(f'peak RSS of the crawl processes: {peak_gb:.2f} GB   goal <= {GOALS["peak RSS GB"]} GB')
    print(f'focal crawl --resume to its first request: {resume_start:.1f} s   goal <= {GOALS["resume start s"]:.0f} s')
    if worst_share > GOALS['driver share']:
        print(f'  driver time in round {worst["round"]:.0f}: choose {worst["choose"]:.2f} s, commit {worst["commit"]:.2f} s')
    if resume_start > GOALS['resume start s']:
        print(f'  resume: choosing took {rounds[-1]["choose"]:.2f} s; the rest is Python imports, reading '
              'crawl.json and the manifests, and Beam starting the round')


if __name__ == '__main__':
    main()

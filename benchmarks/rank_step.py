"""The rank step at scale: `focal rank` on a large committed crawl, as a user runs it, timed.

Copies CRAWL_DIR's crawl.json and committed rounds (not its ranks) into a scratch directory, runs
`focal rank` there as a separate process and prints its wall seconds, the rank pipeline's own
seconds (from the ranks' manifest), the peak RSS of the process and what was ranked. Goals (issue
11): under 60 s and 2 GB for a crawl of 50,000 pages or more. Make such a crawl with
benchmarks/frontier_scale.py --out DIR.

Run: .venv/bin/python benchmarks/rank_step.py CRAWL_DIR [--pagerank local|beam] [--round N]
"""
import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipelines.state import CrawlDir

GOALS = {'seconds': 60.0, 'peak RSS GB': 2.0}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('crawl_dir', type=Path)
    parser.add_argument('--pagerank', default='local', choices=['local', 'beam'])
    parser.add_argument('--round', type=int, help='rank the pages up to this round (default: the last)')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / 'crawl'
        shutil.copytree(args.crawl_dir, copy, ignore=lambda folder, names: ['ranks'] if 'ranks' in names else [])
        crawl = CrawlDir.open(str(copy))
        number = args.round or crawl.last_committed_round()
        pages = sum(crawl.manifest(r)['tables'].get('pages', {}).get('rows', 0) for r in crawl.committed_rounds()
                    if r <= number)
        print(f'focal rank of {args.crawl_dir} up to round {number}: {pages:,} pages fetched', flush=True)
        started = time.monotonic()
        done = subprocess.run([sys.executable, '-m', 'runners', 'rank', str(copy), '--round', str(number),
                               '--pagerank', args.pagerank, '--top', '5'], capture_output=True, text=True)
        wall = time.monotonic() - started
        if done.returncode:
            sys.exit(f'focal rank failed ({done.returncode}):\n{done.stderr[-3000:]}')
        print(done.stdout)
        summary = crawl.manifest(number, 'ranks')['summary']
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    print(f'{summary["pages"]:,} pages ranked, {summary["links"]:,} links, PageRank {summary["pagerank"]} '
          f'({summary["pagerank_iterations"]} steps)')
    print(f'focal rank: {wall:.1f} s wall (the rank pipeline {summary["seconds"]:.1f} s; the rest is Python and '
          f'Beam starting)   goal <= {GOALS["seconds"]:.0f} s')
    print(f'peak RSS: {peak:.2f} GB   goal <= {GOALS["peak RSS GB"]} GB')


if __name__ == '__main__':
    main()

"""Instructions per real page of each per-page step, counted by valgrind's callgrind.

Wall and CPU time on a shared 2-core machine vary by ±15% from run to run, more than most single
changes to a step save (an XPath query that looked 17% faster by the clock cost 4% more
instructions). Instruction counts do not move with the machine's load, so a change to a step is
judged here first, and by benchmarks/real_pages.py for the whole round.

Each step runs in a child process under callgrind over the 35 CWCED pages (real GB2312/GBK news
pages, ../shared/data/extraction/cwced) with no pass, one pass and two; differences over 35 give
the cost of a page, imports and preparation cancelled out: "first" (one pass minus none: new
URLs and link texts, and one-time loads such as the block model's) and "again" (two minus one:
what a crawl pays for pages whose menus it has met before, through normalize_url's and the
link words' caches).

* extract: models.extract.extract_page (decode, parse, blocks, links, block model);
* page tokens: text.term_counts of the extracted title and main text, as ExtractPagesFn does;
* link words: text.recurring_terms of each link's anchor and context, text.url_terms of its URL.

Run: .venv/bin/python benchmarks/page_cost.py [--steps extract,page-tokens,link-words]
Needs valgrind (Debian/Ubuntu: apt-get install valgrind); a run takes a few minutes.
"""
import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

from sandbox.corpora import shared_data_dir

PROJECT = Path(__file__).resolve().parent.parent

STEPS = ('extract', 'page-tokens', 'link-words')
_COLLECTED = re.compile(r'Collected : (\d+)')


def cwced_pages() -> list[bytes]:
    return [path.read_bytes() for path in sorted((shared_data_dir() / 'extraction' / 'cwced' / 'original').glob('*.html'))]


def run_step(step: str, passes: int):
    """The child: the step's input prepared, then `passes` passes of the step over every page."""
    from models import text
    from models.extract import extract_page
    pages = cwced_pages()
    urls = [f'http://news.example.cn/2012/{index:05d}.html' for index in range(len(pages))]
    extracted = [extract_page(body, url) for body, url in zip(pages, urls)] if step != 'extract' else []
    page_texts = [f'{page.title}\n{page.text}' for page in extracted]
    link_texts = [value for page in extracted for link in page.links for value in (link.anchor, link.context)]
    link_urls = [link.url for page in extracted for link in page.links]
    for _ in range(passes):
        if step == 'extract':
            for body, url in zip(pages, urls):
                extract_page(body, url)
        elif step == 'page-tokens':
            for value in page_texts:
                text.term_counts(value)
        else:
            for value in link_texts:
                text.recurring_terms(value)
            for url in link_urls:
                text.url_terms(url)


def instructions(step: str, passes: int) -> int:
    command = ['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null',
               sys.executable, __file__, '--child', step, str(passes)]
    result = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True)
    found = _COLLECTED.search(result.stderr)
    if result.returncode or not found:
        sys.exit(f'callgrind run of {step} failed (exit {result.returncode}):\n{result.stderr[-2000:]}')
    return int(found.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--steps', default=','.join(STEPS), help=f'comma-separated, of {", ".join(STEPS)}')
    parser.add_argument('--child', nargs=2, metavar=('STEP', 'PASSES'), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_step(args.child[0], int(args.child[1]))
        return
    steps = args.steps.split(',')
    unknown = sorted(set(steps) - set(STEPS))
    if unknown:
        parser.error(f'unknown steps {", ".join(unknown)}: choose from {", ".join(STEPS)}')
    if shutil.which('valgrind') is None:
        sys.exit('benchmarks/page_cost.py counts instructions with valgrind, which is not installed: '
                 'apt-get install valgrind')
    pages = len(cwced_pages())
    print(f'{pages} CWCED pages; millions of instructions per page (callgrind)\n  step            first    again')
    for step in steps:
        none, one, two = (instructions(step, passes) for passes in (0, 1, 2))
        print(f'  {step:12s} {(one - none) / pages / 1e6:8.2f} {(two - one) / pages / 1e6:8.2f}', flush=True)


if __name__ == '__main__':
    main()

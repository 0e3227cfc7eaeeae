"""One whole crawl round on real pages: pages per CPU-second and per wall second of `focal crawl`,
peak memory, where a page's time goes, and which DirectRunner mode uses both cores correctly.

Webs (--webs):
* cwced: the 35 real Chinese pages of CWCED (../shared/data/extraction/cwced, GB2312/GBK, ~57 KB,
  ~97 links each) replicated under --pages URLs on --hosts hosts (http://news-03.example.cn/2012/
  0105/00012.html), their original bytes, served as `Content-Type: text/html` without a charset,
  so Extract decodes by the page's own meta tag. Each copy keeps its links as written: relative
  ones resolve to the copy's own host and directory, absolute ones point at the original sites
  (the same targets for every copy of a page), so the round does a real page's work per page
  while the candidates table holds fewer distinct URLs than ~97 per page. --page-dir DIR replicates
  the .html, .htm, .shtml and .xhtml files of DIR (or of its original/ or input/ folder, as the
  sets of ../shared/data/extraction keep them) instead: a held-out set of real pages, say.
* wikispeedia: --pages random article and index URLs of the Wikispeedia sandbox web (English).

Each web is replayed by Focal's own server (`focal sandbox serve WEB_DIR`) in its own process,
and crawled by `focal crawl` in a subprocess, as a user runs it: one round (--rounds 1) of
every URL as a seed, best-first, no per-host delay unless --delay (--hosts-at-once: hosts a worker
fetches at once), robots.txt obeyed, the server's loopback address allowed; once per --modes
entry MODE:WORKERS (Beam's --direct_running_mode and --direct_num_workers) and --repeat times. For each crawl it prints:

* correct?: every committed table has the rows of the first mode's first crawl (counts and a
  digest of each table's key columns: pages' URLs, links' (url, link_index, dst) ...);
* wall s (the process, start to exit) and pipeline s (the driver's own figure for the round);
* CPU s: user + system of the crawl process and of its descendants, from getrusage(RUSAGE_CHILDREN)
  around waiting for it (Beam's SDK worker subprocesses are waited for by Beam, so they count);
  a /proc sample of the process tree every 0.2 s cross-checks it and gives the peak RSS (the sum
  over the tree). "others" is the CPU the rest of the machine (server included) used meanwhile;
* the progress lines the driver printed (workers append a byte per URL to a file it watches).

Then the ratio of the 2-worker wall rate of each mode to in_memory:1's and to its own 1-worker rate
(issue 15's goal: 1.6 or more on 2 cores; on a shared machine read it with the "others" column), and a
per-stage profile:
the round's own DoFns called in this process on --profile-pages URLs (round_throughput.plain_round):
Fetch's CPU (its threads included), then each stage of Extract and Score timed by the CPU spent in
the functions that do it (extract = decode/parse/blocks, page tokens, link words and the record,
document frequencies, score, write Parquet), in ms of CPU per page.

Run (from the project root; the shared data beside it, or FOCAL_SHARED_DATA set):
    PYTHONPATH=. .venv/bin/python benchmarks/real_pages.py [--webs cwced,wikispeedia] [--pages 2000]
        [--modes in_memory:1,multi_processing:1,multi_processing:2] [--repeat 2] [--workdir DIR]
        [--page-dir DIR]
"""
import argparse
import collections
import contextlib
import dataclasses
import functools
import hashlib
import inspect
import io
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import yaml
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

import transforms.extract
from benchmarks.round_throughput import plain_fetch, plain_round, plain_score
from models import text
from models.settings import CrawlSettings, FetchSettings
from models.termstats import TermStats
from models.topic import load_topic
from pipelines import schema
from pipelines.state import CrawlDir
from sandbox.archive import Archive
from sandbox.build import ensure_web
from sandbox.corpora import shared_data_dir
from sandbox.search_index import SearchIndexBuilder
from transforms.extract import ExtractPagesFn
from transforms.score import ScorePagesFn
from transforms.tables import columns_table, rows_table

PROJECT = Path(__file__).resolve().parents[1]
DEFAULT_MODES = 'in_memory:1,multi_processing:1,multi_processing:2'
HOUSING_TOPIC = {  # a small Chinese topic (房产, as the thucnews sandbox's task), so any page scores
    'name': '房产', 'language': 'zh', 'seeds': [],
    'description': 'Real estate: a small hand-written topic for benchmarking rounds on Chinese pages.',
    'keywords': {'房产': 1.0, '房价': 0.9, '楼盘': 0.9, '购房': 0.8, '住房': 0.7, '房地产': 0.9, '开发商': 0.6,
                 '业主': 0.5, '贷款': 0.5, '土地': 0.4, '城市': 0.3, '投资': 0.3}}
# Columns that identify a table's rows, for the correctness digest.
KEY_COLUMNS = {'frontier': ['url'], 'fetch_log': ['url', 'attempt', 'outcome'], 'pages': ['url'],
               'links': ['url', 'link_index', 'dst'], 'candidates': ['url'], 'term_stats': ['term', 'documents']}
SAMPLE_SECONDS = 0.2
CLOCK_TICKS = os.sysconf('SC_CLK_TCK')
PAGE_BYTES = os.sysconf('SC_PAGE_SIZE')


@dataclasses.dataclass
class Web:
    name: str
    web_dir: Path
    urls: list[str]
    topic: Path


@dataclasses.dataclass
class Crawl:
    web: str
    mode: str
    workers: int
    repeat: int
    pages: int = 0
    tables: dict = dataclasses.field(default_factory=dict)    # table -> (rows, digest)
    correct: str = ''
    wall: float = 0.0
    pipeline: float = 0.0
    cpu: float = 0.0
    cpu_sampled: float = 0.0
    others: float = 0.0       # CPU-seconds the rest of the machine used meanwhile
    server: float = 0.0       # of which the sandbox server's
    peak_rss: int = 0
    processes: int = 0
    split: str = ''           # CPU-seconds of the crawl process and of each other process in its tree
    progress: str = ''
    load: float = 0.0
    error: str = ''


# -- the webs ---------------------------------------------------------------------------------

HTML_SUFFIXES = ('.html', '.htm', '.shtml', '.xhtml')
PAGE_FOLDERS = ('original', 'input')  # where a set laid out as ../shared/data/extraction's keeps its pages


def html_files(page_dir: Path) -> list[Path]:
    """The HTML files of `page_dir`, or of its original/ or input/ folder when it holds none itself
    (a set laid out as ../shared/data/extraction's: the pages beside their gold text)."""
    for folder in (page_dir, *(page_dir / name for name in PAGE_FOLDERS)):
        found = sorted(path for path in folder.glob('*') if path.suffix.lower() in HTML_SUFFIXES and path.is_file())
        if found:
            return found
    sys.exit(f'no {", ".join(HTML_SUFFIXES)} files in {page_dir} or its {" or ".join(PAGE_FOLDERS)} folder: '
             'give --page-dir a directory of HTML pages')


def cwced_web(workdir: Path, pages: int, hosts: int, page_dir: Path | None = None) -> Web:
    """The CWCED pages (or those of `page_dir`) replicated under `pages` URLs on `hosts` hosts, as a
    WARC and a web directory `focal sandbox serve` reads (an empty search index: a round searches
    nothing). A web built before from the same files is reused."""
    name = 'cwced' if page_dir is None else page_dir.name
    sources = html_files(page_dir or shared_data_dir() / 'extraction' / 'cwced' / 'original')
    files = hashlib.sha256(repr([(path.name, path.stat().st_size) for path in sources]).encode()).hexdigest()[:8]
    web_dir = workdir / f'{name}-{files}-{pages}-{hosts}'
    urls = [f'http://news-{n % hosts:02d}.example.cn/2012/{1 + n // 28 % 12:02d}{1 + n % 28:02d}/{n:05d}.html'
            for n in range(pages)]
    if not (web_dir / 'search').exists():
        shutil.rmtree(web_dir, ignore_errors=True)
        web_dir.mkdir(parents=True)
        bodies = [path.read_bytes() for path in sources]
        with open(web_dir / 'web.warc', 'wb') as stream:
            writer = WARCWriter(stream, gzip=False)  # the server reads records without inflating them
            for n, url in enumerate(urls):
                body = bodies[n % len(bodies)]
                headers = StatusAndHeaders('200 OK', [('Content-Type', 'text/html')], protocol='HTTP/1.1')
                writer.write_record(writer.create_warc_record(url, 'response', payload=io.BytesIO(body),
                                                              length=len(body), http_headers=headers))
        Archive.scan([web_dir / 'web.warc']).save(web_dir / 'archive.parquet')
        SearchIndexBuilder().build().save(web_dir / 'search')
    topic = workdir / 'housing-topic.yaml'
    topic.write_text(yaml.safe_dump(HOUSING_TOPIC, allow_unicode=True), encoding='utf-8')
    return Web(name, web_dir, urls, topic)


def wikispeedia_web(web_dir: Path, pages: int) -> Web:
    """`pages` random robots-allowed article and index URLs of the Wikispeedia sandbox web."""
    ensure_web('wikispeedia', web_dir)
    labels = pq.read_table(web_dir / 'labels.parquet', columns=['url', 'kind', 'robots_allowed']).to_pydict()
    pool = [url for url, kind, allowed in zip(labels['url'], labels['kind'], labels['robots_allowed'])
            if allowed and kind in ('article', 'index')]
    urls = random.Random(0).sample(pool, min(pages, len(pool)))
    return Web('wikispeedia', web_dir, urls, web_dir / 'tasks' / 'geography.yaml')


# -- processes --------------------------------------------------------------------------------

def focal_command(*arguments: str) -> list[str]:
    return [sys.executable, '-m', 'runners', *arguments]


def subprocess_env() -> dict:
    """This project first on the path, so the subprocesses (and Beam's workers) run this code."""
    path = os.environ.get('PYTHONPATH')
    return {**os.environ, 'PYTHONPATH': f'{PROJECT}{os.pathsep}{path}' if path else str(PROJECT)}


class Server:
    """`focal sandbox serve WEB_DIR` on a free port, in its own process."""

    def __init__(self, web_dir: Path):
        self.process = subprocess.Popen(focal_command('sandbox', 'serve', str(web_dir), '--port', '0'),
                                        cwd=PROJECT, env=subprocess_env(), stdout=subprocess.PIPE, text=True)
        for line in self.process.stdout:
            if match := re.search(r'proxy\s+(http://\S+)', line):
                self.proxy = match.group(1)
                return
        raise RuntimeError(f'the sandbox server for {web_dir} did not start')

    def cpu(self) -> float:
        return _cpu_and_rss(self.process.pid)[0]

    def stop(self) -> None:
        self.process.send_signal(2)  # Ctrl-C: it stops serving and exits
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _cpu_and_rss(pid: int) -> tuple[float, int]:
    """(user + system CPU seconds, resident bytes) of one process from /proc, (0, 0) once it is gone."""
    try:
        with open(f'/proc/{pid}/stat') as stream:
            fields = stream.read().rpartition(')')[2].split()
    except OSError:
        return 0.0, 0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS, int(fields[21]) * PAGE_BYTES


def _descendants(root: int) -> list[int]:
    """`root` and every process below it, from the parent ids in /proc."""
    children = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open(f'/proc/{entry}/stat') as stream:
                    parent = int(stream.read().rpartition(')')[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


class TreeSampler(threading.Thread):
    """Samples a process tree: the last CPU seen of every process in it, the peak of its summed RSS."""

    def __init__(self, root: int, max_rss: int):
        super().__init__(daemon=True)
        self.root, self.max_rss, self.cpu_seen, self.peak_rss, self.killed = root, max_rss, {}, 0, False
        self._done = threading.Event()

    def run(self):
        while not self._done.wait(SAMPLE_SECONDS):
            rss, tree = 0, _descendants(self.root)
            for pid in tree:
                cpu, resident = _cpu_and_rss(pid)
                if resident:
                    self.cpu_seen[pid] = max(cpu, self.cpu_seen.get(pid, 0.0))
                    rss += resident
            self.peak_rss = max(self.peak_rss, rss)
            if rss > self.max_rss and not self.killed:  # before the kernel's OOM killer picks a neighbour's process
                self.killed = True
                for pid in tree:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass

    def stop(self) -> float:
        self._done.set()
        self.join()
        return sum(self.cpu_seen.values())


def machine_busy_seconds() -> float:
    """CPU-seconds the whole machine has been busy since boot (/proc/stat, all cores)."""
    with open('/proc/stat') as stream:
        user, nice, system, idle, iowait, irq, softirq, steal = map(int, stream.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


# -- one crawl --------------------------------------------------------------------------------

def run_crawl(web: Web, proxy: str, mode: str, workers: int, repeat: int, out: Path, server: Server,
              beam_args: list[str], max_rss: int, fetch_args: list[str]) -> Crawl:
    result = Crawl(web.name, mode, workers, repeat, load=os.getloadavg()[0])
    seeds = out.parent / f'{web.name}-seeds.txt'
    seeds.write_text('\n'.join(web.urls) + '\n', encoding='utf-8')
    shutil.rmtree(out, ignore_errors=True)
    command = focal_command(
        'crawl', '--topic', str(web.topic), '--seeds', str(seeds), '--out', str(out), '--strategy', 'best-first',
        '--round-size', str(len(web.urls)), '--budget', str(len(web.urls) + 1), '--rounds', '1',  # no final ranking
        *fetch_args, '--proxy', proxy, '--allow-host', '127.0.0.1',
        '--runner=DirectRunner', f'--direct_running_mode={mode}', f'--direct_num_workers={workers}', *beam_args)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy, server_cpu = machine_busy_seconds(), server.cpu()
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=PROJECT, env=subprocess_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    sampler = TreeSampler(process.pid, max_rss)
    sampler.start()
    output = process.stdout.read()
    process.wait()
    result.wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result.cpu_sampled = sampler.stop()
    result.processes = len(sampler.cpu_seen)
    others = sorted((cpu for pid, cpu in sampler.cpu_seen.items() if pid != process.pid), reverse=True)
    result.split = f'driver {sampler.cpu_seen.get(process.pid, 0):.0f}' + (
        ', others ' + ' + '.join(f'{cpu:.0f}' for cpu in others if cpu >= 0.5) if others else '')
    result.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result.others = machine_busy_seconds() - busy - result.cpu
    result.peak_rss = sampler.peak_rss
    result.server = server.cpu() - server_cpu
    if sampler.killed:
        result.error = f'killed: the crawl\'s processes held more than --max-rss {max_rss / 2**30:.1f} GB'
        return result
    if process.returncode:
        result.error = f'exit {process.returncode}: ' + output[-2000:]
        return result
    if match := re.search(r'pipeline ([\d.]+)', output):
        result.pipeline = float(match.group(1))
    fetched = re.findall(r'round 1: (\d+) of \d+ URLs fetched', output)
    result.progress = f'{len(fetched)} lines, last {fetched[-1]}' if fetched else 'no line'
    crawl = CrawlDir.open(str(out))
    for table, facts in sorted(crawl.manifest(1)['tables'].items()):
        digest = ''
        if table in KEY_COLUMNS:
            rows = crawl.read_table(table, 1, columns=KEY_COLUMNS[table]).to_pylist()
            digest = hashlib.sha256(repr(sorted(tuple(row.values()) for row in rows)).encode()).hexdigest()[:12]
        result.tables[table] = (facts['rows'], digest)
    result.pages = result.tables.get('pages', (0, ''))[0]
    return result


# -- the per-stage profile --------------------------------------------------------------------

def write_tables(pages: list[dict], links: list[dict], directory: Path) -> None:
    """The page rows and the pages' link columns as Parquet, as the round's WriteTable does (one shard each)."""
    pq.write_table(rows_table(pages, schema.ROUND_TABLES['pages']), directory / 'pages.parquet')
    pq.write_table(columns_table(links, schema.ROUND_TABLES['links']), directory / 'links.parquet')


def _timed(function, label: str, totals: collections.Counter):
    """`function`, adding this thread's CPU time in it to totals[label] (a generator's as it is
    consumed: its items come back as a list)."""
    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.thread_time()
        try:
            result = function(*args, **kwargs)
            return list(result) if inspect.isgenerator(result) else result
        finally:
            totals[label] += time.thread_time() - started
    return timed


@contextlib.contextmanager
def timed_functions(targets: dict[str, tuple[object, str]], totals: collections.Counter):
    """Each label's (module or class, function name) timed (_timed) inside the block, then put back."""
    saved = [(owner, name, inspect.getattr_static(owner, name)) for owner, name in targets.values()]
    for label, (owner, name) in targets.items():
        setattr(owner, name, _timed(getattr(owner, name), label, totals))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def stage_profile(urls: list[str], proxy: str, topic: Path, scratch: Path) -> tuple[dict, float, int]:
    """ms of CPU per page by stage, and in all, and the pages: the round's DoFns called in turn
    (round_throughput.plain_score), each stage the CPU time of this thread in the functions that do
    it, called once a page (timing them costs ~1 µs a page, where a profiler's hook on every call
    inflated the stages that make many small calls, such as the links' terms, several-fold)."""
    settings = CrawlSettings(load_topic(topic), urls, fetch=FetchSettings(delay=0.0, proxy=proxy,
                                                                          allow_hosts=['127.0.0.1']))
    plain_round(urls[:20], settings)  # jieba's dictionary, the stop words, the server's first reads
    started = time.process_time()
    fetched = plain_fetch(urls, settings)
    fetch_seconds = time.process_time() - started  # its threads' CPU too
    totals = collections.Counter()
    targets = {'extract': (transforms.extract, 'extract_page'), 'page tokens': (text, 'term_counts'),
               'extract step': (ExtractPagesFn, 'process'), 'document frequencies': (TermStats, 'from_documents'),
               'score': (ScorePagesFn, 'process')}
    started = time.thread_time()
    with timed_functions(targets, totals):
        pages, links = plain_score(fetched, settings)
    written = time.thread_time()
    write_tables(pages, links, scratch)
    finished = time.thread_time()
    stages = {
        'fetch (HTTP, robots, politeness; its threads too)': fetch_seconds,
        'extract (decode, lxml, blocks, links)': totals['extract'],
        'tokenise page text (jieba, counted)': totals['page tokens'],
        'link words (anchor, context, URL) and the record': (totals['extract step'] - totals['extract']
                                                             - totals['page tokens']),
        'document frequencies': totals['document frequencies'],
        'score (page, links, candidates)': totals['score'],
        'write Parquet (pages, links)': finished - written,
        'other': (written - started) - totals['extract step'] - totals['document frequencies'] - totals['score'],
    }
    return ({stage: 1000 * seconds / len(pages) for stage, seconds in stages.items()},
            1000 * (finished - started + fetch_seconds) / len(pages), len(pages))


# -- report -----------------------------------------------------------------------------------

def mark_correct(crawls: list[Crawl]) -> None:
    """Each crawl against the first good crawl of its web (the first --modes entry, first repeat)."""
    reference = {}
    for crawl in crawls:
        if crawl.error:
            crawl.correct = 'FAILED'
            continue
        expected = reference.setdefault(crawl.web, crawl)
        differ = [f'{table} {crawl.tables.get(table, (0, ""))[0]}/{rows}'
                  + ('' if crawl.tables.get(table, (0, ''))[0] != rows else ' (other rows)')
                  for table, (rows, digest) in expected.tables.items() if crawl.tables.get(table) != (rows, digest)]
        crawl.correct = 'yes' if not differ else 'NO: ' + ', '.join(differ)


def print_table(crawls: list[Crawl]) -> None:
    print(f'{"web":12} {"mode":17} {"w":>2} {"#":>2} {"pages":>6} {"wall s":>7} {"pipe s":>7} {"CPU s":>7} '
          f'{"/proc":>7} {"pg/CPU-s":>8} {"pg/wall-s":>9} {"pg/pipe-s":>9} {"RSS MB":>7} {"procs":>5} '
          f'{"others":>14} {"load":>5}  progress; correct?')
    for c in crawls:
        rate = lambda seconds: c.pages / seconds if seconds else 0.0
        print(f'{c.web:12} {c.mode:17} {c.workers:>2} {c.repeat:>2} {c.pages:>6} {c.wall:>7.1f} {c.pipeline:>7.1f} '
              f'{c.cpu:>7.1f} {c.cpu_sampled:>7.1f} {rate(c.cpu):>8.2f} {rate(c.wall):>9.2f} {rate(c.pipeline):>9.2f} '
              f'{c.peak_rss / 2**20:>7.0f} {c.processes:>5} {c.others:>5.0f} (srv {c.server:>4.0f})'
              f' {c.load:>5.2f}  {c.progress}; {c.correct}')
        if c.processes > 1:
            print(f'    CPU s by process (/proc): {c.split}')
        if c.error:
            print(f'    {c.error}')
    for web in dict.fromkeys(c.web for c in crawls):
        def rate(mode, workers, attribute):
            """Pages per second of the fastest good crawl of this web in `mode` with `workers`."""
            done = [c for c in crawls if (c.web, c.mode, c.workers) == (web, mode, workers) and c.correct == 'yes']
            return max((c.pages / getattr(c, attribute) for c in done if getattr(c, attribute)), default=None)
        one_core = rate('in_memory', 1, 'wall'), rate('in_memory', 1, 'pipeline')
        for mode in dict.fromkeys(c.mode for c in crawls if c.web == web):
            for workers in (2,):
                two = rate(mode, workers, 'wall'), rate(mode, workers, 'pipeline')
                if None in two:
                    continue
                same_mode = rate(mode, 1, 'wall'), rate(mode, 1, 'pipeline')
                ratios = [f'{label} {a / b:.2f} (pipeline {c / d:.2f})' for label, (a, c), (b, d)
                          in (('over in_memory:1', two, one_core), (f'over {mode}:1', two, same_mode))
                          if None not in (b, d)]
                if ratios:
                    print(f'{web} {mode}:2 wall rate (best of the repeats) ' + '; '.join(ratios))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--webs', default='cwced,wikispeedia', help='comma-separated: cwced, wikispeedia')
    parser.add_argument('--pages', type=int, default=2000, help='URLs in the round (default: %(default)s)')
    parser.add_argument('--hosts', type=int, default=20, help='hosts of the CWCED copies (default: %(default)s)')
    parser.add_argument('--page-dir', type=Path, metavar='DIR',
                        help='replicate the HTML files of DIR, or of its original/ or input/ folder (their bytes as '
                             'they are), for the cwced web instead of the CWCED pages: a held-out set of real pages, say')
    parser.add_argument('--modes', default=DEFAULT_MODES,
                        help='comma-separated MODE:WORKERS (Beam --direct_running_mode in_memory, multi_threading, '
                             'multi_processing; --direct_num_workers); the first is the correctness reference '
                             '(default: %(default)s)')
    parser.add_argument('--repeat', type=int, default=1, help='crawls per mode (default: %(default)s)')
    parser.add_argument('--delay', type=float, default=0.0,
                        help='seconds between requests to one host (default: %(default)s: CPU, not politeness, '
                             'bounds the round)')
    parser.add_argument('--hosts-at-once', type=int,
                        help="hosts each worker fetches at the same time (default: focal crawl's)")
    parser.add_argument('--beam-arg', action='append', default=[], metavar='ARG',
                        help='another Beam option for every crawl (repeatable), e.g. --beam-arg=--direct_runner_bundle_repeat=0')
    parser.add_argument('--max-rss', type=float, default=6.0,
                        help='GB the crawl\'s processes may hold together; a crawl over it is killed and marked '
                             'FAILED (multi_threading:2 grew past 20 GB on 1,000 CWCED pages) (default: %(default)s)')
    parser.add_argument('--profile-pages', type=int, default=300,
                        help='URLs of the in-process per-stage profile, 0: none (default: %(default)s)')
    parser.add_argument('--wiki-web', type=Path, help='a built wikispeedia web (built in --workdir if absent)')
    parser.add_argument('--workdir', type=Path, help='keeps the webs and crawls (default: a temporary directory)')
    args = parser.parse_args()
    modes = [(mode, int(workers)) for mode, _, workers in (entry.partition(':') for entry in args.modes.split(','))]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix='focal-real-pages-'))
    workdir.mkdir(parents=True, exist_ok=True)
    fetch_args = ['--delay', f'{args.delay:g}'] + (['--hosts-at-once', str(args.hosts_at_once)]
                                                    if args.hosts_at_once else [])
    print(f'{os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}; work directory {workdir}; crawls with '
          f'{" ".join(fetch_args)}')
    crawls, profiles = [], {}
    try:
        for name in args.webs.split(','):
            web = (cwced_web(workdir, args.pages, args.hosts, args.page_dir) if name == 'cwced'
                   else wikispeedia_web(args.wiki_web or workdir / 'wikispeedia', args.pages))
            server = Server(web.web_dir)
            try:
                print(f'{web.name}: {len(web.urls)} URLs on {len({u.split("/")[2] for u in web.urls})} hosts, served at '
                      f'{server.proxy}', flush=True)
                if args.profile_pages:
                    profiles[web.name] = stage_profile(web.urls[:args.profile_pages], server.proxy, web.topic, workdir)
                for repeat in range(1, args.repeat + 1):
                    for mode, workers in modes:
                        crawl = run_crawl(web, server.proxy, mode, workers, repeat,
                                          workdir / f'crawl-{web.name}-{mode}-{workers}', server, args.beam_arg,
                                          int(args.max_rss * 2**30), fetch_args)
                        crawls.append(crawl)
                        print(f'  {mode}:{workers} #{repeat}: {crawl.pages} pages, wall {crawl.wall:.1f} s, '
                              f'CPU {crawl.cpu:.1f} s' + (f' FAILED {crawl.error[:300]}' if crawl.error else ''),
                              flush=True)
            finally:
                server.stop()
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    mark_correct(crawls)
    print()
    print_table(crawls)
    for web in dict.fromkeys(c.web for c in crawls):
        reference = next((c for c in crawls if c.web == web and not c.error), None)
        if reference:
            print(f'{web}, rows of the reference crawl: '
                  + ', '.join(f'{table} {rows:,}' for table, (rows, _) in reference.tables.items()))
    for name, (stages, plain_ms, pages) in profiles.items():
        print(f'\n{name}: per-stage CPU in one process, ms per page ({pages} pages; in all {plain_ms:.1f} ms/page '
              f'= {1000 / plain_ms:.1f} pages per CPU-second, without Beam)')
        for stage, ms in stages.items():
            print(f'  {stage:58} {ms:7.2f}  {ms / plain_ms:6.1%}')


if __name__ == '__main__':
    main()

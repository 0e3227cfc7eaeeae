"""Pages/s of one crawl round on Beam's DirectRunner, against the same per-page work without Beam.

Both fetch the same URLs from the THUCNews sandbox (served on 127.0.0.1, no per-host delay),
extract, tokenise and score them. The plain loop calls the round's own DoFns directly, so the
ratio is what Beam's machinery (pipeline start, grouping by host, side inputs, Parquet writing)
costs on one machine.

Run: .venv/bin/python benchmarks/round_throughput.py [--pages 400] [--web WEB_DIR]
"""
import argparse
import random
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.pvalue import TaggedOutput
from apache_beam.utils.windowed_value import WindowedValue

from models.settings import CrawlSettings, FetchSettings
from models.strategies import make_strategy
from models.termstats import TermStats
from models.topic import load_topic
from models.urls import host_of
from pipelines.round import build_round
from pipelines.state import CrawlDir
from sandbox.build import ensure_web
from sandbox.server import SandboxServer, open_web
from transforms.fetch import FetchHostBatchFn
from transforms.extract import ExtractPagesFn
from transforms.score import Score, ScorePagesFn


def frontier_rows(urls: list[str]) -> list[dict]:
    return [{'round': 1, 'url': u, 'strategy': 'best-first', 'operator': 'seed', 'priority': 1.0,
             'depth': -1, 'parent_url': None, 'position': n, 'inherited': None} for n, u in enumerate(urls)]


def plain_loop(urls: list[str], settings: CrawlSettings) -> int:
    """The round's per-page work as ordinary Python calls; returns pages scored."""
    return len(plain_round(urls, settings)[0])


def plain_round(urls: list[str], settings: CrawlSettings) -> tuple[list[dict], list[dict]]:
    """The round's DoFns called in turn in this process, as plain Python: (page rows, link rows)."""
    return plain_score(plain_fetch(urls, settings), settings)


def plain_fetch(urls: list[str], settings: CrawlSettings) -> list[dict]:
    """Fetch's DoFn over the URLs' host batches as one bundle (its threads fetch several hosts at
    once, as in a round): the fetched pages."""
    fetch = FetchHostBatchFn(settings.fetch.policy(), 1)
    fetch.setup()
    by_host = {}
    for row in frontier_rows(urls):
        by_host.setdefault(host_of(row['url']), []).append(row)
    fetch.start_bundle()
    outputs = [row for host, batch in by_host.items() for row in fetch.process((host, batch))]
    outputs += fetch.finish_bundle()
    fetch.teardown()
    return [row.value.value if isinstance(row.value, WindowedValue) else row.value  # finish_bundle's are windowed
            for row in outputs if isinstance(row, TaggedOutput)]


def plain_score(fetched: list[dict], settings: CrawlSettings) -> tuple[list[dict], list[dict]]:
    """Extract's and Score's DoFns over fetched pages: (page rows, each page's link columns)."""
    extract = ExtractPagesFn(dictionary_words=settings.topic.dictionary_words)
    extract.setup()  # the topic's keywords as dictionary words, as in a round
    extracted = [page for fetched_page in fetched for page in extract.process(fetched_page)]
    stats = TermStats.from_documents(page['terms'].split() for page in extracted)
    frequency_tables = [pa.table({'term': list(stats.document_frequency),
                                  'documents': list(stats.document_frequency.values())})]  # the side input's form
    score = ScorePagesFn(settings.topic, make_strategy(settings.strategy), 1)
    score.setup()
    pages, links = [], []
    for page in extracted:
        for row in score.process(page, stats.documents, frequency_tables):
            if not hasattr(row, 'tag'):
                pages.append(row)
            elif row.tag == Score.LINKS:
                links.append(row.value)
    return pages, links


def beam_round(urls: list[str], settings: CrawlSettings, scratch: Path) -> int:
    crawl = CrawlDir.create(str(scratch / 'crawl'), settings.to_dict())
    pending = crawl.begin(1)
    pending.write_table('frontier', frontier_rows(urls))
    build_round(PipelineOptions(['--runner=DirectRunner']), crawl, pending, settings).run().wait_until_finish()
    return pending.read_table('pages', ['url']).num_rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--pages', type=int, default=400)
    parser.add_argument('--web', type=Path, help='a built thucnews web (built in a scratch dir if absent)')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        web_dir = args.web or Path(scratch) / 'web'
        ensure_web('thucnews', web_dir)
        labels = pq.read_table(web_dir / 'labels.parquet').to_pydict()
        pool = [u for u, kind in zip(labels['url'], labels['kind']) if kind in ('article', 'brief', 'index')]
        urls = random.Random(0).sample(pool, args.pages)
        topic = load_topic(web_dir / 'tasks' / '房产.yaml')
        with SandboxServer(*open_web(web_dir)) as server:
            settings = CrawlSettings(topic, urls, fetch=FetchSettings(delay=0.0, proxy=server.proxy_url))
            plain_loop(urls[:20], settings)  # warm the server's cache and jieba's dictionary
            started = time.perf_counter()
            plain_pages = plain_loop(urls, settings)
            plain_rate = plain_pages / (time.perf_counter() - started)
            started = time.perf_counter()
            beam_pages = beam_round(urls, settings, Path(scratch))
            beam_rate = beam_pages / (time.perf_counter() - started)
    print(f'{args.pages} URLs: without Beam {plain_rate:.1f} pages/s ({plain_pages} pages); '
          f'Beam DirectRunner round {beam_rate:.1f} pages/s ({beam_pages} pages); '
          f'ratio Beam / plain {beam_rate / plain_rate:.2f}')


if __name__ == '__main__':
    main()

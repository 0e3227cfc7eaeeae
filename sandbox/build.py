"""`focal sandbox build`: a corpus -> a web directory the sandbox server replays.

    WEB_DIR/web.warc.gz       every page and robots.txt as WARC response records
    WEB_DIR/archive.parquet   URL -> record offsets, for the replay proxy
    WEB_DIR/search/           the search API's index (no labels in it)
    WEB_DIR/labels.parquet    ground truth: url, host, kind, labels, charset, robots_allowed,
                              and one relevant_NAME column per task
    WEB_DIR/graph.parquet     ground truth: every link (src, dst), for `focal sandbox stats`
    WEB_DIR/tasks/NAME.yaml   ready-made tasks: a topic, seed URLs and the relevant label
    WEB_DIR/web.json          what was built, from what, with which seed; written last

Everything is derived from one random.Random(seed), so a seed gives the same bytes.
"""
import dataclasses
import datetime
import hashlib
import io
import json
import random
import shutil
import sys
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from models import topic as topic_model
from models.urls import host_of, normalize_url
from sandbox import render
from sandbox.archive import Archive
from sandbox.jsonl_web import jsonl_web
from sandbox.news_web import news_web
from sandbox.scale import replicate
from sandbox.search_index import SearchIndexBuilder
from sandbox.site import Page, Plan, assemble_pages, paragraph_text, slug
from sandbox.wiki_web import wiki_web

WEB_FORMAT = 1
CORPORA = ('thucnews', 'wikispeedia')
READY_TASKS = {'thucnews': ('房产', '体育'), 'wikispeedia': ('Geography', 'Science')}
JSONL_TASKS = 10              # a task for each of the largest labels, at most this many
TASK_EXAMPLES = 10            # example pages a task's topic is learned from
TASK_SEEDS = 5
MIN_TASK_PAGES = 10


class BuildError(ValueError):
    """The web cannot be built as asked; the message says what to change."""


def plan_web(corpus: str, rng: random.Random, data_dir: Path | None = None) -> Plan:
    if corpus == 'thucnews':
        return news_web(rng, data_dir)
    if corpus == 'wikispeedia':
        return wiki_web(rng, data_dir)
    path = Path(corpus)
    if path.suffix != '.jsonl' or not path.is_file():
        raise BuildError(f'unknown corpus {corpus!r}: use thucnews, wikispeedia, or an existing '
                         'FILE.jsonl with one {"id", "title", "text", "label"} object a line')
    return jsonl_web(path, rng)


def _record_id(seed: int, key: str) -> str:
    return f'<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f"focal-sandbox/{seed}/{key}")}>'


class _WarcOut:
    """A deterministic WARC writer: record ids from the seed, dates from the pages."""

    def __init__(self, path: Path, seed: int, crawled: datetime.date):
        self.file = open(path, 'wb')
        self.writer = WARCWriter(self.file, gzip=True)
        self.seed = seed
        self.date = f'{crawled.isoformat()}T08:00:00Z'
        info = f'software: focal sandbox build\nformat: WARC File Format 1.1\nseed: {seed}\n'.encode()
        self.writer.write_record(self.writer.create_warc_record(
            path.name, 'warcinfo', payload=io.BytesIO(info), length=len(info),
            warc_content_type='application/warc-fields',
            warc_headers_dict={'WARC-Record-ID': _record_id(seed, 'warcinfo'), 'WARC-Date': self.date,
                               'WARC-Filename': path.name}))

    def response(self, url: str, headers: list[tuple[str, str]], body: bytes) -> None:
        http_headers = StatusAndHeaders('200 OK', headers, protocol='HTTP/1.1')
        self.writer.write_record(self.writer.create_warc_record(
            url, 'response', payload=io.BytesIO(body), length=len(body), http_headers=http_headers,
            warc_headers_dict={'WARC-Record-ID': _record_id(self.seed, url), 'WARC-Date': self.date}))

    def close(self) -> None:
        self.file.close()


def _task_column(name: str) -> str:
    return f'relevant_{name}'


def _tasks(corpus: str, plan: Plan, rng: random.Random) -> list[dict]:
    """Ready-made tasks: a topic learned from example pages of the label, and seed URLs."""
    if corpus in READY_TASKS:
        labels = READY_TASKS[corpus]
    else:
        counts = {}
        for article in plan.articles:
            counts[article.labels[0]] = counts.get(article.labels[0], 0) + 1
        labels = [label for label, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
                  if count >= MIN_TASK_PAGES][:JSONL_TASKS]
    tasks = []
    for label in labels:
        pool = [a for a in plan.articles if label in a.labels and a.kind == 'article']
        if len(pool) < MIN_TASK_PAGES:
            continue
        examples = rng.sample(pool, TASK_EXAMPLES)
        texts = [a.title + '\n' + '\n'.join(paragraph_text(p) for p in a.paragraphs) for a in examples]
        topic = topic_model.build_topic(label, texts, seeds=[a.url for a in examples[:TASK_SEEDS]])
        tasks.append({'label': label, 'topic': topic})
    return tasks


def _write_task(directory: Path, task: dict, web_dir: Path) -> Path:
    topic = dataclasses.replace(task['topic'], description=(
        f'Pages labelled {task["label"]} in the sandbox web {web_dir.name}; seeds are '
        f'{len(task["topic"].seeds)} of the example pages the keywords were learned from.'))
    path = directory / f'{slug(task["label"]) or task["label"]}.yaml'
    topic_model.Task(topic, task['label'], _task_column(task['label']), str(path)).save(path)
    return path


def _labels_table(pages: list[Page], tasks: list[dict]) -> pa.Table:
    urls = [normalize_url(p.url) for p in pages]
    columns = {
        'url': urls,
        'host': [host_of(u) for u in urls],
        'kind': [p.kind for p in pages],
        'labels': [list(p.labels) for p in pages],
        'charset': [p.site.charset for p in pages],
        'robots_allowed': [p.kind != 'print' for p in pages],  # printable copies are disallowed
    }
    for task in tasks:
        columns[_task_column(task['label'])] = [task['label'] in p.labels for p in pages]
    return pa.table(columns)


def _graph_table(pages: list[Page]) -> pa.Table:
    sources, targets = [], []
    for page in pages:
        source = normalize_url(page.url)
        for link in page.links():
            sources.append(source)
            targets.append(normalize_url(link.url))
    return pa.table({'src': sources, 'dst': targets})


def build_web(corpus: str, out: str | Path, seed: int = 1, scale: int = 1, force: bool = False,
              progress: bool = True, data_dir: Path | None = None) -> dict:
    """Build the web of a corpus into `out`; returns the manifest written to web.json."""
    out = Path(out)
    if scale < 1:
        raise BuildError(f'--scale must be 1 or more, not {scale}')
    if out.exists() and any(out.iterdir()):
        if not force:
            raise BuildError(f'{out} exists and is not empty: choose another --out or pass --force '
                             'to replace it')
        shutil.rmtree(out)
    rng = random.Random(seed)
    plan = replicate(plan_web(corpus, rng, data_dir), scale, rng)
    pages = assemble_pages(plan.sites, plan.articles, rng, plan.islands)
    out.mkdir(parents=True, exist_ok=True)
    (out / 'web.json').unlink(missing_ok=True)

    index = SearchIndexBuilder()
    crawled = max(page.date for page in pages) + datetime.timedelta(days=1)
    warc = _WarcOut(out / 'web.warc.gz', seed, crawled)
    try:
        for site in plan.sites:
            headers, body = render.robots_txt(site, crawled)
            warc.response(f'{site.home}robots.txt', headers, body)
        for page in tqdm(pages, desc='writing pages', unit='page', disable=not progress, file=sys.stderr):
            headers, body = render.render_response(page, crawled)
            warc.response(page.url, headers, body)
            if page.kind != 'print':  # search engines keep out what robots.txt disallows
                index.add(page.url, page.title, page.text(), [link.url for link in page.links()])
    finally:
        warc.close()
    Archive.scan([out / 'web.warc.gz'], progress=progress).save(out / 'archive.parquet')
    index.build().save(out / 'search')

    tasks = _tasks(corpus, plan, rng)
    pq.write_table(_labels_table(pages, tasks), out / 'labels.parquet')
    pq.write_table(_graph_table(pages), out / 'graph.parquet')
    (out / 'tasks').mkdir(exist_ok=True)
    task_files = [_write_task(out / 'tasks', task, out).name for task in tasks]
    manifest = {
        'format': WEB_FORMAT,
        'corpus': corpus if corpus in CORPORA else str(Path(corpus).name),
        'seed': seed, 'scale': scale,
        'pages': len(pages), 'hosts': len(plan.sites),
        'links': sum(1 for page in pages for _ in page.links()),
        'gbk_hosts': sum(site.charset in ('gbk', 'gb2312') for site in plan.sites),
        'tasks': task_files,
        'warc_sha256': _sha256(out / 'web.warc.gz'),
    }
    (out / 'web.json').write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + '\n',
                                  encoding='utf-8')
    return manifest


def ensure_web(corpus: str, out: str | Path, seed: int = 1) -> bool:
    """Build the web into `out` unless a complete one is there already; True when it was built."""
    if (Path(out) / 'web.json').is_file():  # written last: its presence means the build finished
        return False
    build_web(corpus, out, seed=seed, force=True, progress=False)
    return True


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, 'rb') as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()

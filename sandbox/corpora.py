"""Readers for the labelled corpora in ../shared/data/corpora.

The sandbox web is built from them, and tests and benchmarks measure the topic model on them.
Wikispeedia's plain text repeats its category in a header ("Related subjects: Geography")
and ends with a licence footer; both are removed so that a label never leaks into page text.
"""
import dataclasses
import gzip
import html
import json
import os
import re
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote

_WIKI_HEADER = re.compile(r'\A.{0,400}?2007 Schools Wikipedia Selection.*?\n\s*\n', re.S)
_WIKI_FOOTER = re.compile(r'\s*Retrieved from "\s*http.*\Z', re.S)


@dataclasses.dataclass(frozen=True)
class Document:
    id: str
    title: str
    text: str
    labels: tuple[str, ...]


def shared_data_dir() -> Path:
    """../shared/data beside the project, or $FOCAL_SHARED_DATA when set."""
    configured = os.environ.get('FOCAL_SHARED_DATA')
    path = Path(configured) if configured else Path(__file__).resolve().parents[2] / 'shared' / 'data'
    if not path.is_dir():
        raise FileNotFoundError(
            f'shared data directory {path} not found: put the shared/ folder beside the project '
            'or set FOCAL_SHARED_DATA to its data/ folder')
    return path


def thucnews_articles(path: Path | None = None) -> list[Document]:
    """THUCNews full-text articles (label TAB text); the first line of text is the headline."""
    path = path or shared_data_dir() / 'corpora' / 'thucnews' / 'cnews_sample1000.tsv'
    documents = []
    with open(path, encoding='utf-8') as lines:
        for number, line in enumerate(lines):
            label, _, body = line.rstrip('\n').partition('\t')
            body = html.unescape(body)  # the corpus keeps some entities (&quot;) from its pages
            title = re.split(r'[\s　]', body.strip(), maxsplit=1)[0][:40]
            documents.append(Document(f'thucnews-{number:04d}', title, body, (label,)))
    return documents


def wikispeedia_text(raw: str) -> str:
    """Article text without the category header and the licence footer."""
    return _WIKI_FOOTER.sub('', _WIKI_HEADER.sub('', raw, count=1)).strip()


def wikispeedia_articles(path: Path | None = None) -> Iterator[Document]:
    """Wikispeedia articles; labels are top-level subjects ('Geography', 'Science' ...)."""
    path = path or shared_data_dir() / 'corpora' / 'wikispeedia' / 'articles.jsonl.gz'
    with gzip.open(path, 'rt', encoding='utf-8') as lines:
        for line in lines:
            record = json.loads(line)
            subjects = sorted({c.split('.')[1] for c in record['categories'] if c.count('.') >= 1})
            yield Document(record['article'], record.get('title') or unquote(record['article']),
                           wikispeedia_text(record['text']), tuple(subjects))

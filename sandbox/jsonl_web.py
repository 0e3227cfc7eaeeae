"""A user's own labelled documents as a web: one JSON object a line.

    {"id": "a1", "title": "...", "text": "...", "label": "housing",
     "links": ["a7", "a9"], "host": "homes.example.test"}

`links` (ids of other documents) and `host` are optional. Without hosts, documents are spread
over sites by label, at most SITE_ARTICLES a site; without links, sites of one label form
islands joined by tunnels, as in the news web.
"""
import datetime
import hashlib
import json
import random
import re
from pathlib import Path

from models import text as text_model
from sandbox.site import Article, Link, Plan, Site, link_inline, slug

SITE_ARTICLES = 200
FIRST_DAY = datetime.date(2015, 1, 1)


class CorpusError(ValueError):
    """A JSONL corpus line that cannot be used; says which line and what is wrong."""


def read_jsonl(path: Path) -> list[dict]:
    documents, seen = [], set()
    try:
        lines = Path(path).read_text(encoding='utf-8').splitlines()
    except OSError as error:
        raise CorpusError(f'cannot read {path}: {error.strerror}') from None
    except UnicodeDecodeError:
        raise CorpusError(f'{path} is not UTF-8 text: save it as UTF-8 JSON lines') from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise CorpusError(f'{path}:{number}: not JSON ({error.msg})') from None
        missing = [k for k in ('id', 'title', 'text', 'label') if not isinstance(record.get(k), str)
                   or not record[k].strip()]
        if missing:
            raise CorpusError(f'{path}:{number}: needs non-empty string fields id, title, text, '
                              f'label; missing or empty: {", ".join(missing)}')
        if record['id'] in seen:
            raise CorpusError(f'{path}:{number}: id {record["id"]!r} used twice; ids must be unique')
        if not isinstance(record.get('links', []), list):
            raise CorpusError(f'{path}:{number}: "links" must be a list of document ids')
        seen.add(record['id'])
        documents.append(record)
    if not documents:
        raise CorpusError(f'{path} has no documents: write one JSON object a line')
    return documents


def _host_stem(label: str) -> str:
    """An ASCII host name part for a label; labels in other scripts get a stable digest."""
    return slug(label) or 'label-' + hashlib.sha1(label.encode('utf-8')).hexdigest()[:8]


def jsonl_web(path: Path, rng: random.Random) -> Plan:
    documents = read_jsonl(path)
    has_links = any(d.get('links') for d in documents)
    sites, counts = {}, {}
    for document in documents:
        label = document['label']
        language = 'zh' if text_model.is_chinese(document['text'][:2000]) else 'en'
        host = document.get('host')
        if not host:
            counts[label] = counts.get(label, 0) + 1
            host = f'{_host_stem(label)}-{(counts[label] - 1) // SITE_ARTICLES + 1}.test'
        if host not in sites:
            sites[host] = Site(host, host.split('.')[0], language, (label,), style=rng.randrange(3))
        document['_site'] = sites[host]
    url_of = {d['id']: f'http://{d["_site"].host}/doc/{slug(d["id"]) or "doc"}-{n}.html'
              for n, d in enumerate(documents)}
    titles = {d['id']: d['title'].strip() for d in documents}
    articles = []
    for document in documents:
        targets = {titles[t]: url_of[t] for t in document.get('links', []) if t in url_of}
        paragraphs = [p.strip() for p in re.split(r'\n\s*\n|\n', document['text']) if p.strip()]
        pieces, placed = link_inline(paragraphs, targets)
        site = document.pop('_site')
        articles.append(Article(document['id'], site, '', url_of[document['id']].split(site.host, 1)[1],
                                titles[document['id']], pieces, (document['label'],),
                                FIRST_DAY + datetime.timedelta(days=rng.randrange(730)),
                                see_also=[Link(u, t) for t, u in targets.items() if t not in placed]))
    return Plan(list(sites.values()), articles, islands=not has_links)

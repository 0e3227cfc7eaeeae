"""Wikispeedia (2007 Schools Wikipedia) as a web of subject wikis.

One site per second-level subject with at least MIN_SITE_ARTICLES articles (African
Geography, Biology...), the smaller subjects of a top-level subject sharing one site. Each
article's real links (links.tsv) are placed inline where the target's title first occurs in
the text, as an encyclopedia page does; the rest go to a "See also" block.
"""
import datetime
import gzip
import json
import random
import re
from pathlib import Path
from urllib.parse import unquote

from sandbox import corpora
from sandbox.site import Article, Link, Plan, Site, link_inline, paragraph_text, slug

MIN_SITE_ARTICLES = 20
CRAWLED = datetime.date(2007, 6, 1)


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs; an unindented one-line paragraph is a heading."""
    paragraphs = []
    for raw in re.split(r'\n\s*\n', text):
        if not raw.strip():
            continue
        joined = ' '.join(raw.split())
        is_heading = not raw.startswith(' ') and '\n' not in raw.strip() and len(joined) < 80
        paragraphs.append(f'## {joined}' if is_heading else joined)
    return paragraphs


def _read(data_dir: Path) -> tuple[list[dict], dict[str, list[str]]]:
    wiki = data_dir / 'corpora' / 'wikispeedia'
    with gzip.open(wiki / 'articles.jsonl.gz', 'rt', encoding='utf-8') as lines:
        records = [json.loads(line) for line in lines]
    links = {}
    with open(wiki / 'links.tsv', encoding='utf-8') as lines:
        for line in lines:
            if line.startswith('#') or '\t' not in line:
                continue
            source, target = line.rstrip('\n').split('\t')
            links.setdefault(source, []).append(target)
    return records, links


def _subject(record: dict) -> tuple[str, str]:
    """(top-level subject, second-level subject or '') of an article's first category."""
    if not record['categories']:
        return 'Misc', ''
    parts = record['categories'][0].split('.')
    return parts[1], parts[2] if len(parts) > 2 else ''


def wiki_web(rng: random.Random, data_dir: Path | None = None) -> Plan:
    data_dir = data_dir or corpora.shared_data_dir()
    records, links = _read(data_dir)
    sizes = {}
    for record in records:
        sizes[_subject(record)] = sizes.get(_subject(record), 0) + 1
    sites = {}

    def site_for(record: dict) -> Site:
        top, second = _subject(record)
        key = second if second and sizes[(top, second)] >= MIN_SITE_ARTICLES else ''
        host = f'{slug(key or top)}.wiki.test'
        if host not in sites:
            name = f'{(key or top).replace("_", " ")} Wiki'
            sites[host] = Site(host, name, 'en', (top,), style=rng.randrange(3),
                               has_print=rng.random() < 0.4)
        return sites[host]

    placed_sites = {r['article']: site_for(r) for r in records}
    titles = {r['article']: r.get('title') or unquote(r['article']).replace('_', ' ') for r in records}
    url_of = {name: f'http://{placed_sites[name].host}/wiki/{name}' for name in placed_sites}
    articles = []
    for record in records:
        name = record['article']
        document_labels = tuple(sorted({c.split('.')[1] for c in record['categories']}))
        targets = {titles[t]: url_of[t] for t in links.get(name, []) if t in url_of}
        paragraphs, placed = link_inline(_paragraphs(corpora.wikispeedia_text(record['text'])),
                                          targets)
        see_also = [Link(url, title) for title, url in targets.items() if title not in placed]
        site = placed_sites[name]
        first_text = next((p for p in paragraphs if not str(p[0]).startswith('## ')), ('',))
        description = paragraph_text(first_text)[:160]
        articles.append(Article(name, site, '', f'/wiki/{name}', titles[name], paragraphs,
                                document_labels, CRAWLED - datetime.timedelta(days=rng.randrange(365)),
                                see_also=see_also, description=description))
    return Plan(list(sites.values()), articles, islands=False)

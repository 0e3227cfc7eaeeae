"""`focal sandbox build` on the real corpora: the built webs, their WARC, labels and tasks."""
import hashlib
import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from warcio.archiveiterator import ArchiveIterator

from models import html
from models.topic import load_topic
from models.urls import host_of, normalize_url
from sandbox.build import BuildError, build_web
from sandbox.jsonl_web import CorpusError


def warc_responses(web_dir):
    with open(web_dir / 'web.warc.gz', 'rb') as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type == 'response':
                yield record.rec_headers.get_header('WARC-Target-URI'), record.http_headers, \
                    record.content_stream().read()


def manifest(web_dir):
    return json.loads((web_dir / 'web.json').read_text(encoding='utf-8'))


def test_thucnews_web_is_a_chinese_news_web_with_gbk_hosts_and_two_tasks(news_web_dir, report):
    built = manifest(news_web_dir)
    assert built['pages'] >= 2500 and built['hosts'] >= 30
    assert built['gbk_hosts'] >= built['hosts'] // 4
    labels = pq.read_table(news_web_dir / 'labels.parquet').to_pydict()
    assert len(labels['url']) == built['pages']
    assert {'url', 'host', 'kind', 'labels', 'relevant_房产', 'relevant_体育'} <= set(labels)
    charsets = {}
    for url, headers, body in warc_responses(news_web_dir):
        if url.endswith('/robots.txt'):
            continue
        content_type = headers.get_header('Content-Type')
        assert content_type.startswith('text/html') and int(headers.get_header('Content-Length')) == len(body)
        assert headers.get_header('Date') and headers.get_header('Last-Modified')
        charset = html.codec_name(content_type.partition('charset=')[2]) or 'undeclared'
        charsets[charset] = charsets.get(charset, 0) + 1
        if 'gb' in charset:
            text, encoding = html.decode(body, content_type.partition('charset=')[2])
            assert '\ufffd' not in text and ('/print/' in url or '首页' in text)
            with pytest.raises(UnicodeDecodeError):
                body.decode('utf-8')
    assert charsets['gb18030'] > 0 and charsets['utf-8'] > 0 and charsets['undeclared'] > 0
    report(f'thucnews web: {built["pages"]} pages, {built["hosts"]} hosts ({built["gbk_hosts"]} GBK), '
           f'{built["links"]} links; responses by declared charset {charsets}')


def test_thucnews_tasks_are_topics_whose_seeds_are_relevant(news_web_dir):
    labels = pq.read_table(news_web_dir / 'labels.parquet').to_pydict()
    relevant = {name: dict(zip(labels['url'], labels[f'relevant_{name}'])) for name in ('房产', '体育')}
    for name in ('房产', '体育'):
        topic = load_topic(news_web_dir / 'tasks' / f'{name}.yaml')
        assert topic.language == 'zh' and len(topic.keywords) >= 50 and len(topic.seeds) == 5
        assert all(relevant[name][normalize_url(seed)] for seed in topic.seeds)
        assert not any(relevant['体育' if name == '房产' else '房产'][normalize_url(s)] for s in topic.seeds)


def test_thucnews_sites_of_one_label_are_islands_joined_only_through_other_pages(news_web_dir):
    labels = pq.read_table(news_web_dir / 'labels.parquet').to_pydict()
    graph = pq.read_table(news_web_dir / 'graph.parquet').to_pydict()
    host_labels = {}
    for host, kind, page_labels in zip(labels['host'], labels['kind'], labels['labels']):
        if kind == 'home':
            host_labels[host] = tuple(page_labels)  # portals' homes carry no label
    single_topic = {host: ls[0] for host, ls in host_labels.items() if len(ls) == 1}
    direct = [(s, d) for s, d in zip(graph['src'], graph['dst'])
              if host_of(s) != host_of(d) and host_of(s) in single_topic and host_of(d) in single_topic
              and single_topic[host_of(s)] == single_topic[host_of(d)]]
    assert direct == []
    page_labels = dict(zip(labels['url'], labels['labels']))
    tunnel_steps = sum(1 for s, d in zip(graph['src'], graph['dst'])
                       if host_of(s) in single_topic and host_of(d) != host_of(s)
                       and page_labels.get(d) and single_topic[host_of(s)] not in page_labels[d])
    assert tunnel_steps > 100


def test_thucnews_index_pages_paginate_with_next_page_links(news_web_dir):
    pages = {url: (headers, body) for url, headers, body in warc_responses(news_web_dir) if '/index_' in url}
    second_pages = [url for url in pages if url.endswith('/index_2.html')]
    assert len(second_pages) >= 10
    for url in second_pages:
        headers, body = pages[url]
        text, _ = html.decode(body, headers.get_header('Content-Type').partition('charset=')[2])
        has_third = url.replace('index_2', 'index_3') in pages
        assert '上一页' in text and ('下一页' in text) == has_third
        assert (url.replace('index_2', 'index_3') in text) == has_third


def test_thucnews_robots_txt_disallows_the_printable_copies_that_exist(news_web_dir):
    robots, printable = {}, set()
    for url, _, body in warc_responses(news_web_dir):
        if url.endswith('/robots.txt'):
            robots[host_of(url)] = body.decode()
        elif '/print/' in url:
            printable.add(host_of(url))
    assert len(robots) == manifest(news_web_dir)['hosts'] and printable
    assert all('Disallow: /print/' in robots[host] for host in printable)
    labels = pq.read_table(news_web_dir / 'labels.parquet').to_pydict()
    assert all(allowed == ('/print/' not in url) for url, allowed in zip(labels['url'], labels['robots_allowed']))


def test_wikispeedia_web_places_real_links_inline_and_in_see_also(wiki_web_dir, shared_data, report):
    built = manifest(wiki_web_dir)
    assert built['pages'] >= 5000 and built['hosts'] >= 20
    graph = pq.read_table(wiki_web_dir / 'graph.parquet').to_pydict()
    edges = {(s.rsplit('/', 1)[1], d.rsplit('/', 1)[1]) for s, d in zip(graph['src'], graph['dst'])
             if '/wiki/' in s and '/wiki/' in d}
    with open(shared_data / 'corpora' / 'wikispeedia' / 'links.tsv', encoding='utf-8') as lines:
        real = {tuple(normalize_url(f'http://x.test/{name}').rsplit('/', 1)[1] for name in line.split())
                for line in lines if line.strip() and not line.startswith('#')}
    assert real <= edges
    zulu = next(body.decode() for url, _, body in warc_responses(wiki_web_dir) if url.endswith('/wiki/Zulu'))
    assert 'mainly in the province of KwaZulu-Natal, <a href="http://african-geography.wiki.test/wiki/South_Africa">' \
           'South Africa</a>' in zulu
    for name in ('geography', 'science'):
        topic = load_topic(wiki_web_dir / 'tasks' / f'{name}.yaml')
        assert topic.language == 'en' and topic.seeds
    report(f'wikispeedia web: {built["pages"]} pages, {built["hosts"]} hosts, {built["links"]} links; '
           f'all {len(real)} links of links.tsv present')


def test_build_is_deterministic_for_a_seed_whatever_the_hash_seed(tmp_path, small_corpus):
    digests = []
    for number, (seed, hash_seed) in enumerate([(7, '1'), (7, '2'), (8, '1')]):
        out = tmp_path / f'web{number}'
        subprocess.run([sys.executable, '-m', 'runners', 'sandbox', 'build', '--corpus', str(small_corpus),
                        '--out', str(out), '--seed', str(seed), '--quiet'],
                       check=True, capture_output=True, env={**os.environ, 'PYTHONHASHSEED': hash_seed},
                       timeout=300)
        digests.append(tuple(hashlib.sha256((out / name).read_bytes()).hexdigest()
                             for name in ('web.warc.gz', 'labels.parquet', 'graph.parquet')))
    assert digests[0] == digests[1]
    assert digests[0][0] != digests[2][0]


def test_jsonl_corpus_builds_with_its_own_links_and_scales(tmp_path, small_corpus):
    built = build_web(str(small_corpus), tmp_path / 'web', seed=3, progress=False)
    assert built['hosts'] == 3 and sorted(built['tasks']) == ['体育.yaml', '房产.yaml', '科技.yaml']
    graph = pq.read_table(tmp_path / 'web' / 'graph.parquet').to_pydict()
    scaled = build_web(str(small_corpus), tmp_path / 'scaled', seed=3, scale=3, progress=False)
    assert scaled['hosts'] == 9 and scaled['pages'] == 3 * built['pages']
    scaled_graph = pq.read_table(tmp_path / 'scaled' / 'graph.parquet').to_pydict()
    replica_of = {host_of(u): host_of(u).split('.')[0].rpartition('-')[2] for u in scaled_graph['src']}
    crossing = [(s, d) for s, d in zip(scaled_graph['src'], scaled_graph['dst'])
                if '/doc/' in s and '/doc/' in d and host_of(d) in replica_of
                and replica_of[host_of(s)] != replica_of[host_of(d)]]
    assert crossing, 'replicas should link into each other'
    assert len(scaled_graph['src']) > 2.5 * len(graph['src'])
    bodies = {}
    for url, _, body in warc_responses(tmp_path / 'scaled'):
        if '/doc/' in url:
            bodies.setdefault(url.split('/doc/')[1], set()).add(body)
    assert all(len(versions) == 3 for versions in bodies.values())  # near-copies, not copies


@pytest.mark.parametrize('line, message', [
    ('{"id": "a", "title": "t", "text": "x"}', 'missing or empty: label'),
    ('not json', 'not JSON'),
    ('{"id": "a", "title": "t", "text": "x", "label": "l", "links": "b"}', '"links" must be a list'),
])
def test_bad_jsonl_lines_are_reported_with_their_line_number(tmp_path, line, message):
    corpus = tmp_path / 'bad.jsonl'
    corpus.write_text('{"id": "ok", "title": "t", "text": "x", "label": "l"}\n' + line + '\n', encoding='utf-8')
    with pytest.raises(CorpusError, match=f'bad.jsonl:2: .*{message}'):
        build_web(str(corpus), tmp_path / 'web', progress=False)


def test_build_refuses_unknown_corpora_and_non_empty_output(tmp_path, small_corpus):
    with pytest.raises(BuildError, match='unknown corpus'):
        build_web('reuters', tmp_path / 'web', progress=False)
    (tmp_path / 'full').mkdir()
    (tmp_path / 'full' / 'keep.txt').write_text('mine')
    with pytest.raises(BuildError, match='--force'):
        build_web(str(small_corpus), tmp_path / 'full', progress=False)
    assert (tmp_path / 'full' / 'keep.txt').read_text() == 'mine'

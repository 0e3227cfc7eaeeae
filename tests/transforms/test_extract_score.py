"""Extract and Score as composite transforms on FnApiRunner: page rows with relevance and term
counts, scored edges with their anchor, context and URL relevance apart, candidate rows."""
import collections
import datetime
import random
from array import array

import apache_beam as beam
import pyarrow as pa
from apache_beam.coders import FastPrimitivesCoder
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from models import text
from models.extract import extract_page
from models.segment import sorted_words
from models.strategies import make_strategy
from models.topic import Topic
from sandbox.corpora import shared_data_dir
from transforms.extract import TERM_COUNT, Extract, ExtractPagesFn, page_term_counts
from transforms.score import Score, sorted_term_columns

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
TOPIC = Topic('房产', 'zh', {'房价': 1.0, '楼盘': 0.8, '二手房': 0.6})


def fetched(url, title, body_text, links, charset='utf-8', position=0):
    anchors = ''.join(f'<li><a href="{u}">{a}</a></li>' for u, a in links)
    markup = (f'<html><head><meta charset="{charset}"><title>{title}</title></head><body>'
              f'<div class="nav"><a href="/">首页</a></div><div class="article"><p>{body_text}</p></div>'
              f'<div class="ad"><ul>{anchors}</ul></div></body></html>')
    return {'url': url, 'final_url': url, 'host': url.split('/')[2], 'body': markup.encode(charset),
            'content_type': f'text/html; charset={charset}', 'fetched_at': NOW, 'depth': -1,
            'position': position, 'inherited': None}


PAGES = [
    fetched('http://a.test/1', '楼市', '北京房价上涨，新楼盘开盘，二手房成交增加，房价调控。',
            [('http://b.test/x', '房价新闻')], charset='gbk'),
    fetched('http://b.test/2', '足球', '球队赢得比赛，球迷庆祝冠军，联赛继续进行。', [('http://a.test/y', '体育')],
            position=1),
]
EARLIER_TERMS = [{'round': 2, 'term': term, 'documents': 1} for term in ('天气', '电影', '音乐', '旅游')]


def test_pages_are_scored_with_the_crawl_s_statistics_and_noise_links_inherit_nothing():
    with BeamTestPipeline('FnApiRunner') as pipeline:
        prior_terms = pipeline | 'EarlierTermStats' >> beam.Create([pa.Table.from_pylist(EARLIER_TERMS)])
        extracted = pipeline | beam.Create(PAGES) | Extract()
        scored = extracted | Score(TOPIC, make_strategy('best-first'), 3, prior_documents=4,
                                   prior_term_stats=prior_terms)
        ranked = scored['pages'] | beam.Map(lambda row: (row['url'], row['relevance'] > 0, row['encoding'],
                                                         row['round'], dict(zip(row['terms'].to_pylist(),
                                                                                row['term_counts'].to_pylist()))
                                                         .get('房价', 0)))
        assert_that(ranked, equal_to([('http://a.test/1', True, 'gb18030', 3, 2),
                                      ('http://b.test/2', False, 'utf-8', 3, 0)]), label='pages')
        edges = scored['links'] | beam.FlatMap(lambda columns: zip(
            columns['url'], columns['dst'], columns['block'], [priority > 0 for priority in columns['priority']],
            [relevance > 0 for relevance in columns['anchor_relevance']]))
        assert_that(edges, equal_to([('http://a.test/1', 'http://a.test/', 'navigation', True, False),
                                     ('http://a.test/1', 'http://b.test/x', 'noise', True, True),
                                     ('http://b.test/2', 'http://b.test/', 'navigation', False, False),
                                     ('http://b.test/2', 'http://a.test/y', 'noise', False, False)]), label='links')
        found = scored['found'] | beam.FlatMap(lambda columns: zip(
            columns['url'], columns['parent_position'], columns['link_index'], columns['first_round'],
            columns['operator']))
        assert_that(found, equal_to([('http://a.test/', 0, 0, 3, 'link'), ('http://b.test/x', 0, 1, 3, 'link'),
                                     ('http://b.test/', 1, 0, 3, 'link'), ('http://a.test/y', 1, 1, 3, 'link')]),
                    label='found')
        terms = scored['term_stats'] | beam.FlatMap(lambda table: table.to_pylist()) | beam.Filter(
            lambda row: row['term'] in ('天气', '房价')) | beam.Map(lambda row: (row['term'], row['documents'], row['round']))
        assert_that(terms, equal_to([('天气', 1, 3), ('房价', 1, 3)]), label='term_stats')


def test_an_extracted_page_s_term_counts_survive_beam_s_coder():
    """The counts travel as packed integers between Extract and Score: read back after Beam's
    coder, they are the page's tokens counted, in order of first occurrence."""
    page = {**PAGES[0], 'body': PAGES[0]['body'].replace('房价调控'.encode('gbk'), ('房价调控' * 70_000).encode('gbk'))}
    extract = ExtractPagesFn()
    extract.setup()
    [record] = extract.process(page)
    coder = FastPrimitivesCoder()
    extracted = extract_page(page['body'], page['url'], page['content_type'])
    counts = collections.Counter(text.tokenize(f'{extracted.title}\n{extracted.text}'))
    assert page_term_counts(coder.decode(coder.encode(record))) == counts
    assert list(page_term_counts(record)) == list(counts) and counts['房价'] > 70_000


def test_a_page_row_s_terms_are_sorted_as_python_sorts_them_with_their_counts():
    """Arrow's order of UTF-8 bytes is Python's of code points: Han, Latin with accents, digits,
    full-width forms and characters beyond the Basic Multilingual Plane alike."""
    sample = ('北京房价上涨 楼盘 Zürich zurich École école 2024年 ２０２４ 𠀀字 naïve naive 房价 房价 a1 ä '
              'Ärger arger 上海 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ｆｕｌｌ 二手房')
    news = (shared_data_dir() / 'corpora' / 'thucnews' / 'cnews_sample1000.tsv').read_text(encoding='utf-8')
    for page in (sample, *[line.split('\t', 1)[1][:3000] for line in news.splitlines()[:20]]):
        counts = collections.Counter(text.tokenize(page))
        record = {'terms': ' '.join(counts), 'term_counts': array(TERM_COUNT, counts.values()).tobytes()}
        terms, term_counts = sorted_term_columns(record)
        assert terms.to_pylist() == sorted(counts) and term_counts.to_pylist() == [counts[t] for t in sorted(counts)]
        assert terms.type == pa.string() and term_counts.type == pa.int32()
    empty = sorted_term_columns({'terms': '', 'term_counts': b''})
    assert [column.to_pylist() for column in empty] == [[], []]


def test_random_words_are_sorted_compiled_as_python_sorts_them():
    """sorted_words (compiled) against sorted(): words that share their first 8 bytes (its integer
    key) and differ later, words that begin others, one word, and 1- to 4-byte UTF-8 characters."""
    rng = random.Random(11)
    alphabet = ['a', 'b', 'z', '1', 'é', 'ж', '房', '价', '\uffe0', '𠀀', '𝔘']
    for _ in range(3000):
        stem = ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        words = list({stem + ''.join(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
                      for _ in range(rng.randint(1, 40))})
        joined, offsets, places = sorted_words(' '.join(words).encode())
        ends, order = array('i', offsets), list(array('i', places))
        ordered = [joined[start:end].decode() for start, end in zip(ends, ends[1:])]
        assert ordered == sorted(words) and [words[place] for place in order] == ordered
    assert sorted_words(b'') == (b'', bytes(4), b'')

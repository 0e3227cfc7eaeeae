"""Focal's Chinese segmentation (jieba-rs through rjieba) gives jieba's own tokens, on every text of
THUCNews and CWCED the shared data holds, with and without a topic's words in the dictionary."""
import collections
import json
import logging
from array import array

import jieba
import pytest

from models import text
from models.extract import extract_page
from models.topic import Topic
from transforms.extract import ExtractPagesFn


@pytest.fixture(scope='module')
def texts(shared_data):
    """Every THUCNews text and title, and of every CWCED page its gold text and what the crawler
    tokenises: title, main text, blocks, anchors and link contexts."""
    thucnews = shared_data / 'corpora' / 'thucnews'
    found = [line.split('\t', 1)[1] for line in (thucnews / 'cnews_sample1000.tsv').read_text('utf-8').splitlines()]
    found += [line.split('\t', 1)[0] for line in (thucnews / 'titles_10000.tsv').read_text('utf-8').splitlines()]
    cwced = shared_data / 'extraction' / 'cwced'
    found += [page['articleBody'] for page in json.loads((cwced / 'ground_truth.json').read_text('utf-8')).values()]
    for path in sorted((cwced / 'original').glob('*.html')):
        page = extract_page(path.read_bytes(), f'http://cwced.test/{path.name}')
        found += [page.title, page.text, *(block.text for block in page.blocks),
                  *(link.anchor for link in page.links), *(link.context for link in page.links)]
    return [t for t in found if t]


@pytest.fixture
def restore_dictionary():
    yield
    text.use_dictionary_words(())


def jieba_words(tokenizer: jieba.Tokenizer, value: str) -> list[str]:
    """text.words() with jieba itself segmenting the Han runs: the reference."""
    tokens = []
    for han_run, word in text._RUN.findall(text.normalize(value)):
        tokens.extend(tokenizer.lcut(han_run, HMM=True) if han_run else [word])
    return tokens


def test_every_text_gets_jiebas_tokens(texts):
    assert len(texts) > 11_000 and sum(map(len, texts)) > 1_000_000
    reference = text.jieba_tokenizer()
    differing = [t for t in texts if text.words(t) != jieba_words(reference, t)]
    assert differing == [], f'{len(differing)} texts segmented differently, e.g. {differing[0][:80]!r}'


def test_dictionary_words_give_jiebas_tokens_with_the_same_words_added(texts, restore_dictionary):
    # Compounds of two adjacent jieba words (二手房 + 交易), as a topic's learned or written keywords are.
    reference = jieba.Tokenizer()
    reference.initialize()
    jieba.setLogLevel(logging.WARNING)
    sample = texts[:300]
    pairs = {a + b for t in sample[:100] for a, b in zip(text.words(t), text.words(t)[1:])
             if text.HAN_RUN.fullmatch(a + b) and len(a) > 1 and len(b) > 1}
    words = sorted(pairs)[:300]
    for word in words:
        reference.add_word(word)
    text.use_dictionary_words(words)
    differing = [t for t in sample if text.words(t) != jieba_words(reference, t)]
    assert differing == [], f'{len(differing)} texts segmented differently, e.g. {differing[0][:80]!r}'
    segmented = {token for t in sample[:100] for token in text.words(t)}
    assert sum(word in segmented for word in words) > 0.8 * len(words)  # the rest lose to a neighbour (90% here)


def test_topic_keywords_stay_whole_in_pages_and_weights(restore_dictionary):
    topic = Topic('房产', 'zh', {'二手房交易': 1.0, '房价': 0.5, 'house price': 0.3})
    assert topic.dictionary_words == {'二手房交易', '房价'}
    assert topic.term_weights == {'二手房交易': 1.0, '房价': 0.5, 'house': 0.3, 'price': 0.3}
    body = '<html><body><p>北京二手房交易税费上涨，房价平稳。</p></body></html>'.encode()
    assert '二手房交易' not in text.tokenize('北京二手房交易税费上涨')
    extract = ExtractPagesFn(dictionary_words=topic.dictionary_words)
    extract.setup()
    fetched = {'body': body, 'final_url': 'http://house.test/a.html', 'content_type': 'text/html; charset=utf-8',
               'url': 'http://house.test/a.html', 'depth': 0, 'position': 0, 'inherited': None, 'fetched_at': 0}
    [page] = extract.process(fetched)
    assert '二手房交易' in page['terms'].split()


def test_each_set_of_dictionary_words_segments_as_if_it_were_the_only_one(restore_dictionary):
    """The first set a process asks for goes into the dictionary rjieba loaded on import; words cannot
    be taken out of it, so none or another set must get a dictionary of its own."""
    sentence = '北京二手房交易税费上涨'
    plain = text.tokenize(sentence)
    assert '二手房交易' not in plain and '税费上涨' not in plain
    text.use_dictionary_words({'二手房交易'})
    assert '二手房交易' in text.tokenize(sentence)
    text.use_dictionary_words(())
    assert text.tokenize(sentence) == plain
    text.use_dictionary_words({'税费上涨'})
    assert '税费上涨' in text.tokenize(sentence) and '二手房交易' not in text.tokenize(sentence)
    text.use_dictionary_words({'二手房交易'})
    assert '二手房交易' in text.tokenize(sentence) and '税费上涨' not in text.tokenize(sentence)


def test_terms_hold_no_whitespace_so_a_space_joined_string_gives_them_back(texts):
    """Extract hands terms to Score as space-joined strings (transforms/extract.py)."""
    mixed = ['Don’t panic\u3000ＡＢＣ１ 房价\t上涨 x\x1fy', 'naïve café\u00a0crème', '北京\n\n二手房 2012年']
    for value in [*texts, *mixed]:
        terms = text.tokenize(value)
        assert ' '.join(terms).split() == terms, value[:80]


def test_link_words_are_tokenised_once_per_distinct_string():
    text.recurring_terms.cache_clear()
    for _ in range(3):
        assert text.recurring_terms('房产 新闻 首页').split() == ['房产', '新闻', '首页']
    assert text.recurring_terms.cache_info().misses == 1


def test_a_pages_term_counts_are_its_tokens_counted(texts):
    """text.term_counts (compiled) is collections.Counter(tokenize(...)) in the form a page's record
    holds it, on every text and on mixes of scripts, stop words and one-character tokens."""
    mixed = ['Don’t panic\u3000ＡＢＣ１ 房价\t上涨 x\x1fy 房价', '的 的 我们 我们 a an the 2012 2012年 房价', '北京', '',
             '北京 上海 北京', 'only english words here, english words', '北京\n\n二手房 2012年 don\'t 北京']
    for value in [*texts, *mixed]:
        counts = collections.Counter(text.tokenize(value))
        assert text.term_counts(value) == (' '.join(counts), array('I', counts.values()).tobytes()), value[:80]

import collections
import functools
import math
import operator
import sys

import pytest

from models import relevance, text
from models.termstats import TermStats
from models.topic import Topic, TopicError, build_topic, learn_keywords, load_topic

HOUSING = ['北京楼市成交量下降，二手房价格回落，开发商推出新楼盘。', '房价调控政策出台，楼盘销售放缓，二手房市场观望。']
SPORT = ['湖人队在比赛中击败马刺，科比得到三十分，球队赢得季后赛。']


def test_topic_yaml_round_trip(tmp_path):
    topic = Topic('暴雨', 'zh', {'暴雨': 0.8, '气象': 0.1}, ['http://example.com/'])
    topic.save(tmp_path / 't.yaml')
    assert '暴雨: 0.8' in (tmp_path / 't.yaml').read_text(encoding='utf-8')
    assert load_topic(tmp_path / 't.yaml') == topic


def test_hand_written_keywords_are_normalised_and_split_into_terms(tmp_path):
    (tmp_path / 't.yaml').write_text('name: Housing\nkeywords: {Real Estate: 0.9, ＨＯＵＳＥ: 0.5}\n')
    topic = load_topic(tmp_path / 't.yaml')
    assert topic.language == 'en'
    assert topic.term_weights == {'real': 0.9, 'estate': 0.9, 'house': 0.5}


@pytest.mark.parametrize('content, message', [
    ('name: x\n', 'keywords'),
    ('keywords: {a: 1}\n', 'name'),
    ('name: x\nkeywords: {房价: -1}\n', 'positive'),
    ('name: x\nkeywords: {房价: high}\n', 'positive'),
    ('name: x\nkeywords: {房价: 1}\nseeds: http://a/\n', 'seeds'),
    ('name: [unclosed\n', 'not valid YAML'),
    ('- just\n- a list\n', 'mapping'),
])
def test_bad_topic_files_say_what_is_wrong(tmp_path, content, message):
    (tmp_path / 't.yaml').write_text(content, encoding='utf-8')
    with pytest.raises(TopicError, match=message):
        load_topic(tmp_path / 't.yaml')


def test_missing_topic_file_is_a_topic_error(tmp_path):
    with pytest.raises(TopicError, match='cannot read'):
        load_topic(tmp_path / 'missing.yaml')


def test_learned_keywords_favour_terms_shared_by_the_examples():
    keywords = learn_keywords(HOUSING, top_k=10)
    assert len(keywords) <= 10 and max(keywords.values()) == 1.0
    assert {'二手房', '楼盘'} <= set(keywords)
    assert all(text.is_term(k) for k in keywords)


def test_english_keywords_come_from_our_own_textrank():
    pages = ['The river flows through the valley to the sea. The river delta is fertile.',
             'A mountain range borders the valley; the river drains the mountain range.']
    keywords = learn_keywords(pages, top_k=5)
    assert next(iter(keywords)) == 'river'


def test_built_topic_ranks_a_page_of_its_domain_above_another():
    topic = build_topic('房产', HOUSING, seeds=['http://example.com/'])
    assert topic.language == 'zh' and topic.seeds == ['http://example.com/']
    pages = [text.tokenize(HOUSING[0]), text.tokenize(SPORT[0]), text.tokenize('今天天气很好')]
    stats = TermStats.from_documents(pages)
    scores = [relevance.terms_relevance(p, topic, stats) for p in pages]
    assert scores[0] > scores[1] and scores[0] > scores[2]


def test_no_text_no_topic():
    with pytest.raises(TopicError, match='no keywords'):
        build_topic('empty', ['', '  ', '的 了 the'])


def test_cosine():
    assert relevance.cosine({'a': 1.0}, {'a': 2.0}) == pytest.approx(1.0)
    assert relevance.cosine({'a': 1.0}, {'b': 2.0}) == 0.0
    assert relevance.cosine({}, {'a': 1.0}) == 0.0
    assert relevance.cosine({'a': 1.0, 'b': 1.0}, {'a': 1.0}) == pytest.approx(2 ** -0.5)


def left_to_right_cosine(a: dict, b: dict, a_squares: float) -> float:
    """relevance.cosine with every sum added left to right, as Python 3.11's sum() adds floats
    (3.12's compensates): what terms_relevance computes."""
    add = functools.partial(functools.reduce, operator.add)
    if len(a) > len(b):
        dot = add((weight * a.get(term, 0.0) for term, weight in b.items()), 0.0)
    else:
        dot = add((weight * b.get(term, 0.0) for term, weight in a.items()), 0.0)
    norms = math.sqrt(a_squares * add((w * w for w in b.values()), 0.0))
    return dot / norms if norms else 0.0


def test_terms_relevance_is_the_cosine_of_the_tfidf_weights_to_the_last_bit():
    """terms_relevance (compiled) sums what cosine(topic weights, tfidf_weights) sums, in the same
    order, without the dict: on random term lists and counts, shorter and longer than the topic's
    terms, with idfs computed as they are first asked for and some weights 0 or below."""
    import random
    from models.termstats import tfidf_weights
    chance = random.Random(3)
    vocabulary = [f'w{n}' for n in range(60)]
    topic = Topic('t', 'en', {term: chance.random() for term in vocabulary[:12]})
    stats = TermStats.from_documents([chance.sample(vocabulary, 20) for _ in range(30)])
    for _ in range(2000):
        terms = [chance.choice(vocabulary) for _ in range(chance.choice([1, 3, 8, 40, 200]))]
        for given in (terms, dict(collections.Counter(terms))):
            expected = left_to_right_cosine(topic.term_weights, tfidf_weights(given, stats), topic.squared_weights)
            assert repr(relevance.terms_relevance(given, topic, stats)) == repr(expected), terms
            if sys.version_info < (3, 12):  # sum() adds left to right: the cosine of old, to the last bit
                assert expected == relevance.cosine(topic.term_weights, tfidf_weights(given, stats),
                                                    topic.squared_weights)


def test_title_site_words_are_the_title_part_examples_share_but_never_the_domain():
    from models.topic import learn_keywords, title_site_words
    documents = ['北京楼市半年来首现量价同跌 - 安居网\n房价下跌，开发商降价。', '三方博弈决定楼市走向 - 安居网\n房价与楼市。',
                 '豪宅涨声一片 | 房产之家\n豪宅房价上涨。']
    assert title_site_words(documents) == {'安居'}
    assert title_site_words(['Paris - Geography Wiki\nx', 'Rome - Geography Wiki\ny'], 'Geography') == {'wiki'}
    plain, down = learn_keywords(documents), learn_keywords(documents, site_words=True)
    assert '安居' in plain and down.get('安居', 0) < plain['安居']

import collections
import math
import random

import pytest

from models.relevance import terms_relevance
from models.segment import counted, idf
from models.termstats import TermStats, term_counts, tfidf_weights
from models.topic import Topic

DOCS = [['暴雨', '气象', '暴雨'], ['暴雨', '灾害'], ['足球'], ['足球', '比赛', '足球', '足球']]


def test_tfidf_is_wl_equation_3():
    stats = TermStats.from_documents(DOCS)  # D = 4; D_暴雨 = 2, D_气象 = 1
    weights = tfidf_weights(['暴雨', '气象', '暴雨', '新词'], stats)
    assert weights['暴雨'] == pytest.approx(2 / 4 * math.log10(4 / (1 + 2)))
    assert weights['气象'] == pytest.approx(1 / 4 * math.log10(4 / (1 + 1)))
    assert weights['新词'] == pytest.approx(1 / 4 * math.log10(4 / (1 + 0)))


def test_a_term_in_every_document_weighs_below_zero_and_no_statistics_weigh_nothing():
    stats = TermStats.from_documents([['a1'], ['a1']])
    assert tfidf_weights(['a1'], stats)['a1'] < 0
    assert tfidf_weights(['a1'], TermStats()) == {'a1': 0.0}
    assert tfidf_weights([], stats) == {}


def test_terms_are_counted_as_a_counter_counts_them():
    """The compiled count is collections.Counter's: the same occurrences, in order of first
    occurrence (the order TF-IDF relevance adds its weights in)."""
    generator = random.Random(3)
    vocabulary = ['暴雨', '气象', 'rain', 'Rain', 'a1', '', '足球', 'o’clock']
    for size in [0, 1, 2, 10, 200]:
        for _ in range(50):
            terms = [generator.choice(vocabulary) for _ in range(size)]
            for given in (terms, tuple(terms), iter(terms)):
                counts = counted(given)
                assert type(counts) is dict and list(counts.items()) == list(collections.Counter(terms).items())
    assert term_counts(('暴雨', '气象', '暴雨')) == ({'暴雨': 2, '气象': 1}, 3)


def test_idf_is_wl_equation_3_to_the_last_bit_and_relevance_keeps_the_idfs_it_computes():
    """The compiled idf is math.log10 of the int division; scoring a text keeps each new term's idf
    in the table, as a lookup of its own would."""
    generator = random.Random(5)
    for _ in range(10_000):
        documents, frequency = generator.randrange(1, 10**7), generator.randrange(0, 10**7)
        assert idf(documents, frequency) == math.log10(documents / (1 + frequency))
    assert idf(0, 3) == 0.0
    stats = TermStats.from_documents(DOCS)
    topic = Topic('rain', 'zh', {'暴雨': 1.0, '灾害': 0.5})
    relevance = terms_relevance(['暴雨', '新词', '暴雨', '灾害'], topic, stats)
    assert set(stats.idfs) == {'暴雨', '新词', '灾害'}
    fresh = TermStats.from_documents(DOCS)
    assert {term: fresh.idf(term) for term in stats.idfs} == dict(stats.idfs)
    assert relevance == terms_relevance(['暴雨', '新词', '暴雨', '灾害'], topic, fresh) > 0

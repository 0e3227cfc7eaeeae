import collections
import math
import random

import pytest

from models.segment import counted
from models.termstats import TermStats, term_counts, tfidf_weights

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

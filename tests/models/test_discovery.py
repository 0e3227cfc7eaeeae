"""The bandit's pieces (models/discovery.py) against hand-computed cases from DWDBRM eq. 9-11,
Alg. 3 and DISCO's ucb1.py."""
import math

import pyarrow as pa
import pytest

from models import discovery
from models.discovery import Arm


def test_every_arm_is_played_once_first_in_operator_order():
    arms = {name: Arm() for name in discovery.OPERATORS}
    assert discovery.arms_by_preference(arms)[0] == 'KS'
    discovery.update_arm(arms['KS'], 0.9, 10)
    assert discovery.arms_by_preference(arms) == ['RS', 'FC', 'BC', 'KS']


def test_ucb1_is_eq11_with_cumulative_counts():
    arms = {'KS': Arm(), 'FC': Arm()}
    discovery.update_arm(arms['KS'], 0.5, 30)
    discovery.update_arm(arms['FC'], 0.2, 10)
    scores = discovery.ucb1_scores(arms)
    assert scores['KS'] == pytest.approx(0.5 + math.sqrt(2 * math.log(40) / 30))
    assert scores['FC'] == pytest.approx(0.2 + math.sqrt(2 * math.log(40) / 10))
    assert discovery.arms_by_preference(arms, ('KS', 'FC')) == ['FC', 'KS']  # the rarely counted arm's bonus wins


def test_the_mean_is_weighted_by_each_pull_s_count_as_in_disco():
    arm = Arm()
    discovery.update_arm(arm, 0.6, 10)
    discovery.update_arm(arm, 0.0, 30)
    assert arm.mean == pytest.approx((0.6 * 10 + 0.0 * 30) / 40) and arm.count == 40 and arm.pulls == 2
    discovery.update_arm(arm, 0.0, 0)  # a pull that returned nothing counts one
    assert arm.count == 41 and arm.rewards == [0.6, 0.0, 0.0]


def test_the_three_rewards():
    new = {'a': 0, 'b': 2, 'c': 5, 'tail': 9}   # pages first fetched after the pull, their places among 10
    # eq. 9: Σ (1 - pos/len) over new pages, divided by k = 4 URLs returned
    assert discovery.reward('eq9', new, 10, 4, {'a'}) == pytest.approx((1 + 0.8 + 0.5 + 0.1) / 4)
    # Alg. 3: the same pages, the tail adds 0; divided by len
    assert discovery.reward('alg3', new, 10, 4, {'a'}) == pytest.approx((1 + 0.8 + 0.5 + 0) / 10)
    # DISCO's sites: only the first page of a new host counts
    assert discovery.reward('sites', new, 10, 4, {'a'}) == pytest.approx(1 / 4)
    assert discovery.reward('eq9', new, 10, 0, set()) == 0 and discovery.reward('eq9', {}, 0, 4, set()) == 0


def test_keyword_candidates_are_the_most_frequent_meta_terms_not_used_before():
    texts = ['房价 楼盘 开发商', '房价 楼盘 北京', '房价 房产']
    candidates = discovery.keyword_candidates(texts, str.split, exclude={'房产'}, used={'楼盘'}, limit=3)
    assert candidates == ['房价', '房价 楼盘', '北京']


def test_inputs_are_the_best_pages_not_used_before_and_state_round_trips():
    assert discovery.top_inputs(['a', 'b', 'c', 'd'], {'b'}, k=2) == ['a', 'c']
    arms = {'KS': Arm(2, 12.0, 0.3, [0.1, 0.5])}
    assert discovery.arms_from_dict(discovery.arms_to_dict(arms)) == arms
    assert discovery.first_pages_of_new_hosts(['http://a/1', 'http://b/1', 'http://b/2'], {'a'},
                                              lambda url: url.split('/')[2]) == {'http://b/1'}


def test_a_round_takes_each_source_s_first_results_first_and_judges_what_it_fetched_or_knew():
    def row(url, source_rank, rank, known=False):
        return {'url': url, 'source_rank': source_rank, 'rank': rank, 'known': known, 'operator': 'KS'}
    rows = [row('a', 0, 0), row('b', 0, 1), row('c', 0, 2), row('d', 1, 0, known=True), row('a', 1, 1),
            row('e', 1, 2), row('f', 1, 3)]
    chosen, returned, judged = discovery.choose_discovered(rows, 3)
    assert [r['url'] for r in chosen] == ['a', 'b', 'c'] and returned == 6
    assert judged == 4  # a, b, c fetched and d known; e and f beyond the round's size go unjudged


def test_site_words_are_terms_whose_pages_sit_on_one_host():
    hosts = pa.array(['a.test', 'a.test', 'a.test', 'b.test', 'c.test', 'c.test'])
    terms = pa.array([['安居网', '房价'], ['安居网', '楼盘'], ['安居网'], ['房价'], ['房价', '楼盘'], ['快讯']])
    assert discovery.site_words(hosts, terms, {'安居网', '房价', '楼盘', '快讯'}) == {'安居网'}
    assert discovery.site_words(hosts[:3], terms[:3], {'安居网'}) == set()  # one host: nothing to tell apart


def test_site_mode_reads_each_url_as_its_site_s_home_page():
    assert discovery.home_page('https://news.a.test:8080/house/2011/1.html?x=1') == 'https://news.a.test:8080/'

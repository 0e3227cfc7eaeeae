"""CrawlSettings: defaults in one place, a round trip through crawl.json's dict, clear refusals."""
import json

import pytest

from models.fetch import FetchPolicy
from models.settings import CrawlSettings, FetchSettings, SettingsError
from models.strategies import StrategyError
from models.topic import Topic

TOPIC = Topic('房产', 'zh', {'房价': 0.8}, ['http://a.test/'])


def test_settings_round_trip_through_json_with_the_strategy_defaults_filled_in():
    settings = CrawlSettings(TOPIC, ['http://a.test/'], strategy='random', random_seed=5,
                             fetch=FetchSettings(delay=0.0, proxy='http://127.0.0.1:1'),
                             beam_args=['--runner=DirectRunner'])
    document = json.loads(json.dumps(settings.to_dict()))
    again = CrawlSettings.from_dict(document)
    assert again == settings and again.fetch.policy().proxy == 'http://127.0.0.1:1'
    assert CrawlSettings(TOPIC, ['http://a.test/']).strategy_params['anchor_share'] == 0.3


def test_bad_settings_say_what_to_change():
    with pytest.raises(SettingsError, match='no seed URLs'):
        CrawlSettings(TOPIC, [])
    with pytest.raises(StrategyError, match='unknown strategy'):
        CrawlSettings(TOPIC, ['http://a.test/'], strategy='nope')
    with pytest.raises(SettingsError, match='does not hold the settings'):
        CrawlSettings.from_dict({'seeds': ['http://a.test/']})
    with pytest.raises(SettingsError, match='hosts at once 0: give a whole number of 1 or more'):
        CrawlSettings.from_dict({**CrawlSettings(TOPIC, ['http://a.test/']).to_dict(), 'fetch': {'hosts_at_once': 0}})
    with pytest.raises(SettingsError, match=r'host timeouts -1: give a whole number of 0 \(never give a host up\)'):
        CrawlSettings.from_dict({**CrawlSettings(TOPIC, ['http://a.test/']).to_dict(), 'fetch': {'host_timeouts': -1}})


def test_a_crawl_json_written_before_hosts_at_once_and_host_timeouts_existed_gets_the_defaults():
    document = CrawlSettings(TOPIC, ['http://a.test/']).to_dict()
    del document['fetch']['hosts_at_once'], document['fetch']['host_timeouts']
    policy = CrawlSettings.from_dict(document).fetch.policy()
    assert policy.hosts_at_once == FetchPolicy.hosts_at_once == 8
    assert policy.host_timeouts == FetchPolicy.host_timeouts == 3


def test_seed_urls_are_normalised_each_once_in_the_order_given_and_the_skipped_say_why():
    seeds = ['http://b.test/2', 'HTTP://A.test:80/x/../1', 'ftp://c.test/', 'http://a.test/1', 'http://b.test/2',
             *[f'http://h{n % 7}.test/{n}' for n in range(5_000)], 'http://c.test/']
    urls, skipped = CrawlSettings(TOPIC, seeds).seed_urls()
    assert urls[:2] == ['http://b.test/2', 'http://a.test/1'] and urls[-1] == 'http://c.test/'
    assert len(urls) == len(set(urls)) == 5_003
    assert len(skipped) == 1 and 'ftp://c.test/' in skipped[0]

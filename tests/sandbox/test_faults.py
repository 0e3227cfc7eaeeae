"""Fault injection: profiles, the stable choice of faulty URLs, and every fault kind as a client meets it.

Server tests use one profile giving each of the 12 kinds 8% of URLs, with short latency and
drip times, and pick their URLs with `FaultPlan.example_urls`. The gzip bomb is never inflated
beyond its first MiB.
"""
import collections
import gzip
import http.client
import re
import struct
import time
import zlib

import pytest
import requests

from sandbox.archive import Archive
from sandbox.faults import (CALENDAR_ENTRY, KINDS, LONG_REDIRECT_HOPS, FaultError, FaultPlan, calendar_reply,
                            gzip_bomb)
from sandbox.search_index import SearchIndexBuilder
from sandbox.server import SandboxServer, generated_robots
from warc_samples import numbered_pages, proxy_session, write_pages

NEWS = '<html><head><title>新闻 {n}</title></head><body><p>北京房价上涨，开发商推出新楼盘。</p></body></html>'
LINK = re.compile(r'href="([^"]+)"')


def write_profile(folder, text: str):
    path = folder / 'profile.yaml'
    path.write_text(text, encoding='utf-8')
    return path


@pytest.fixture(scope='module')
def pages():
    ascii_pages = numbered_pages('a.test', 300)
    utf8_pages = {f'http://zh.test/u{n}': NEWS.format(n=n).encode('utf-8') for n in range(150)}
    gbk_pages = {f'http://gb.test/g{n}': NEWS.format(n=n).encode('gbk') for n in range(150)}
    return ascii_pages, utf8_pages, gbk_pages


@pytest.fixture(scope='module')
def plan(tmp_path_factory):
    rates = ', '.join(f'{kind}: 0.08' for kind in KINDS)
    profile = f'rates: {{{rates}}}\nlatency_seconds: 0.3\ndrip_seconds: 0.5\noversized_bytes: 6000000\n'
    return FaultPlan(write_profile(tmp_path_factory.mktemp('profile'), profile))


@pytest.fixture(scope='module')
def server(tmp_path_factory, pages, plan):
    folder = tmp_path_factory.mktemp('web')
    ascii_pages, utf8_pages, gbk_pages = pages
    archive = Archive.scan([write_pages(folder / 'a.warc.gz', ascii_pages),
                            write_pages(folder / 'u.warc.gz', utf8_pages, 'text/html; charset=utf-8'),
                            write_pages(folder / 'g.warc.gz', gbk_pages, 'text/html; charset=gbk')])
    with SandboxServer(archive, SearchIndexBuilder().build(), plan) as server:
        yield server


@pytest.fixture
def session(server):
    with proxy_session(server) as session:
        yield session


@pytest.fixture(scope='module')
def example(server, plan):
    """The first archived URL of a fault kind not used by an earlier test (rate limits remember URLs)."""
    used = set()

    def pick(kind: str, among: str = 'http://') -> str:
        url = next(u for u in plan.example_urls(kind, server.archive.urls(), 100) if u.startswith(among)
                   and u not in used)
        used.add(url)
        return url
    return pick


# -- profiles and the choice of URLs ------------------------------------------------------------


def test_no_faults_by_default():
    plan = FaultPlan()
    assert plan.name == 'none' and plan.rates == {}
    assert {plan.fault_for(f'http://a.test/p{n}') for n in range(1000)} == {None}


@pytest.mark.parametrize('profile, expected', [
    ('hostile', dict.fromkeys(KINDS, 0.025)),
    ('mild', {'latency': 0.03, 'server_error': 0.01, 'rate_limited': 0.01, 'wrong_charset': 0.01})])
def test_profiles_give_each_kind_its_share(profile, expected):
    plan = FaultPlan(profile)
    urls = (f'http://host{n % 97}.test/page/{n}.html' for n in range(40_000))
    counts = collections.Counter(plan.fault_for(url) for url in urls)
    for kind in KINDS:
        assert counts[kind] / 40_000 == pytest.approx(expected.get(kind, 0), abs=0.004), kind


def test_the_choice_is_stable_and_ignores_scheme_and_fault_parameters():
    plan = FaultPlan('hostile')
    chosen = {n: plan.fault_for(f'http://a.test/p{n}') for n in range(40)}
    # Fixed across runs and machines (a hash of the URL, never Python's randomised hash()).
    assert {n: kind for n, kind in chosen.items() if kind} == {
        1: 'rate_limited', 3: 'server_error', 4: 'calendar_trap', 6: 'redirect_loop', 8: 'slow_drip',
        9: 'calendar_trap', 13: 'calendar_trap', 17: 'wrong_charset', 23: 'redirect_loop', 24: 'gzip_bomb',
        25: 'latency'}
    assert plan.fault_for('HTTPS://A.test:443/p3?focal-hop=2#x') == 'server_error'
    assert plan.fault_for('http://a.test/p3?focal-loop=1') == 'server_error'
    assert plan.fault_for('not a url') is None


def test_robots_txt_is_never_faulted(tmp_path):
    plan = FaultPlan(write_profile(tmp_path, 'rates: {server_error: 1.0}'))
    assert plan.fault_for('http://a.test/robots.txt') is None
    assert plan.fault_for('http://a.test/robots.txt.html') == 'server_error'


def test_example_urls_pick_urls_of_one_kind():
    plan = FaultPlan('hostile')
    urls = [f'http://a.test/p{n}' for n in range(2000)]
    chosen = plan.example_urls('gzip_bomb', urls, 5)
    assert len(chosen) == 5 and {plan.fault_for(u) for u in chosen} == {'gzip_bomb'}
    with pytest.raises(FaultError, match='the kinds are latency, server_error'):
        plan.example_urls('gzip-bomb', urls, 5)


@pytest.mark.parametrize('text, complaint', [
    ('rates: {tarpit: 0.1}', r"unknown fault kinds \['tarpit'\]: the kinds are latency, .*calendar_trap"),
    ('rates: {latency: 0.1}\nlatency: 2', r"unknown settings \['latency'\]: allowed are rates, latency_sec"),
    ('rates: {latency: 0.7, binary: 0.6}', 'add up to 1.3;'),
    ('rates: {latency: -0.1}', 'latency .* give a number >= 0'),
    ('drip_seconds: fast', 'drip_seconds .* give a number'),
    ('redirect_hops: 0', 'redirect_hops .* whole number >= 1'),
    ('- latency', 'must be a mapping'),
    ('rates: [latency]', 'must map fault kinds'),
    ('rates: {latency: 0.1', 'not valid YAML')])
def test_bad_yaml_profiles_say_what_is_wrong(tmp_path, text, complaint):
    with pytest.raises(FaultError, match=complaint):
        FaultPlan(write_profile(tmp_path, text))


def test_unknown_profile_names_the_choices():
    with pytest.raises(FaultError, match="unknown fault profile 'nasty': use one of none, mild, hostile"):
        FaultPlan('nasty')


def test_yaml_profile_settings_and_defaults(tmp_path):
    plan = FaultPlan(write_profile(tmp_path, 'rates: {redirect_chain: 1.0}\nredirect_hops: 2\n'))
    assert (plan.redirect_hops, plan.latency_seconds, plan.bomb_bytes) == (2, 0.2, 1 << 30)
    assert plan.lookup_url('http://a.test/p?x=1&focal-hop=2') == 'http://a.test/p?x=1'


# -- bodies built by faults -------------------------------------------------------------------


def test_small_gzip_bombs_inflate_to_exactly_their_size():
    for size in (2000, 1 << 20, (2 << 20) + 7):
        inflated = gzip.decompress(gzip_bomb(size))
        assert len(inflated) == size and inflated.startswith(b'<!DOCTYPE html>') and not inflated[30:].strip()


def test_the_default_bomb_is_small_and_claims_a_gibibyte():
    bomb = gzip_bomb(1 << 30)
    assert len(bomb) < 2 << 20 and struct.unpack('<I', bomb[-4:]) == (1 << 30,)
    head = zlib.decompressobj(31).decompress(bomb[:4096], 1 << 20)  # the first MiB only
    assert head.startswith(b'<!DOCTYPE html><html><body>') and len(head) == 1 << 20


def test_calendar_months_and_days_link_onward():
    month = calendar_reply('http://calendar.trap.test/2011/02/').body.decode()
    links = LINK.findall(month)
    assert links[:2] == ['http://calendar.trap.test/2011/01/', 'http://calendar.trap.test/2011/03/']
    assert links[2:] == [f'http://calendar.trap.test/2011/02/{d:02d}/' for d in range(1, 29)]
    day = calendar_reply('http://calendar.trap.test/2011/02/28/').body.decode()
    assert LINK.findall(day) == ['http://calendar.trap.test/2011/02/', 'http://calendar.trap.test/2011/02/27/',
                                 'http://calendar.trap.test/2011/03/01/']
    for path in ('/2011/13/', '/2011/02/30/', '/2011/2/', '/other'):
        assert calendar_reply('http://calendar.trap.test' + path).status == 404, path


# -- every kind through the server ------------------------------------------------------------


def test_latency_delays_the_page(session, example, server):
    url = example('latency')
    started = time.perf_counter()
    response = session.get(url, timeout=5)
    assert time.perf_counter() - started >= 0.3 and response.content == server.archive.get(url).body


def test_server_errors_are_500_or_503(session, example):
    statuses = {session.get(example('server_error'), timeout=5).status_code for _ in range(8)}
    assert statuses == {500, 503}


def test_rate_limited_urls_answer_429_once_then_the_page(session, example, server):
    url = example('rate_limited')
    first = session.get(url, timeout=5)
    assert first.status_code == 429 and first.headers['Retry-After'] == '1'
    second = session.get(url, timeout=5)
    assert second.status_code == 200 and second.content == server.archive.get(url).body


def test_slow_drip_sends_the_body_in_pieces_over_the_drip_time(server, example):
    url = example('slow_drip')
    connection = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    started = time.perf_counter()
    connection.request('GET', url)
    response = connection.getresponse()
    pieces = []
    while piece := response.read1(65536):
        pieces.append(piece)
    assert time.perf_counter() - started >= 0.45 and len(pieces) >= 5
    assert b''.join(pieces) == server.archive.get(url).body
    assert int(response.headers['Content-Length']) == len(b''.join(pieces))


def test_slow_drip_stays_within_a_read_timeout_longer_than_its_pauses(session, example):
    response = session.get(example('slow_drip'), timeout=(1, 0.2))
    assert response.status_code == 200
    with pytest.raises(requests.exceptions.ConnectionError):  # a pause of 0.05 s beats a 0.01 s timeout
        session.get(example('slow_drip'), timeout=(1, 0.01)).content


def test_redirect_chain_hops_then_serves_the_page(session, example, server):
    url = example('redirect_chain')
    response = session.get(url, timeout=5)
    assert [r.status_code for r in response.history] == [302, 302, 302]
    assert [r.headers['Location'] for r in response.history] == [f'{url}?focal-hop={n}' for n in (1, 2, 3)]
    assert response.status_code == 200 and response.content == server.archive.get(url).body


def test_long_redirect_chain_outlasts_a_crawlers_limit(session, example, server):
    url = example('long_redirect_chain')
    session.max_redirects = 5
    with pytest.raises(requests.exceptions.TooManyRedirects):
        session.get(url, timeout=5)
    hops = 0
    response = session.get(url, allow_redirects=False, timeout=5)
    while response.status_code == 302:
        hops += 1
        response = session.get(response.headers['Location'], allow_redirects=False, timeout=5)
    assert hops == LONG_REDIRECT_HOPS and response.content == server.archive.get(url).body


def test_redirect_loop_never_ends(session, example):
    url = example('redirect_loop')
    with pytest.raises(requests.exceptions.TooManyRedirects):
        session.get(url, timeout=5)
    first = session.get(url, allow_redirects=False, timeout=5).headers['Location']
    assert first == url + '?focal-loop=1'
    assert session.get(first, allow_redirects=False, timeout=5).headers['Location'] == url


def test_oversized_pages_announce_their_size_and_stream(session, example, server):
    url = example('oversized')
    with session.get(url, stream=True, timeout=5) as response:
        assert response.status_code == 200 and response.headers['Content-Type'] == 'text/html'
        assert int(response.headers['Content-Length']) == 6_000_000 > 5 << 20
        start = response.raw.read(65536)
    assert start.startswith(server.archive.get(url).body) and b'filler text' in start


def test_binary_urls_answer_deterministic_noise(session, example):
    url = example('binary')
    first, again = (session.get(url, timeout=5) for _ in range(2))
    assert first.headers['Content-Type'] == 'application/octet-stream'
    assert len(first.content) == 65536 and first.content == again.content
    assert session.get(example('binary'), timeout=5).content != first.content


def test_gzip_bomb_is_small_on_the_wire(session, example):
    with session.get(example('gzip_bomb'), stream=True, timeout=5) as response:
        assert response.headers['Content-Encoding'] == 'gzip'
        assert response.headers['Content-Type'] == 'text/html'
        assert int(response.headers['Content-Length']) < 2 << 20
        compressed = response.raw.read(int(response.headers['Content-Length']), decode_content=False)
    assert compressed.startswith(b'\x1f\x8b') and struct.unpack('<I', compressed[-4:]) == (1 << 30,)


def test_wrong_charset_declares_a_charset_the_bytes_are_not_in(session, example, server):
    utf8 = session.get(example('wrong_charset', 'http://zh.test/'), timeout=5)
    assert utf8.headers['Content-Type'] == 'text/html; charset=gbk'
    gbk_url = example('wrong_charset', 'http://gb.test/')
    gbk = session.get(gbk_url, timeout=5)
    assert gbk.headers['Content-Type'] == 'text/html; charset=utf-8'
    assert gbk.content == server.archive.get(gbk_url).body and '\ufffd' in gbk.text


def test_calendar_trap_links_into_an_endless_calendar(session, example, server):
    url = example('calendar_trap')
    page = session.get(url, timeout=5)
    assert f'<a href="{CALENDAR_ENTRY}">'.encode() in page.content
    assert page.content.index(b'Events calendar') < page.content.index(b'</body>')
    assert len(page.content) == int(page.headers['Content-Length']) > len(server.archive.get(url).body)
    seen, month = set(), CALENDAR_ENTRY
    for _ in range(30):  # follow "next month" as a crawler would; it never runs out
        response = session.get(month, timeout=5)
        assert response.status_code == 200 and month not in seen
        seen.add(month)
        links = LINK.findall(response.text)
        day = session.get(links[2], timeout=5)
        assert month in LINK.findall(day.text)
        month = links[1]
    assert month == 'http://calendar.trap.test/2013/07/'
    robots = session.get('http://calendar.trap.test/robots.txt', timeout=5)
    assert robots.content == generated_robots('calendar.trap.test')

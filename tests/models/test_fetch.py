"""The fetcher against a real sandbox server on 127.0.0.1: outcomes, robots, politeness, policy."""
import datetime
import email.utils
import http.server
import threading
import time
from fractions import Fraction

import pytest
from warcio.warcwriter import WARCWriter

from models.fetch import (FetchPolicy, Fetcher, HostClock, HostFetchPool, PolicyRefused, check_address,
                          retry_after_seconds)
from models.urls import host_of
from sandbox.archive import Archive
from sandbox.faults import KINDS, FaultPlan, gzip_bomb
from sandbox.search_index import SearchIndexBuilder
from sandbox.server import SandboxServer
from warc_samples import add_response, numbered_pages

ROBOTS = b'User-agent: *\nDisallow: /private/\n'


@pytest.fixture(scope='module')
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp('web')
    pages = numbered_pages('a.test', 400)
    with open(folder / 'web.warc.gz', 'wb') as stream:
        writer = WARCWriter(stream, gzip=True)
        for url, body in pages.items():
            add_response(writer, url, body)
        add_response(writer, 'http://a.test/private/secret', b'<html>secret</html>')
        add_response(writer, 'http://a.test/robots.txt', ROBOTS, 'text/plain')
    rates = ', '.join(f'{kind}: 0.06' for kind in KINDS)
    (folder / 'faults.yaml').write_text(f'rates: {{{rates}}}\nlatency_seconds: 1.0\ndrip_seconds: 2.0\n'
                                        'oversized_bytes: 6000000\n', encoding='utf-8')
    archive = Archive.scan([folder / 'web.warc.gz'])
    plan = FaultPlan(folder / 'faults.yaml')
    gzip_bomb(plan.bomb_bytes)  # built once, now: building it inside a request can outlast the 0.5 s read timeout
    with SandboxServer(archive, SearchIndexBuilder().build(), plan) as server:
        yield server


def fetcher_for(server, **settings) -> Fetcher:
    defaults = dict(proxy=server.proxy_url, host_delay=0.0, backoff_seconds=0.1, read_timeout=0.5,
                    total_timeout=1.0)
    return Fetcher(FetchPolicy(**{**defaults, **settings}))


def example(server, kind):
    return server.faults.example_urls(kind, [u for u in server.archive.urls() if '/p' in u], 1)[0]


def test_a_plain_page_arrives_whole_with_its_headers(server):
    url = next(u for u in server.archive.urls() if '/p' in u and server.faults.fault_for(u) is None)
    result = fetcher_for(server).fetch(url)
    assert result.outcome == 'ok' and result.body == server.archive.get(url).body
    assert result.final.final_url == url and result.final.http_status == 200
    assert result.headers['Content-Type'].startswith('text/html') and result.final.bytes == len(result.body)


@pytest.mark.parametrize('kind, outcome, attempts', [
    ('latency', 'timeout', 1),              # 1 s of latency against a 0.5 s read timeout
    ('slow_drip', 'timeout', 1),            # 2 s of drip against a 1 s deadline
    ('rate_limited', 'ok', 2),              # 429 with Retry-After: 1, then the page
    ('redirect_chain', 'ok', 1),
    ('long_redirect_chain', 'redirect', 1),  # 8 hops, more than 5
    ('redirect_loop', 'redirect', 1),
    ('oversized', 'too_large', 1),
    ('binary', 'not_html', 1),
    ('gzip_bomb', 'too_large', 1),
    ('wrong_charset', 'ok', 1),
])
def test_every_fault_ends_in_its_typed_outcome(server, kind, outcome, attempts):
    result = fetcher_for(server).fetch(example(server, kind))
    assert (result.outcome, len(result.attempts)) == (outcome, attempts), result.attempts


def test_a_read_timeout_inside_the_body_is_a_timeout(server):
    result = fetcher_for(server, read_timeout=0.05, total_timeout=10).fetch(example(server, 'slow_drip'))
    assert result.outcome == 'timeout' and result.final.http_status == 200


def test_503_is_retried_with_back_off_and_500_is_not(server):
    fetcher = fetcher_for(server)
    results = [fetcher.fetch(url) for url in server.faults.example_urls(
        'server_error', [u for u in server.archive.urls() if '/p' in u], 20)]
    assert {r.outcome for r in results} == {'http_5xx'}
    by_status = {r.final.http_status: len(r.attempts) for r in results}
    assert by_status == {500: 1, 503: 3}  # 503: the first try and max_retries more


def test_redirect_hops_are_recorded(server):
    result = fetcher_for(server).fetch(example(server, 'redirect_chain'))
    assert len(result.final.redirects) == 3 and result.final.redirects[0] == result.url
    assert 'focal-hop=3' in result.final.final_url


def test_robots_txt_is_obeyed_and_the_refused_page_never_requested(server):
    fetcher = fetcher_for(server)
    before = server.requests_served
    result = fetcher.fetch('http://a.test/private/secret')
    assert result.outcome == 'robots_disallowed'
    assert server.requests_served == before + 1  # robots.txt only
    assert fetcher_for(server, obey_robots=False).fetch('http://a.test/private/secret').outcome == 'ok'


@pytest.mark.parametrize('host_timeouts, outcomes', [
    (2, ['timeout', 'ok', 'timeout', 'timeout', 'host_unresponsive', 'host_unresponsive']),
    (0, ['timeout', 'ok', 'timeout', 'timeout', 'ok', 'timeout']),  # 0: never given up
])
def test_a_host_whose_requests_time_out_in_a_row_is_given_up(server, host_timeouts, outcomes):
    late = server.faults.example_urls('latency', [u for u in server.archive.urls() if '/p' in u], 4)
    plain = [u for u in server.archive.urls() if '/p' in u and server.faults.fault_for(u) is None][:2]
    fetcher = fetcher_for(server, host_timeouts=host_timeouts)
    results = [fetcher.fetch(url) for url in [late[0], plain[0], late[1], late[2], plain[1], late[3]]]
    assert [result.outcome for result in results] == outcomes  # a response between timeouts starts the count again
    for result in results:
        if result.outcome == 'host_unresponsive':  # never requested
            assert len(result.attempts) == 1 and result.final.started_at is None and result.final.http_status is None
            assert '2 requests to a.test in a row timed out' in result.final.error


def test_requests_to_one_host_are_spaced_by_the_host_delay(server):
    fetcher = fetcher_for(server, host_delay=0.3)
    urls = [u for u in server.archive.urls() if '/p' in u and server.faults.fault_for(u) is None][:4]
    starts = [fetcher.fetch(url).final.started_at for url in urls]
    gaps = [(b - a).total_seconds() for a, b in zip(starts, starts[1:])]
    assert all(gap >= 0.29 for gap in gaps), gaps


@pytest.mark.parametrize('url', ['http://127.0.0.1/admin', 'http://10.0.0.7/', 'http://[::1]/',
                                 'http://169.254.169.254/latest/meta-data/'])
def test_private_addresses_are_refused_unless_allowed(server, url):
    before = server.requests_served
    result = fetcher_for(server).fetch(url)
    assert result.outcome == 'policy_refused' and 'allow' in result.final.error
    assert server.requests_served == before


def test_an_allowed_loopback_host_is_fetched(server):
    result = fetcher_for(server, allowed_hosts=frozenset({'127.0.0.1'}), obey_robots=False).fetch(
        f'http://127.0.0.1:{server.port}/')
    assert result.outcome == 'not_html' and result.final.http_status == 200  # the API's JSON overview


class CountingServer(http.server.ThreadingHTTPServer):
    """HTTP/1.1 on 127.0.0.1 that counts the connections it accepts: a page at every path but
    /missing (404) and robots.txt (404); an idle connection is closed after `idle_seconds`, as
    web servers end keep-alive, without telling the client."""

    def __init__(self, idle_seconds: float):
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            timeout = idle_seconds

            def setup(self):
                super().setup()
                with server.lock:
                    server.connections += 1

            def do_GET(self):  # a 404 that keeps the connection open (send_error closes it)
                missing = self.path in ('/missing', '/robots.txt')
                body = b'not here' if missing else f'<html><body><p>page {self.path}</p></body></html>'.encode()
                self.send_response(404 if missing else 200)
                self.send_header('Content-Type', 'text/html; charset=utf-8')
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(('127.0.0.1', 0), Handler)
        self.daemon_threads = True
        self.connections, self.lock = 0, threading.Lock()
        self.base = f'http://127.0.0.1:{self.server_address[1]}'

    def __enter__(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()


def test_a_hosts_requests_share_a_kept_alive_connection_once_each_response_is_read():
    with CountingServer(idle_seconds=10) as server:
        fetcher = Fetcher(FetchPolicy(host_delay=0.0, allowed_hosts=frozenset({'127.0.0.1'})))
        assert [fetcher.fetch(f'{server.base}/p{i}').outcome for i in range(3)] == ['ok'] * 3
        assert server.connections == 1  # robots.txt (404, its body read) and three pages
        assert fetcher.fetch(f'{server.base}/missing').outcome == 'http_4xx'  # its body is not read ...
        assert fetcher.fetch(f'{server.base}/p3').outcome == 'ok'
        assert server.connections == 2  # ... so its connection is closed, not reused
        fetcher.close()


def test_a_connection_the_server_closed_while_idle_is_not_reused():
    with CountingServer(idle_seconds=0.05) as server:
        fetcher = Fetcher(FetchPolicy(host_delay=0.3, allowed_hosts=frozenset({'127.0.0.1'})))
        assert [fetcher.fetch(f'{server.base}/p{i}').outcome for i in range(3)] == ['ok'] * 3
        assert server.connections == 4  # robots.txt and each page: every wait outlasted the idle limit
        fetcher.close()


def test_without_a_proxy_names_are_resolved_and_checked():
    policy = FetchPolicy()
    with pytest.raises(PolicyRefused, match='non-public'):
        check_address('http://intranet.example/', policy, resolve=lambda host: ['192.168.1.20'])
    check_address('http://example.org/', policy, resolve=lambda host: ['93.184.215.14'])
    assert Fetcher(policy).fetch('http://localhost:9/').outcome == 'policy_refused'


def test_urls_that_are_not_http_are_refused():
    assert Fetcher(FetchPolicy()).fetch('mailto:someone@example.org').outcome == 'policy_refused'


def test_retry_after_accepts_seconds_and_http_dates():
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=30)
    assert retry_after_seconds('5') == 5.0
    assert 25 < retry_after_seconds(email.utils.format_datetime(later, usegmt=True)) <= 30
    assert retry_after_seconds('soon') is None and retry_after_seconds(None) is None


def test_a_late_wake_up_does_not_bring_the_next_request_to_a_host_closer():
    """On a simulated clock, in exact fractions: measured on the real one, the microseconds between
    the clock booking the next slot and the caller reading the time (a busy machine's) made a gap
    0.29998 s."""
    overruns = [Fraction(1, 10)]  # the first sleep ends 0.1 s late, as a busy machine's can; the others on time
    now = [Fraction(0)]

    def sleep(seconds):
        now[0] += seconds + (overruns.pop() if overruns else 0)
    clock = HostClock(Fraction(3, 10), sleep, lambda: now[0])
    starts = []
    for _ in range(4):
        clock.wait('a.test')
        starts.append(now[0])
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    assert min(gaps) >= 0.3, gaps


@pytest.fixture(scope='module')
def three_hosts(tmp_path_factory):
    """Three hosts of three plain pages each, no faults."""
    folder = tmp_path_factory.mktemp('three-hosts')
    pages = {url: body for host in ('a.test', 'b.test', 'c.test') for url, body in numbered_pages(host, 3).items()}
    with open(folder / 'web.warc.gz', 'wb') as stream:
        writer = WARCWriter(stream, gzip=True)
        for url, body in pages.items():
            add_response(writer, url, body)
    with SandboxServer(Archive.scan([folder / 'web.warc.gz']), SearchIndexBuilder().build()) as server:
        yield server, sorted(pages)


@pytest.mark.parametrize('hosts_at_once', [1, 3])
def test_a_pool_fetches_hosts_side_by_side_each_at_its_own_pace(three_hosts, hosts_at_once):
    server, urls = three_hosts
    fetcher = Fetcher(FetchPolicy(proxy=server.proxy_url, host_delay=0.3))
    pool = HostFetchPool(fetcher.fetch, hosts_at_once)
    for host in ('a.test', 'b.test', 'c.test'):
        pool.submit([url for url in urls if host_of(url) == host], str)
    results = list(pool.completed(wait=True))
    pool.close()
    fetcher.close()
    assert sorted(url for url, _ in results) == urls and {r.outcome for _, r in results} == {'ok'}
    in_time = [host_of(url) for url, result in sorted(results, key=lambda pair: pair[1].final.started_at)]
    if hosts_at_once == 1:  # one host after another, in the order given
        assert in_time == ['a.test'] * 3 + ['b.test'] * 3 + ['c.test'] * 3
    else:  # every host's first request goes out before any host's second
        assert set(in_time[:3]) == {'a.test', 'b.test', 'c.test'}
    for host in ('a.test', 'b.test', 'c.test'):
        starts = sorted(r.final.started_at for url, r in results if host_of(url) == host)
        assert min((b - a).total_seconds() for a, b in zip(starts, starts[1:])) >= 0.29, starts


def test_an_exception_in_a_pools_fetch_reaches_the_caller():
    def fetch(url):
        if url == 'broken':
            raise RuntimeError('a bug in fetch')
        return url
    pool = HostFetchPool(fetch, 2)
    pool.submit(['a', 'broken', 'b'], str)
    with pytest.raises(RuntimeError, match='a bug in fetch'):
        list(pool.completed(wait=True))
    pool.close()


def test_closing_a_pool_whose_results_nobody_takes_stops_its_threads():
    pool = HostFetchPool(str, 2)
    pool.submit([f'u{n}' for n in range(100)], str)  # more than its queue holds: the threads wait to hand over
    pool.submit([f'v{n}' for n in range(100)], str)
    next(pool.completed(wait=True))
    closing = threading.Thread(target=pool.close)
    closing.start()
    closing.join(timeout=10)
    assert not closing.is_alive() and pool.outstanding == 0  # close() returns once its threads have ended


def test_a_pool_takes_at_least_one_host_at_once():
    with pytest.raises(ValueError, match='at least 1'):
        HostFetchPool(str, 0)

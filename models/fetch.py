"""Fetching one host's pages politely and safely, with a typed outcome for every URL.

The pieces are separate and small, as in Scrapy's downloader middlewares: the address policy
(`check_address`), robots.txt (`RobotsCache`, protego), politeness (`HostClock`), and the
download itself (`Fetcher.fetch`: redirects followed by hand so every hop is checked and
recorded, retries on 429/503 honouring Retry-After, a cap on the bytes on the wire and another
on the inflated body, a deadline for the whole response so a slow drip cannot hold a worker).
Every attempt is recorded; the last one's outcome is the URL's outcome. `HostFetchPool` fetches
several hosts at once, one request at a time per host, as Nutch's fetcher queues and Scrapy's
per-domain slots do: a host's delay is spent fetching other hosts.
"""
import collections
import contextlib
import dataclasses
import datetime
import email.utils
import http.client
import ipaddress
import queue
import socket
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, TypeVar
from urllib.parse import urljoin, urlsplit

import certifi
import urllib3
from protego import Protego

from models.html import looks_like_html
from models.urls import UrlError, host_of, normalize_url

OUTCOMES = ('ok', 'redirect', 'http_4xx', 'http_5xx', 'timeout', 'too_large', 'not_html',
            'robots_disallowed', 'policy_refused', 'host_unresponsive', 'error')
HTML_TYPES = ('text/html', 'application/xhtml+xml')
RETRY_STATUSES = (429, 503)
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
CHUNK_BYTES = 64 << 10


@dataclasses.dataclass(frozen=True)
class FetchPolicy:
    """Every fetch setting and its default, in one place."""
    user_agent: str = 'FocalBot/0.1 (focused crawler; +https://github.com/focal-crawler/focal)'
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    total_timeout: float = 30.0           # for the whole response: a slow drip is a timeout
    max_body_bytes: int = 5 << 20         # on the wire
    max_inflated_bytes: int = 5 << 20     # after gzip/deflate: a gzip bomb stops here
    max_redirects: int = 5
    max_retries: int = 2                  # more attempts after a 429 or 503
    max_retry_after: float = 30.0         # a longer Retry-After is not waited for
    backoff_seconds: float = 1.0          # 429/503 without Retry-After: 1 s, 2 s, 4 s ...
    host_delay: float = 1.0               # seconds between requests to one host
    hosts_at_once: int = 8                # hosts a worker fetches at the same time (one request each)
    host_timeouts: int = 3                # requests to a host in a row that time out before its other
                                          # URLs are not requested (outcome host_unresponsive); 0: never
    obey_robots: bool = True
    proxy: str | None = None              # http://host:port, used for every request
    allowed_hosts: frozenset = frozenset()  # hosts or IPs allowed even when private or loopback


@dataclasses.dataclass
class Attempt:
    """One row of the fetch log."""
    url: str
    attempt: int
    outcome: str
    http_status: int | None = None
    final_url: str | None = None
    redirects: list[str] = dataclasses.field(default_factory=list)
    content_type: str | None = None
    bytes: int = 0
    started_at: datetime.datetime | None = None
    elapsed_ms: float = 0.0
    error: str | None = None


@dataclasses.dataclass
class FetchResult:
    url: str
    attempts: list[Attempt]
    body: bytes = b''
    headers: dict = dataclasses.field(default_factory=dict)

    @property
    def outcome(self) -> str:
        return self.attempts[-1].outcome

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]


class PolicyRefused(Exception):
    """The URL's address is one nobody allowed."""


def check_address(url: str, policy: FetchPolicy,
                  resolve: Callable[[str], list[str]] | None = None) -> None:
    """Refuse private, loopback, link-local and reserved addresses unless the host is allowed.

    Through a proxy only IP literals are checked (the proxy resolves names, and the proxy
    itself was allowed by whoever configured it); without one, every resolved address is.
    """
    host = host_of(url)
    if host in policy.allowed_hosts:
        return
    try:
        addresses = [ipaddress.ip_address(host.strip('[]'))]
    except ValueError:
        if policy.proxy:
            return
        try:
            addresses = [ipaddress.ip_address(a) for a in (resolve or _resolve)(host)]
        except (OSError, ValueError) as error:
            raise PolicyRefused(f'cannot resolve {host}: {error}') from None
    for address in addresses:
        if not address.is_global or address.is_multicast:
            raise PolicyRefused(f'{host} is a non-public address ({address}); allow it explicitly '
                                'with --allow-host if you mean it')


def _resolve(host: str) -> list[str]:
    return sorted({info[4][0] for info in socket.getaddrinfo(host, None)})


class HostClock:
    """Per-host politeness: the earliest moment the next request to a host may start. Shared by
    the threads of a HostFetchPool: two of them reach one host only through redirects."""

    def __init__(self, delay: float, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic):
        self.delay = delay
        self.sleep = sleep
        self.clock = clock          # the time `sleep` passes (a test's simulated one with its sleep)
        self.next_allowed: dict[str, float] = {}
        self.lock = threading.Lock()

    def wait(self, host: str, delay: float | None = None) -> None:
        """Sleep until the host may be asked again, then book the following slot from when the
        sleep really ended: a late wake-up (a busy machine) must not bring the next request closer
        than the delay. The slot is booked before the sleep too, so another thread waits for the
        one after it."""
        gap = max(self.delay, delay or 0.0)
        with self.lock:
            now = self.clock()
            start = max(self.next_allowed.get(host, now), now)
            self.next_allowed[host] = start + gap
        if start > now:
            self.sleep(start - now)
            with self.lock:
                self.next_allowed[host] = max(self.next_allowed[host], self.clock() + gap)


class RobotsCache:
    """robots.txt per host, fetched once (through the same session and clock as the pages).

    As Google does: a 4xx robots.txt allows everything, a 5xx or unreachable one disallows
    everything for now, because the site may be overloaded.
    """

    def __init__(self, fetch_text: Callable[[str], tuple[int | None, str]], user_agent: str):
        self.fetch_text = fetch_text
        self.user_agent = user_agent
        self.rules: dict[str, Protego | None] = {}
        self.locks: dict[str, threading.Lock] = {}  # a site's: its robots.txt is fetched by one thread, once
        self.lock = threading.Lock()

    def _rules(self, url: str) -> Protego | None:
        parts = urlsplit(url)
        key = f'{parts.scheme}://{parts.netloc}'
        if key in self.rules:
            return self.rules[key]
        with self.lock:
            site_lock = self.locks.setdefault(key, threading.Lock())
        with site_lock:
            if key not in self.rules:
                status, text = self.fetch_text(f'{key}/robots.txt')
                if status is not None and 200 <= status < 300:
                    self.rules[key] = Protego.parse(text)
                elif status is not None and 400 <= status < 500:
                    self.rules[key] = Protego.parse('')
                else:
                    self.rules[key] = None
        return self.rules[key]

    def allowed(self, url: str) -> bool:
        rules = self._rules(url)
        return rules is not None and rules.can_fetch(url, self.user_agent)

    def crawl_delay(self, url: str) -> float | None:
        rules = self._rules(url)
        return rules.crawl_delay(self.user_agent) if rules is not None else None


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (moment - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def _is_redirect(response: urllib3.BaseHTTPResponse) -> bool:
    return response.status in REDIRECT_STATUSES and 'Location' in response.headers


class _TooLarge(Exception):
    pass


class _Deadline(Exception):
    pass


class Fetcher:
    """Fetches URLs; one instance per worker (DoFn setup/teardown), its politeness clock, robots
    rules and urllib3 connection pools shared by the threads that call it (urllib3's pools are
    thread-safe). A connection is kept alive for the host's (or the proxy's) next request once a
    response has been read to its end, and closed otherwise. urllib3 directly, not requests: its
    sessions prepare and merge settings for every request, and closed the connection after each
    streamed body; 0.60 -> 0.39 ms of CPU a CWCED page through a replay proxy.

    A host whose requests time out policy.host_timeouts times in a row is given up for as long as
    this Fetcher lives (a worker's round): each of its other URLs ends in 'host_unresponsive'
    without a request. A host that does not answer would otherwise hold its thread, and so the
    round, for a connect timeout per URL (Nutch purges a fetch queue after so many exceptions,
    for the same reason). A response of any kind resets the count."""

    def __init__(self, policy: FetchPolicy = FetchPolicy(), sleep: Callable[[float], None] = time.sleep):
        self.policy = policy
        self.sleep = sleep
        self.clock = HostClock(policy.host_delay, sleep)
        self.robots = RobotsCache(self._robots_text, policy.user_agent)
        self.timeouts_in_a_row: collections.Counter = collections.Counter()  # host -> its last requests' timeouts
        # Only the policy's proxy, never one from the environment; as many kept-alive connections
        # per host (or to the proxy) as hosts are fetched at once.
        settings = dict(maxsize=max(1, policy.hosts_at_once), cert_reqs='CERT_REQUIRED', ca_certs=certifi.where(),
                        headers={'User-Agent': policy.user_agent,
                                 'Accept': 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
                                 'Accept-Encoding': 'gzip, deflate'})
        self.http = urllib3.ProxyManager(policy.proxy, **settings) if policy.proxy else urllib3.PoolManager(**settings)
        self.timeout = urllib3.Timeout(connect=policy.connect_timeout, read=policy.read_timeout)

    def close(self) -> None:
        self.http.clear()

    @contextlib.contextmanager
    def _get(self, url: str) -> Iterator[urllib3.BaseHTTPResponse]:
        """One GET, its redirect not followed, nothing retried, its body left to read (`_read`)."""
        response = self.http.request('GET', url, redirect=False, retries=False, preload_content=False,
                                     decode_content=False, timeout=self.timeout)
        try:
            yield response
        finally:
            if not response.closed:  # body not read to its end: the connection cannot serve another request
                response.close()
            response.release_conn()

    def _robots_text(self, url: str) -> tuple[int | None, str]:
        try:
            check_address(url, self.policy)
            self.clock.wait(host_of(url))
            with self._get(url) as response:
                if _is_redirect(response):  # not followed (its target is unchecked): as if absent
                    return 404, ''
                body = self._read(response, time.monotonic() + self.policy.total_timeout)
            return response.status, body.decode('utf-8', errors='replace')
        except (urllib3.exceptions.HTTPError, http.client.HTTPException, PolicyRefused, _TooLarge, _Deadline, OSError):
            return None, ''

    def fetch(self, url: str) -> FetchResult:
        """Fetch one URL (normalised first); never raises for anything the web does."""
        try:
            url = normalize_url(url)
        except UrlError as error:
            return FetchResult(url, [Attempt(url, 1, 'policy_refused', error=str(error))])
        host, given_up_after = host_of(url), self.policy.host_timeouts
        if given_up_after and self.timeouts_in_a_row[host] >= given_up_after:
            return FetchResult(url, [Attempt(url, 1, 'host_unresponsive', error=(
                f'not requested: {self.timeouts_in_a_row[host]} requests to {host} in a row timed out in this '
                'round; a larger --timeout or --host-timeouts waits longer for a slow host'))])
        attempts, body, headers = [], b'', {}
        for number in range(1, self.policy.max_retries + 2):
            attempt, body, headers, wait = self._attempt(url, number)
            attempts.append(attempt)
            if attempt.outcome == 'timeout':
                self.timeouts_in_a_row[host] += 1
            elif attempt.http_status is not None:
                self.timeouts_in_a_row[host] = 0
            if wait is None:
                break
            self.sleep(wait)
        return FetchResult(url, attempts, body, headers)

    def _attempt(self, url: str, number: int) -> tuple[Attempt, bytes, dict, float | None]:
        """One attempt, redirects included; the last value is how long to wait before a retry
        (None: no retry)."""
        policy = self.policy
        attempt = Attempt(url, number, 'error', started_at=datetime.datetime.now(datetime.timezone.utc))
        started = time.monotonic()
        deadline = started + policy.total_timeout
        current, body, headers, wait = url, b'', {}, None
        try:
            while current is not None:
                check_address(current, policy)
                if policy.obey_robots and not self.robots.allowed(current):
                    attempt.outcome = 'robots_disallowed'
                    break
                self.clock.wait(host_of(current), self.robots.crawl_delay(current) if policy.obey_robots else None)
                if attempt.http_status is None:  # the attempt starts when its first request goes out
                    attempt.started_at = datetime.datetime.now(datetime.timezone.utc)
                    started = time.monotonic()
                    deadline = started + policy.total_timeout
                with self._get(current) as response:
                    attempt.http_status = response.status
                    attempt.final_url = current
                    attempt.content_type = response.headers.get('Content-Type')
                    if _is_redirect(response):
                        current = self._next_hop(attempt, current, response)
                        continue
                    if response.status >= 400:
                        attempt.outcome = 'http_5xx' if response.status >= 500 else 'http_4xx'
                        wait = self._retry_wait(response, number)
                    else:
                        body = self._html_body(attempt, response, deadline)
                        headers = dict(response.headers) if attempt.outcome == 'ok' else {}
                    current = None
        except PolicyRefused as error:
            attempt.outcome, attempt.error = 'policy_refused', str(error)
        except _TooLarge as error:
            attempt.outcome, attempt.error = 'too_large', str(error)
        except (_Deadline, urllib3.exceptions.TimeoutError) as error:
            attempt.outcome, attempt.error = 'timeout', str(error) or 'timed out'
        except (urllib3.exceptions.HTTPError, http.client.HTTPException, OSError, zlib.error) as error:
            attempt.outcome, attempt.error = 'error', f'{type(error).__name__}: {error}'
        attempt.elapsed_ms = (time.monotonic() - started) * 1000
        return attempt, body, headers, wait

    def _next_hop(self, attempt: Attempt, current: str, response: urllib3.BaseHTTPResponse) -> str | None:
        """Where a redirect leads, or None when the chain stops here (outcome 'redirect'): too many
        hops, an unusable Location, or a loop."""
        attempt.redirects.append(current)
        if len(attempt.redirects) > self.policy.max_redirects:
            attempt.outcome, attempt.error = 'redirect', f'more than {self.policy.max_redirects} redirects'
            return None
        try:
            target = normalize_url(urljoin(current, response.headers.get('Location', '')))
        except UrlError as error:
            attempt.outcome, attempt.error = 'redirect', f'redirect to {error}'
            return None
        if target in attempt.redirects:
            attempt.outcome, attempt.error = 'redirect', f'redirect loop at {target}'
            return None
        return target

    def _retry_wait(self, response: urllib3.BaseHTTPResponse, number: int) -> float | None:
        """Seconds to wait before retrying a 429 or 503 (Retry-After, else exponential backoff), or
        None for no retry: another status, retries spent, or a Retry-After longer than we wait."""
        policy = self.policy
        if response.status not in RETRY_STATUSES or number > policy.max_retries:
            return None
        wait = retry_after_seconds(response.headers.get('Retry-After'))
        wait = policy.backoff_seconds * 2 ** (number - 1) if wait is None else wait
        return wait if wait <= policy.max_retry_after else None

    def _html_body(self, attempt: Attempt, response: urllib3.BaseHTTPResponse, deadline: float) -> bytes:
        """The body of an HTML response (outcome 'ok'), else b'' (outcome 'not_html'). A response
        without a Content-Type is read and sniffed; one declaring another type is not read."""
        content_type = (attempt.content_type or '').split(';')[0].strip().lower()
        if content_type and content_type not in HTML_TYPES:
            attempt.outcome = 'not_html'
            return b''
        body = self._read(response, deadline)
        attempt.bytes = len(body)
        if not content_type and not looks_like_html(body):
            attempt.outcome = 'not_html'
            return b''
        attempt.outcome = 'ok'
        return body

    def _read(self, response: urllib3.BaseHTTPResponse, deadline: float) -> bytes:
        """The body, inflated by hand so that neither the wire bytes nor the inflated bytes can
        pass their caps, and the whole read cannot pass the deadline."""
        policy = self.policy
        declared = response.headers.get('Content-Length', '')
        if declared.isdigit() and int(declared) > policy.max_body_bytes:
            raise _TooLarge(f'Content-Length {declared} is over the {policy.max_body_bytes}-byte cap')
        encoding = response.headers.get('Content-Encoding', '').strip().lower()
        inflater = zlib.decompressobj(47) if encoding in ('gzip', 'x-gzip', 'deflate') else None
        wire, pieces, inflated = 0, [], 0
        while chunk := response.read1(CHUNK_BYTES, decode_content=False):  # returns what has arrived
            wire += len(chunk)
            if wire > policy.max_body_bytes:
                raise _TooLarge(f'body over the {policy.max_body_bytes}-byte cap')
            if inflater is not None:
                chunk = inflater.decompress(chunk, policy.max_inflated_bytes - inflated + 1)
                if inflater.unconsumed_tail:
                    raise _TooLarge(f'inflates to over {policy.max_inflated_bytes} bytes')
            inflated += len(chunk)
            if inflated > policy.max_inflated_bytes:
                raise _TooLarge(f'inflates to over {policy.max_inflated_bytes} bytes')
            pieces.append(chunk)
            if time.monotonic() > deadline:
                raise _Deadline(f'response not complete within {policy.total_timeout:g} s')
        return b''.join(pieces)


Item = TypeVar('Item')


class HostFetchPool:
    """Fetches up to `hosts_at_once` hosts' URL lists at once, a thread per list fetching its URLs
    in order, and hands each (item, FetchResult) back to the thread that asks (`completed`), which
    does the CPU work on it while the others wait on the network and on their host's delay.

    Results are handed over through a queue of a few pages, so fetching stays ahead of the work
    without holding a round's bodies in memory. An exception in `fetch` (a bug: Fetcher.fetch
    does not raise for anything the web does) is raised in the asking thread."""

    def __init__(self, fetch: Callable[[str], FetchResult], hosts_at_once: int):
        if hosts_at_once < 1:
            raise ValueError(f'hosts_at_once must be at least 1, not {hosts_at_once}')
        self.fetch = fetch
        self.threads = ThreadPoolExecutor(hosts_at_once, thread_name_prefix='fetch')
        self.results: queue.Queue = queue.Queue(maxsize=2 * hosts_at_once)
        self.outstanding = 0  # submitted and not yet handed back; only the asking thread changes it
        self.closed = threading.Event()

    def submit(self, items: list[Item], url_of: Callable[[Item], str]) -> None:
        """Fetch one host's items, in this order, one at a time."""
        self.outstanding += len(items)
        self.threads.submit(self._fetch_in_turn, list(items), url_of)

    def completed(self, wait: bool) -> Iterator[tuple[Item, FetchResult]]:
        """The results fetched so far (wait=False), or every outstanding one as it arrives (wait=True)."""
        while self.outstanding:
            try:
                item, result = self.results.get(block=wait)
            except queue.Empty:
                return
            self.outstanding -= 1
            if isinstance(result, BaseException):
                raise result
            yield item, result

    def close(self) -> None:
        """Stop the threads, dropping what they have not handed back (a failed bundle's)."""
        self.closed.set()
        self.threads.shutdown(wait=False, cancel_futures=True)
        while True:
            try:
                self.results.get_nowait()
            except queue.Empty:
                break
        self.threads.shutdown(wait=True)
        self.outstanding = 0

    def _fetch_in_turn(self, items: list, url_of: Callable) -> None:
        for item in items:
            if self.closed.is_set():
                return
            try:
                result = self.fetch(url_of(item))
            except BaseException as error:  # handed over, so the asking thread does not wait forever
                result = error
            while not self.closed.is_set():
                try:
                    self.results.put((item, result), timeout=0.1)
                    break
                except queue.Full:
                    continue

"""Deterministic fault injection: the sandbox web misbehaves the way the real one does.

A FaultPlan decides from a stable hash of each archived URL (scheme and the fault's own
focal-hop/focal-loop parameters ignored) whether it is served with a fault, so the same URL
fails the same way in every run, on any WARC. Each kind owns a band of the hash range as wide
as its rate, so a URL has at most one fault. robots.txt is never faulted.

Profiles: `none`, `mild` (a realistic web: some slow pages, 1% errors, 1% rate limits, 1% wrong
charsets), `hostile` (every kind on 2.5% of URLs), or a YAML file:

    rates: {latency: 0.05, slow_drip: 0.02}     # kind -> share of URLs
    latency_seconds: 0.2                        # plus any of the other SETTINGS below

The calendar trap is the classic infinite crawler trap: calendar.trap.test generates month and
day pages linking onward forever; with calendar_trap > 0 the picked HTML pages link into it.
"""
import calendar
import dataclasses
import datetime
import functools
import hashlib
import html
import http
import itertools
import random
import re
import struct
import threading
import time
import zlib
from pathlib import Path
from typing import Iterable, Iterator
from urllib.parse import urlsplit

import yaml

from models.html import detect_encoding, header_charset
from models.urls import UrlError, normalize_url
from sandbox.archive import ArchivedResponse

KINDS = ('latency', 'server_error', 'rate_limited', 'slow_drip', 'redirect_chain', 'long_redirect_chain',
         'redirect_loop', 'oversized', 'binary', 'gzip_bomb', 'wrong_charset', 'calendar_trap')
SETTINGS = {'latency_seconds': 0.2, 'drip_seconds': 5.0, 'oversized_bytes': 8 << 20, 'bomb_bytes': 1 << 30,
            'redirect_hops': 3}
PROFILES = {
    'none': {'rates': {}},
    'mild': {'rates': {'latency': 0.03, 'server_error': 0.01, 'rate_limited': 0.01, 'wrong_charset': 0.01}},
    'hostile': {'rates': dict.fromkeys(KINDS, 0.025), 'latency_seconds': 1.0},
}
LONG_REDIRECT_HOPS = 8           # more than the 5 redirects a crawler follows
DRIP_PIECES = 10
BINARY_BYTES = 64 << 10
CALENDAR_HOST = 'calendar.trap.test'
CALENDAR_ENTRY = f'http://{CALENDAR_HOST}/2011/01/'
_HOP, _LOOP = 'focal-hop', 'focal-loop'
_REDIRECTS = {'redirect_chain', 'long_redirect_chain', 'redirect_loop'}
_BODY_END = re.compile(rb'</body', re.I)
_CALENDAR_PATH = re.compile(r'^/(\d{4})/(\d{2})/(?:(\d{2})/)?$')
_PADDING = b'<p>' + b'filler text of an oversized page ' * 1984 + b'</p>\n'  # about 64 KiB


class FaultError(ValueError):
    """A fault profile Focal cannot use; the message says what is allowed."""


@dataclasses.dataclass
class Reply:
    """An HTTP answer as the server writes it; `body` is bytes or a stream of `length` bytes
    (faults pad, drip and inflate bodies that are never held in memory)."""
    status: int
    headers: list[tuple[str, str]]
    body: bytes | Iterable[bytes] = b''
    length: int | None = None
    reason: str = ''

    def __post_init__(self):
        if self.length is None:
            self.length = len(self.body)
        self.reason = self.reason or _reason(self.status)

    @classmethod
    def archived(cls, response: ArchivedResponse) -> 'Reply':
        return cls(response.status, list(response.headers), response.body, reason=response.reason)

    @classmethod
    def page(cls, status: int, title: str, message: str = '',
             headers: Iterable[tuple[str, str]] = ()) -> 'Reply':
        """A small HTML page, as servers send with errors and redirects."""
        body = (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
                f'<body><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p></body></html>\n').encode()
        return cls(status, [('Content-Type', 'text/html; charset=utf-8'), *headers], body)


class FaultPlan:
    """Which archived URL is served with which fault, and how.

    A plan remembers the rate-limited URLs it has refused once, so give each server its own.
    """

    def __init__(self, profile: str | Path = 'none'):
        self.name = str(profile)
        settings = _profile_settings(profile)
        self.rates: dict[str, float] = settings['rates']
        self.latency_seconds: float = settings['latency_seconds']
        self.drip_seconds: float = settings['drip_seconds']
        self.oversized_bytes: int = settings['oversized_bytes']
        self.bomb_bytes: int = settings['bomb_bytes']
        self.redirect_hops: int = settings['redirect_hops']
        self._bands = []                       # (upper bound of the kind's hash band, kind)
        upper = 0.0
        for kind in KINDS:
            if self.rates.get(kind):
                upper += self.rates[kind]
                self._bands.append((upper, kind))
        self._rate_limited_once: set[str] = set()
        self._lock = threading.Lock()

    def fault_for(self, url: str) -> str | None:
        """The fault kind `url` is served with, or None."""
        if not self._bands:
            return None
        try:
            identity = _identity(url)
        except UrlError:
            return None
        if identity.partition('?')[0].endswith('/robots.txt'):
            return None
        place = _hash_fraction(identity)
        return next((kind for upper, kind in self._bands if place < upper), None)

    def example_urls(self, kind: str, urls: Iterable[str], n: int) -> list[str]:
        """The first `n` of `urls` served with fault `kind` (tests pick their cases with it)."""
        _check_kinds([kind])
        return list(itertools.islice((url for url in urls if self.fault_for(url) == kind), n))

    def lookup_url(self, url: str) -> str:
        """The archived URL a request for `url` is answered from: a redirect fault's hop and loop
        URLs are answered from the page they started at."""
        if self.fault_for(url) in _REDIRECTS:
            return _without_fault_parameters(url)
        return url

    def serve(self, url: str, response: ArchivedResponse) -> Reply:
        """The reply to a request for `url` (normalised), whose archived response is `response`."""
        kind = self.fault_for(url)
        if kind is None:
            return Reply.archived(response)
        return getattr(self, f'_{kind}')(url, response)

    # -- one method per fault kind ----------------------------------------------------------

    def _latency(self, url: str, response: ArchivedResponse) -> Reply:
        time.sleep(self.latency_seconds)
        return Reply.archived(response)

    def _server_error(self, url: str, response: ArchivedResponse) -> Reply:
        status = 503 if _hash_fraction('status ' + _identity(url)) < 0.5 else 500
        return Reply.page(status, _reason(status), 'The server could not answer; try again later.')

    def _rate_limited(self, url: str, response: ArchivedResponse) -> Reply:
        identity = _identity(url)
        with self._lock:
            first = identity not in self._rate_limited_once
            self._rate_limited_once.add(identity)
        if not first:
            return Reply.archived(response)
        return Reply.page(429, 'Too Many Requests', 'Slow down.', [('Retry-After', '1')])

    def _slow_drip(self, url: str, response: ArchivedResponse) -> Reply:
        body, pause = response.body, self.drip_seconds / DRIP_PIECES

        def drip() -> Iterator[bytes]:
            size = max(-(-len(body) // DRIP_PIECES), 1)
            for start in range(0, len(body), size):
                if start:
                    time.sleep(pause)
                yield body[start:start + size]
        return dataclasses.replace(Reply.archived(response), body=drip(), length=len(body))

    def _redirect_chain(self, url: str, response: ArchivedResponse, hops: int | None = None) -> Reply:
        hops = hops or self.redirect_hops
        hop = _parameter(url, _HOP)
        if hop.isdigit() and int(hop) >= hops:
            return Reply.archived(response)
        following = int(hop) + 1 if hop.isdigit() else 1
        return _redirect(_with_parameter(_without_fault_parameters(url), _HOP, following))

    def _long_redirect_chain(self, url: str, response: ArchivedResponse) -> Reply:
        return self._redirect_chain(url, response, LONG_REDIRECT_HOPS)

    def _redirect_loop(self, url: str, response: ArchivedResponse) -> Reply:
        start = _without_fault_parameters(url)
        return _redirect(start if _parameter(url, _LOOP) else _with_parameter(start, _LOOP, 1))

    def _oversized(self, url: str, response: ArchivedResponse) -> Reply:
        padding = max(self.oversized_bytes - len(response.body), 0)
        headers = _replaced(response.headers, 'Content-Type', 'text/html')
        return Reply(200, headers, _padded(response.body, padding), len(response.body) + padding)

    def _binary(self, url: str, response: ArchivedResponse) -> Reply:
        noise = random.Random(hashlib.sha256(_identity(url).encode()).digest()).randbytes(BINARY_BYTES)
        return Reply(200, [('Content-Type', 'application/octet-stream')], noise)

    def _gzip_bomb(self, url: str, response: ArchivedResponse) -> Reply:
        headers = [('Content-Type', 'text/html'), ('Content-Encoding', 'gzip')]
        return Reply(200, headers, gzip_bomb(self.bomb_bytes))

    def _wrong_charset(self, url: str, response: ArchivedResponse) -> Reply:
        reply = Reply.archived(response)
        content_type = response.header('Content-Type') or ''
        if not content_type.lower().startswith('text/'):
            return reply
        actual = detect_encoding(response.body, header_charset(content_type))
        wrong = {'utf-8': 'gbk', 'gb18030': 'utf-8', 'cp1252': 'utf-8'}.get(actual, 'iso-8859-1')
        mime = content_type.split(';')[0].strip()
        reply.headers = _replaced(reply.headers, 'Content-Type', f'{mime}; charset={wrong}')
        return reply

    def _calendar_trap(self, url: str, response: ArchivedResponse) -> Reply:
        reply = Reply.archived(response)
        if response.status != 200 or 'html' not in (response.header('Content-Type') or '').lower():
            return reply
        link = f'<p><a href="{CALENDAR_ENTRY}">Events calendar</a></p>'.encode()
        end = _BODY_END.search(response.body)
        at = end.start() if end else len(response.body)
        return dataclasses.replace(reply, body=response.body[:at] + link + response.body[at:], length=None)


def calendar_reply(url: str) -> Reply:
    """A page of the infinite calendar: month pages link the months around them and their
    days; day pages link back to their month and to the days around them."""
    path = urlsplit(url).path
    if path == '/':
        return _redirect(CALENDAR_ENTRY)
    match = _CALENDAR_PATH.match(path)
    try:
        year, month = int(match[1]), int(match[2])
        day = datetime.date(year, month, int(match[3])) if match[3] else None
        first = datetime.date(year, month, 1)
    except (TypeError, ValueError):  # no match, or no such date
        return Reply.page(404, 'Not Found', f'No calendar page at {path}.')
    days_in_month = calendar.monthrange(year, month)[1]
    if day:
        title = f'Events on {_calendar_name(day, True)}'
        links = [(first, False), (_shifted(day, -1), True), (_shifted(day, 1), True)]
    else:
        title = f'Events in {_calendar_name(first, False)}'
        links = [(_shifted(first, -1), False), (_shifted(first, days_in_month), False)]
        links += [(first.replace(day=d), True) for d in range(1, days_in_month + 1)]
    anchors = ''.join(f'<li><a href="{_calendar_url(date, with_day)}">{_calendar_name(date, with_day)}</a></li>'
                      for date, with_day in links if date)
    body = (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head><body>'
            f'<h1>{title}</h1><p>No events.</p><ul>{anchors}</ul></body></html>\n').encode()
    return Reply(200, [('Content-Type', 'text/html; charset=utf-8')], body)


@functools.lru_cache(maxsize=2)
def gzip_bomb(size: int) -> bytes:
    """A gzip member of about size/1000 bytes that inflates to `size` bytes of a blank HTML page.

    One MiB of blanks is compressed once and repeated: a full flush ends every deflate block
    and clears the history, so copies of the compressed MiB decode independently.
    """
    head, block = b'<!DOCTYPE html><html><body>', b' ' * (1 << 20)
    full_blocks, rest = divmod(size - len(head), len(block))
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    start = compressor.compress(head) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.compress(block[:rest]) + compressor.flush()
    checksum = zlib.crc32(head)
    for _ in range(full_blocks):
        checksum = zlib.crc32(block, checksum)
    checksum = zlib.crc32(block[:rest], checksum)
    header = b'\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff'  # gzip, deflate, no name, no time
    return header + start + repeated * full_blocks + end + struct.pack('<II', checksum, size & 0xffffffff)


# -- profiles ------------------------------------------------------------------------------


def _profile_settings(profile: str | Path) -> dict:
    if str(profile) in PROFILES:
        chosen = PROFILES[str(profile)]
    elif Path(profile).is_file():
        try:
            chosen = yaml.safe_load(Path(profile).read_text(encoding='utf-8'))
        except (yaml.YAMLError, UnicodeDecodeError) as error:
            raise FaultError(f'fault profile {profile} is not valid YAML: {error}') from None
        if not isinstance(chosen, dict):
            raise FaultError(f'fault profile {profile} must be a mapping like "rates: {{latency: 0.05}}"')
    else:
        raise FaultError(f'unknown fault profile {profile!r}: use one of {", ".join(PROFILES)} '
                         'or the path of a YAML profile')
    unknown = set(chosen) - set(SETTINGS) - {'rates'}
    if unknown:
        raise FaultError(f'fault profile {profile} has unknown settings {sorted(unknown)}: '
                         f'allowed are rates, {", ".join(SETTINGS)}')
    rates = chosen.get('rates') or {}
    if not isinstance(rates, dict):
        raise FaultError(f'rates in fault profile {profile} must map fault kinds to shares of URLs')
    _check_kinds(rates)
    settings = {**SETTINGS, **{k: v for k, v in chosen.items() if k != 'rates'}, 'rates': dict(rates)}
    for name, value in [*settings['rates'].items(), *((k, settings[k]) for k in SETTINGS)]:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise FaultError(f'{name} in fault profile {profile} is {value!r}; give a number >= 0')
    if sum(rates.values()) > 1 + 1e-9:
        raise FaultError(f'the rates in fault profile {profile} add up to {sum(rates.values()):.6g}; '
                         'a URL has at most one fault, so they must add up to 1 at most')
    if settings['redirect_hops'] < 1 or int(settings['redirect_hops']) != settings['redirect_hops']:
        raise FaultError(f'redirect_hops in fault profile {profile} must be a whole number >= 1')
    if settings['bomb_bytes'] < 1024:
        raise FaultError(f'bomb_bytes in fault profile {profile} must be at least 1024')
    return settings


def _check_kinds(kinds: Iterable[str]) -> None:
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise FaultError(f'unknown fault kinds {unknown}: the kinds are {", ".join(KINDS)}')


# -- helpers -------------------------------------------------------------------------------


def _hash_fraction(text: str) -> float:
    """A stable number in [0, 1) for `text` (Python's hash() changes between runs)."""
    return int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], 'big') / 2 ** 64


def _identity(url: str) -> str:
    """What decides a URL's fault: the normalised URL without its scheme and fault parameters."""
    return _without_fault_parameters(normalize_url(url)).partition('://')[2]


def _shifted(date: datetime.date, days: int) -> datetime.date | None:
    try:
        return date + datetime.timedelta(days=days)
    except OverflowError:  # before year 1 or after 9999: the calendar ends there
        return None


def _calendar_url(date: datetime.date, with_day: bool) -> str:
    day = f'{date.day:02d}/' if with_day else ''
    return f'http://{CALENDAR_HOST}/{date.year:04d}/{date.month:02d}/{day}'


def _calendar_name(date: datetime.date, with_day: bool) -> str:
    return f'{date.day} {date:%B} {date.year}' if with_day else f'{date:%B} {date.year}'


def _reason(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ''


def _parameter(url: str, name: str) -> str:
    query = url.partition('?')[2]
    return next((p.partition('=')[2] for p in query.split('&') if p.partition('=')[0] == name), '')


def _without_fault_parameters(url: str) -> str:
    base, _, query = url.partition('?')
    kept = [p for p in query.split('&') if p and p.partition('=')[0] not in (_HOP, _LOOP)]
    return base + ('?' + '&'.join(kept) if kept else '')


def _with_parameter(url: str, name: str, value: int) -> str:
    return f'{url}{"&" if "?" in url else "?"}{name}={value}'


def _redirect(location: str) -> Reply:
    return Reply.page(302, 'Found', f'Moved to {location}.', [('Location', location)])


def _replaced(headers: list[tuple[str, str]], name: str, value: str) -> list[tuple[str, str]]:
    return [(k, v) for k, v in headers if k.lower() != name.lower()] + [(name, value)]


def _padded(body: bytes, padding: int) -> Iterator[bytes]:
    """`body`, then `padding` bytes of filler paragraphs, streamed in 64 KiB pieces."""
    yield body
    while padding > 0:
        piece = _PADDING[:padding]
        padding -= len(piece)
        yield piece

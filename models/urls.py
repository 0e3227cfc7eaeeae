"""URL normalisation (RFC 3986 section 6), so one page has one key everywhere.

The crawler's seen-set, the graph's edges and the sandbox's archive lookup all use
`normalize_url`: scheme and host lower-cased, default port dropped, fragment dropped, dot
segments resolved, percent-encoding made canonical (unreserved characters decoded, hex
upper-cased, non-ASCII encoded as UTF-8), an empty path made '/'. The query keeps its order:
reordering parameters changes meaning on some sites.
"""
import functools
import posixpath
import re
from urllib.parse import quote, urlsplit, urlunsplit

DEFAULT_PORTS = {'http': 80, 'https': 443}
_PERCENT = re.compile(r'%[0-9A-Fa-f]{2}')
# Characters left as they are in each part: RFC 3986 reserved and sub-delims, plus '%'
# (already-encoded bytes are canonicalised separately, never encoded twice).
_SAFE_PATH = "/:@!$&'()*+,;=%"
_SAFE_QUERY = "/?:@!$&'()*+,;=%"
_UNRESERVED = frozenset('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')
# A URL normalisation leaves as it is but for its fragment and an empty path: lower-case scheme
# and host name, no port or user, only characters no part encodes and upper-case escapes of
# bytes that are not unreserved characters, no '//' or '.' / '..' segment in the path, no empty
# '?'. Most links of real pages are like this. Runs of plain characters are matched possessively
# (++), not one alternation per character: 0.8 against 2.1 µs a URL, most of resolving a new link.
_PLAIN = r"A-Za-z0-9\-._~:@!$&'()*+,;="
_ESCAPE = r"%(?:[0189A-F][0-9A-F]|2[0-9A-CF]|3[A-F]|40|5[B-E]|60|7[B-DF])"
_CANONICAL = re.compile(
    rf"(https?://[a-z0-9-]+(?:\.[a-z0-9-]+)*)"
    rf"((?:/(?!\.\.?(?:[/?#]|\Z))(?:[{_PLAIN}]++|{_ESCAPE})+)*/?)"
    rf"(\?(?:[{_PLAIN}/?]++|{_ESCAPE})+)?(?:#\S*)?\Z")


class UrlError(ValueError):
    """Not an absolute http(s) URL."""


def _canonical_percent(part: str, safe: str) -> str:
    """Encode what must be encoded; decode escapes of unreserved characters; upper-case hex."""
    def canonical(match):
        character = chr(int(match.group()[1:], 16))
        return character if character in _UNRESERVED else match.group().upper()
    return _PERCENT.sub(canonical, quote(part, safe=safe))


def _remove_dot_segments(path: str) -> str:
    if '.' not in path:
        return path
    resolved = posixpath.normpath(path)
    if resolved.startswith('//'):
        resolved = '/' + resolved.lstrip('/')
    if path.endswith(('/', '/.', '/..')) and resolved != '/':
        resolved += '/'
    return resolved


@functools.lru_cache(maxsize=1 << 16)
def normalize_url(url: str) -> str:
    """The canonical form of an absolute http(s) URL; raises UrlError for anything else.

    Cached: a crawl meets the same navigation and related links on page after page. A URL that is
    canonical already (_CANONICAL) is returned without its fragment at a tenth of the cost.
    """
    canonical = _CANONICAL.match(url)
    if canonical:
        origin, path, query = canonical.groups()
        return f'{origin}{path or "/"}{query or ""}'
    return _normalize_parts(url)


def _normalize_parts(url: str) -> str:
    """normalize_url the long way: split, canonicalise each part, join."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise UrlError(f'malformed URL {url!r}: {error}') from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        raise UrlError(f'not an absolute http(s) URL: {url!r}')
    host = parts.hostname.rstrip('.')
    try:
        host = host.encode('idna').decode('ascii') if not host.isascii() else host.lower()
    except UnicodeError:
        raise UrlError(f'malformed host name in {url!r}') from None
    if ':' in host:
        host = f'[{host}]'
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f'{host}:{port}'
    if parts.username is not None:
        userinfo = parts.username + (f':{parts.password}' if parts.password is not None else '')
        netloc = f'{userinfo}@{netloc}'
    path = _remove_dot_segments(_canonical_percent(parts.path, _SAFE_PATH)) or '/'
    query = _canonical_percent(parts.query, _SAFE_QUERY)
    return urlunsplit((scheme, netloc, path, query, ''))


@functools.lru_cache(maxsize=1 << 16)
def host_of(url: str) -> str:
    """The lower-case host name of a URL ('' when there is none). Cached: a site's menu links
    recur on each of its pages, and urlsplit is a good part of scoring a link."""
    return (urlsplit(url).hostname or '').rstrip('.')


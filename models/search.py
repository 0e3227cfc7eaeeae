"""Search providers for discovery (DWDBRM §4.2: keyword search, related search, backlinks), behind
one interface, every call recorded.

A provider answers `keyword(query, n)`, `related(url, n)` and `backlinks(url, n)` with results
(URL, title, snippet), or raises SearchError with a typed kind. `call()` runs one of them and
returns the results with a `SearchCall`: what was asked, how many results, the kind of failure,
the HTTP status, the latency and the cost (requests sent), one row of a round's discover_log.

HTTP providers (each tested against a local server that answers as its API documents):
* `SandboxSearch`: Focal's sandbox server, `/search`, `/related`, `/backlinks` (also on a WARC replay).
* `SearxngSearch`: a self-hosted SearXNG, `/search?format=json` (JSON must be enabled in its
  settings.yml, else 403). Keyword search only: SearXNG has no related or backlink search.
* `BraveSearch`: the Brave Search API, `/res/v1/web/search`, key in the X-Subscription-Token
  header (from BRAVE_API_KEY). Keyword search only.
A 429 is retried after its Retry-After (or X-RateLimit-Reset) when that is short; longer waits,
401, 403, other errors and timeouts end the call with their kind, and discovery goes on.
"""
import dataclasses
import os
import time
from urllib.parse import urlsplit

import requests

from models.fetch import retry_after_seconds
from models.urls import UrlError, normalize_url

METHODS = ('keyword', 'related', 'backlinks')
KINDS = ('ok', 'empty', 'unsupported', 'unauthorized', 'forbidden', 'rate_limited', 'timeout', 'http_error',
         'bad_response', 'error')
TIMEOUT = 20.0              # seconds for one API request
MAX_RETRY_WAIT = 10.0       # a 429 asking for a longer wait is not retried
MAX_RETRIES = 2
USER_AGENT = 'FocalBot/0.1 (focused crawler; +https://github.com/focal-crawler/focal)'
BRAVE_URL = 'https://api.search.brave.com/res/v1'
BRAVE_KEY_VARIABLE = 'BRAVE_API_KEY'
BRAVE_MAX_COUNT = 20        # Brave's web search returns at most 20 results a request


class SearchError(Exception):
    """A search call that gave no results; `kind` is one of KINDS."""

    def __init__(self, kind: str, message: str, http_status: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.http_status = http_status


class ProviderError(ValueError):
    """A provider that cannot be set up as given; the message says what to do."""


@dataclasses.dataclass(frozen=True)
class SearchResult:
    url: str        # normalised
    title: str
    snippet: str
    rank: int       # 0 = the provider's first


@dataclasses.dataclass
class SearchCall:
    """One row of discover_log."""
    provider: str
    method: str
    query: str
    results: int = 0
    outcome: str = 'ok'
    http_status: int | None = None
    error: str | None = None
    elapsed_ms: float = 0.0
    requests: int = 0           # what it cost: HTTP requests sent (retries included)


class SearchProvider:
    """Base: subclasses set `name` and implement the methods they support."""
    name = ''

    def __init__(self):
        self.requests = 0       # requests sent by the call under way (its cost)
        self.last_status: int | None = None

    def keyword(self, query: str, n: int) -> list[SearchResult]:
        raise SearchError('unsupported', f'{self.name} has no keyword search')

    def related(self, url: str, n: int) -> list[SearchResult]:
        raise SearchError('unsupported', f'{self.name} has no related search')

    def backlinks(self, url: str, n: int) -> list[SearchResult]:
        raise SearchError('unsupported', f'{self.name} has no backlink search')

    def close(self) -> None:
        pass


def call(provider: SearchProvider, method: str, query: str, n: int) -> tuple[list[SearchResult], SearchCall]:
    """Run one search; never raises for a failed search (the SearchCall says what happened)."""
    if method not in METHODS:
        raise ValueError(f'unknown search method {method!r}')
    record = SearchCall(provider.name, method, query)
    provider.requests, provider.last_status = 0, None
    started = time.monotonic()
    try:
        results = getattr(provider, method)(query, n)
        record.outcome = 'ok' if results else 'empty'
    except SearchError as error:
        results, record.outcome, record.error = [], error.kind, str(error)
    record.results, record.requests = len(results), provider.requests
    record.http_status = provider.last_status
    record.elapsed_ms = (time.monotonic() - started) * 1000
    return results, record


def results_from(items, url_key: str, title_key: str, snippet_key: str, n: int) -> list[SearchResult]:
    """SearchResults from an API's result objects: normalised http(s) URLs, each once, at most n."""
    results, seen = [], set()
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        try:
            url = normalize_url(str(item.get(url_key) or ''))
        except UrlError:
            continue
        if url in seen:
            continue
        seen.add(url)
        results.append(SearchResult(url, str(item.get(title_key) or ''), str(item.get(snippet_key) or ''), len(results)))
        if len(results) == n:
            break
    return results


class HttpSearchProvider(SearchProvider):
    """JSON over HTTP with typed failures and short 429 waits."""

    def __init__(self, base_url: str, timeout: float = TIMEOUT, sleep=time.sleep):
        super().__init__()
        self.base_url = base_url.rstrip('/')
        self.timeout = timeout
        self.sleep = sleep
        self.session = requests.Session()
        self.session.headers['User-Agent'] = USER_AGENT
        self.session.trust_env = False  # no proxy from the environment: the provider is where it was said to be

    def get_json(self, path: str, params: dict, headers: dict | None = None) -> dict:
        for attempt in range(MAX_RETRIES + 1):
            self.requests += 1
            try:
                response = self.session.get(f'{self.base_url}{path}', params=params, headers=headers,
                                            timeout=self.timeout)
            except requests.Timeout:
                raise SearchError('timeout', f'{self.name} did not answer within {self.timeout:g} s') from None
            except requests.RequestException as error:
                raise SearchError('error', f'{self.name} at {self.base_url} cannot be reached: {error}') from None
            self.last_status = response.status_code
            if response.status_code == 429:
                wait = self.retry_wait(response)
                if wait is None or wait > MAX_RETRY_WAIT or attempt == MAX_RETRIES:
                    raise SearchError('rate_limited', f'{self.name} rate limit reached'
                                      + (f' (retry after {wait:g} s)' if wait is not None else ''), 429)
                self.sleep(wait)
                continue
            self.raise_for_status(response)
            try:
                document = response.json()
            except ValueError:
                raise SearchError('bad_response', f'{self.name} answered with something other than JSON',
                                  response.status_code) from None
            if not isinstance(document, dict):
                raise SearchError('bad_response', f'{self.name} answered with JSON that is not an object',
                                  response.status_code)
            return document
        raise AssertionError('unreachable')

    def retry_wait(self, response: requests.Response) -> float | None:
        return retry_after_seconds(response.headers.get('Retry-After'))

    def raise_for_status(self, response: requests.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        detail = response.text[:200].strip()
        if status == 401:
            raise SearchError('unauthorized', f'{self.name} refused the credentials (401): {detail}', status)
        if status == 403:
            raise SearchError('forbidden', f'{self.name} refused the request (403): {detail}', status)
        raise SearchError('http_error', f'{self.name} answered HTTP {status}: {detail}', status)

    def close(self) -> None:
        self.session.close()


class SandboxSearch(HttpSearchProvider):
    """The sandbox server's search API (sandbox/server.py): BM25 keyword search, related pages,
    backlinks; at most 50 results a request."""
    name = 'sandbox'
    PAGE = 50

    def _results(self, path: str, parameter: str, value: str, n: int) -> list[SearchResult]:
        document = self.get_json(path, {parameter: value, 'count': min(n, self.PAGE)})
        return results_from(document.get('results'), 'url', 'title', 'snippet', n)

    def keyword(self, query: str, n: int) -> list[SearchResult]:
        return self._results('/search', 'q', query, n)

    def related(self, url: str, n: int) -> list[SearchResult]:
        return self._results('/related', 'url', url, n)

    def backlinks(self, url: str, n: int) -> list[SearchResult]:
        return self._results('/backlinks', 'url', url, n)


class SearxngSearch(HttpSearchProvider):
    """A SearXNG instance's JSON search API: about 20 results a page, pages fetched until n."""
    name = 'searxng'

    def keyword(self, query: str, n: int) -> list[SearchResult]:
        items, page = [], 1
        while len(items) < n:
            document = self.get_json('/search', {'q': query, 'format': 'json', 'pageno': page})
            found = document.get('results')
            if not isinstance(found, list) or not found:
                break
            items.extend(found)
            page += 1
        return results_from(items, 'url', 'title', 'content', n)

    def raise_for_status(self, response: requests.Response) -> None:
        if response.status_code == 403:
            raise SearchError('forbidden', 'searxng refused format=json (403): enable json under search: formats: '
                              'in its settings.yml', 403)
        super().raise_for_status(response)


class BraveSearch(HttpSearchProvider):
    """The Brave Search API's web search (at most 20 results a request, offsets in pages)."""
    name = 'brave'

    def __init__(self, api_key: str, base_url: str = BRAVE_URL, **options):
        super().__init__(base_url, **options)
        self.api_key = api_key

    def keyword(self, query: str, n: int) -> list[SearchResult]:
        items, offset = [], 0
        while len(items) < n:
            document = self.get_json('/web/search', {'q': query, 'count': BRAVE_MAX_COUNT, 'offset': offset},
                                     headers={'Accept': 'application/json', 'X-Subscription-Token': self.api_key})
            found = (document.get('web') or {}).get('results')
            if not isinstance(found, list) or not found:
                break
            items.extend(found)
            offset += 1
            if offset > 9:  # Brave serves offsets 0-9
                break
        return results_from(items, 'url', 'title', 'description', n)

    def retry_wait(self, response: requests.Response) -> float | None:
        """Retry-After when sent, else the first window of X-RateLimit-Reset ('1, 1419704': seconds)."""
        wait = super().retry_wait(response)
        if wait is None:
            reset = response.headers.get('X-RateLimit-Reset', '').split(',')[0].strip()
            wait = float(reset) if reset.isdigit() else None
        return wait


LINKGRAPH = 'linkgraph'      # Focal's own link graph: carried out in Beam by the Discover stage
PROVIDER_METHODS = {'sandbox': METHODS, LINKGRAPH: ('related', 'backlinks'), 'searxng': ('keyword',),
                    'brave': ('keyword',)}


def provider_methods(spec: str) -> tuple[str, ...]:
    """The search methods the provider of `--search spec` answers."""
    name = spec.partition(':')[0]
    if name not in PROVIDER_METHODS:
        raise ProviderError(f'unknown search provider {spec!r}: sandbox[:URL], linkgraph, searxng:URL or brave')
    return PROVIDER_METHODS[name]


def make_provider(spec: str, proxy: str | None = None) -> SearchProvider:
    """A provider from `--search`: sandbox[:URL], searxng:URL, brave[:URL] (the key from BRAVE_API_KEY).
    `sandbox` alone is the sandbox server the crawl uses as its proxy."""
    name, _, url = spec.partition(':')
    if name == 'sandbox':
        url = url or proxy
        if not url:
            raise ProviderError('--search sandbox needs the sandbox server: give --proxy http://127.0.0.1:PORT '
                                '(the server is the proxy) or --search sandbox:http://127.0.0.1:PORT')
        return SandboxSearch(_http_url(url, spec))
    if name == 'searxng':
        if not url:
            raise ProviderError('--search searxng needs the instance: --search searxng:http://HOST:PORT')
        return SearxngSearch(_http_url(url, spec))
    if name == 'brave':
        key = os.environ.get(BRAVE_KEY_VARIABLE)
        if not key:
            raise ProviderError(f'--search brave needs an API key in the {BRAVE_KEY_VARIABLE} environment variable '
                                '(https://brave.com/search/api/)')
        return BraveSearch(key, _http_url(url, spec) if url else BRAVE_URL)
    raise ProviderError(f'unknown search provider {spec!r}: sandbox[:URL], linkgraph, searxng:URL or brave')


def _http_url(url: str, spec: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ('http', 'https') or not parts.netloc:
        raise ProviderError(f'--search {spec}: {url!r} is not an http(s) URL')
    return url

"""Search providers (models/search.py) against servers on 127.0.0.1: the real sandbox server, and
local servers that answer as the SearXNG and Brave Search APIs document, errors included."""
import http.server
import json
import threading
import urllib.parse

import pytest

from models import search
from models.topic import load_task
from sandbox.server import SandboxServer, open_warcs, open_web
from warc_samples import write_pages


class FakeApi(http.server.ThreadingHTTPServer):
    """An HTTP server on 127.0.0.1 whose answers the test sets: path -> list of (status, headers, body)
    replies served in turn (the last one again once the list runs out); requests are recorded."""

    def __init__(self):
        super().__init__(('127.0.0.1', 0), _Handler)
        self.replies: dict[str, list] = {}
        self.requests: list[tuple[str, dict, dict]] = []
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f'http://127.0.0.1:{self.server_address[1]}'


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        parts = urllib.parse.urlsplit(self.path)
        self.server.requests.append((parts.path, dict(urllib.parse.parse_qsl(parts.query)), dict(self.headers)))
        queue = self.server.replies.get(parts.path) or [(404, {}, {'error': 'no such endpoint'})]
        status, headers, body = queue.pop(0) if len(queue) > 1 else queue[0]
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        for name, value in {'Content-Type': 'application/json', **headers}.items():
            self.send_header(name, value)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def api():
    server = FakeApi()
    yield server
    server.shutdown()
    server.server_close()


def searxng_page(*urls):
    return {'query': 'q', 'number_of_results': 0, 'results': [
        {'url': url, 'title': f'title {url}', 'content': f'snippet {url}', 'engine': 'duckduckgo',
         'parsed_url': ['https', url.split('/')[2], '/', '', '', ''], 'engines': ['duckduckgo'], 'score': 1.0}
        for url in urls], 'answers': [], 'corrections': [], 'infoboxes': [], 'suggestions': [], 'unresponsive_engines': []}


def test_searxng_pages_through_results_and_normalises_urls(api):
    api.replies['/search'] = [(200, {}, searxng_page('https://A.example/x#top', 'https://b.example/y')),
                              (200, {}, searxng_page('https://b.example/y', 'https://c.example/')),
                              (200, {}, searxng_page())]
    results, call = search.call(search.SearxngSearch(api.url), 'keyword', '房价 楼盘', 10)
    assert [r.url for r in results] == ['https://a.example/x', 'https://b.example/y', 'https://c.example/']
    assert results[0].title == 'title https://A.example/x#top' and results[0].snippet.startswith('snippet')
    assert (call.outcome, call.results, call.requests, call.http_status) == ('ok', 3, 3, 200)
    assert [params for _, params, _ in api.requests] == [
        {'q': '房价 楼盘', 'format': 'json', 'pageno': str(page)} for page in (1, 2, 3)]


def test_searxng_with_json_disabled_says_how_to_enable_it(api):
    api.replies['/search'] = [(403, {'Content-Type': 'text/html'}, '<html>403 Forbidden</html>')]
    results, call = search.call(search.SearxngSearch(api.url), 'keyword', 'q', 10)
    assert results == [] and call.outcome == 'forbidden' and 'settings.yml' in call.error


def test_searxng_has_no_related_or_backlink_search(api):
    results, call = search.call(search.SearxngSearch(api.url), 'backlinks', 'http://a.example/', 10)
    assert (results, call.outcome, call.requests) == ([], 'unsupported', 0)


def brave_page(*urls):
    return {'type': 'search', 'query': {'original': 'q'}, 'mixed': {'type': 'mixed', 'main': []},
            'web': {'type': 'search', 'results': [
                {'title': f'title {url}', 'url': url, 'description': f'about {url}', 'is_source_local': False,
                 'meta_url': {'hostname': url.split('/')[2]}} for url in urls]}}


def test_brave_sends_the_key_and_counts_pages(api):
    api.replies['/res/v1/web/search'] = [(200, {}, brave_page(*[f'https://s{i}.example/' for i in range(20)])),
                                         (200, {}, brave_page('https://t.example/a', 'https://t.example/b'))]
    provider = search.BraveSearch('secret-key', f'{api.url}/res/v1')
    results, call = search.call(provider, 'keyword', '体育 足球', 21)
    assert len(results) == 21 and results[20].url == 'https://t.example/a' and results[0].snippet.startswith('about')
    path, params, headers = api.requests[0]
    assert headers['X-Subscription-Token'] == 'secret-key' and params == {'q': '体育 足球', 'count': '20', 'offset': '0'}
    assert api.requests[1][1]['offset'] == '1' and call.requests == 2


def test_brave_with_a_bad_key_and_with_no_results(api):
    api.replies['/res/v1/web/search'] = [(401, {}, {'type': 'ErrorResponse', 'error': {
        'id': 'x', 'status': 401, 'code': 'SUBSCRIPTION_TOKEN_INVALID', 'detail': 'The provided subscription token is invalid.'}})]
    results, call = search.call(search.BraveSearch('wrong', f'{api.url}/res/v1'), 'keyword', 'q', 5)
    assert results == [] and call.outcome == 'unauthorized' and 'SUBSCRIPTION_TOKEN_INVALID' in call.error
    api.replies['/res/v1/web/search'] = [(200, {}, {'type': 'search', 'query': {'original': 'q'}})]
    results, call = search.call(search.BraveSearch('key', f'{api.url}/res/v1'), 'keyword', 'nothing', 5)
    assert results == [] and call.outcome == 'empty'


def test_a_short_rate_limit_is_waited_out_and_a_long_one_ends_the_call(api):
    waited = []
    api.replies['/res/v1/web/search'] = [(429, {'Retry-After': '2'}, {'type': 'ErrorResponse'}),
                                         (429, {'X-RateLimit-Reset': '1, 2000000'}, {'type': 'ErrorResponse'}),
                                         (200, {}, brave_page('https://a.example/'))]
    provider = search.BraveSearch('key', f'{api.url}/res/v1', sleep=waited.append)
    results, call = search.call(provider, 'keyword', 'q', 1)
    assert [r.url for r in results] == ['https://a.example/'] and waited == [2.0, 1.0] and call.requests == 3
    api.replies['/search'] = [(429, {'Retry-After': '3600'}, 'slow down')]
    results, call = search.call(search.SearxngSearch(api.url, sleep=waited.append), 'keyword', 'q', 5)
    assert call.outcome == 'rate_limited' and '3600' in call.error and waited == [2.0, 1.0]


def test_errors_that_are_not_json_or_no_server_at_all(api):
    api.replies['/search'] = [(200, {'Content-Type': 'text/html'}, '<html>a login page</html>')]
    assert search.call(search.SearxngSearch(api.url), 'keyword', 'q', 5)[1].outcome == 'bad_response'
    api.replies['/search'] = [(502, {}, 'bad gateway')]
    assert search.call(search.SearxngSearch(api.url), 'keyword', 'q', 5)[1].http_status == 502
    closed = f'http://127.0.0.1:{api.server_address[1]}'
    api.shutdown()
    api.server_close()
    assert search.call(search.SearxngSearch(closed, timeout=2), 'keyword', 'q', 5)[1].outcome == 'error'


def test_the_sandbox_provider_answers_from_the_sandbox_server(news_web_dir):
    seed = load_task(news_web_dir / 'tasks' / '房产.yaml').topic.seeds[0]
    with SandboxServer(*open_web(news_web_dir)) as server:
        provider = search.make_provider('sandbox', proxy=server.proxy_url)
        found, keyword = search.call(provider, 'keyword', '房价 楼盘', 60)
        related, _ = search.call(provider, 'related', seed, 10)
        backlinks, _ = search.call(provider, 'backlinks', seed, 10)
    assert keyword.outcome == 'ok' and len(found) == 50 and keyword.requests == 1  # the server's cap a call
    assert related and all(r.url != seed for r in related) and backlinks
    assert [r.rank for r in found[:3]] == [0, 1, 2]


def test_providers_from_the_command_line_option(monkeypatch):
    assert isinstance(search.make_provider('searxng:http://127.0.0.1:8888'), search.SearxngSearch)
    with pytest.raises(search.ProviderError, match='--proxy'):
        search.make_provider('sandbox')
    monkeypatch.delenv(search.BRAVE_KEY_VARIABLE, raising=False)
    with pytest.raises(search.ProviderError, match='BRAVE_API_KEY'):
        search.make_provider('brave')
    monkeypatch.setenv(search.BRAVE_KEY_VARIABLE, 'k')
    assert search.make_provider('brave:http://127.0.0.1:9/res/v1').base_url == 'http://127.0.0.1:9/res/v1'
    with pytest.raises(search.ProviderError, match='unknown search provider'):
        search.make_provider('google')
    with pytest.raises(search.ProviderError, match='not an http'):
        search.make_provider('searxng:ftp://x')


def test_a_replayed_warc_answers_the_same_search_api(tmp_path):
    pages = {'http://a.test/': '<html><head><title>房价</title></head><body><p>北京房价上涨，楼盘热销。</p>'
                               '<a href="http://b.test/">b</a></body></html>'.encode(),
             'http://b.test/': '<html><head><title>足球</title></head><body><p>足球比赛。</p>'
                               '<a href="http://a.test/">a</a></body></html>'.encode()}
    with SandboxServer(*open_warcs([write_pages(tmp_path / 'replay.warc.gz', pages)])) as server:
        provider = search.make_provider(f'sandbox:{server.proxy_url}')
        found, keyword = search.call(provider, 'keyword', '房价', 5)
        backlinks, _ = search.call(provider, 'backlinks', 'http://b.test/', 5)
    assert keyword.outcome == 'ok' and [r.url for r in found] == ['http://a.test/'] and found[0].title == '房价'
    assert [r.url for r in backlinks] == ['http://a.test/']

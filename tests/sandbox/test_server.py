"""The sandbox server as a crawler meets it: a proxy on 127.0.0.1 replaying WARCs, plus the search API.

Every request goes to the server on 127.0.0.1 (never to the hosts named in the URLs).
"""
import http.client
import json
import threading

import pytest
import requests
from warcio.warcwriter import WARCWriter

from models.html import decode, header_charset
from models.text import HAN_CHARACTER
from sandbox.archive import Archive
from sandbox.search_index import SearchIndex, SearchIndexBuilder
from sandbox.server import SandboxError, SandboxServer, generated_robots, open_warcs, open_web
from warc_samples import PAGE, add_response, numbered_pages, proxy_session, write_foreign_warc, write_pages

ROBOTS = b'User-agent: *\nDisallow: /private/\n'


@pytest.fixture(scope='module')
def cwced_pages(shared_data):
    """The 35 CWCED pages (24 GB2312/GBK, 11 UTF-8) as a server would send them: the charset in
    the header (as declared, or as GBK for GB2312 pages) or no charset in the header at all."""
    pages = {}
    for number, path in enumerate(sorted((shared_data / 'extraction' / 'cwced' / 'original').glob('*.html'))):
        body = path.read_bytes()
        gb = decode(body)[1] == 'gb18030'
        header = ['text/html', 'text/html; charset=' + ('gb2312' if gb else 'utf-8'),
                  'text/html; charset=' + ('GBK' if gb else 'UTF-8')][number % 3]
        pages[f'http://news{number % 4}.cn/{path.stem}.html'] = (body, header)
    return pages


@pytest.fixture(scope='module')
def web(tmp_path_factory, cwced_pages):
    folder = tmp_path_factory.mktemp('web')
    with open(folder / 'cwced.warc.gz', 'wb') as stream:
        writer = WARCWriter(stream, gzip=True)
        for url, (body, content_type) in cwced_pages.items():
            add_response(writer, url, body, content_type)
        add_response(writer, 'http://news0.cn/robots.txt', ROBOTS, 'text/plain')
    warcs = [write_foreign_warc(folder / 'foreign.warc.gz'), folder / 'cwced.warc.gz',
             write_pages(folder / 'a.warc.gz', numbered_pages('a.test', 60))]
    archive, index = open_warcs(warcs)
    archive.save(folder / 'archive.parquet')
    index.save(folder / 'search')
    return folder


@pytest.fixture(scope='module')
def server(web):
    with SandboxServer(*open_web(web)) as server:
        yield server


@pytest.fixture
def session(server):
    with proxy_session(server) as session:
        yield session


def api(session, server, path, **parameters):
    return session.get(server.proxy_url + path, params=parameters, timeout=5)


def test_foreign_warc_pages_are_served_decoded_with_fresh_framing(session):
    response = session.get('http://site.test/chunked', timeout=5)
    assert response.status_code == 200 and response.text == '分块的页面' * 50
    assert 'Transfer-Encoding' not in response.headers and 'Content-Encoding' not in response.headers
    assert response.headers['Content-Length'] == str(len('分块的页面'.encode()) * 50)
    assert response.headers['Connection'] == 'keep-alive' and response.headers['Date'].endswith('GMT')
    assert session.get('http://mirror.test/a', timeout=5).content == PAGE.format(n='a', next=1).encode()
    moved = session.get('http://site.test/moved', allow_redirects=False, timeout=5)
    assert (moved.status_code, moved.headers['Location']) == (301, 'http://site.test/a')


def test_archived_https_pages_are_reached_as_http_and_connect_is_refused(session, server):
    secure = session.get('http://secure.test/login?next=/', timeout=5)
    assert secure.text == '<html><title>S</title>secure</html>'
    with pytest.raises(requests.exceptions.ProxyError):
        session.get('https://secure.test/login?next=/', timeout=5)
    connection = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    connection.request('CONNECT', 'secure.test:443')
    response = connection.getresponse()
    assert response.status == 501 and b'http:// URLs only' in response.read()


def test_chinese_pages_are_served_byte_for_byte_and_decode_without_mojibake(session, cwced_pages):
    for url, (body, content_type) in cwced_pages.items():
        response = session.get(url, timeout=5)
        assert response.content == body and response.headers['Content-Type'] == content_type, url
        text, _ = decode(response.content, header_charset(content_type))
        assert len(HAN_CHARACTER.findall(text)) > 100, url
        assert text.count('\ufffd') == decode(body)[0].count('\ufffd'), url  # 0 unless the source is broken


def test_lookup_normalises_the_requested_url(server, session):
    connection = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    connection.request('GET', 'HTTP://Site.TEST:80/x/../a#top')
    response = connection.getresponse()
    assert response.status == 200 and response.read() == PAGE.format(n='a', next=1).encode()
    through_requests = session.get('HTTP://A.test:80/p0/../p1#x', timeout=5)
    assert through_requests.content == numbered_pages('a.test', 2)['http://a.test/p1']


def test_origin_form_requests_for_other_hosts_are_proxied(server):
    connection = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    connection.request('GET', '/p3', headers={'Host': 'a.test'})
    assert connection.getresponse().read() == numbered_pages('a.test', 4)['http://a.test/p3']


def test_unknown_pages_and_hosts_are_404_with_a_reason(session):
    missing = session.get('http://a.test/nothing', timeout=5)
    assert missing.status_code == 404 and 'not in the archive' in missing.text
    stranger = session.get('http://www.example.com/', timeout=5)
    assert stranger.status_code == 404 and 'www.example.com is not in this sandbox' in stranger.text


def test_robots_txt_is_archived_or_generated(session):
    archived = session.get('http://news0.cn/robots.txt', timeout=5)
    assert archived.content == ROBOTS
    generated = session.get('http://a.test/robots.txt', timeout=5)
    assert generated.status_code == 200 and generated.content == generated_robots('a.test')
    assert 'Disallow: /print/' in generated.text and generated.headers['Content-Type'].startswith('text/plain')


def test_head_sends_the_length_but_no_body(server):
    connection = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    connection.request('HEAD', 'http://a.test/p1')
    response = connection.getresponse()
    assert response.status == 200 and response.read() == b''
    assert int(response.headers['Content-Length']) == len(numbered_pages('a.test', 2)['http://a.test/p1'])
    connection.request('GET', 'http://a.test/p1')  # the connection is still in step after a HEAD
    assert connection.getresponse().read() == numbered_pages('a.test', 2)['http://a.test/p1']


def test_one_connection_serves_many_requests_until_the_client_closes_it(server):
    connection = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    sockets = set()
    for n in range(20):
        connection.request('GET', f'http://a.test/p{n}')
        response = connection.getresponse()
        assert response.read() == numbered_pages('a.test', 20)[f'http://a.test/p{n}']
        sockets.add(connection.sock)
    assert len(sockets) == 1
    connection.request('GET', 'http://a.test/p1', headers={'Connection': 'close'})
    response = connection.getresponse()
    assert response.headers['Connection'] == 'close' and response.read()
    assert response.will_close


def test_other_methods_are_not_allowed(session):
    response = session.post('http://a.test/p1', data=b'x', timeout=5)
    assert response.status_code == 405 and response.headers['Allow'] == 'GET, HEAD'


def test_api_overview_and_search(session, server):
    overview = api(session, server, '/').json()
    assert overview == {'pages': len(server.archive), 'hosts': 8, 'endpoints': overview['endpoints']}
    found = api(session, server, '/search', q='North', count=3)
    assert found.headers['Content-Type'] == 'application/json; charset=utf-8'
    results = found.json()['results']
    assert len(results) == 3 and all(set(r) == {'url', 'title', 'snippet'} for r in results)
    first_ten = api(session, server, '/search', q='North').json()['results']
    assert results == first_ten[:3]
    page_two = api(session, server, '/search', q='North', count=3, offset=3).json()['results']
    assert not {r['url'] for r in page_two} & {r['url'] for r in results}
    assert len(api(session, server, '/search', q='North', count=500).json()['results']) == 50


def test_api_chinese_search_related_and_backlinks(session, server, cwced_pages):
    url = next(iter(cwced_pages))
    assert api(session, server, '/search', q='新闻').json()['results']
    related = api(session, server, '/related', url=url, count=5).json()['results']
    assert related and url not in [r['url'] for r in related]
    backlinks = api(session, server, '/backlinks', url='http://a.test/p5').json()['results']
    assert [r['url'] for r in backlinks] == ['http://a.test/p4']


@pytest.mark.parametrize('path, parameters, complaint', [
    ('/search', {}, 'q=<search words>'), ('/search', {'q': '  '}, 'q=<search words>'),
    ('/search', {'q': 'x', 'count': 'ten'}, 'count must be a whole number'),
    ('/search', {'q': 'x', 'count': '0'}, 'count must be a whole number >= 1'),
    ('/search', {'q': 'x', 'offset': '-1'}, 'offset must be a whole number >= 0'),
    ('/related', {}, 'url=<absolute URL'), ('/backlinks', {'url': 'not a url'}, 'absolute http(s) URL')])
def test_api_explains_a_bad_request(session, server, path, parameters, complaint):
    response = api(session, server, path, **parameters)
    assert response.status_code == 400 and complaint in response.json()['error']


def test_api_answers_on_localhost_and_names_its_endpoints(server):
    connection = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    connection.request('GET', '/nowhere', headers={'Host': f'localhost:{server.port}'})
    response = connection.getresponse()
    assert response.status == 404 and '/search?q=' in json.loads(response.read())['error']


def test_requests_are_counted(session, server):
    before = server.requests_served
    for n in range(3):
        session.get(f'http://a.test/p{n}', timeout=5)
    assert server.requests_served == before + 3


def test_stop_closes_open_connections(web):
    server = SandboxServer(*open_web(web)).start()
    connection = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    connection.request('GET', 'http://a.test/p1')
    assert connection.getresponse().read()
    server.stop()
    with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
        connection.request('GET', 'http://a.test/p2')
        connection.getresponse()


def test_a_server_started_twice_serves_once_and_stops(web):
    with SandboxServer(*open_web(web)).start() as server:  # `with` starts it again
        assert server.start() is server
        assert requests.get('http://a.test/p1', proxies=server.proxies, timeout=5).status_code == 200
    assert not [t for t in threading.enumerate() if t.name == f'sandbox-{server.port}']


@pytest.mark.parametrize('host', ['0.0.0.0', '192.168.1.10', '::', 'sandbox.example.com'])
def test_refuses_to_bind_anything_but_loopback(host):
    with pytest.raises(SandboxError, match='loopback'):
        SandboxServer(Archive([], {}), SearchIndexBuilder().build(), host=host)


def test_open_web_names_what_is_missing(web, tmp_path):
    with pytest.raises(SandboxError, match='archive.parquet is missing.*focal sandbox build'):
        open_web(tmp_path)
    (tmp_path / 'archive.parquet').write_bytes((web / 'archive.parquet').read_bytes())
    with pytest.raises(SandboxError, match='search is missing'):
        open_web(tmp_path)
    archive, index = open_web(web)
    assert isinstance(index, SearchIndex) and len(index) == 4 + 35 + 60

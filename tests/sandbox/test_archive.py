"""The replay index over foreign WARCs: which record answers, decoded bodies, save/load.

The WARC writers here are shared by the fault and server tests (`from test_archive import ...`).
"""
import gzip
import io
import shutil
import threading

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from sandbox.archive import Archive, ArchiveError

PAGE = '<html><head><title>North {n}</title></head><body><p>Page {n} text.</p>' \
       '<a href="/p{next}">next</a> <a href="https://elsewhere.test/x">away</a></body></html>'


def chunked(payload: bytes, size: int = 100) -> bytes:
    """`payload` in HTTP/1.1 chunked transfer-encoding."""
    pieces = [payload[i:i + size] for i in range(0, len(payload), size)]
    return b''.join(b'%x\r\n%s\r\n' % (len(p), p) for p in pieces) + b'0\r\n\r\n'


def add_response(writer, url, body: bytes, content_type='text/html; charset=utf-8', status='200 OK',
                 chunk=False, gzip_body=False, headers=()):
    """A response record as a real crawler stores it: the payload as it came over the wire."""
    fields = [('Content-Type', content_type), ('Connection', 'close'), *headers]
    payload = gzip.compress(body) if gzip_body else body
    if gzip_body:
        fields.append(('Content-Encoding', 'gzip'))
    if chunk:
        payload = chunked(payload)
        fields.append(('Transfer-Encoding', 'chunked'))
    else:
        fields.append(('Content-Length', str(len(payload))))
    http = StatusAndHeaders(status, fields, protocol='HTTP/1.1')
    record = writer.create_warc_record(url, 'response', payload=io.BytesIO(payload), http_headers=http)
    writer.write_record(record)


def write_pages(path, pages: dict[str, bytes], content_type='text/html; charset=utf-8', compress=True):
    """A WARC of one plain 200 response per URL."""
    with open(path, 'wb') as stream:
        writer = WARCWriter(stream, gzip=compress)
        for url, body in pages.items():
            add_response(writer, url, body, content_type)
    return path


def numbered_pages(host: str, count: int) -> dict[str, bytes]:
    return {f'http://{host}/p{n}': PAGE.format(n=n, next=n + 1).encode() for n in range(count)}


def write_foreign_warc(path, compress=True):
    """A WARC with what real crawls hold: chunked and gzipped responses, https, request,
    metadata and warcinfo records, revisits, a resource, a duplicate and a dns: record."""
    with open(path, 'wb') as stream:
        writer = WARCWriter(stream, gzip=compress)
        writer.write_record(writer.create_warcinfo_record('crawl.warc.gz', {'software': 'test'}))
        request = StatusAndHeaders('GET /a HTTP/1.1', [('Host', 'site.test')], is_http_request=True)
        writer.write_record(writer.create_warc_record('http://site.test/a', 'request', http_headers=request))
        add_response(writer, 'http://site.test/a', PAGE.format(n='a', next=1).encode())
        add_response(writer, 'http://site.test/chunked', '分块的页面'.encode('utf-8') * 50,
                     chunk=True, gzip_body=True)
        add_response(writer, 'http://site.test/gzipped', b'plain after gunzip', 'text/plain', gzip_body=True)
        add_response(writer, 'https://secure.test/login?next=/', b'<html><title>S</title>secure</html>')
        add_response(writer, 'http://site.test/moved', b'', status='301 Moved Permanently',
                     headers=[('Location', 'http://site.test/a')])
        add_response(writer, 'http://site.test/a', b'a later capture')
        writer.write_record(writer.create_warc_record('http://site.test/a', 'metadata',
                                                      payload=io.BytesIO(b'x: y'),
                                                      warc_content_type='application/warc-fields'))
        http = StatusAndHeaders('200 OK', [('Content-Type', 'text/html')], protocol='HTTP/1.1')
        for url, original in (('http://mirror.test/a', 'http://site.test/a'),
                              ('http://mirror.test/gone', 'http://site.test/gone')):
            writer.write_record(writer.create_revisit_record(url, 'sha1:X', original, '2020-01-01T00:00:00Z',
                                                             http_headers=http))
        writer.write_record(writer.create_warc_record('http://site.test/logo.png', 'resource',
                                                      payload=io.BytesIO(b'\x89PNG....'),
                                                      warc_content_type='image/png'))
        writer.write_record(writer.create_warc_record('dns:site.test', 'response', payload=io.BytesIO(b'1.2.3.4'),
                                                      warc_content_type='text/dns'))
    return path


@pytest.fixture(params=[True, False], ids=['warc.gz', 'warc'])
def foreign(tmp_path, request):
    archive = Archive.scan([write_foreign_warc(tmp_path / 'crawl.warc', compress=request.param)])
    yield archive
    archive.close()


def test_only_answering_records_are_indexed_and_the_first_capture_wins(foreign):
    assert sorted(foreign.urls()) == ['http://mirror.test/a', 'http://site.test/a', 'http://site.test/chunked',
                                      'http://site.test/gzipped', 'http://site.test/logo.png',
                                      'http://site.test/moved', 'https://secure.test/login?next=/']
    assert foreign.get('http://site.test/a').body == PAGE.format(n='a', next=1).encode()
    assert foreign.skipped == {'later duplicate': 1, 'revisit of an unarchived original': 1,
                               'unusable target URI': 1}
    assert foreign.hosts() == {'site.test', 'secure.test', 'mirror.test'} and len(foreign) == 7


def test_bodies_are_decoded_and_framing_headers_dropped(foreign):
    response = foreign.get('http://site.test/chunked')
    assert response.body.decode('utf-8') == '分块的页面' * 50
    assert response.headers == [('Content-Type', 'text/html; charset=utf-8')]
    assert foreign.get('http://site.test/gzipped').body == b'plain after gunzip'
    moved = foreign.get('http://site.test/moved')
    assert (moved.status, moved.reason) == (301, 'Moved Permanently')
    assert moved.header('location') == 'http://site.test/a'


def test_revisits_resources_and_the_other_scheme(foreign):
    assert foreign.get('http://mirror.test/a').body == foreign.get('http://site.test/a').body
    logo = foreign.get('http://site.test/logo.png')
    assert (logo.status, logo.headers, logo.body) == (200, [('Content-Type', 'image/png')], b'\x89PNG....')
    secure = foreign.get('http://secure.test/login?next=/')  # https page reached through an http proxy
    assert secure.url == 'https://secure.test/login?next=/' and secure.body.endswith(b'secure</html>')


def test_lookup_normalises_the_url(foreign):
    assert foreign.get('HTTP://Site.TEST:80/x/../a#top').url == 'http://site.test/a'
    assert foreign.get('http://site.test/nothing') is None
    assert foreign.get('mailto:someone@site.test') is None


def test_html_pages_have_title_text_and_absolute_links(foreign):
    pages = {url: (title, text, links) for url, title, text, links in foreign.html_pages()}
    assert set(pages) == {'http://site.test/a', 'http://site.test/chunked', 'http://mirror.test/a',
                          'https://secure.test/login?next=/'}
    assert pages['http://site.test/a'] == ('North a', 'Page a text.\nnext away',
                                           ['http://site.test/p1', 'https://elsewhere.test/x'])
    assert pages['http://mirror.test/a'][2] == ['http://mirror.test/p1', 'https://elsewhere.test/x']


def test_save_and_load_survive_moving_the_web_directory(tmp_path):
    web = tmp_path / 'web'
    web.mkdir()
    scanned = Archive.scan([write_foreign_warc(web / 'crawl.warc.gz'),
                            write_pages(web / 'more.warc.gz', numbered_pages('b.test', 3))])
    scanned.save(web / 'archive.parquet')
    responses = [scanned.get(url) for url in scanned.urls()]
    shutil.move(web, tmp_path / 'moved')
    loaded = Archive.load(tmp_path / 'moved' / 'archive.parquet')
    assert list(loaded.urls()) == list(scanned.urls()) and loaded.skipped == scanned.skipped
    assert [loaded.get(url) for url in loaded.urls()] == responses
    assert loaded.get('http://b.test/p2').body == numbered_pages('b.test', 3)['http://b.test/p2']


def test_load_explains_a_missing_or_changed_warc_and_a_damaged_index(tmp_path):
    warc = write_pages(tmp_path / 'web.warc.gz', numbered_pages('a.test', 2))
    Archive.scan([warc]).save(tmp_path / 'archive.parquet')
    with open(warc, 'ab') as stream:
        stream.write(b'more')
    with pytest.raises(ArchiveError, match='changed since.*focal sandbox build'):
        Archive.load(tmp_path / 'archive.parquet')
    warc.unlink()
    with pytest.raises(ArchiveError, match='web.warc.gz.*is missing'):
        Archive.load(tmp_path / 'archive.parquet')
    (tmp_path / 'other.parquet').write_bytes(b'not parquet')
    with pytest.raises(ArchiveError, match='not a usable archive index'):
        Archive.load(tmp_path / 'other.parquet')
    with pytest.raises(ArchiveError, match='not found'):
        Archive.scan([tmp_path / 'no.warc.gz'])
    (tmp_path / 'notes.txt').write_text('just some notes\n')
    with pytest.raises(ArchiveError, match='notes.txt is not a readable WARC'):
        Archive.scan([tmp_path / 'notes.txt'])


def test_scan_reports_progress_on_stderr(tmp_path, capsys):
    Archive.scan([write_pages(tmp_path / 'web.warc.gz', numbered_pages('a.test', 3))], progress=True)
    captured = capsys.readouterr()
    assert 'scanning WARCs' in captured.err and captured.out == ''


def test_a_truncated_or_corrupted_warc_is_reported_not_served(tmp_path):
    warc = write_pages(tmp_path / 'web.warc.gz', numbered_pages('a.test', 3))
    archive = Archive.scan([warc])
    raw = warc.read_bytes()
    _, offset, length = archive._locations['http://a.test/p1']
    warc.write_bytes(raw[:offset + 40] + bytes(200) + raw[offset + 240:-30])
    with pytest.raises(ArchiveError, match='p1.*damaged'):
        archive.get('http://a.test/p1')
    with pytest.raises(ArchiveError, match='p2.*damaged'):
        archive.get('http://a.test/p2')


def test_an_index_of_100k_urls_round_trips(tmp_path):
    warc = write_pages(tmp_path / 'web.warc.gz', numbered_pages('a.test', 1))
    locations = {f'http://host{n % 500}.test/articles/{n}.html': (0, n * 1000, 1000) for n in range(100_000)}
    Archive([warc], locations).save(tmp_path / 'archive.parquet')
    loaded = Archive.load(tmp_path / 'archive.parquet')
    assert len(loaded) == 100_000 and len(loaded.hosts()) == 500
    assert set(loaded.urls()) == set(locations)


def test_threads_share_the_archive(tmp_path):
    pages = numbered_pages('a.test', 200)
    archive = Archive.scan([write_pages(tmp_path / 'web.warc.gz', pages)])
    wrong = []

    def read_all():
        for url, body in pages.items():
            if archive.get(url).body != body:
                wrong.append(url)
    threads = [threading.Thread(target=read_all) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong

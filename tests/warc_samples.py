"""WARC files as real crawls write them, and a client that goes through the sandbox proxy:
shared by the archive, server and fault tests."""
import gzip
import io

import requests
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from sandbox.server import SandboxServer

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



def proxy_session(server: SandboxServer) -> requests.Session:
    """A session that sends every request to the sandbox, whatever the environment says."""
    session = requests.Session()
    session.trust_env = False
    session.proxies.update(server.proxies)
    return session

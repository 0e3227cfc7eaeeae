"""`focal extract` as a user runs it: files and URLs in, one result per input, in input order."""
import json
import subprocess
import sys

from runners import extract_command
from runners.cli import main
from sandbox.archive import Archive
from sandbox.search_index import SearchIndexBuilder
from sandbox.server import SandboxServer
from warc_samples import numbered_pages, write_pages

ARTICLE = ('<html><head><title>{title}</title></head><body><div class="nav"><a href="/">首页</a> '
           '<a href="/house/">房产</a> <a href="/sports/">体育</a></div><div class="article"><h1>{title}</h1>'
           '<p>{text}</p><p>{text}</p></div><div class="ad"><a href="http://ads.test/">限时特惠 点击领取</a></div>'
           '</body></html>')


def test_json_lines_in_input_order_with_errors_for_what_cannot_be_read(tmp_path, capsys):
    gbk = tmp_path / 'gbk.html'
    gbk.write_bytes(ARTICLE.format(title='北京楼市', text='北京二手房价格回落，开发商推出新楼盘。').encode('gbk'))
    utf8 = tmp_path / 'utf8.html'
    utf8.write_text(ARTICLE.format(title='Rain', text='Heavy rain fell over the city for three days.'),
                    encoding='utf-8')
    binary = tmp_path / 'image.html'
    binary.write_bytes(b'\x89PNG\r\n\x1a\n' + bytes(range(256)) * 10)
    assert main(['extract', '--format', 'json', str(gbk), str(tmp_path / 'missing.html'), str(binary),
                 str(utf8)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line['url'].rsplit('/', 1)[-1] for line in lines] == ['gbk.html', 'missing.html', 'image.html',
                                                                   'utf8.html']
    first = lines[0]
    assert first['title'] == '北京楼市' and first['encoding'] == 'gb18030' and 'error' not in first
    assert '二手房价格回落' in first['main_text'] and '限时特惠' not in first['main_text']
    assert {block['class'] for block in first['blocks']} >= {'navigation', 'content', 'noise'}
    assert 'cannot read' in lines[1]['error'] and 'binary' in lines[2]['error']
    assert 'Heavy rain' in lines[3]['main_text']


def test_urls_are_fetched_through_a_proxy_and_shown_as_text(tmp_path, capsys):
    archive = Archive.scan([write_pages(tmp_path / 'web.warc.gz', numbered_pages('a.test', 3))])
    with SandboxServer(archive, SearchIndexBuilder().build()) as server:
        assert main(['extract', 'http://a.test/p1', 'http://a.test/missing', '--proxy', server.proxy_url]) == 0
    out = capsys.readouterr().out
    assert '== http://a.test/p1\ntitle: North 1' in out and '[content]' in out and '-- main text --' in out
    assert '== http://a.test/missing\nerror: fetch http_4xx: HTTP 404' in out


def test_urls_of_several_hosts_and_files_come_out_in_input_order(tmp_path, capsys, monkeypatch):
    pages = {**numbered_pages('a.test', 4), **numbered_pages('b.test', 4), **numbered_pages('c.test', 4)}
    archive = Archive.scan([write_pages(tmp_path / 'web.warc.gz', pages)])
    page = tmp_path / 'page.html'
    page.write_text(ARTICLE.format(title='Rain', text='Heavy rain fell over the city for three days.'),
                    encoding='utf-8')
    sources = ['http://c.test/p3', 'http://a.test/p1', str(page), 'http://b.test/p2', 'http://a.test/p0',
               'http://c.test/missing', 'http://b.test/p0', 'http://a.test/p3']
    with SandboxServer(archive, SearchIndexBuilder().build()) as server:
        assert main(['extract', '--format', 'json', *sources, '--proxy', server.proxy_url]) == 0
        monkeypatch.setattr(extract_command, 'WINDOW', 3)  # windows of three inputs end in the same order
        assert main(['extract', '--format', 'json', *sources, '--proxy', server.proxy_url]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:len(sources)] == out[len(sources):]
    lines = [json.loads(line) for line in out[:len(sources)]]
    assert [line['url'] for line in lines] == [page.resolve().as_uri() if source == str(page) else source
                                               for source in sources]
    assert [line.get('title') for line in lines] == ['North 3', 'North 1', 'Rain', 'North 2', 'North 0', None,
                                                     'North 0', 'North 3']
    assert lines[5]['error'] == 'fetch http_4xx: HTTP 404'


def test_nothing_readable_is_a_failure(tmp_path, capsys):
    assert main(['extract', str(tmp_path / 'nothing.html')]) == 1
    assert 'could not be read' in capsys.readouterr().err


def test_the_installed_command_prints_results_and_no_import_noise(tmp_path):
    """As a shell runs it: Beam's import-time notice about missing Google Cloud libraries is not shown."""
    page = tmp_path / 'page.html'
    page.write_text(ARTICLE.format(title='Rain', text='Heavy rain fell over the city for three days.'),
                    encoding='utf-8')
    done = subprocess.run([sys.executable, '-m', 'runners.cli', 'extract', str(page)], capture_output=True,
                          text=True, check=True)
    assert done.stdout.startswith('== file://') and 'Heavy rain' in done.stdout
    assert done.stderr == ''

"""The replay index over foreign WARCs: which record answers, decoded bodies, save/load."""
import shutil
import threading

import pytest

from sandbox.archive import Archive, ArchiveError
from warc_samples import PAGE, numbered_pages, write_foreign_warc, write_pages


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
    # the line of two links is not the page's text (a line that is mostly links is not the story's)
    assert pages['http://site.test/a'] == ('North a', 'Page a text.', ['http://site.test/p1', 'https://elsewhere.test/x'])
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

import json
import signal
import subprocess
import sys
import textwrap

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines import schema
from pipelines.state import MANIFEST, CrawlDir, StateError


def page(round_number, url, relevance=0.5):
    return {'round': round_number, 'url': url, 'final_url': url, 'host': 'a.example',
            'title': 't', 'text': '房价', 'relevance': relevance}


def commit_round(crawl, number, urls):
    pending = crawl.begin(number)
    pending.write_table('pages', [page(number, u) for u in urls])
    pending.write_table('links', [{'round': number, 'url': urls[0], 'dst': u, 'anchor': 'a',
                                   'block': 'content'} for u in urls])
    return pending.commit()


def test_committed_rounds_are_read_back_with_their_manifest(tmp_path):
    crawl = CrawlDir.create(str(tmp_path / 'crawl'), {'strategy': 'bfs', 'seeds': ['http://a/']})
    commit_round(crawl, 1, ['http://a/1', 'http://a/2'])
    manifest = commit_round(crawl, 2, ['http://a/3'])
    assert manifest['tables']['pages']['rows'] == 1
    assert len(manifest['tables']['links']['files'][0]['sha256']) == 64

    reopened = CrawlDir.open(str(tmp_path / 'crawl'))
    assert reopened.config['strategy'] == 'bfs'
    assert reopened.committed_rounds() == [1, 2] and reopened.last_committed_round() == 2
    assert reopened.read_table('pages').column('url').to_pylist() == ['http://a/1', 'http://a/2', 'http://a/3']
    assert reopened.read_table('pages', 2).schema.equals(schema.PAGES)
    assert reopened.read_table('frontier').num_rows == 0  # not written this round: empty, typed
    reopened.verify(1)
    assert reopened.last_committed_round('ranks') is None


def test_beam_style_shards_are_one_table(tmp_path):
    crawl = CrawlDir.create(str(tmp_path), {})
    pending = crawl.begin(1)
    for shard in range(2):
        table = pa.Table.from_pylist([page(1, f'http://a/{shard}')], schema=schema.PAGES)
        pq.write_table(table, f'{pending.path}/pages-{shard:05d}-of-00002.parquet')
    assert pending.commit()['tables']['pages']['rows'] == 2
    assert sorted(crawl.read_table('pages').column('url').to_pylist()) == ['http://a/0', 'http://a/1']


def test_rank_tables_commit_like_rounds(tmp_path):
    crawl = CrawlDir.create(str(tmp_path), {})
    pending = crawl.begin(1, kind='ranks')
    pending.write_table('pagerank', [{'round': 1, 'url': 'http://a/', 'pagerank': 1.0}])
    pending.commit()
    assert crawl.read_table('pagerank', kind='ranks').column('pagerank').to_pylist() == [1.0]


def test_a_file_with_the_wrong_schema_is_refused_at_commit(tmp_path):
    crawl = CrawlDir.create(str(tmp_path), {})
    pending = crawl.begin(1)
    pq.write_table(pa.table({'url': ['x']}), f'{pending.path}/pages.parquet')
    with pytest.raises(StateError, match='does not have the pages schema'):
        pending.commit()
    assert crawl.committed_rounds() == []


def test_committed_rounds_are_never_rewritten(tmp_path):
    crawl = CrawlDir.create(str(tmp_path), {})
    commit_round(crawl, 1, ['http://a/1'])
    with pytest.raises(StateError, match='already committed'):
        crawl.begin(1)


def test_a_second_crawl_in_the_same_directory_is_refused(tmp_path):
    CrawlDir.create(str(tmp_path), {})
    with pytest.raises(StateError, match='already holds a crawl.*--resume'):
        CrawlDir.create(str(tmp_path), {})


def test_other_schema_versions_are_a_clear_error(tmp_path):
    crawl = CrawlDir.create(str(tmp_path), {})
    commit_round(crawl, 1, ['http://a/1'])
    config = json.loads((tmp_path / 'crawl.json').read_text())
    (tmp_path / 'crawl.json').write_text(json.dumps({**config, 'schema_version': 99}))
    with pytest.raises(StateError, match=f'schema version 99, this Focal reads version {schema.SCHEMA_VERSION}'):
        CrawlDir.open(str(tmp_path))
    (tmp_path / 'crawl.json').write_text(json.dumps(config))
    manifest_path = tmp_path / 'rounds' / '000001' / MANIFEST
    manifest_path.write_text(json.dumps({**json.loads(manifest_path.read_text()), 'schema_version': 0}))
    with pytest.raises(StateError, match='schema version 0'):
        CrawlDir.open(str(tmp_path)).read_table('pages')


def test_not_a_crawl_directory(tmp_path):
    with pytest.raises(StateError, match='not a crawl directory'):
        CrawlDir.open(str(tmp_path))


def test_half_written_rounds_are_ignored_and_never_read(tmp_path, caplog):
    crawl = CrawlDir.create(str(tmp_path), {})
    commit_round(crawl, 1, ['http://a/1'])
    crawl.begin(2).write_table('pages', [page(2, 'http://a/pending')])    # never committed
    (tmp_path / 'rounds' / '000003').mkdir()                              # a rename without manifest
    pq.write_table(pa.Table.from_pylist([page(3, 'http://a/torn')], schema=schema.PAGES),
                   tmp_path / 'rounds' / '000003' / 'pages.parquet')
    assert crawl.committed_rounds() == [1]
    assert 'ignoring 1 half-written rounds' in caplog.text  # the round this process writes is not a leftover
    crawl = CrawlDir.open(str(tmp_path))  # as a process resuming after a crash sees it
    assert crawl.committed_rounds() == [1]
    assert 'ignoring 2 half-written rounds' in caplog.text
    assert crawl.read_table('pages').column('url').to_pylist() == ['http://a/1']
    with pytest.raises(StateError, match='never committed'):
        crawl.read_table('pages', 3)
    commit_round(crawl, 2, ['http://a/2'])  # a new attempt at round 2 replaces the leftovers
    assert crawl.committed_rounds() == [1, 2]
    assert not [p for p in (tmp_path / 'rounds').iterdir() if p.name.startswith('.pending')]


def test_discard_unfinished_deletes_this_process_s_pending_rounds_only(tmp_path):
    crawl = CrawlDir.create(str(tmp_path), {})
    commit_round(crawl, 1, ['http://a/1'])
    crawl.begin(2).write_table('pages', [page(2, 'http://a/pending')])   # Ctrl-C before its discard()
    crawl.begin(1, kind='ranks')                                         # an empty one
    other = CrawlDir.open(str(tmp_path))                                 # another process's attempt
    other.begin(3).write_table('pages', [page(3, 'http://a/other')])
    crawl.discard_unfinished()
    assert crawl.committed_rounds() == [1] and crawl.read_table('pages').column('url').to_pylist() == ['http://a/1']
    assert [p.name[:15] for p in (tmp_path / 'rounds').iterdir() if p.name.startswith('.pending')] == \
        ['.pending-000003']
    assert not [p for p in (tmp_path / 'ranks').iterdir() if p.name.startswith('.pending')]
    crawl.discard_unfinished()  # nothing left to do


def test_damaged_files_are_detected(tmp_path):
    crawl = CrawlDir.create(str(tmp_path), {})
    commit_round(crawl, 1, ['http://a/1'])
    path = tmp_path / 'rounds' / '000001' / 'pages.parquet'
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(StateError, match='fails its checksum'):
        crawl.verify(1)
    path.write_bytes(bytes(data[:-10]))
    with pytest.raises(StateError, match='does not match its manifest'):
        crawl.read_table('pages')


WRITER = textwrap.dedent('''
    import sys
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pipelines import schema
    from pipelines.state import CrawlDir

    crawl = CrawlDir.open(sys.argv[1])
    pending = crawl.begin(3)
    with pq.ParquetWriter(pending.table_path('pages'), schema.PAGES) as writer:
        for batch in range(10 ** 6):
            rows = [{'round': 3, 'url': f'http://a/{batch}/{i}', 'text': '房价' * 50} for i in range(500)]
            writer.write_table(pa.Table.from_pylist(rows, schema=schema.PAGES))
            if batch == 3:
                print('writing', flush=True)
''')


def test_a_process_killed_while_writing_a_round_loses_nothing_committed(tmp_path):
    root = str(tmp_path / 'crawl')
    crawl = CrawlDir.create(root, {})
    commit_round(crawl, 1, ['http://a/1'])
    commit_round(crawl, 2, ['http://a/2', 'http://a/3'])
    before = crawl.read_table('pages')

    writer = subprocess.Popen([sys.executable, '-c', WRITER, root], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == 'writing'
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL

    after = CrawlDir.open(root)
    assert after.committed_rounds() == [1, 2]
    assert after.read_table('pages').equals(before)
    after.verify(1)
    after.verify(2)
    pending = [p for p in (tmp_path / 'crawl' / 'rounds').iterdir() if p.name.startswith('.pending-000003')]
    assert len(pending) == 1 and (pending[0] / 'pages.parquet').stat().st_size > 0
    commit_round(after, 3, ['http://a/4'])  # the crawl carries on past the killed attempt
    assert after.read_table('pages', 3).column('url').to_pylist() == ['http://a/4']


def test_final_outcomes_follow_round_and_attempt_not_row_order():
    from pipelines.state import final_outcomes
    log = pa.table({'url': ['a', 'a', 'b', 'a'], 'round': [2, 2, 1, 1], 'attempt': [2, 1, 1, 1],
                    'outcome': ['ok', 'http_5xx', 'timeout', 'error']})
    assert final_outcomes(log) == {'a': 'ok', 'b': 'timeout'}

"""A whole crawl on Beam's portable runner: a job service and an external worker pool, each a
separate process on 127.0.0.1, so every DoFn is serialised and run in another process (the Fn API
path of Flink and Dataflow). Its tables, and its ranks, must equal those of the same crawl on the
DirectRunner."""
import pyarrow.compute as pc
import pytest

from pipelines import schema
from pipelines.state import CrawlDir
from runners.cli import main
from runners.portable import portable_services
from sandbox.server import SandboxServer, open_web

TIMING = ('started_at', 'elapsed_ms', 'fetched_at')  # when and how fast, not what: differ run to run
SORT_KEYS = {'frontier': ['position'], 'fetch_log': ['url', 'attempt'], 'pages': ['url'],
             'links': ['url', 'link_index'], 'candidates': ['url'], 'term_stats': ['term'],
             'pagerank': ['url'], 'ranking': ['url'], 'vocabulary': ['index']}


@pytest.fixture(scope='module')
def sandbox(news_web_dir):
    with SandboxServer(*open_web(news_web_dir)) as server:
        yield server


def crawl_in_two_invocations(news_web_dir, server, out, beam_args):
    """Round 1, then `--resume` for round 2, as a scheduled batch job runs them."""
    assert main(['crawl', '--task', str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(out),
                 '--budget', '40', '--round-size', '25', '--delay', '0', '--proxy', server.proxy_url,
                 '--rounds', '1', *beam_args]) == 0
    assert main(['crawl', '--resume', str(out), '--rounds', '1']) == 0
    return CrawlDir.open(str(out))


def comparable(crawl: CrawlDir, table: str, number: int, kind: str = 'rounds'):
    rows = crawl.read_table(table, number, kind)
    return rows.drop_columns([c for c in TIMING if c in rows.column_names]).sort_by(
        [(key, 'ascending') for key in SORT_KEYS[table]])


@pytest.mark.slow
def test_a_resumed_crawl_on_the_portable_runner_writes_the_tables_of_the_direct_runner(
        news_web_dir, sandbox, tmp_path):
    direct = crawl_in_two_invocations(news_web_dir, sandbox, tmp_path / 'direct', ['--runner=DirectRunner'])
    with portable_services(tmp_path / 'service-logs') as beam_args:
        portable = crawl_in_two_invocations(news_web_dir, sandbox, tmp_path / 'portable', beam_args)
        assert main(['rank', str(portable.root)]) == 0  # the rank step, on the runner the crawl recorded
    assert main(['rank', str(direct.root)]) == 0
    assert portable.config['beam_args'] == beam_args  # recorded, and --resume ran on them
    assert 'Starting worker' in (tmp_path / 'service-logs' / 'worker_pool.log').read_text()
    assert portable.committed_rounds() == direct.committed_rounds() == [1, 2]
    for number in (1, 2):
        for table in set(schema.ROUND_TABLES) - {'discover_log'}:  # a link crawl makes no search calls
            expected = comparable(direct, table, number)
            assert len(expected) > 0, (table, number)
            assert comparable(portable, table, number).equals(expected), (table, number)
        assert portable.read_selector(number) == direct.read_selector(number)
    assert portable.committed_rounds('ranks') == direct.committed_rounds('ranks') == [2]
    for table in schema.RANK_TABLES:
        expected = comparable(direct, table, 2, 'ranks')
        assert len(expected) > 0 and comparable(portable, table, 2, 'ranks').equals(expected), table
    assert pc.sum(direct.read_table('fetch_log', 2).column('bytes')).as_py() > 0

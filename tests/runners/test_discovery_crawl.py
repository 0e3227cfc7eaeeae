"""`focal crawl --strategy bandit` (and a single operator) end to end on the sandbox server: the
Discover stage, the search API, the ranks after every round and the bandit's committed state."""
import shutil

import pyarrow.compute as pc
import pytest

from pipelines.state import CrawlDir
from runners.cli import main
from runners.report import write_report
from sandbox.server import SandboxServer, open_web
from test_crawl import run_crawls


@pytest.fixture(scope='module')
def sandbox(news_web_dir):
    with SandboxServer(*open_web(news_web_dir)) as server:
        yield server


def bandit_args(news_web_dir, server, out, *extra):
    return ['crawl', '--task', str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(out), '--budget', '65',
            '--round-size', '20', '--delay', '0', '--proxy', server.proxy_url, '--strategy', 'bandit',
            '--search', 'sandbox', *extra]


@pytest.fixture(scope='module')
def crawls(news_web_dir, sandbox, tmp_path_factory):
    """The crawls these tests start, run at once: the bandit's, and two rounds of FC on 3 input
    pages. {name: (directory, what it printed)}"""
    root = tmp_path_factory.mktemp('discovery')
    commands = {'bandit': bandit_args(news_web_dir, sandbox, root / 'bandit'),
                'fc': ['crawl', '--task', str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(root / 'fc'),
                       '--strategy', 'fc', '--budget', '30', '--round-size', '15', '--delay', '0', '--rounds', '2',
                       '--proxy', sandbox.proxy_url, '--strategy-param', 'input_pages=3']}
    return {name: (root / name, printed) for name, printed in run_crawls(commands).items()}


def frontiers(crawl: CrawlDir) -> list[list[tuple]]:
    return [sorted(zip(*(crawl.read_table('frontier', number)[c].to_pylist() for c in ('position', 'url', 'operator'))))
            for number in crawl.committed_rounds()]


def test_the_bandit_plays_every_arm_once_and_resumes_as_if_never_stopped(news_web_dir, crawls, tmp_path):
    crawled, output = crawls['bandit']
    assert 'bandit: UCB1 KS -, RS -, FC -, BC -; round 2: KS on 5 pages' in output
    assert 'round 3: RS on' in output and 'bandit: KS of round 2 rewarded' in output
    whole = CrawlDir.open(str(crawled))
    rounds = whole.committed_rounds()
    assert rounds == [1, 2, 3, 4, 5] and whole.committed_rounds('ranks') == rounds  # ranked after every round
    operators = [whole.manifest(number)['summary'].get('operator') for number in rounds]
    assert operators == [None, 'KS', 'RS', 'FC', 'BC']  # every arm once, in DWDBRM's order
    state = whole.read_selector(5)['state']
    assert [pull['operator'] for pull in state['pulls']] == ['KS', 'RS', 'FC']
    assert all(0 <= pull['reward'] <= 1 and pull['judged'] > 0 for pull in state['pulls'])
    log = whole.read_table('discover_log')
    assert set(log['method'].to_pylist()) == {'keyword', 'related', 'backlinks'}
    assert set(log['outcome'].to_pylist()) <= {'ok', 'empty'} and pc.sum(log['requests']).as_py() >= len(log)
    keyword_queries = log.filter(pc.equal(log['method'], 'keyword'))['query'].to_pylist()
    assert keyword_queries and all(query.startswith('房产 ') for query in keyword_queries)
    first_round = set(whole.read_table('frontier', 2)['operator'].to_pylist())
    assert first_round == {'KS'}
    page = write_report(crawled, news_web_dir, news_web_dir / 'tasks' / '房产.yaml', tmp_path / 'report').read_text()
    assert 'Discovery operators, round by round' in page and 'KS 1 rounds (25%)' in page
    # the same crawl as it was when round 3 and its ranks were committed (committed files never change), resumed:
    # the same operators, inputs and URLs, round by round, and the same arms
    stopped = tmp_path / 'resumed'
    shutil.copytree(crawled, stopped)
    for path in ('rounds/000004', 'rounds/000005', 'ranks/000004', 'ranks/000005'):
        shutil.rmtree(stopped / path)
    for path in ('selector/000004.json', 'selector/000005.json'):
        (stopped / path).unlink()
    assert main(['crawl', '--resume', str(stopped)]) == 0
    resumed = CrawlDir.open(str(tmp_path / 'resumed'))
    assert frontiers(resumed) == frontiers(whole)
    assert resumed.read_selector(5) == whole.read_selector(5)


def test_a_single_operator_needs_a_provider_that_has_it(news_web_dir, sandbox, crawls, tmp_path, capsys):
    assert main(['crawl', '--task', str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(tmp_path / 'ks'),
                 '--strategy', 'ks', '--search', 'linkgraph', '--proxy', sandbox.proxy_url]) == 2
    assert 'ks needs a search provider with keyword search' in capsys.readouterr().err
    crawl = CrawlDir.open(str(crawls['fc'][0]))
    assert crawl.config['strategy_params']['input_pages'] == 3
    assert crawl.manifest(2)['summary']['operator'] == 'FC' and crawl.manifest(2)['summary']['inputs'] == 3

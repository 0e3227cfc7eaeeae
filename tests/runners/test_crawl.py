"""`focal crawl` end to end: a real sandbox server on 127.0.0.1, real Beam rounds, real Parquet."""
import os
import signal
import socket
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from models.topic import load_task
from models.urls import normalize_url
from pipelines.state import CrawlDir, final_outcomes
from runners.cli import main
from runners.driver import NOT_REQUESTED
from sandbox.faults import FaultPlan, gzip_bomb
from sandbox.server import SandboxServer, open_warcs, open_web
from warc_samples import write_pages


@pytest.fixture(scope='module')
def sandbox(news_web_dir):
    with SandboxServer(*open_web(news_web_dir)) as server:
        yield server


def crawl_args(news_web_dir, server, out, *extra, budget=40, round_size=20, delay=0):
    return ['crawl', '--task', str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(out),
            '--budget', str(budget), '--round-size', str(round_size), '--delay', str(delay),
            '--proxy', server.proxy_url, *extra]


def requested(crawl: CrawlDir) -> list[str]:
    outcomes = final_outcomes(crawl.read_table('fetch_log'))
    return [url for url, outcome in outcomes.items() if outcome not in NOT_REQUESTED]


def assert_nothing_fetched_twice(crawl: CrawlDir):
    log = crawl.read_table('fetch_log')
    first_round = {}
    for url, round_number in zip(log.column('url').to_pylist(), log.column('round').to_pylist()):
        assert first_round.setdefault(url, round_number) == round_number, f'{url} fetched in two rounds'


def test_a_crawl_writes_its_rounds_and_never_fetches_a_url_twice(news_web_dir, sandbox, tmp_path, capsys):
    assert main(crawl_args(news_web_dir, sandbox, tmp_path / 'crawl')) == 0
    output = capsys.readouterr().out
    assert 'round 1: fetched 5' in output and 'round 2: fetched 20' in output and 'budget of 40 pages spent' in output
    crawl = CrawlDir.open(str(tmp_path / 'crawl'))
    assert crawl.committed_rounds()[:3] == [1, 2, 3]
    assert len(requested(crawl)) == 40
    assert_nothing_fetched_twice(crawl)
    pages, links = crawl.read_table('pages'), crawl.read_table('links')
    assert len(pages) > 20 and len(links) > 20 * len(pages) // 2
    assert set(links.column('block').to_pylist()) <= {'content', 'related', 'navigation', 'noise'}
    assert all(terms for terms in pages.column('terms').to_pylist())
    assert main(['inspect', str(tmp_path / 'crawl'), '--verify']) == 0
    inspected = capsys.readouterr().out
    assert 'most relevant pages' in inspected
    assert f'every file of the {len(crawl.committed_rounds())} committed rounds matches' in inspected


def seeded_crawl(news_web_dir, server, out, seeds, *extra):
    """A one-round crawl of exactly these seed URLs."""
    seeds_file = out.parent / f'{out.name}-seeds.txt'
    seeds_file.write_text('\n'.join(seeds) + '\n', encoding='utf-8')
    return main(['crawl', '--seeds', str(seeds_file), '--topic', str(news_web_dir / 'tasks' / '房产.yaml'),
                 '--out', str(out), '--budget', str(len(seeds)), '--round-size', str(len(seeds)),
                 '--rounds', '1', '--proxy', server.proxy_url, *extra])


@pytest.fixture(scope='module')
def labels(news_web_dir):
    return pq.read_table(news_web_dir / 'labels.parquet').to_pydict()


def test_robots_txt_is_obeyed_and_recorded(news_web_dir, sandbox, tmp_path, labels):
    disallowed = [u for u, allowed in zip(labels['url'], labels['robots_allowed']) if not allowed][:3]
    allowed = [u for u, ok, kind in zip(labels['url'], labels['robots_allowed'], labels['kind'])
               if ok and kind == 'article'][:2]
    assert seeded_crawl(news_web_dir, sandbox, tmp_path / 'crawl', disallowed + allowed, '--delay', '0') == 0
    outcomes = final_outcomes(CrawlDir.open(str(tmp_path / 'crawl')).read_table('fetch_log'))
    assert {outcomes[u] for u in disallowed} == {'robots_disallowed'}
    assert {outcomes[u] for u in allowed} == {'ok'}


def test_requests_to_one_host_keep_the_delay(news_web_dir, sandbox, tmp_path, labels):
    host = 'loushi-news.test'
    urls = [u for u, h, kind in zip(labels['url'], labels['host'], labels['kind']) if h == host and kind == 'brief'][:5]
    assert seeded_crawl(news_web_dir, sandbox, tmp_path / 'crawl', urls, '--delay', '0.3') == 0
    log = CrawlDir.open(str(tmp_path / 'crawl')).read_table('fetch_log')
    starts = sorted(log.column('started_at').to_pylist())
    gaps = [(b - a).total_seconds() for a, b in zip(starts, starts[1:])]
    assert len(starts) == 5 and min(gaps) >= 0.29, gaps


# The hostile profile's latency is 1 s and its drip 5 s: beyond the crawl's 0.8 s read timeout
# and 2.4 s deadline.
EXPECTED_OUTCOMES = {
    'latency': {'timeout'}, 'slow_drip': {'timeout'}, 'server_error': {'http_5xx'},
    'rate_limited': {'ok'}, 'redirect_chain': {'ok'}, 'long_redirect_chain': {'redirect'},
    'redirect_loop': {'redirect'}, 'oversized': {'too_large'}, 'binary': {'not_html'},
    'gzip_bomb': {'too_large'}, 'wrong_charset': {'ok'}, 'calendar_trap': {'ok'},
}


def test_every_fault_of_the_hostile_profile_ends_in_its_outcome(news_web_dir, tmp_path, labels):
    plan = FaultPlan('hostile')
    gzip_bomb(plan.bomb_bytes)  # built before the crawl: building it inside a request can outlast the 0.8 s timeout
    with SandboxServer(*open_web(news_web_dir), faults=plan) as server:
        examples = {kind: server.faults.example_urls(kind, [u for u, k in zip(labels['url'], labels['kind'])
                                                            if k == 'brief'], 2)
                    for kind in EXPECTED_OUTCOMES}
        seeds = [url for urls in examples.values() for url in urls]
        assert seeded_crawl(news_web_dir, server, tmp_path / 'crawl', seeds, '--delay', '0',
                            '--timeout', '0.8') == 0
    outcomes = final_outcomes(CrawlDir.open(str(tmp_path / 'crawl')).read_table('fetch_log'))
    for kind, urls in examples.items():
        assert {outcomes[u] for u in urls} <= EXPECTED_OUTCOMES[kind], kind


def frontiers(crawl: CrawlDir) -> list[list[str]]:
    """The URLs each committed round chose, in the order chosen."""
    return [crawl.read_table('frontier', number).sort_by('position').column('url').to_pylist()
            for number in crawl.committed_rounds()]


def kill_in_round_3(command, out):
    """Run a crawl in a subprocess and SIGKILL it once round 2 is committed and round 3 under way."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            rounds = out / 'rounds'
            names = os.listdir(rounds) if rounds.exists() else []
            if '000002' in names and any(n.startswith('.pending-000003') for n in names):
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()


@pytest.mark.parametrize('strategy', ['best-first', 'random'])
def test_a_crawl_killed_mid_round_resumes_and_chooses_exactly_as_an_uninterrupted_one(
        news_web_dir, sandbox, tmp_path, strategy):
    options = dict(budget=50, round_size=15, delay=0.05)  # rounds of 5 seeds, then 15, 15, 15
    seed = ('--strategy', strategy, '--random-seed', '11')
    assert main(crawl_args(news_web_dir, sandbox, tmp_path / 'whole', *seed, **options)) == 0
    out = tmp_path / 'crawl'
    kill_in_round_3([sys.executable, '-m', 'runners', *crawl_args(news_web_dir, sandbox, out, *seed, **options)], out)
    before = CrawlDir.open(str(out))
    committed = before.committed_rounds()
    assert committed[:2] == [1, 2]
    pages_before = before.read_table('pages').sort_by('url')
    assert main(['crawl', '--resume', str(out)]) == 0
    after = CrawlDir.open(str(out))
    assert_nothing_fetched_twice(after)
    assert len(requested(after)) == 50
    kept = after.read_table('pages').filter(pc.is_in(after.read_table('pages').column('round'),
                                                     pa.array(committed, pa.int32()))).sort_by('url')
    assert kept.equals(pages_before)
    whole = CrawlDir.open(str(tmp_path / 'whole'))
    assert frontiers(after) == frontiers(whole)
    last = after.last_committed_round()
    assert after.read_selector(last) == whole.read_selector(last)
    assert after.read_table('candidates', last).sort_by('url').equals(whole.read_table('candidates', last).sort_by('url'))


def test_the_random_seed_changes_a_random_crawl(news_web_dir, sandbox, tmp_path):
    for seed in ('1', '2'):
        assert main(crawl_args(news_web_dir, sandbox, tmp_path / seed, '--strategy', 'random', '--random-seed', seed,
                               '--rounds', '2', budget=20, round_size=10, delay=0)) == 0
    assert frontiers(CrawlDir.open(str(tmp_path / '1')))[1] != frontiers(CrawlDir.open(str(tmp_path / '2')))[1]


def test_ctrl_c_mid_round_keeps_committed_rounds_and_leaves_no_half_round(news_web_dir, sandbox, tmp_path):
    out = tmp_path / 'crawl'
    command = [sys.executable, '-m', 'runners', *crawl_args(news_web_dir, sandbox, out, budget=65,
                                                             round_size=15, delay=0.05)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        rounds = out / 'rounds'
        if rounds.exists() and any(n.startswith('.pending-000002') for n in os.listdir(rounds)):
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and '--resume' in stderr
    assert not [n for n in os.listdir(out / 'rounds') if n.startswith('.pending')]
    crawl = CrawlDir.open(str(out))
    assert crawl.committed_rounds() in ([1], [1, 2])
    for number in crawl.committed_rounds():
        crawl.verify(number)


def test_an_empty_frontier_stops_the_crawl_and_says_what_to_do(tmp_path, news_web_dir, capsys):
    pages = {'http://lonely.test/': b'<html><head><title>One</title></head><body><p>No links here, '
                                   b'only text about house prices.</p></body></html>'}
    with SandboxServer(*open_warcs([write_pages(tmp_path / 'lonely.warc.gz', pages)])) as server:
        (tmp_path / 'seeds.txt').write_text('http://lonely.test/\n', encoding='utf-8')
        assert main(['crawl', '--seeds', str(tmp_path / 'seeds.txt'), '--topic',
                     str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(tmp_path / 'crawl'),
                     '--budget', '10', '--delay', '0', '--proxy', server.proxy_url]) == 0
    message = capsys.readouterr().err
    assert 'frontier is empty after round 1' in message and 'Add seeds' in message
    assert CrawlDir.open(str(tmp_path / 'crawl')).committed_rounds() == [1]


def test_seeds_the_first_round_has_no_room_for_wait_as_candidates(news_web_dir, sandbox, tmp_path):
    seeds = [normalize_url(url) for url in load_task(news_web_dir / 'tasks' / '房产.yaml').topic.seeds]
    assert len(seeds) == 5
    out = tmp_path / 'crawl'
    assert main(crawl_args(news_web_dir, sandbox, out, '--strategy', 'bfs', budget=4, round_size=2)) == 0
    crawl = CrawlDir.open(str(out))
    first = crawl.read_table('candidates', 1).filter(pc.equal(pc.field('operator'), 'seed'))
    assert sorted(first.column('url').to_pylist()) == sorted(seeds[2:])
    assert set(first.column('first_round').to_pylist()) == {0}
    assert frontiers(crawl) == [seeds[:2], seeds[2:4]]  # BFS: seeds are the oldest discoveries


def test_resume_keeps_what_defines_the_crawl_and_takes_a_new_budget(news_web_dir, sandbox, tmp_path, capsys):
    out = tmp_path / 'crawl'
    assert main(crawl_args(news_web_dir, sandbox, out, budget=10, round_size=10)) == 0
    assert main(['crawl', '--resume', str(out), '--strategy', 'bfs', '--round-size', '5']) == 2
    message = capsys.readouterr().err
    assert '--strategy, --round-size cannot change a crawl being resumed' in message and '--out' in message
    assert main(['crawl', '--resume', str(out), '--budget', '20', '--delay', '0.01']) == 0
    crawl = CrawlDir.open(str(out))
    assert crawl.config['budget'] == 20 and crawl.config['fetch']['delay'] == 0.01
    assert crawl.config['strategy'] == 'best-first'
    assert len(requested(crawl)) == 20 and crawl.last_committed_round() > 2


def test_resume_on_a_job_service_that_is_gone_says_what_to_do(news_web_dir, sandbox, tmp_path, capsys):
    out = tmp_path / 'crawl'
    assert main(crawl_args(news_web_dir, sandbox, out, budget=5, round_size=5)) == 0
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(('127.0.0.1', 0))
        port = closed.getsockname()[1]
    assert main(['crawl', '--resume', str(out), '--budget', '10', '--runner=PortableRunner',
                 f'--job_endpoint=localhost:{port}', '--environment_type=LOOPBACK']) == 2
    message = capsys.readouterr().err
    assert f'--job_endpoint=localhost:{port} does not answer' in message and 'focal portable-runner' in message
    resumed = CrawlDir.open(str(out))
    assert resumed.committed_rounds() == [1] and resumed.config['budget'] == 5  # nothing recorded

"""`focal crawl` end to end: a real sandbox server on 127.0.0.1, real Beam rounds, real Parquet."""
import concurrent.futures
import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import typing

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from models.topic import load_task
from models.urls import host_of, normalize_url
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


def focal(argv: list[str]) -> str:
    """Run `focal` in a subprocess, as a user does; what it printed. It must succeed."""
    result = subprocess.run([sys.executable, '-m', 'runners', *argv], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]
    return result.stdout


def at_once(jobs: dict[str, typing.Callable]) -> dict:
    """Call independent jobs two at a time (each runs a crawl in a subprocess, which keeps one core
    busy): their results, by name."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


def run_crawls(commands: dict[str, list[str]]) -> dict[str, str]:
    """Run independent `focal crawl` commands at once: what each printed, by name."""
    return at_once({name: functools.partial(focal, argv) for name, argv in commands.items()})


def kill_in_round_3(argv: list[str], out) -> str:
    """Run `focal` in a subprocess and SIGKILL it once round 2 is committed and round 3 under way."""
    process = subprocess.Popen([sys.executable, '-m', 'runners', *argv], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and process.poll() is None:
            rounds = out / 'rounds'
            names = os.listdir(rounds) if rounds.exists() else []
            if '000002' in names and any(n.startswith('.pending-000003') for n in names):
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    return ''


# The uninterrupted crawls the tests share: rounds of 5 seeds, then 15, 15 (robots.txt refusals
# among them cost no budget)
UNINTERRUPTED = dict(budget=33, round_size=15, delay=0.05)
KILLED = ['best-first', 'random']  # the strategies of the crawls killed mid-round


def strategy_args(strategy: str, seed: int = 11) -> tuple:
    return '--strategy', strategy, '--random-seed', str(seed)


@pytest.fixture(scope='module')
def crawls(news_web_dir, sandbox, tmp_path_factory):
    """The crawls the tests read, run at once: an uninterrupted crawl of each strategy in KILLED
    (never written to), the same crawl killed in round 3 (`killed-STRATEGY`, which its test
    resumes), and two rounds of a random crawl with another seed. {name: (CrawlDir, what it printed)}"""
    root = tmp_path_factory.mktemp('crawls')

    def command(name: str, *extra) -> list[str]:
        return crawl_args(news_web_dir, sandbox, root / name, *extra, **UNINTERRUPTED)

    jobs = {}
    for strategy in KILLED:
        killed = f'killed-{strategy}'
        jobs[strategy] = functools.partial(focal, command(strategy, *strategy_args(strategy)))
        jobs[killed] = functools.partial(kill_in_round_3, command(killed, *strategy_args(strategy)), root / killed)
    jobs['random-seed-12'] = functools.partial(focal, command('random-seed-12', *strategy_args('random', 12),
                                                              '--rounds', '2'))
    return {name: (CrawlDir.open(str(root / name)), printed) for name, printed in at_once(jobs).items()}


def copy_of(crawl: CrawlDir, out) -> str:
    """A copy of a shared crawl for a test that resumes it (committed files never change)."""
    shutil.copytree(crawl.root, out)
    return str(out)


def test_a_crawl_writes_its_rounds_and_never_fetches_a_url_twice(crawls, capsys):
    crawl, output = crawls['best-first']
    budget = UNINTERRUPTED['budget']
    assert 'round 1: fetched 5' in output and 'round 2: fetched 15' in output
    assert f'budget of {budget} pages spent' in output
    assert crawl.committed_rounds()[:3] == [1, 2, 3]
    assert len(requested(crawl)) == budget
    assert_nothing_fetched_twice(crawl)
    pages, links = crawl.read_table('pages'), crawl.read_table('links')
    assert len(pages) > 20 and len(links) > 20 * len(pages) // 2
    assert set(links.column('block').to_pylist()) <= {'content', 'related', 'navigation', 'noise'}
    assert all(terms for terms in pages.column('terms').to_pylist())
    assert main(['inspect', str(crawl.root), '--verify']) == 0
    inspected = capsys.readouterr().out
    assert 'most relevant pages' in inspected
    assert f'every file of the {len(crawl.committed_rounds())} committed rounds matches' in inspected


def seeded_crawl(news_web_dir, server, out, seeds, *extra):
    """A one-round crawl of exactly these seed URLs. Its budget has room for one more page, so it
    stops after the round unranked: the tests read its fetch log."""
    seeds_file = out.parent / f'{out.name}-seeds.txt'
    seeds_file.write_text('\n'.join(seeds) + '\n', encoding='utf-8')
    return main(['crawl', '--seeds', str(seeds_file), '--topic', str(news_web_dir / 'tasks' / '房产.yaml'),
                 '--out', str(out), '--budget', str(len(seeds) + 1), '--round-size', str(len(seeds)),
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


def test_a_worker_fetches_several_hosts_at_once_each_at_its_own_pace(news_web_dir, sandbox, tmp_path, labels):
    briefs = [(u, h) for u, h, kind, allowed in zip(labels['url'], labels['host'], labels['kind'],
                                                    labels['robots_allowed']) if kind == 'brief' and allowed]
    hosts = sorted({h for _, h in briefs})[:3]
    urls = [url for host in hosts for url in [u for u, h in briefs if h == host][:3]]
    assert seeded_crawl(news_web_dir, sandbox, tmp_path / 'crawl', urls, '--delay', '0.3', '--hosts-at-once', '3',
                        '--workers', '1') == 0
    crawl = CrawlDir.open(str(tmp_path / 'crawl'))
    log = crawl.read_table('fetch_log').to_pylist()
    assert sorted(row['url'] for row in log) == sorted(urls) and {row['outcome'] for row in log} == {'ok'}
    by_start = sorted(log, key=lambda row: row['started_at'])
    assert {host_of(row['url']) for row in by_start[:3]} == set(hosts)  # each host's first before any second
    for host in hosts:
        starts = [row['started_at'] for row in by_start if host_of(row['url']) == host]
        assert min((b - a).total_seconds() for a, b in zip(starts, starts[1:])) >= 0.29, starts
    assert crawl.config['fetch']['hosts_at_once'] == 3


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
                            '--timeout', '0.8', '--host-timeouts', '0') == 0  # 0: no host given up
    outcomes = final_outcomes(CrawlDir.open(str(tmp_path / 'crawl')).read_table('fetch_log'))
    for kind, urls in examples.items():
        assert {outcomes[u] for u in urls} <= EXPECTED_OUTCOMES[kind], kind


def test_a_host_that_times_out_is_given_up_for_the_round_without_spending_the_budget(news_web_dir, tmp_path,
                                                                                       labels, capsys):
    plan = FaultPlan('hostile')
    briefs = [(u, h) for u, h, kind, allowed in zip(labels['url'], labels['host'], labels['kind'],
                                                    labels['robots_allowed']) if kind == 'brief' and allowed]
    with SandboxServer(*open_web(news_web_dir), faults=plan) as server:
        by_host = {}
        for url, host in briefs:
            by_host.setdefault(host, []).append(url)
        host, urls = next((host, urls) for host, urls in sorted(by_host.items())
                          if plan.example_urls('latency', urls, 1) and sum(plan.fault_for(u) is None for u in urls) >= 2)
        late = plan.example_urls('latency', urls, 1)
        plain = [u for u in urls if plan.fault_for(u) is None][:2]
        other = next(u for h, host_urls in sorted(by_host.items()) if h != host
                     for u in host_urls if plan.fault_for(u) is None)
        assert seeded_crawl(news_web_dir, server, tmp_path / 'crawl', late + plain + [other], '--delay', '0',
                            '--timeout', '0.5', '--host-timeouts', '1') == 0
    crawl = CrawlDir.open(str(tmp_path / 'crawl'))
    outcomes = final_outcomes(crawl.read_table('fetch_log'))
    assert [outcomes[u] for u in late + plain + [other]] == ['timeout', 'host_unresponsive', 'host_unresponsive', 'ok']
    assert sorted(requested(crawl)) == sorted(late + [other])  # the budget pays for requests only
    assert crawl.config['fetch']['host_timeouts'] == 1
    assert 'host_unresponsive 2' in capsys.readouterr().out


def frontiers(crawl: CrawlDir) -> list[list[str]]:
    """The URLs each committed round chose, in the order chosen."""
    return [crawl.read_table('frontier', number).sort_by('position').column('url').to_pylist()
            for number in crawl.committed_rounds()]


@pytest.mark.parametrize('strategy', KILLED)
def test_a_crawl_killed_mid_round_resumes_and_chooses_exactly_as_an_uninterrupted_one(crawls, strategy):
    (whole, _), (before, _) = crawls[strategy], crawls[f'killed-{strategy}']
    committed = before.committed_rounds()
    assert committed[:2] == [1, 2]
    pages_before = before.read_table('pages').sort_by('url')
    assert main(['crawl', '--resume', str(before.root)]) == 0
    after = CrawlDir.open(str(before.root))
    assert_nothing_fetched_twice(after)
    assert len(requested(after)) == UNINTERRUPTED['budget']
    kept = after.read_table('pages').filter(pc.is_in(after.read_table('pages').column('round'),
                                                     pa.array(committed, pa.int32()))).sort_by('url')
    assert kept.equals(pages_before)
    assert frontiers(after) == frontiers(whole)
    last = after.last_committed_round()
    assert after.read_selector(last) == whole.read_selector(last)
    assert after.read_table('candidates', last).sort_by('url').equals(whole.read_table('candidates', last).sort_by('url'))


def test_the_random_seed_changes_a_random_crawl(crawls):
    assert frontiers(crawls['random-seed-12'][0])[1] != frontiers(crawls['random'][0])[1]


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
    # two rounds of two seeds; the budget has room for more, so the crawl stops unranked
    assert main(crawl_args(news_web_dir, sandbox, out, '--strategy', 'bfs', '--rounds', '2', budget=5,
                           round_size=2)) == 0
    crawl = CrawlDir.open(str(out))
    first = crawl.read_table('candidates', 1).filter(pc.equal(pc.field('operator'), 'seed'))
    assert sorted(first.column('url').to_pylist()) == sorted(seeds[2:])
    assert set(first.column('first_round').to_pylist()) == {0}
    assert frontiers(crawl) == [seeds[:2], seeds[2:4]]  # BFS: seeds are the oldest discoveries


def test_resume_keeps_what_defines_the_crawl_and_takes_a_new_budget(crawls, tmp_path, capsys):
    whole, _ = crawls['best-first']
    out = copy_of(whole, tmp_path / 'crawl')
    assert main(['crawl', '--resume', out, '--strategy', 'bfs', '--round-size', '5']) == 2
    message = capsys.readouterr().err
    assert '--strategy, --round-size cannot change a crawl being resumed' in message and '--out' in message
    assert main(['crawl', '--resume', out, '--budget', '36', '--delay', '0.01', '--hosts-at-once', '2',
                 '--host-timeouts', '5']) == 0
    crawl = CrawlDir.open(out)
    assert crawl.config['budget'] == 36 and crawl.config['fetch']['delay'] == 0.01
    assert crawl.config['fetch']['hosts_at_once'] == 2 and crawl.config['fetch']['host_timeouts'] == 5
    assert crawl.config['strategy'] == 'best-first'
    assert len(requested(crawl)) == 36 and crawl.last_committed_round() > whole.last_committed_round()


def test_resume_on_a_job_service_that_is_gone_says_what_to_do(crawls, tmp_path, capsys):
    whole, _ = crawls['best-first']
    out = copy_of(whole, tmp_path / 'crawl')
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(('127.0.0.1', 0))
        port = closed.getsockname()[1]
    assert main(['crawl', '--resume', out, '--budget', '36', '--runner=PortableRunner',
                 f'--job_endpoint=localhost:{port}', '--environment_type=LOOPBACK']) == 2
    message = capsys.readouterr().err
    assert f'--job_endpoint=localhost:{port} does not answer' in message and 'focal portable-runner' in message
    resumed = CrawlDir.open(out)
    assert resumed.committed_rounds() == whole.committed_rounds()  # nothing recorded
    assert resumed.config['budget'] == UNINTERRUPTED['budget']


def test_a_crawl_on_two_worker_processes_fetches_and_writes_what_one_process_does(crawls, news_web_dir, sandbox,
                                                                                  tmp_path):
    crawl, _ = crawls['best-first']
    out = tmp_path / 'two-workers'
    focal(crawl_args(news_web_dir, sandbox, out, '--workers', '2', '--rounds', '2', *strategy_args('best-first'),
                     **UNINTERRUPTED))
    parallel = CrawlDir.open(str(out))
    assert '--direct_running_mode=multi_processing' in parallel.config['beam_args']
    assert frontiers(parallel) == frontiers(crawl)[:2]

    def first_two_rounds(crawl_dir: CrawlDir, table: str, key: str) -> list:
        rows = crawl_dir.read_table(table)
        return sorted(rows.filter(pc.less_equal(rows['round'], 2)).column(key).to_pylist())
    for table, key in (('pages', 'url'), ('links', 'dst'), ('candidates', 'url')):
        assert first_two_rounds(parallel, table, key) == first_two_rounds(crawl, table, key), table


def test_workers_are_refused_with_another_runner(tmp_path, news_web_dir, capsys):
    argv = ['crawl', '--task', str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(tmp_path / 'c'),
            '--workers', '2', '--runner=PortableRunner']
    assert main(argv) == 2
    assert '--workers sets how many local processes' in capsys.readouterr().err


def test_a_crawl_reaches_no_address_but_the_sandbox(news_web_dir, sandbox, tmp_path, traffic):
    """Every name looked up and every connection of a whole crawl (rounds and ranking) in this
    process (tests/conftest.py records them): only 127.0.0.1. Beam's DirectRunner would first
    offer each round to Prism, whose binary it downloads from github.com."""
    assert main(crawl_args(news_web_dir, sandbox, tmp_path / 'crawl', budget=10, round_size=5)) == 0
    crawl = CrawlDir.open(str(tmp_path / 'crawl'))
    assert crawl.committed_rounds('ranks') == [crawl.last_committed_round()]
    connected, looked_up = traffic['connected'], traffic['looked_up']
    assert connected and set(connected) <= {'127.0.0.1'}, connected
    assert set(looked_up) <= {'127.0.0.1', 'localhost'}, looked_up

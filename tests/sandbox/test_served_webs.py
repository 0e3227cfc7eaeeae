"""The built webs as a crawler meets them: through the proxy, with `requests`, and via `focal`."""
import signal
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
import requests

from models import html
from models.topic import load_topic
from models.urls import host_of
from sandbox.faults import KINDS, FaultPlan
from sandbox.server import SandboxServer, open_web
from warc_samples import write_pages


@pytest.fixture(scope='module')
def news(news_web_dir):
    archive, index = open_web(news_web_dir)
    with SandboxServer(archive, index, faults=FaultPlan('hostile')).start() as server:
        session = requests.Session()
        session.proxies = server.proxies
        yield server, session, pq.read_table(news_web_dir / 'labels.parquet').to_pydict()


def relevant_share(urls, labels, column):
    relevant = dict(zip(labels['url'], labels[column]))
    return sum(relevant[u] for u in urls) / len(urls)


def test_gbk_pages_arrive_as_gbk_and_decode_by_their_declaration(news):
    server, session, labels = news
    plan = server.faults
    gbk = [u for u, c, k in zip(labels['url'], labels['charset'], labels['kind'])
           if c in ('gbk', 'gb2312') and k == 'article' and plan.fault_for(u) is None]
    response = session.get(gbk[0], timeout=10)
    assert response.status_code == 200
    text, encoding = html.decode(response.content, response.headers['Content-Type'].partition('charset=')[2])
    assert encoding == 'gb18030' and '\ufffd' not in text and '首页' in text
    with pytest.raises(UnicodeDecodeError):
        response.content.decode('utf-8')


def test_robots_txt_of_each_host_is_the_archived_one(news):
    server, session, labels = news
    hosts = sorted(set(labels['host']))
    printable = {host_of(u) for u, k in zip(labels['url'], labels['kind']) if k == 'print'}
    for host in hosts:
        robots = session.get(f'http://{host}/robots.txt', timeout=10).text
        assert 'Disallow: /search' in robots
        assert ('Disallow: /print/' in robots) == (host in printable)


def test_search_related_and_backlinks_find_the_task_s_pages(news, news_web_dir, report):
    server, session, labels = news
    api = server.proxy_url
    hits = requests.get(f'{api}/search', params={'q': '房价 楼盘', 'count': 20}, timeout=10).json()['results']
    assert len(hits) == 20 and all(set(hit) == {'url', 'title', 'snippet'} for hit in hits)
    assert not any('/print/' in hit['url'] for hit in hits)  # robots.txt keeps them out of the index
    search_share = relevant_share([h['url'] for h in hits], labels, 'relevant_房产')
    seeds = load_topic(news_web_dir / 'tasks' / '房产.yaml').seeds
    related = [h['url'] for seed in seeds for h in requests.get(
        f'{api}/related', params={'url': seed, 'count': 20}, timeout=10).json()['results']]
    related_share = relevant_share(related, labels, 'relevant_房产')
    base_rate = relevant_share(labels['url'], labels, 'relevant_房产')
    backlinks = requests.get(f'{api}/backlinks', params={'url': seeds[0]}, timeout=10).json()['results']
    assert search_share >= 0.8 and related_share >= 2 * base_rate and backlinks
    many = requests.get(f'{api}/search', params={'q': '新闻', 'count': 500}, timeout=10).json()['results']
    assert len(many) == 50
    report(f'sandbox search API on the thucnews web: 房产 share of top 20 for "房价 楼盘" {search_share:.2f}, '
           f'of 20 related to each seed {related_share:.2f} (base rate {base_rate:.2f}); '
           f'{len(backlinks)} backlinks of a seed')


def test_hostile_profile_puts_every_fault_on_the_built_web(news):
    server, session, labels = news
    for kind in KINDS:
        assert server.faults.example_urls(kind, labels['url'], 1), kind
    url = server.faults.example_urls('server_error', labels['url'], 1)[0]
    assert session.get(url, timeout=10).status_code in (500, 503)


def test_focal_sandbox_serve_and_stats_from_the_command_line(news_web_dir):
    stats = subprocess.run([sys.executable, '-m', 'runners', 'sandbox', 'stats', str(news_web_dir)],
                           capture_output=True, text=True, timeout=300)
    assert stats.returncode == 0, stats.stderr
    assert 'task 房产 (tasks/房产.yaml)' in stats.stdout and 'allowed by robots.txt' in stats.stdout
    assert 'by links alone' in stats.stdout
    serve = subprocess.Popen([sys.executable, '-m', 'runners', 'sandbox', 'serve', str(news_web_dir),
                              '--port', '0', '--faults', 'mild'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        faults, first = serve.stdout.readline(), serve.stdout.readline()
        proxy = serve.stdout.readline().split()[1]
        assert faults.startswith('faults by kind (URLs): latency ') and 'wrong_charset' in faults
        assert first.startswith('sandbox:') and proxy.startswith('http://127.0.0.1:')
        home = requests.get('http://loushi-news.test/', proxies={'http': proxy}, timeout=10)
        assert FaultPlan('mild').fault_for('http://loushi-news.test/') is None  # so no fault hits it
        assert home.status_code == 200 and '楼市新闻网' in home.content.decode(home.encoding or 'gbk', 'replace')
    finally:
        serve.send_signal(signal.SIGINT)
        assert serve.wait(timeout=30) == 0
    assert 'stopped' in serve.stderr.read()


def test_a_sandbox_started_in_the_background_stops_on_sigint_and_sigterm(tmp_path):
    """A shell starts a background command with SIGINT ignored; the server still stops cleanly."""
    warc = write_pages(tmp_path / 'one.warc.gz', {'http://one.test/': b'<html><body>one</body></html>'})
    for stop in (signal.SIGINT, signal.SIGTERM):
        serve = subprocess.Popen([sys.executable, '-m', 'runners', 'sandbox', 'serve', '--warc', str(warc),
                                  '--port', '0'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        try:
            proxy = next(line for line in serve.stdout if line.strip().startswith('proxy')).split()[1]
            assert requests.get('http://one.test/', proxies={'http': proxy}, timeout=10).status_code == 200
        finally:
            serve.send_signal(stop)
            try:
                code = serve.wait(timeout=30)
            finally:
                serve.kill()  # one that did not stop is not left running
        assert code == 0 and 'stopped' in serve.stderr.read(), stop


@pytest.mark.parametrize('arguments, message', [
    (['sandbox', 'build', '--corpus', 'reuters', '--out', 'x'], 'unknown corpus'),
    (['sandbox', 'serve'], 'give either a web directory'),
    (['sandbox', 'serve', 'no-such-web'], 'focal sandbox build'),
    (['sandbox', 'stats', 'no-such-web'], 'focal sandbox build'),
    (['sandbox', 'serve', '--warc', 'no-such.warc.gz'], 'no-such.warc.gz'),
])
def test_command_line_errors_say_what_to_do(tmp_path, arguments, message):
    result = subprocess.run([sys.executable, '-m', 'runners', *arguments], capture_output=True,
                            text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr and 'Traceback' not in result.stderr

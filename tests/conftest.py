"""Shared test fixtures: the real data sets in ../shared/data; no traffic but to 127.0.0.1."""
import socket
import subprocess
import sys

import pytest

from sandbox import corpora


@pytest.fixture(scope='session')
def shared_data():
    return corpora.shared_data_dir()


@pytest.fixture
def report(capsys):
    """Print a figure to the terminal even while pytest captures output."""
    def emit(*lines):
        with capsys.disabled():
            for line in lines:
                print(line)
    return emit


LOOPBACK = {'127.0.0.1', '::1', 'localhost'}
network = {'looked_up': [], 'connected': []}  # the running test's name lookups and connections


@pytest.fixture(scope='session', autouse=True)
def loopback_only():
    """Tests send traffic only to 127.0.0.1: in this process a name lookup or a connection to any
    other address is refused (as if nothing answered) and fails the test that tried it."""
    lookup, connect = socket.getaddrinfo, socket.socket.connect

    def guarded_lookup(host, *args, **kwargs):
        if host is not None:
            network['looked_up'].append(host)
            if host not in LOOPBACK:
                raise socket.gaierror(socket.EAI_NONAME, f'tests look up no name but 127.0.0.1 ({host})')
        return lookup(host, *args, **kwargs)

    def guarded_connect(self, address):
        if isinstance(address, tuple):
            network['connected'].append(address[0])
            if address[0] not in LOOPBACK:
                raise ConnectionRefusedError(f'tests connect to nothing but 127.0.0.1 ({address[0]})')
        return connect(self, address)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, 'getaddrinfo', guarded_lookup)
        patch.setattr(socket.socket, 'connect', guarded_connect)
        yield


@pytest.fixture(autouse=True)
def traffic(loopback_only):
    """This test's name lookups and connections in this process (hosts and addresses, in order)."""
    for seen in network.values():
        seen.clear()
    yield network
    tried = sorted({host for seen in network.values() for host in seen if host not in LOOPBACK})
    assert not tried, f'the test tried to reach {tried}: tests send traffic only to 127.0.0.1'


WEBS = {'news_web_dir': 'thucnews', 'wiki_web_dir': 'wikispeedia'}  # fixture: corpus, in order of first use
BUILD = '''import sys
from sandbox.build import build_web
for corpus, out in zip(sys.argv[1::2], sys.argv[2::2]):
    build_web(corpus, out, seed=1, progress=False)
    print(corpus, flush=True)
'''


@pytest.fixture(scope='session', autouse=True)
def web_builds(request, tmp_path_factory):
    """Build the sandbox webs the session's tests use (seed 1) one after the other in a subprocess
    started with the session, so that a web is ready, or nearly, when its first test comes (a
    build keeps a core busy for up to a minute). Gives `ready(corpus)`: the web's directory once
    built."""
    used = {name for item in request.session.items for name in getattr(item, 'fixturenames', ())}
    corpora = [corpus for fixture, corpus in WEBS.items() if fixture in used]
    root = tmp_path_factory.mktemp('webs')
    log = root / 'build.log'
    process = None
    if corpora:
        request.getfixturevalue('shared_data')  # says where the data should be when it is missing
        with open(log, 'w') as errors:
            process = subprocess.Popen([sys.executable, '-c', BUILD, *(str(a) for c in corpora for a in (c, root / c))],
                                       stdout=subprocess.PIPE, stderr=errors, text=True)
    built = set()

    def ready(corpus: str):
        assert corpus in corpora, f'no collected test names the fixture of the {corpus} web'
        while corpus not in built:
            line = process.stdout.readline()
            assert line, f'building the {corpus} web failed:\n{log.read_text()}'
            built.add(line.strip())
        return root / corpus

    yield ready
    if process:
        process.kill()
        process.wait()
        process.stdout.close()


@pytest.fixture(scope='session')
def news_web_dir(web_builds):
    """The THUCNews sandbox web, built once per test session."""
    return web_builds('thucnews')


@pytest.fixture(scope='session')
def wiki_web_dir(web_builds):
    """The Wikispeedia sandbox web, built once per test session."""
    return web_builds('wikispeedia')


@pytest.fixture(scope='session')
def small_corpus(tmp_path_factory, shared_data):
    """A JSONL corpus of 90 real THUCNews articles in three labels, with a few links."""
    import json
    from sandbox import corpora
    chosen = {}
    for document in corpora.thucnews_articles():
        if document.labels[0] in ('房产', '体育', '科技') and len(chosen.get(document.labels[0], [])) < 30:
            chosen.setdefault(document.labels[0], []).append(document)
    path = tmp_path_factory.mktemp('corpus') / 'news.jsonl'
    with open(path, 'w', encoding='utf-8') as out:
        for label, documents in chosen.items():
            for n, document in enumerate(documents):
                record = {'id': document.id, 'title': document.title, 'text': document.text,
                          'label': label}
                if n % 3 == 0:
                    record['links'] = [documents[(n + 1) % len(documents)].id]
                out.write(json.dumps(record, ensure_ascii=False) + '\n')
    return path

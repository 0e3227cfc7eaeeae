"""Shared test fixtures: the real data sets in ../shared/data."""
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


@pytest.fixture(scope='session')
def news_web_dir(tmp_path_factory, shared_data):
    """The THUCNews sandbox web, built once per test session."""
    from sandbox.build import build_web
    out = tmp_path_factory.mktemp('webs') / 'thucnews'
    build_web('thucnews', out, seed=1, progress=False)
    return out


@pytest.fixture(scope='session')
def wiki_web_dir(tmp_path_factory, shared_data):
    """The Wikispeedia sandbox web, built once per test session."""
    from sandbox.build import build_web
    out = tmp_path_factory.mktemp('webs') / 'wikispeedia'
    build_web('wikispeedia', out, seed=1, progress=False)
    return out


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

"""`focal rank` and the driver's rank step end to end: a sandbox crawl on 127.0.0.1, the rank
pipeline on Beam, ranks/NNNNNN committed and read back."""
import shutil

import pyarrow.compute as pc
import pytest

from models import ranking
from models.settings import CrawlSettings
from models.topic import load_task
from pipelines.state import CrawlDir
from runners.cli import main
from sandbox.server import SandboxServer, open_warcs, open_web
from warc_samples import write_pages


@pytest.fixture(scope='module')
def ranked_crawl(news_web_dir, tmp_path_factory):
    """A 60-page best-first crawl of the 房产 task; the driver ranks it when the budget is spent."""
    out = tmp_path_factory.mktemp('ranked') / 'crawl'
    with SandboxServer(*open_web(news_web_dir)) as server:
        assert main(['crawl', '--task', str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(out),
                     '--budget', '60', '--round-size', '30', '--delay', '0', '--proxy', server.proxy_url]) == 0
    return CrawlDir.open(str(out))


def test_a_crawl_ends_ranked(ranked_crawl):
    last = ranked_crawl.last_committed_round()
    assert ranked_crawl.committed_rounds('ranks') == [last]
    manifest = ranked_crawl.manifest(last, 'ranks')
    summary = manifest['summary']
    assert summary['seed_pages'] == 5 and summary['pagerank'] == 'local' and summary['combination'] == 'eq8'
    assert summary['negatives'] == ranking.negatives_wanted(5) and summary['vocabulary'] > 20
    table = ranked_crawl.read_table('ranking', last, kind='ranks').sort_by('position')
    pages = ranked_crawl.read_table('pages')
    assert sorted(table['url'].to_pylist()) == sorted(set(pages['final_url'].to_pylist()))
    assert table['position'].to_pylist() == list(range(table.num_rows)) and set(table['round'].to_pylist()) == {last}
    assert pc.sum(table['seed']).as_py() == 5
    for name in ranking.SCORES:  # every ranker's positions are a permutation of 0..n-1, ties shared
        assert sum(table[f'position_{name}'].to_pylist()) == pytest.approx(table.num_rows * (table.num_rows - 1) / 2)
    pagerank = ranked_crawl.read_table('pagerank', last, kind='ranks')
    linked = set(ranked_crawl.read_table('links')['dst'].to_pylist())
    assert set(table['url'].to_pylist()) <= set(pagerank['url'].to_pylist()) and len(pagerank) > len(linked) / 2
    assert pc.sum(pagerank['pagerank']).as_py() == pytest.approx(1.0)
    assert pc.mean(pagerank['pagerank_wl']).as_py() == pytest.approx(1.0)
    vocabulary = ranked_crawl.read_table('vocabulary', last, kind='ranks').sort_by('index')
    assert vocabulary['term'].to_pylist()[0] in ranked_crawl.config['topic']['keywords']
    # a page most like the seeds (not a seed) ranks in the better half by every text ranker
    best = table.filter(pc.invert(table['seed'])).to_pylist()[0]
    assert all(best[f'position_{name}'] < table.num_rows / 2 for name in ('nb', 'cosine', 'jaccard'))


def test_focal_rank_reuses_committed_ranks_and_combines_again_when_asked(ranked_crawl, capsys):
    assert main(['rank', str(ranked_crawl.root), '--top', '5']) == 0
    output = capsys.readouterr().out
    assert 'committed before' in output and '(seed)' in output
    assert len([line for line in output.splitlines() if 'http://' in line]) == 5
    assert main(['rank', str(ranked_crawl.root), '--combine', 'rrf', '--alpha', '0.2', '--top', '3']) == 0
    output = capsys.readouterr().out
    assert 'combined again here with rrf (alpha 0.2); the committed ranking keeps eq8 (alpha 0.0)' in output
    assert ranked_crawl.committed_rounds('ranks') == [ranked_crawl.last_committed_round()]


def test_focal_rank_ranks_an_earlier_round_with_beam_pagerank_and_named_negatives(ranked_crawl, tmp_path, capsys):
    first_round = ranked_crawl.read_table('pages', 1)
    negative = ranked_crawl.read_table('pages', 2)['final_url'].to_pylist()[0]
    (tmp_path / 'negatives.txt').write_text(f'{negative}\n', encoding='utf-8')
    assert main(['rank', str(ranked_crawl.root), '--round', '1', '--pagerank', 'beam',
                 '--negatives', str(tmp_path / 'negatives.txt')]) == 0
    assert 'PageRank beam' in capsys.readouterr().out
    summary = ranked_crawl.manifest(1, 'ranks')['summary']
    assert summary['pagerank'] == 'beam' and summary['negatives'] == 0  # the named page is not in round 1
    assert sorted(ranked_crawl.read_table('ranking', 1, kind='ranks')['url'].to_pylist()) == sorted(
        first_round['final_url'].to_pylist())
    # beam gives scipy's ranks: rank the same round locally in a copy and compare
    copy = tmp_path / 'copy'
    shutil.copytree(ranked_crawl.root, copy, ignore=shutil.ignore_patterns('ranks'))
    assert main(['rank', str(copy), '--round', '1']) == 0
    local = dict(zip(*(CrawlDir.open(str(copy)).read_table('pagerank', 1, kind='ranks')[c].to_pylist()
                       for c in ('url', 'pagerank'))))
    beam = dict(zip(*(ranked_crawl.read_table('pagerank', 1, kind='ranks')[c].to_pylist() for c in ('url', 'pagerank'))))
    assert local.keys() == beam.keys() and max(abs(local[u] - beam[u]) for u in local) < 1e-9


def test_focal_rank_says_what_is_missing(news_web_dir, tmp_path, capsys):
    empty = tmp_path / 'empty'  # created, then stopped before its first round committed
    topic = load_task(news_web_dir / 'tasks' / '房产.yaml').topic
    CrawlDir.create(str(empty), CrawlSettings(topic=topic, seeds=topic.seeds).to_dict())
    assert main(['rank', str(empty)]) == 2
    assert 'no committed round yet' in capsys.readouterr().err
    pages = {'http://lonely.test/': b'<html><head><title>One</title></head><body><p>house prices</p></body></html>'}
    with SandboxServer(*open_warcs([write_pages(tmp_path / 'lonely.warc.gz', pages)])) as server:
        (tmp_path / 'seeds.txt').write_text('http://missing.test/\n', encoding='utf-8')
        assert main(['crawl', '--seeds', str(tmp_path / 'seeds.txt'), '--topic',
                     str(news_web_dir / 'tasks' / '房产.yaml'), '--out', str(tmp_path / 'crawl'),
                     '--budget', '3', '--delay', '0', '--proxy', server.proxy_url]) == 0
    assert 'the crawl is not ranked: no seed page was fetched' in capsys.readouterr().err
    assert main(['rank', str(tmp_path / 'crawl')]) == 2
    assert 'no seed page was fetched in rounds 1-1' in capsys.readouterr().err
    assert main(['rank', str(tmp_path / 'crawl'), '--round', '7']) == 2
    assert 'round 7 of' in capsys.readouterr().err

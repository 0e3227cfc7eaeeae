"""A Beam pipeline reads committed tables from the manifests, never a half-written round; the
selector state is committed with its round and checked."""
import json

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from pipelines.committed import ReadCommitted
from pipelines.state import CrawlDir, StateError


def commit_pages(crawl, number, urls, **commit_args):
    pending = crawl.begin(number)
    pending.write_table('pages', [{'round': number, 'url': u, 'final_url': u, 'host': 'a.test',
                                   'title': 't', 'text': 'x', 'relevance': 0.5} for u in urls])
    return pending.commit(**commit_args)


def test_read_committed_reads_the_files_the_manifests_name(tmp_path):
    crawl = CrawlDir.create(str(tmp_path / 'crawl'), {})
    commit_pages(crawl, 1, ['http://a.test/1', 'http://a.test/2'])
    commit_pages(crawl, 2, ['http://a.test/3'])
    half = crawl.begin(3)
    half.write_table('pages', [{'round': 3, 'url': 'http://a.test/never'}])
    with BeamTestPipeline('FnApiRunner') as pipeline:
        every = pipeline | 'Every' >> ReadCommitted(crawl, 'pages', columns=['url', 'round'])
        assert_that(every | 'Pairs' >> beam.Map(lambda r: (r['url'], r['round'])),
                    equal_to([('http://a.test/1', 1), ('http://a.test/2', 1), ('http://a.test/3', 2)]), label='all')
        second = pipeline | 'Second' >> ReadCommitted(crawl, 'pages', [2], columns=['url'])
        assert_that(second | 'Urls' >> beam.Map(lambda r: r['url']), equal_to(['http://a.test/3']), label='one')
        none = pipeline | 'None' >> ReadCommitted(crawl, 'candidates', [])
        assert_that(none, equal_to([]), label='none')


def test_the_selector_state_is_committed_with_its_round_and_checked(tmp_path):
    crawl = CrawlDir.create(str(tmp_path / 'crawl'), {})
    entry = crawl.write_selector(1, {'state': {'draws': 3}, 'rng': {'bit_generator': 'PCG64'}})
    manifest = commit_pages(crawl, 1, ['http://a.test/1'], summary={'requested': 1}, selector=entry)
    assert manifest['selector']['name'] == 'selector/000001.json'
    assert crawl.read_selector(1)['state'] == {'draws': 3} and crawl.summaries() == [{'requested': 1}]
    crawl.verify(1)
    (tmp_path / 'crawl' / 'selector' / '000001.json').write_text(json.dumps({'state': {'draws': 4}}))
    with pytest.raises(StateError, match='fails its checksum'):
        crawl.read_selector(1)
    with pytest.raises(StateError, match='fails its checksum'):
        crawl.verify(1)

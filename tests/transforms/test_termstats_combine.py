"""DocumentFrequencies on FnApiRunner: the committed statistics plus this round's pages equal one
pass over all pages, and the side input holds the counts of exactly the terms the round looks up
(its pages' terms and its links' words, also those only earlier pages held)."""
import apache_beam as beam
import pyarrow as pa
import pytest
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from models.termstats import TermStats
from transforms.termstats import CountPagesPerTermFn, DocumentFrequencies

EARLIER = [['房价', '楼市', '学区'], ['football'], ['房价']]
PAGES = [['房价', '上涨'], ['楼市', '房价'], ['football', 'goal'], [], ['goal']]  # each page's distinct terms (Extract joins them)
LINK_WORDS = [['学区 房价', ''], [], ['never-seen'], ['football', 'football'], []]  # space-joined; 学区: only earlier pages


@pytest.mark.parametrize('batch_pages', [1_000, 2])
def test_cumulative_frequencies_equal_one_pass_over_every_page(monkeypatch, batch_pages):
    """Whatever batches of pages a bundle's terms are counted in (BATCH_PAGES)."""
    monkeypatch.setattr(CountPagesPerTermFn, 'BATCH_PAGES', batch_pages)
    everything = TermStats.from_documents(EARLIER + PAGES).document_frequency
    prior = [{'round': 1, 'term': term, 'documents': count}
             for term, count in TermStats.from_documents(EARLIER).document_frequency.items()]
    with BeamTestPipeline('FnApiRunner') as pipeline:
        prior_tables = pipeline | 'Prior' >> beam.Create([pa.Table.from_pylist(prior[:2]), pa.Table.from_pylist(prior[2:])])
        frequencies = (pipeline
                       | 'Pages' >> beam.Create([(' '.join(terms), words) for terms, words in zip(PAGES, LINK_WORDS)],
                                              reshuffle=True)
                       | DocumentFrequencies(prior_tables, 2))
        cumulative = frequencies['cumulative'] | 'CumulativeRows' >> beam.FlatMap(lambda table: table.to_pylist())
        assert_that(cumulative, equal_to([{'round': 2, 'term': term, 'documents': count}
                                          for term, count in everything.items()]), label='cumulative')
        looked_up = {term for page in PAGES for term in page} | {'学区'}  # never-seen has no count
        lookup = frequencies['lookup'] | 'LookupPairs' >> beam.FlatMap(
            lambda table: zip(table['term'].to_pylist(), table['documents'].to_pylist()))
        assert_that(lookup, equal_to([(t, everything[t]) for t in looked_up]), label='lookup')

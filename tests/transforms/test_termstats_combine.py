"""DocumentFrequencies on FnApiRunner: the committed statistics plus this round's pages equal one
pass over all pages, and the side input holds only the round's own terms."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from models.termstats import TermStats
from transforms.termstats import DocumentFrequencies

EARLIER = [['房价', '楼市'], ['football'], ['房价']]
PAGES = [['房价', '上涨', '房价'], ['楼市', '房价'], ['football', 'goal'], [], ['goal']]


def test_cumulative_frequencies_equal_one_pass_over_every_page():
    everything = TermStats.from_documents(EARLIER + PAGES).document_frequency
    prior = [{'round': 1, 'term': term, 'documents': count}
             for term, count in TermStats.from_documents(EARLIER).document_frequency.items()]
    with BeamTestPipeline('FnApiRunner') as pipeline:
        prior_rows = pipeline | 'Prior' >> beam.Create(prior)
        frequencies = (pipeline
                       | 'Pages' >> beam.Create(PAGES, reshuffle=True)
                       | DocumentFrequencies(prior_rows))
        assert_that(frequencies['cumulative'], equal_to(list(everything.items())), label='cumulative')
        round_terms = {term for page in PAGES for term in page}
        assert_that(frequencies['in_round'], equal_to([(t, everything[t]) for t in round_terms]),
                    label='in_round')

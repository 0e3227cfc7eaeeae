import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from models.termstats import TermStats
from transforms.termstats import GatherTermStats

PAGES = [['房价', '上涨', '房价'], ['楼市', '房价'], ['football', 'goal'], [], ['goal']]


def test_gathered_stats_equal_one_pass_over_all_pages():
    expected = TermStats.from_documents(PAGES).to_dict()
    with BeamTestPipeline('FnApiRunner') as pipeline:
        stats = (pipeline
                 | beam.Create(PAGES, reshuffle=True)
                 | GatherTermStats()
                 | beam.Map(TermStats.to_dict))
        assert_that(stats, equal_to([expected]))

"""RankPages: batches of fetched pages + their PageRank -> DWDBRM's ranking of every page
(models/ranking.py has the rankers and the combination; this wires them into Beam).

Per batch, in parallel: the keyword features, the Bayesian prior's sums, the pages least like the
seeds (negative candidates), and at last the five rankers' scores. On one worker, small: the seed
pages and the vocabulary, fitting the rankers, and the positions (a sort of every page's scores).
"""
import functools

import apache_beam as beam
import pyarrow as pa
from apache_beam.metrics import Metrics

from models import ranking
from models.topic import Topic


class _SumFn(beam.CombineFn):
    """Adds objects that define + (BayesBackground); None when there is nothing to add."""

    def create_accumulator(self):
        return None

    def add_input(self, total, value):
        return value if total is None else total + value

    def merge_accumulators(self, totals):
        return functools.reduce(self.add_input, totals, None)

    def extract_output(self, total):
        return total


def _least_like_the_seeds(features: ranking.PageFeatures, seeds: ranking.PageFeatures, wanted: int):
    """A batch's own `wanted` best negative candidates (the global pick takes the smallest of these)."""
    for score, sample, url, row in sorted(ranking.negative_order(features, seeds))[:wanted]:
        yield score, sample, url, features.take([row])


class RankPages(beam.PTransform):
    """{'pages': batches of page rows (models.ranking.PAGE_COLUMNS), 'pagerank': batches of
    (url, pagerank)} -> one table: a row per fetched page (by final URL) with each ranker's score
    and position, the combination's value and the final position, best first.

    `seeds` are the crawl's normalised seed URLs; `negative_urls` fetched pages and
    `negative_documents` (name, term counts) other pages the user gives as negatives (default:
    the pages least like the seeds)."""
    VOCABULARY = 'vocabulary'

    def __init__(self, topic: Topic, seeds: list[str], combination: str, alpha: float,
                 negative_urls: list[str] = (), negative_documents: list[tuple[str, dict]] = ()):
        super().__init__()
        ranking.check_combination(combination, alpha)
        self.topic, self.seeds = topic, list(seeds)
        self.combination, self.alpha = combination, alpha
        self.negative_urls, self.negative_documents = list(negative_urls), list(negative_documents)

    def expand(self, inputs):
        pages, pagerank = inputs['pages'], inputs['pagerank']
        seeds, topic = self.seeds, self.topic
        seed_pages = (pages
                      | 'SeedRows' >> beam.Map(ranking.seed_rows, seeds)
                      | 'GatherSeedRows' >> beam.combiners.ToList()
                      | 'SeedPages' >> beam.Map(lambda tables: pa.concat_tables(tables).sort_by('final_url')))
        vocabulary = seed_pages | 'Vocabulary' >> beam.Map(ranking.keyword_vocabulary, topic)
        as_vocabulary = beam.pvalue.AsSingleton(vocabulary)
        features = pages | 'Features' >> beam.Map(ranking.page_features, as_vocabulary)
        seed_features = seed_pages | 'SeedFeatures' >> beam.Map(ranking.page_features, as_vocabulary)
        background = (features
                      | 'BayesSums' >> beam.Map(ranking.BayesBackground.of)
                      | 'BayesBackground' >> beam.CombineGlobally(_SumFn()))
        negatives = self._negatives(features, seed_features, vocabulary)
        rankers = seed_features | 'FitRankers' >> beam.Map(
            _fit, beam.pvalue.AsSingleton(negatives), beam.pvalue.AsSingleton(background))
        scores = features | 'Score' >> beam.Map(ranking.score_table, beam.pvalue.AsSingleton(rankers))
        ranked = (scores
                  | 'GatherScores' >> beam.combiners.ToList()
                  | 'Positions' >> beam.Map(ranking.ranking_table, beam.pvalue.AsList(pagerank),
                                            beam.pvalue.AsSingleton(seed_features), self.combination, self.alpha))
        return {'ranking': ranked, self.VOCABULARY: vocabulary}

    def _negatives(self, features, seed_features, vocabulary):
        if self.negative_urls or self.negative_documents:
            named = set(self.negative_urls)
            documents = self.negative_documents
            chosen = features | 'NamedNegatives' >> beam.Map(
                lambda batch: batch.take([row for row, url in enumerate(batch.urls.to_pylist()) if url in named]))
            given = vocabulary | 'GivenNegatives' >> beam.Map(lambda words: ranking.terms_features(documents, words))
            parts = (chosen, given) | 'UserNegatives' >> beam.Flatten()
        else:
            wanted = ranking.negatives_wanted(len(self.seeds))
            parts = (features
                     | 'NegativeCandidates' >> beam.FlatMap(_least_like_the_seeds,
                                                            beam.pvalue.AsSingleton(seed_features), wanted)
                     | 'LeastLikeTheSeeds' >> beam.combiners.Top.Smallest(wanted, key=lambda candidate: candidate[:3])
                     | 'NegativeRows' >> beam.FlatMap(lambda candidates: [row for *_, row in candidates]))
        return (parts
                | 'GatherNegatives' >> beam.combiners.ToList()
                | 'Negatives' >> beam.Map(lambda rows, words: ranking.PageFeatures.concat(rows, len(words)),
                                         beam.pvalue.AsSingleton(vocabulary)))


def _fit(seeds: ranking.PageFeatures, negatives: ranking.PageFeatures, background):
    Metrics.counter(RankPages, 'negatives').inc(negatives.size)
    Metrics.counter(RankPages, 'seed_pages').inc(seeds.size)
    return ranking.fit_rankers(seeds, negatives, background)

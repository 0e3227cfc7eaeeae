"""The crawl's document frequencies as data (WL eq. 3's D_i), updated in Beam each round."""
import collections

import apache_beam as beam
from apache_beam.transforms.window import GlobalWindows


def _union(term_sets):
    union = set()
    for terms in term_sets:
        union.update(terms)
    return union


def _cumulative(joined):
    """(term, pages holding it so far, whether this round looks it up)."""
    term, counts = joined
    in_round = list(counts['round'])
    return term, sum(counts['prior']) + sum(in_round), bool(in_round) or any(True for _ in counts['lookup'])


class CountPagesPerTermFn(beam.DoFn):
    """Pages -> (term, pages of the bundle holding it), counted in a Counter per bundle: a page's
    ~1,000 distinct terms are one C-level update instead of ~1,000 elements through Beam."""

    def start_bundle(self):
        self.pages_per_term = collections.Counter()

    def process(self, page):
        self.pages_per_term.update(set(page[0]))

    def finish_bundle(self):
        for counted in self.pages_per_term.items():
            yield GlobalWindows.windowed_value_at_end_of_window(counted)
        self.pages_per_term = collections.Counter()


class DocumentFrequencies(beam.PTransform):
    """Per page of the round (its terms, other terms scoring it looks up: its links' words) + the
    committed term_stats rows of the round before ->
    {'cumulative': (term, pages holding it) over every page so far,
     'lookup': the same for only the terms this round's scoring looks up; what the Score stage
     takes as a side input, so it stays the size of the round's words, not of the crawl's}."""

    def __init__(self, prior_term_stats):
        super().__init__()
        self.prior_term_stats = prior_term_stats

    def expand(self, pages):
        round_counts = (pages
                        | 'CountPerBundle' >> beam.ParDo(CountPagesPerTermFn())
                        | 'PagesPerTerm' >> beam.CombinePerKey(sum))
        looked_up = (pages
                     | 'OtherTerms' >> beam.Map(lambda page: set(page[1]))
                     | 'AllOtherTerms' >> beam.CombineGlobally(_union)  # one set per bundle, then one
                     | 'EachOtherTerm' >> beam.FlatMap(lambda terms: ((term, True) for term in terms)))
        prior_counts = self.prior_term_stats | 'PriorPagesPerTerm' >> beam.Map(
            lambda row: (row['term'], row['documents']))
        totals = ({'prior': prior_counts, 'round': round_counts, 'lookup': looked_up}
                  | 'JoinTerms' >> beam.CoGroupByKey()
                  | 'AddCounts' >> beam.Map(_cumulative))
        return {'cumulative': (totals
                               | 'SeenTerms' >> beam.Filter(lambda total: total[1] > 0)
                               | 'Cumulative' >> beam.Map(lambda total: (total[0], total[1]))),
                'lookup': (totals
                           | 'LookedUpAndSeen' >> beam.Filter(lambda total: total[2] and total[1] > 0)
                           | 'Lookup' >> beam.Map(lambda total: (total[0], total[1])))}

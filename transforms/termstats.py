"""The crawl's document frequencies as data (WL eq. 3's D_i), updated in Beam each round."""
import apache_beam as beam


def _cumulative(joined):
    term, counts = joined
    in_round = list(counts['round'])
    return term, sum(counts['prior']) + sum(in_round), bool(in_round)


class DocumentFrequencies(beam.PTransform):
    """Tokenised pages of this round + the committed term_stats rows of the round before ->
    {'cumulative': (term, pages holding it) over every page so far, 'in_round': the same for
    only the terms this round's pages hold (what scoring them needs: the side input stays the
    size of the round's vocabulary, not the crawl's)}."""

    def __init__(self, prior_term_stats):
        super().__init__()
        self.prior_term_stats = prior_term_stats

    def expand(self, page_tokens):
        round_counts = (page_tokens
                        | 'TermsOfPage' >> beam.FlatMap(lambda tokens: ((term, 1) for term in set(tokens)))
                        | 'PagesPerTerm' >> beam.CombinePerKey(sum))
        prior_counts = self.prior_term_stats | 'PriorPagesPerTerm' >> beam.Map(
            lambda row: (row['term'], row['documents']))
        totals = ({'prior': prior_counts, 'round': round_counts}
                  | 'JoinTerms' >> beam.CoGroupByKey()
                  | 'AddCounts' >> beam.Map(_cumulative))
        return {'cumulative': totals | 'Cumulative' >> beam.Map(lambda total: (total[0], total[1])),
                'in_round': (totals
                             | 'TermsOfThisRound' >> beam.Filter(lambda total: total[2])
                             | 'InRound' >> beam.Map(lambda total: (total[0], total[1])))}

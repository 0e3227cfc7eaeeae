"""UpdateFrontier: the previous round's candidates + this round's found links − every URL
requested or reached -> this round's candidates table (models/frontier.py merges a URL's rows)."""
import apache_beam as beam

from models.frontier import merge_candidates


class MergeCandidatesFn(beam.DoFn):
    """(url, {'rows': candidate rows, 'done': markers}) -> the URL's merged row, unless it was reached."""

    def __init__(self, round_number: int):
        self.round = round_number

    def process(self, grouped):
        _, joined = grouped
        if any(True for _ in joined['done']):
            return
        yield merge_candidates(joined['rows'], self.round)


class UpdateFrontier(beam.PTransform):
    """{'previous': last round's candidate rows, 'found': this round's candidate rows,
    'reached': every URL requested or reached by redirect, in any round} -> candidate rows."""

    def __init__(self, round_number: int):
        super().__init__()
        self.round = round_number

    def expand(self, inputs):
        rows = ((inputs['previous'], inputs['found'])
                | 'AllCandidateRows' >> beam.Flatten()
                | 'KeyByUrl' >> beam.Map(lambda row: (row['url'], row)))
        reached = inputs['reached'] | 'MarkReached' >> beam.Map(lambda url: (url, True))
        return ({'rows': rows, 'done': reached}
                | 'GroupByUrl' >> beam.CoGroupByKey()
                | 'MergeCandidates' >> beam.ParDo(MergeCandidatesFn(self.round)))

"""UpdateFrontier: the previous round's candidates + this round's found links − every URL
requested or reached -> this round's candidates table (models/frontier.py merges a URL's rows).

Each input joins the CoGroupByKey as its own tag rather than through a Flatten: FnApiRunner
writes and reads back every input of a Flatten (one link row per link, ~100 a real page), while
the found rows combined per URL where Score emits them leave its stage a row per URL."""
import apache_beam as beam

from models.frontier import merge_candidates


class MergeCandidatesFn(beam.DoFn):
    """(url, {'previous', 'found', 'waiting': candidate rows, 'done': markers}) -> the URL's merged
    row, unless it was reached."""

    def __init__(self, round_number: int):
        self.round = round_number

    def process(self, grouped):
        _, joined = grouped
        if any(True for _ in joined['done']):
            return
        yield merge_candidates([*joined['previous'], *joined['found'], *joined['waiting']], self.round)


class MergeFoundRowsFn(beam.CombineFn):
    """This round's rows of one URL merged as they come, so the shuffle carries a row per URL and
    bundle rather than one per link (menus link the same URLs from every page of a site). Exact:
    rows found in one round share their first_round, so merging some of them first picks the same
    best row, depth, first round and link count as merging them all at once."""

    def __init__(self, round_number: int):
        self.round = round_number

    def create_accumulator(self):
        return None

    def add_input(self, merged, row):
        return row if merged is None else merge_candidates((merged, row), self.round)

    def merge_accumulators(self, accumulators):
        rows = [merged for merged in accumulators if merged is not None]
        return merge_candidates(rows, self.round) if rows else None

    def extract_output(self, merged):
        return merged


class UpdateFrontier(beam.PTransform):
    """{'previous': last round's candidate rows, 'found': this round's candidate rows of its links,
    'waiting': candidate rows found before this round other than as links (seeds
    waiting for room), 'reached': every URL requested or reached by redirect, in any round}
    -> candidate rows."""

    def __init__(self, round_number: int):
        super().__init__()
        self.round = round_number

    def expand(self, inputs):
        def keyed(tag):
            return inputs[tag] | f'Key{tag.title()}ByUrl' >> beam.Map(lambda row: (row['url'], row))

        found = keyed('found') | 'MergeFoundRows' >> beam.CombinePerKey(MergeFoundRowsFn(self.round))
        reached = inputs['reached'] | 'MarkReached' >> beam.Map(lambda url: (url, True))
        return ({'previous': keyed('previous'), 'found': found, 'waiting': keyed('waiting'), 'done': reached}
                | 'GroupByUrl' >> beam.CoGroupByKey()
                | 'MergeCandidates' >> beam.ParDo(MergeCandidatesFn(self.round)))

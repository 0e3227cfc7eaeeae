"""UpdateFrontier: the previous round's candidates + this round's found links − every URL
requested or reached -> this round's candidates table (models/frontier.py merges a URL's rows).

Each input joins the CoGroupByKey as its own tag rather than through a Flatten: FnApiRunner
writes and reads back every input of a Flatten (one link row per link, ~100 a real page), while
the found rows combined per URL where Score emits them leave its stage a row per URL."""
import apache_beam as beam

from models.frontier import merge_candidates, preference


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
    best row, depth, first round and link count as merging them all at once. The accumulator is
    [best row, depth, first round, links]: a link updates it in place, where merge_candidates
    would copy a whole row per link."""

    def __init__(self, round_number: int):
        self.round = round_number

    def create_accumulator(self):
        return None

    def add_input(self, merged, row):
        if merged is None:
            return [row, row['depth'], row['first_round'], row['times_linked']]
        if preference(row) < preference(merged[0]):
            merged[0] = row
        merged[1] = max(merged[1], row['depth'])
        merged[2] = min(merged[2], row['first_round'])
        merged[3] += row['times_linked']
        return merged

    def merge_accumulators(self, accumulators):
        parts = [merged for merged in accumulators if merged is not None]
        if not parts:
            return None
        return [min((merged[0] for merged in parts), key=preference), max(merged[1] for merged in parts),
                min(merged[2] for merged in parts), sum(merged[3] for merged in parts)]

    def extract_output(self, merged):
        if merged is None:
            return None
        best, depth, first_round, times_linked = merged
        return {**best, 'round': self.round, 'depth': depth, 'first_round': first_round, 'times_linked': times_linked}


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

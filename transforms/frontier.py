"""UpdateFrontier: the previous round's candidates + this round's found links − every URL
requested or reached -> this round's candidates table (models/frontier.py merges a URL's rows).

The rows travel as pyarrow tables, one per shuffle partition of their URLs (transforms/tables.py)
and batch of rows, a bundle's found rows merged per URL first: the shuffle groups a few tables per
bundle, and each partition's rows are merged a column at a time. As single rows keyed by URL, every candidate (~100 a real page, most
of them distinct on a real web) was coded and handled one by one through a combine, a join and
the join's flatten: 3.1 of a 1,000-page round's 22.8 CPU-s on Dragnet's news pages, and the
candidates table grows with the crawl."""
import apache_beam as beam
import pyarrow as pa
import pyarrow.compute as pc
from apache_beam.transforms.window import GlobalWindows

from models.frontier import CandidateMerger, merge_candidates
from transforms.tables import rows_table, tagged_partitions

URLS = pa.schema([('url', pa.string())])


class PartitionRowsFn(beam.DoFn):
    """Candidate rows of `schema` (lists of them with `row_lists`), merged per URL as they come
    (CandidateMerger), or URLs when `schema` is None -> (partition, (tag, table of those rows)), a
    table per partition every BATCH_ROWS URLs and at the bundle's end."""
    BATCH_ROWS = 20_000

    def __init__(self, tag: str, schema: pa.Schema | None, row_lists: bool = False):
        self.tag = tag
        self.schema = schema
        self.row_lists = row_lists

    def start_bundle(self):
        self.batch = set() if self.schema is None else CandidateMerger()

    def process(self, rows):
        for row in rows if self.row_lists else (rows,):
            self.batch.add(row)
        if len(self.batch) >= self.BATCH_ROWS:
            yield from self._tables()

    def finish_bundle(self):
        for part in self._tables():
            yield GlobalWindows.windowed_value_at_end_of_window(part)

    def _tables(self):
        batch = self.batch
        self.start_bundle()
        if batch:
            table = pa.table({'url': list(batch)}, URLS) if self.schema is None else rows_table(batch.rows(), self.schema)
            yield from tagged_partitions(table, 'url', self.tag)


class MergeCandidatesFn(beam.DoFn):
    """(partition, [(tag, table)]: 'previous', 'found', 'waiting' candidate rows, 'done' URLs)
    -> the partition's merged rows (a table), but none of a URL reached."""

    def __init__(self, round_number: int, schema: pa.Schema):
        self.round = round_number
        self.schema = schema

    def process(self, grouped):
        _, tagged = grouped
        tables, done = [], []
        for tag, table in tagged:
            if tag == 'done':
                done.extend(table['url'].chunks)
            else:
                tables.append(table.select(self.schema.names).cast(self.schema))
        if not tables:
            return
        rows = pa.concat_tables(tables)
        if done:
            reached = pa.chunked_array(done, pa.string()).combine_chunks()
            rows = rows.filter(pc.invert(pc.is_in(rows['url'], value_set=reached)))
        merged = merge_candidates(rows, self.round)
        if merged.num_rows:
            yield merged


class UpdateFrontier(beam.PTransform):
    """{'previous': last round's candidate rows as tables (ReadCommitted batched), 'found': this
    round's candidate rows of its links, a list per page, 'waiting': candidate rows found before
    this round other than as links (seeds waiting for room), 'reached': every URL requested or
    reached by redirect, in any round} -> tables of candidate rows (`schema`). The inputs are
    tagged and grouped by partition here rather than by CoGroupByKey, whose own tagging step
    would lose the tables' coder."""

    def __init__(self, round_number: int, schema: pa.Schema):
        super().__init__()
        self.round = round_number
        self.schema = schema

    def expand(self, inputs):
        return ((inputs['previous'] | 'PartitionPrevious' >> beam.FlatMap(tagged_partitions, 'url', 'previous'),
                 inputs['found'] | 'PartitionFound' >> beam.ParDo(PartitionRowsFn('found', self.schema, row_lists=True)),
                 inputs['waiting'] | 'PartitionWaiting' >> beam.ParDo(PartitionRowsFn('waiting', self.schema)),
                 inputs['reached'] | 'PartitionReached' >> beam.ParDo(PartitionRowsFn('done', None)))
                | 'AllPartitioned' >> beam.Flatten()
                | 'GroupByPartition' >> beam.GroupByKey()
                | 'MergeCandidates' >> beam.ParDo(MergeCandidatesFn(self.round, self.schema)))

"""UpdateFrontier: the previous round's candidates + this round's found links − every URL
requested or reached -> this round's candidates table (models/frontier.py merges a URL's rows).

The rows travel as pyarrow tables, one per shuffle partition of their URLs (transforms/tables.py)
and batch of rows, a bundle's found rows merged per URL first: the shuffle groups a few tables per
bundle, and each partition's rows are merged a column at a time. As single rows keyed by URL, every
candidate (~100 a real page, most of them distinct on a real web) was coded and handled one by one
through a combine, a join and the join's flatten: 3.1 of a 1,000-page round's 22.8 CPU-s on
Dragnet's news pages, and the candidates table grows with the crawl. A page's found rows come as
one batch of columns and a bundle's are merged in Arrow (merge_candidates), not as a dict per link
merged in Python."""
import apache_beam as beam
import pyarrow as pa
import pyarrow.compute as pc
from apache_beam.transforms.window import GlobalWindows

from models.frontier import merge_candidates
from transforms.tables import columns_table, rows_table, tagged_partitions

URLS = pa.schema([('url', pa.string())])


class PartitionRowsFn(beam.DoFn):
    """Candidate rows of `schema` (with `columns`, batches of columns: a page's kept links,
    models/frontier.py link_candidates), merged per URL a batch at a time, or URLs when `schema`
    is None -> (partition, (tag, table of those rows)), a table per partition every BATCH_ROWS rows
    and at the bundle's end."""
    BATCH_ROWS = 20_000

    def __init__(self, tag: str, schema: pa.Schema | None, round_number: int = 0, columns: bool = False):
        self.tag = tag
        self.schema = schema
        self.round = round_number
        self.columns = columns

    def start_bundle(self):
        self.batch, self.rows = (set() if self.schema is None else []), 0

    def process(self, element):
        if self.schema is None:
            self.batch.add(element)
            self.rows = len(self.batch)
        else:
            self.batch.append(element)
            self.rows += len(element['url']) if self.columns else 1
        if self.rows >= self.BATCH_ROWS:
            yield from self._tables()

    def finish_bundle(self):
        for part in self._tables():
            yield GlobalWindows.windowed_value_at_end_of_window(part)

    def _tables(self):
        batch = self.batch
        self.start_bundle()
        if not batch:
            return
        if self.schema is None:
            table = pa.table({'url': list(batch)}, URLS)
        else:
            table = merge_candidates((columns_table if self.columns else rows_table)(batch, self.schema), self.round)
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
    round's candidate rows of its links, a batch of columns per page, 'waiting': candidate rows
    found before this round other than as links (seeds waiting for room), 'reached': every URL
    requested or reached by redirect, in any round} -> tables of candidate rows (`schema`). The
    inputs are tagged and grouped by partition here rather than by CoGroupByKey, whose own tagging
    step would lose the tables' coder."""

    def __init__(self, round_number: int, schema: pa.Schema):
        super().__init__()
        self.round = round_number
        self.schema = schema

    def expand(self, inputs):
        return ((inputs['previous'] | 'PartitionPrevious' >> beam.FlatMap(tagged_partitions, 'url', 'previous'),
                 inputs['found'] | 'PartitionFound' >> beam.ParDo(
                     PartitionRowsFn('found', self.schema, self.round, columns=True)),
                 inputs['waiting'] | 'PartitionWaiting' >> beam.ParDo(
                     PartitionRowsFn('waiting', self.schema, self.round)),
                 inputs['reached'] | 'PartitionReached' >> beam.ParDo(PartitionRowsFn('done', None)))
                | 'AllPartitioned' >> beam.Flatten()
                | 'GroupByPartition' >> beam.GroupByKey()
                | 'MergeCandidates' >> beam.ParDo(MergeCandidatesFn(self.round, self.schema)))

"""WriteParquet: a table's rows -> its Parquet shards, written by the stage that makes the rows.

Beam's WriteToParquetBatched took tables: each bundle's rows became a few large tables, and Beam
samples the size of a PCollection's first elements by coding them, so every one of those tables
was pickled whole just to be measured (the pages and links of a 2,000-page CWCED round, ~50 MB
each); and its write is a chain of eight steps around a side input and a GroupByKey, per table.
Here each bundle writes its rows into a temporary Parquet file as it makes them, and only the
file's name is an element; once every bundle is done, one step renames the files into the table's
shards (Beam's names, `<table>-NNNNN-of-NNNNN.parquet`, one per bundle, Beam's Parquet options)
and deletes the temporary directory. A bundle that fails leaves a file no output names, deleted
with the directory.
"""
import uuid

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.transforms.window import GlobalWindows

from transforms.tables import columns_table, rows_table

ROWS, COLUMNS, TABLES = 'rows', 'columns', 'tables'  # what each element is (WriteParquet)


def _parquet_writer(stream, table_schema: pa.Schema) -> pq.ParquetWriter:
    """Beam's WriteToParquetBatched's defaults: no compression, compliant nested types."""
    return pq.ParquetWriter(stream, table_schema, compression='none', use_compliant_nested_type=True)


class _WriteBundleFileFn(beam.DoFn):
    """Elements -> one temporary Parquet file per bundle; its path is the bundle's one output.
    Rows (or batches of columns) become a table, built in C++ from all of them at once, every
    ROWS_PER_TABLE rows or so (a row group's worth): Beam's row-at-a-time WriteToParquet looked up
    each column's schema field for every row in Python, 4% of a crawl round's instructions."""
    ROWS_PER_TABLE = 10_000

    def __init__(self, temp_dir: str, table_schema: pa.Schema, elements: str):
        self.temp_dir = temp_dir
        self.schema = table_schema
        self.elements = elements

    def setup(self):
        self.writer = self.stream = None

    def start_bundle(self):
        self._close()  # a failed bundle's file, if the runner reuses this instance
        self.batch, self.rows, self.path = [], 0, None

    def process(self, element):
        if self.elements == TABLES:
            self._write(element.select(self.schema.names).cast(self.schema))
            return
        self.batch.append(element)
        self.rows += len(element[self.schema.names[0]]) if self.elements == COLUMNS else 1
        if self.rows >= self.ROWS_PER_TABLE:
            self._write_batch()

    def finish_bundle(self):
        if self.batch:
            self._write_batch()
        if self.writer is not None:
            self._close()
            yield GlobalWindows.windowed_value_at_end_of_window(self.path)

    def teardown(self):
        self._close()

    def _write_batch(self):
        batch, self.batch, self.rows = self.batch, [], 0
        self._write(columns_table(batch, self.schema) if self.elements == COLUMNS else rows_table(batch, self.schema))

    def _write(self, table: pa.Table):
        if self.writer is None:
            self.path = FileSystems.join(self.temp_dir, f'{uuid.uuid4().hex}.parquet')
            self.stream = FileSystems.create(self.path, compression_type=CompressionTypes.UNCOMPRESSED)
            self.writer = _parquet_writer(self.stream, self.schema)
        self.writer.write_table(table)

    def _close(self):
        if self.writer is not None:
            writer, stream, self.writer, self.stream = self.writer, self.stream, None, None
            writer.close()
            stream.close()


def shard_names(prefix: str, count: int) -> list[str]:
    """Beam's shard names for `count` files: `<prefix>-NNNNN-of-NNNNN.parquet`."""
    return [f'{prefix}-{index:05d}-of-{count:05d}.parquet' for index in range(count)]


def finalize_shards(prefix: str, temp_dir: str, table_schema: pa.Schema, paths: list[str]) -> list[str]:
    """The bundles' files renamed into the table's shards, the temporary directory deleted; with no
    rows at all, one empty shard (as Beam writes). Run again after a failure, it renames what is
    left: a file already renamed is skipped."""
    paths = sorted(paths)
    shards = shard_names(prefix, max(len(paths), 1))
    if not paths:
        with FileSystems.create(shards[0], compression_type=CompressionTypes.UNCOMPRESSED) as stream:
            _parquet_writer(stream, table_schema).close()
    there = [FileSystems.exists(path) for path in paths]
    pending = [(path, shard) for path, shard, exists in zip(paths, shards, there) if exists]
    missing = [shard for shard, exists in zip(shards, there) if not exists and not FileSystems.exists(shard)]
    if missing:
        raise IOError(f'the files of shards {", ".join(missing)} are gone before they were renamed')
    if pending:
        FileSystems.rename([path for path, _ in pending], [shard for _, shard in pending])
    _delete_directory(temp_dir)
    return shards


def _delete_directory(directory: str) -> None:
    """The directory and the files left in it (a failed bundle's). An object store has no
    directories: its files are deleted one by one, and the directory itself is not there."""
    leftovers = [file.path for match in FileSystems.match([FileSystems.join(directory, '*')])
                 for file in match.metadata_list]
    if leftovers:
        FileSystems.delete(leftovers)
    if FileSystems.exists(directory):
        FileSystems.delete([directory])


class WriteParquet(beam.PTransform):
    """Elements -> Parquet shards `<prefix>-NNNNN-of-NNNNN.parquet` of `table_schema` (any filesystem
    Beam knows). `elements`: ROWS (dicts), COLUMNS (batches of columns: a dict of equally long
    lists, transforms/tables.py columns_table) or TABLES (pyarrow tables holding the schema's
    columns, cast to it here). Outputs the shards' paths once they are in place."""

    def __init__(self, prefix: str, table_schema: pa.Schema, elements: str = ROWS):
        super().__init__()
        if elements not in (ROWS, COLUMNS, TABLES):
            raise ValueError(f'elements must be {ROWS!r}, {COLUMNS!r} or {TABLES!r}, not {elements!r}')
        self.prefix = prefix
        self.schema = table_schema
        self.elements = elements

    def expand(self, elements):
        base, name = FileSystems.split(self.prefix)
        temp_dir = FileSystems.join(base, f'.temp-{name}-{uuid.uuid4().hex}')
        files = elements | 'WriteBundleFiles' >> beam.ParDo(_WriteBundleFileFn(temp_dir, self.schema, self.elements))
        prefix, table_schema = self.prefix, self.schema
        return (elements.pipeline
                | 'Once' >> beam.Create([None])
                | 'Finalize' >> beam.FlatMap(lambda _, paths: finalize_shards(prefix, temp_dir, table_schema, paths),
                                             beam.pvalue.AsList(files)))

"""pyarrow tables as Beam elements: rows made into a table a batch at a time, tables split into
the shuffle partitions of their keys (URLs, terms), and the coder tables travel with."""
import zlib
from typing import Iterator

import apache_beam as beam
import numpy as np
import pyarrow as pa

PARTITIONS = 16  # shuffle partitions of keyed tables (URLs, terms): a worker merges each one's rows at once


def rows_table(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """Rows -> a table of `schema`, built from columns: pyarrow builds a table from lists of values
    in a third of the time it takes from dicts (2.4 -> 1.1 µs a link row, the transposition
    included); a column a row lacks is null, as from_pylist makes it."""
    return pa.Table.from_pydict({name: [row.get(name) for row in rows] for name in schema.names}, schema)


def key_partitions(table: pa.Table, key: str) -> Iterator[tuple[int, pa.Table]]:
    """(partition, the table's rows whose `key` falls in it) for each partition it has rows of. A
    key's partition is the same in every process (Python's str hash is salted per process)."""
    parts = np.fromiter((zlib.crc32(value.encode()) % PARTITIONS for value in table[key].to_pylist()),
                        np.int64, table.num_rows)
    order, start = np.argsort(parts, kind='stable'), 0
    for part, rows in enumerate(np.bincount(parts, minlength=PARTITIONS)):
        if rows:  # taken, not sliced: a slice would carry (and pickle) the whole table's buffers
            yield part, table.take(order[start:start + rows])
            start += rows


class ArrowTableCoder(beam.coders.Coder):
    """A table in Arrow's IPC stream format. Its size estimate is the table's own byte count: Beam
    estimates the size of the elements it samples by encoding them, and it samples every one of a
    PCollection's first elements, so each table was pickled once more only to be measured."""

    def encode(self, table: pa.Table) -> bytes:
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        return sink.getvalue().to_pybytes()

    def decode(self, encoded: bytes) -> pa.Table:
        return pa.ipc.open_stream(pa.py_buffer(encoded)).read_all()

    def estimate_size(self, table: pa.Table) -> int:
        return table.nbytes

    def is_deterministic(self) -> bool:
        return False

    def to_type_hint(self):
        return pa.Table


beam.coders.registry.register_coder(pa.Table, ArrowTableCoder)

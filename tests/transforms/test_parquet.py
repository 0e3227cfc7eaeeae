"""WriteParquet on FnApiRunner: rows, batches of columns or tables -> Beam-named Parquet shards,
written by the stage that makes them, renamed into place once every bundle is done."""
import copyreg
import os
import pickle

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline

from transforms.parquet import COLUMNS, ROWS, TABLES, WriteParquet, finalize_shards, shard_names

SCHEMA = pa.schema([('url', pa.string()), ('terms', pa.list_(pa.string())), ('relevance', pa.float64()),
                    ('fetched_at', pa.timestamp('ms', tz='UTC'))])
ROWS_WRITTEN = [{'url': f'http://h{n % 3}.test/{n}', 'terms': [f'词{n}', 'house'] if n % 4 else [],
                 'relevance': n / 7, 'fetched_at': None} for n in range(25)]


def written(directory, name='pages') -> tuple[list[str], pa.Table]:
    files = sorted(os.listdir(directory))
    shards = [f for f in files if f.startswith(f'{name}-')]
    return files, pa.concat_tables([pq.read_table(os.path.join(directory, f)) for f in shards])


def sorted_rows(table: pa.Table) -> list[dict]:
    return sorted(table.to_pylist(), key=lambda row: row['url'])


@pytest.mark.parametrize('elements', [ROWS, COLUMNS, TABLES])
def test_every_row_lands_in_beams_shard_names_and_nothing_else_is_left(tmp_path, elements):
    if elements == ROWS:
        inputs = ROWS_WRITTEN
    elif elements == COLUMNS:  # a page's links: a batch of columns each
        inputs = [{name: [row[name] for row in ROWS_WRITTEN[n:n + 4]] for name in SCHEMA.names} for n in range(0, 25, 4)]
    else:  # tables with their columns in another order and narrower types: cast to the schema
        inputs = [pa.Table.from_pylist(ROWS_WRITTEN[n:n + 10]).select(['relevance', 'url', 'terms', 'fetched_at'])
                  for n in range(0, 25, 10)]
    with BeamTestPipeline('FnApiRunner') as pipeline:
        _ = pipeline | beam.Create(inputs) | WriteParquet(str(tmp_path / 'pages'), SCHEMA, elements)
    files, table = written(tmp_path)
    assert files == ['pages-00000-of-00001.parquet']  # one bundle, one shard; the temporary directory is gone
    assert pq.read_schema(tmp_path / files[0]).remove_metadata().equals(SCHEMA)
    assert sorted_rows(table) == sorted_rows(pa.Table.from_pylist(ROWS_WRITTEN, SCHEMA))


def test_a_list_column_s_values_may_be_arrow_arrays(tmp_path):
    """A page's terms come as Arrow arrays (transforms/score.py), other rows' as lists."""
    rows = [{**row, 'terms': pa.array(row['terms'], pa.string()) if n % 2 else row['terms']}
            for n, row in enumerate(ROWS_WRITTEN)]
    with BeamTestPipeline('FnApiRunner') as pipeline:
        _ = pipeline | beam.Create(rows) | WriteParquet(str(tmp_path / 'pages'), SCHEMA, ROWS)
    assert sorted_rows(written(tmp_path)[1]) == sorted_rows(pa.Table.from_pylist(ROWS_WRITTEN, SCHEMA))


def test_no_rows_make_one_empty_shard_of_the_schema(tmp_path):
    with BeamTestPipeline('FnApiRunner') as pipeline:
        _ = pipeline | beam.Create([]) | WriteParquet(str(tmp_path / 'pages'), SCHEMA)
    files, table = written(tmp_path)
    assert files == ['pages-00000-of-00001.parquet'] and table.num_rows == 0
    assert table.schema.remove_metadata().equals(SCHEMA)


def test_large_batches_become_row_groups_of_one_file(tmp_path, monkeypatch):
    from transforms import parquet
    monkeypatch.setattr(parquet._WriteBundleFileFn, 'ROWS_PER_TABLE', 10)
    with BeamTestPipeline('FnApiRunner') as pipeline:
        _ = pipeline | beam.Create(ROWS_WRITTEN) | WriteParquet(str(tmp_path / 'pages'), SCHEMA)
    files, table = written(tmp_path)
    assert files == ['pages-00000-of-00001.parquet']
    assert pq.ParquetFile(tmp_path / files[0]).num_row_groups == 3
    assert sorted_rows(table) == sorted_rows(pa.Table.from_pylist(ROWS_WRITTEN, SCHEMA))


def bundle_file(directory, name, rows):
    directory.mkdir(exist_ok=True)
    path = directory / name
    pq.write_table(pa.Table.from_pylist(rows, SCHEMA), path)
    return str(path)


def test_finalize_renames_the_bundles_files_in_order_and_drops_a_failed_bundles_file(tmp_path):
    temp = tmp_path / '.temp-pages-1'
    paths = [bundle_file(temp, 'b.parquet', ROWS_WRITTEN[10:]), bundle_file(temp, 'a.parquet', ROWS_WRITTEN[:10])]
    bundle_file(temp, 'failed.parquet', ROWS_WRITTEN[:3])  # a bundle that failed and was retried: no output names it
    shards = finalize_shards(str(tmp_path / 'pages'), str(temp), SCHEMA, paths)
    assert shards == shard_names(str(tmp_path / 'pages'), 2)
    assert sorted(os.listdir(tmp_path)) == ['pages-00000-of-00002.parquet', 'pages-00001-of-00002.parquet']
    assert pq.read_table(shards[0]).num_rows == 10 and pq.read_table(shards[1]).num_rows == 15
    # run again (a retried finalize): what was renamed is skipped
    assert finalize_shards(str(tmp_path / 'pages'), str(temp), SCHEMA, paths) == shards
    assert sorted(os.listdir(tmp_path)) == ['pages-00000-of-00002.parquet', 'pages-00001-of-00002.parquet']


def test_finalize_says_which_shard_lost_its_file(tmp_path):
    temp = tmp_path / '.temp-pages-1'
    paths = [bundle_file(temp, 'a.parquet', ROWS_WRITTEN), str(temp / 'gone.parquet')]
    with pytest.raises(IOError, match='pages-00001-of-00002.parquet'):
        finalize_shards(str(tmp_path / 'pages'), str(temp), SCHEMA, paths)


def test_unknown_elements_are_refused():
    with pytest.raises(ValueError, match="'rows', 'columns' or 'tables'"):
        WriteParquet('/tmp/x', SCHEMA, 'dicts')


def test_no_table_is_pickled_on_its_way(tmp_path, monkeypatch):
    """Rows become tables only in the writing step: Beam samples the size of the first elements of
    every PCollection by coding them, which pickled each whole table of rows when tables were
    the elements of the write (the pages and links of a real round: ~50 MB each)."""
    pickled = []

    def reduce(table):
        pickled.append(table.num_rows)
        return pa.Table.from_batches, (table.to_batches(), table.schema)

    monkeypatch.setitem(copyreg.dispatch_table, pa.Table, reduce)
    with BeamTestPipeline('FnApiRunner') as pipeline:
        rows = pipeline | beam.Create(ROWS_WRITTEN)
        row_count = rows | beam.combiners.Count.Globally()  # a side input, as Score reads the round's counts
        _ = (rows | beam.Map(lambda row, count: dict(row), beam.pvalue.AsSingleton(row_count))
             | WriteParquet(str(tmp_path / 'pages'), SCHEMA))
    assert pickled == []
    assert written(tmp_path)[1].num_rows == 25
    assert pickle.loads(pickle.dumps(pa.table({'a': [1]}))).num_rows == 1 and pickled == [1]  # the spy sees pickles

"""The crawl directory: crawl.json, then one directory of Parquet tables per committed round.

    CRAWL_DIR/crawl.json                 config, topic, strategy, seeds, versions
    CRAWL_DIR/rounds/000001/*.parquet    round tables (schema.ROUND_TABLES), Beam shards allowed
    CRAWL_DIR/rounds/000001/_COMMITTED   manifest: row counts, sizes, SHA-256 of every file
    CRAWL_DIR/ranks/000001/...           rank tables (schema.RANK_TABLES), same protocol

A round is written into `rounds/.pending-000001-<id>/`; `commit()` checks every file against
its schema, writes `_COMMITTED` last and renames the directory into place, so a crash leaves
the whole round or nothing. Directories without `_COMMITTED` are half-written: they are never
read. Paths may be local or any URI pyarrow.fs understands (s3://, gs://, hdfs://); there the
rename is a copy, and `_COMMITTED` is copied last, so readers still never see half a round.
"""
import datetime
import hashlib
import json
import logging
import posixpath
import re
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from pipelines import schema

MANIFEST = '_COMMITTED'
CONFIG = 'crawl.json'
KINDS = {'rounds': schema.ROUND_TABLES, 'ranks': schema.RANK_TABLES}
_ROUND_DIR = re.compile(r'^\d{6}$')
_PENDING_DIR = re.compile(r'^\.pending-(\d{6})-[0-9a-f]+$')
_TABLE_FILE = re.compile(r'^(?P<table>[a-z_]+)(?:-\d{5}-of-\d{5})?\.parquet$')

log = logging.getLogger(__name__)


def final_outcomes(fetch_log: pa.Table) -> dict[str, str]:
    """The outcome each URL ended with: its last attempt of its last round. Rows are ordered by
    (round, attempt), not by position: Beam shards keep no order."""
    last: dict[str, tuple[int, int, str]] = {}
    for url, round_number, attempt, outcome in zip(*(fetch_log.column(c).to_pylist()
                                                     for c in ('url', 'round', 'attempt', 'outcome'))):
        if url not in last or (round_number, attempt) >= last[url][:2]:
            last[url] = (round_number, attempt, outcome)
    return {url: outcome for url, (_, _, outcome) in last.items()}


class StateError(Exception):
    """A crawl directory Focal cannot use as asked; the message says why and what to do."""


def _filesystem(root: str) -> tuple[pafs.FileSystem, str]:
    if '://' in str(root):
        return pafs.FileSystem.from_uri(str(root))
    return pafs.LocalFileSystem(), Path(root).expanduser().resolve().as_posix()


def _sha256(filesystem: pafs.FileSystem, path: str) -> str:
    digest = hashlib.sha256()
    with filesystem.open_input_stream(path) as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')


class CrawlDir:
    """A crawl directory with a known schema version."""

    def __init__(self, root: str, config: dict, filesystem: pafs.FileSystem, path: str):
        self.root = root
        self.config = config
        self._fs = filesystem
        self._path = path
        self._writing: set[str] = set()  # this process's pending rounds: not leftovers of a crash

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def create(cls, root: str, config: dict) -> 'CrawlDir':
        """A new crawl directory; refuses one that already holds a crawl."""
        filesystem, path = _filesystem(root)
        if filesystem.get_file_info(posixpath.join(path, CONFIG)).type != pafs.FileType.NotFound:
            raise StateError(f'{root} already holds a crawl: resume it with --resume {root}, '
                             'or choose a new --out directory')
        filesystem.create_dir(path, recursive=True)
        document = {'schema_version': schema.SCHEMA_VERSION, 'created_at': _now(), **config}
        _write_json_atomically(filesystem, posixpath.join(path, CONFIG), document)
        return cls(root, document, filesystem, path)

    @classmethod
    def open(cls, root: str) -> 'CrawlDir':
        """An existing crawl directory written by this schema version."""
        filesystem, path = _filesystem(root)
        config_path = posixpath.join(path, CONFIG)
        try:
            with filesystem.open_input_stream(config_path) as stream:
                config = json.loads(stream.read())
        except FileNotFoundError:
            raise StateError(f'{root} is not a crawl directory (no {CONFIG}): start a crawl '
                             'there with --out, or give the directory a crawl wrote') from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise StateError(f'{config_path} is damaged ({error}); the rounds are intact, but '
                             f'Focal needs {CONFIG} to continue: restore it or start a new crawl') from None
        _check_version(config.get('schema_version'), config_path)
        return cls(root, config, filesystem, path)

    def update_config(self, config: dict) -> None:
        """Replace the settings in crawl.json (atomically), keeping its version and creation time."""
        document = {'schema_version': self.config['schema_version'], 'created_at': self.config['created_at'],
                    **config}
        _write_json_atomically(self._fs, posixpath.join(self._path, CONFIG), document)
        self.config = document

    # -- reading --------------------------------------------------------------------------

    def committed_rounds(self, kind: str = 'rounds') -> list[int]:
        """Round numbers with a `_COMMITTED` manifest, oldest first; others are ignored."""
        committed, half_written = [], []
        for name in self._list_dir(kind):
            full = posixpath.join(self._path, kind, name)
            if _ROUND_DIR.match(name):
                manifest = posixpath.join(full, MANIFEST)
                if self._fs.get_file_info(manifest).type == pafs.FileType.File:
                    committed.append(int(name))
                else:
                    half_written.append(full)
            elif _PENDING_DIR.match(name) and full not in self._writing:
                half_written.append(full)
        if half_written:
            log.warning('ignoring %d half-written %s (never committed): %s', len(half_written),
                        kind, ', '.join(sorted(half_written)))
        return sorted(committed)

    def last_committed_round(self, kind: str = 'rounds') -> int | None:
        rounds = self.committed_rounds(kind)
        return rounds[-1] if rounds else None

    def manifest(self, round_number: int, kind: str = 'rounds') -> dict:
        directory = self._round_dir(kind, round_number)
        try:
            with self._fs.open_input_stream(posixpath.join(directory, MANIFEST)) as stream:
                manifest = json.loads(stream.read())
        except FileNotFoundError:
            raise StateError(f'{kind} {round_number:06d} of {self.root} was never committed '
                             '(missing or half-written); it is ignored and cannot be read') from None
        _check_version(manifest.get('schema_version'), posixpath.join(directory, MANIFEST))
        return manifest

    def committed_files(self, table: str, rounds: list[int] | None = None, kind: str = 'rounds') -> list[str]:
        """Paths of one table's files in committed rounds (all when none are given), each checked
        against its manifest: what a Beam pipeline reads (pipelines/committed.py)."""
        _table_schema(kind, table)
        paths = []
        for number in self.committed_rounds(kind) if rounds is None else rounds:
            entry = self.manifest(number, kind)['tables'].get(table, {'files': []})
            directory = self._round_dir(kind, number)
            for file in entry['files']:
                path = posixpath.join(directory, file['name'])
                info = self._fs.get_file_info(path)
                if info.type != pafs.FileType.File or info.size != file['bytes']:
                    raise StateError(f'{path} does not match its manifest (missing or resized): '
                                     'the crawl directory was changed after the round was committed')
                paths.append(path)
        return paths

    def uri(self, path: str) -> str:
        """A path of this crawl as Beam names it: pyarrow's remote paths lack the scheme."""
        root = str(self.root)
        return f'{root.split("://", 1)[0]}://{path}' if '://' in root else path

    def read_table(self, table: str, round_number: int | None = None, kind: str = 'rounds',
                   columns: list[str] | None = None) -> pa.Table:
        """One table of one committed round, or of every committed round when none is given."""
        table_schema = _table_schema(kind, table)
        if columns:
            table_schema = pa.schema([table_schema.field(c) for c in columns])
        rounds = None if round_number is None else [round_number]
        parts = [pq.read_table(path, filesystem=self._fs, schema=table_schema, columns=columns)
                 for path in self.committed_files(table, rounds, kind)]
        return pa.concat_tables(parts) if parts else table_schema.empty_table()

    def summaries(self, kind: str = 'rounds') -> list[dict]:
        """The driver's summary of every committed round (requested URLs, pages, outcomes)."""
        return [self.manifest(number, kind).get('summary', {}) for number in self.committed_rounds(kind)]

    # -- selector state -------------------------------------------------------------------

    def write_selector(self, round_number: int, document: dict) -> dict:
        """selector/NNNNNN.json: the strategy's state after choosing the round's frontier. Written
        before the round runs and named in its manifest, so only a committed round's counts."""
        directory = posixpath.join(self._path, 'selector')
        self._fs.create_dir(directory, recursive=True)
        path = posixpath.join(directory, f'{round_number:06d}.json')
        _write_json_atomically(self._fs, path, document)
        return {'name': f'selector/{round_number:06d}.json', 'bytes': self._fs.get_file_info(path).size,
                'sha256': _sha256(self._fs, path)}

    def read_selector(self, round_number: int) -> dict:
        """The selector state committed with a round (checked against its manifest)."""
        entry = self.manifest(round_number).get('selector')
        if not entry:
            raise StateError(f'round {round_number:06d} of {self.root} was committed without a selector '
                             'state: it was written by another Focal release; start a new crawl')
        path = posixpath.join(self._path, entry['name'])
        try:
            with self._fs.open_input_stream(path) as stream:
                data = stream.read()
        except FileNotFoundError:
            raise StateError(f'{path} is missing: the crawl directory was changed after round '
                             f'{round_number} was committed; restore it or start a new crawl') from None
        if hashlib.sha256(data).hexdigest() != entry['sha256']:
            raise StateError(f'{path} fails its checksum: it was changed after round {round_number} '
                             'was committed; restore it or start a new crawl')
        return json.loads(data)

    def verify(self, round_number: int, kind: str = 'rounds') -> None:
        """Check every file of a committed round against the SHA-256 in its manifest."""
        directory = self._round_dir(kind, round_number)
        manifest = self.manifest(round_number, kind)
        files = [(posixpath.join(directory, file['name']), file['sha256'])
                 for entry in manifest['tables'].values() for file in entry['files']]
        if manifest.get('selector'):
            files.append((posixpath.join(self._path, manifest['selector']['name']), manifest['selector']['sha256']))
        for path, sha256 in files:
            if _sha256(self._fs, path) != sha256:
                raise StateError(f'{path} fails its checksum: the file is damaged')

    # -- writing --------------------------------------------------------------------------

    def begin(self, round_number: int, kind: str = 'rounds') -> 'PendingRound':
        """A pending round to write into; nothing is visible until its commit()."""
        if kind not in KINDS:
            raise ValueError(f'unknown kind {kind!r}')
        if round_number in self.committed_rounds(kind):
            raise StateError(f'{kind} {round_number:06d} of {self.root} is already committed; '
                             'committed rounds are never rewritten')
        for name in self._list_dir(kind):  # leftovers of a crashed attempt at this round
            match = _PENDING_DIR.match(name)
            if match and int(match.group(1)) == round_number:
                self._fs.delete_dir(posixpath.join(self._path, kind, name))
        pending = posixpath.join(self._path, kind, f'.pending-{round_number:06d}-{uuid.uuid4().hex}')
        self._writing.add(pending)  # before it exists: discard_unfinished then finds it, whenever Ctrl-C lands
        self._fs.create_dir(pending, recursive=True)
        return PendingRound(self, kind, round_number, pending)

    def discard_unfinished(self) -> None:
        """Deletes what is left of this process's pending rounds, committed ones aside (a commit moves
        them away): after Ctrl-C, which can land where no discard() follows, between a round's
        directory being made and the code that would discard it."""
        for pending in sorted(self._writing):
            try:
                self._delete_pending(pending)
            except OSError as error:  # left as it is, it is ignored as half-written and replaced by a new attempt
                log.warning('could not delete the unfinished round %s: %s', pending, error)
        self._writing.clear()

    def _delete_pending(self, pending: str) -> None:
        """A pending round's directory, unless a commit has moved it away meanwhile."""
        if self._fs.get_file_info(pending).type != pafs.FileType.NotFound:
            self._fs.delete_dir(pending)

    # -- helpers --------------------------------------------------------------------------

    def _round_dir(self, kind: str, round_number: int) -> str:
        return posixpath.join(self._path, kind, f'{round_number:06d}')

    def _list_dir(self, kind: str) -> list[str]:
        selector = pafs.FileSelector(posixpath.join(self._path, kind), allow_not_found=True)
        return [posixpath.basename(info.path) for info in self._fs.get_file_info(selector)
                if info.type == pafs.FileType.Directory]


class PendingRound:
    """A round being written. `path` is where a Beam pipeline may write its Parquet shards."""

    def __init__(self, crawl: CrawlDir, kind: str, round_number: int, path: str):
        self.crawl = crawl
        self.kind = kind
        self.round = round_number
        self.path = path

    @property
    def uri(self) -> str:
        """Where a Beam pipeline writes this round's shards."""
        return self.crawl.uri(self.path)

    def table_path(self, table: str) -> str:
        _table_schema(self.kind, table)
        return posixpath.join(self.path, f'{table}.parquet')

    def write_table(self, table: str, data: pa.Table | list[dict]) -> None:
        table_schema = _table_schema(self.kind, table)
        if not isinstance(data, pa.Table):
            data = pa.Table.from_pylist(data, schema=table_schema)
        pq.write_table(data.cast(table_schema), self.table_path(table), filesystem=self.crawl._fs)

    def read_table(self, table: str, columns: list[str] | None = None) -> pa.Table:
        """A table written into this round so far (all of its shards)."""
        table_schema = _table_schema(self.kind, table)
        if columns:
            table_schema = pa.schema([table_schema.field(c) for c in columns])
        paths = [info.path for info in self.crawl._fs.get_file_info(pafs.FileSelector(self.path))
                 if (match := _TABLE_FILE.match(posixpath.basename(info.path))) and match.group('table') == table]
        parts = [pq.read_table(path, filesystem=self.crawl._fs, schema=table_schema, columns=columns)
                 for path in sorted(paths)]
        return pa.concat_tables(parts) if parts else table_schema.empty_table()

    def commit(self, summary: dict | None = None, selector: dict | None = None) -> dict:
        """Validate every file, write the manifest last, and move the round into place. The
        manifest also keeps the driver's summary of the round and names its selector state."""
        filesystem = self.crawl._fs
        tables: dict[str, dict] = {}
        for info in sorted(filesystem.get_file_info(pafs.FileSelector(self.path)), key=lambda i: i.path):
            name = posixpath.basename(info.path)
            match = _TABLE_FILE.match(name)
            if not match:
                raise StateError(f'unexpected file {info.path} in a pending round: only '
                                 '<table>.parquet or <table>-NNNNN-of-NNNNN.parquet files belong there')
            table = match.group('table')
            expected = _table_schema(self.kind, table)
            metadata = pq.read_metadata(info.path, filesystem=filesystem)
            if not metadata.schema.to_arrow_schema().remove_metadata().equals(expected):
                raise StateError(f'{info.path} does not have the {table} schema of '
                                 f'pipelines/schema.py (schema version {schema.SCHEMA_VERSION})')
            entry = tables.setdefault(table, {'rows': 0, 'files': []})
            entry['rows'] += metadata.num_rows
            entry['files'].append({'name': name, 'rows': metadata.num_rows, 'bytes': info.size,
                                   'sha256': _sha256(filesystem, info.path)})
        manifest = {'schema_version': schema.SCHEMA_VERSION, 'kind': self.kind,
                    'round': self.round, 'committed_at': _now(), 'tables': tables}
        if summary is not None:
            manifest['summary'] = summary
        if selector is not None:
            manifest['selector'] = selector
        final = self.crawl._round_dir(self.kind, self.round)
        if filesystem.get_file_info(final).type != pafs.FileType.NotFound:
            raise StateError(f'{final} already exists: another process committed round '
                             f'{self.round} of this crawl; this attempt is discarded')
        _write_json_atomically(filesystem, posixpath.join(self.path, MANIFEST), manifest)
        if isinstance(filesystem, pafs.LocalFileSystem):
            filesystem.move(self.path, final)  # one rename: atomic
        else:
            _copy_manifest_last(filesystem, self.path, final)
            filesystem.delete_dir(self.path)
        return manifest

    def discard(self) -> None:
        self.crawl._delete_pending(self.path)


def _copy_manifest_last(filesystem: pafs.FileSystem, source: str, destination: str) -> None:
    filesystem.create_dir(destination, recursive=True)
    names = [posixpath.basename(i.path) for i in filesystem.get_file_info(pafs.FileSelector(source))]
    for name in sorted(names, key=lambda n: n == MANIFEST):
        filesystem.copy_file(posixpath.join(source, name), posixpath.join(destination, name))


def _write_json_atomically(filesystem: pafs.FileSystem, path: str, document: dict) -> None:
    temporary = f'{path}.tmp-{uuid.uuid4().hex}'
    with filesystem.open_output_stream(temporary) as stream:
        stream.write(json.dumps(document, ensure_ascii=False, indent=2).encode('utf-8'))
    filesystem.move(temporary, path)


def _table_schema(kind: str, table: str) -> pa.Schema:
    try:
        return KINDS[kind][table]
    except KeyError:
        raise StateError(f'unknown {kind} table {table!r}; known: {", ".join(KINDS[kind])}') from None


def _check_version(version, where: str) -> None:
    if version != schema.SCHEMA_VERSION:
        raise StateError(f'{where} has schema version {version}, this Focal reads version '
                         f'{schema.SCHEMA_VERSION}: use the Focal release that wrote it, '
                         'or start a new crawl directory')

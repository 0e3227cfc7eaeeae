"""Replay index over standard WARC files: which record answers a URL, and that record's response.

`Archive.scan` reads WARCs once and keeps, for every normalised URL, where its record lies
(WARC file number, offset, length); `save`/`load` keep that index as Parquet beside the WARCs,
so a server starts in well under a second. `get` reads one record with `os.pread` (no seek, so
threads share one descriptor per WARC) and returns the response as a client would see it
after decoding: chunked transfer-encoding and gzip/deflate content-encoding removed.

Which records answer: `response` records, and `resource` records as 200 responses with their
WARC Content-Type; the first record for a URL wins; a `revisit` answers with the original
record it refers to (WARC-Refers-To-Target-URI) when that is archived. `request`, `metadata`,
`warcinfo` and non-http(s) records are skipped and counted in `skipped`.
"""
import collections
import dataclasses
import io
import json
import os
import sys
import threading
import zlib
from pathlib import Path
from typing import Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm
from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import BufferedReader, DecompressingBufferedReader
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecordLoader
from warcio.statusandheaders import StatusAndHeadersParserException

from models.extract import extract_page
from models.urls import UrlError, host_of, normalize_url

CACHE_BYTES = 64 << 20       # parsed responses kept for warm serving
_METADATA_KEY = b'focal.archive'
_FORMAT_VERSION = 1
SCHEMA = pa.schema([('key', pa.string()), ('file', pa.int32()), ('offset', pa.int64()), ('length', pa.int64())])
# Headers about the archived connection or the archived body's encoding, which no longer apply
# once the body is decoded and served again (RFC 9110 section 7.6.1 hop-by-hop fields).
_DROPPED_HEADERS = frozenset(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade',
                              'transfer-encoding', 'content-encoding', 'content-length'])
_KEPT_ENCODING = _DROPPED_HEADERS - {'content-encoding'}
_DECODABLE = frozenset(BufferedReader.get_supported_decompressors())
_OTHER_SCHEME = {'http://': 'https://', 'https://': 'http://'}


class ArchiveError(ValueError):
    """A WARC or archive index Focal cannot use; the message says what to do."""


@dataclasses.dataclass(frozen=True)
class ArchivedResponse:
    url: str                          # the archive's key for it (scheme as archived)
    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes                       # decoded payload

    def header(self, name: str) -> str | None:
        """The first value of header `name` (any case), or None."""
        name = name.lower()
        return next((value for key, value in self.headers if key.lower() == name), None)


class Archive:
    """URL -> archived response over one or more WARC files; safe to share between threads."""

    def __init__(self, warcs: list[Path], locations: dict[str, tuple[int, int, int]],
                 skipped: collections.Counter | None = None):
        self.warcs = warcs
        self.skipped = skipped or collections.Counter()
        self._locations = locations
        self._hosts: set[str] | None = None
        self._descriptors: list[int] | None = None
        self._open_lock = threading.Lock()
        self._cache = _ResponseCache(CACHE_BYTES)

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def scan(cls, warc_paths: Iterable[str | Path], progress: bool = False) -> 'Archive':
        """Index every answering record of `warc_paths` (in that order; first record wins)."""
        warcs = [Path(p).resolve() for p in warc_paths]
        locations: dict[str, tuple[int, int, int]] = {}
        revisits: list[tuple[str, str]] = []
        skipped = collections.Counter()
        sizes = [_size(w) for w in warcs]
        bar = tqdm(total=sum(sizes), unit='B', unit_scale=True, desc='scanning WARCs', disable=not progress,
                   file=sys.stderr)
        for number, warc in enumerate(warcs):
            scanned_before = sum(sizes[:number])
            with open(warc, 'rb') as stream:
                records = ArchiveIterator(stream)
                try:
                    for record in records:
                        kind = record.rec_type
                        if kind not in ('response', 'resource', 'revisit'):
                            continue
                        try:
                            key = normalize_url(record.rec_headers.get_header('WARC-Target-URI') or '')
                        except UrlError:
                            skipped['unusable target URI'] += 1
                            continue
                        if kind == 'revisit':
                            original = record.rec_headers.get_header('WARC-Refers-To-Target-URI') or ''
                            revisits.append((key, original))
                        elif kind == 'response' and not _has_status(record):
                            skipped['response without an HTTP status line'] += 1
                        elif key in locations:
                            skipped['later duplicate'] += 1
                        else:
                            locations[key] = (number, records.get_record_offset(), records.get_record_length())
                        bar.update(scanned_before + stream.tell() - bar.n)
                except (ArchiveLoadFailed, StatusAndHeadersParserException, EOFError, OSError) as error:
                    raise ArchiveError(f'{warc} is not a readable WARC ({error}): check the file, or '
                                       'repair it with `warcio recompress`') from None
        bar.close()
        for key, original in revisits:
            try:
                original = normalize_url(original)
            except UrlError:
                original = None
            if key in locations:
                skipped['later duplicate'] += 1
            elif original in locations:
                locations[key] = locations[original]
            else:
                skipped['revisit of an unarchived original'] += 1
        return cls(warcs, locations, skipped)

    def save(self, path: str | Path) -> None:
        """Write the index as Parquet; WARC paths are stored relative to its directory."""
        path = Path(path).resolve()
        warcs = [{'path': os.path.relpath(w, path.parent), 'size': _size(w)} for w in self.warcs]
        metadata = {'version': _FORMAT_VERSION, 'warcs': warcs, 'skipped': dict(self.skipped)}
        files, offsets, lengths = zip(*self._locations.values()) if self._locations else ((), (), ())
        table = pa.table([list(self._locations), list(files), list(offsets), list(lengths)],
                         schema=SCHEMA.with_metadata({_METADATA_KEY: json.dumps(metadata)}))
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path)

    @classmethod
    def load(cls, path: str | Path) -> 'Archive':
        """The index `save` wrote; ArchiveError if it or a WARC it names is missing or changed."""
        path = Path(path).resolve()
        try:
            table = pq.read_table(path)
            metadata = json.loads(table.schema.metadata[_METADATA_KEY])
            if metadata.get('version') != _FORMAT_VERSION or table.schema.remove_metadata() != SCHEMA:
                raise ValueError(f'format version {metadata.get("version")}, '
                                 f'this Focal reads {_FORMAT_VERSION}')
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ArchiveError(f'{path} is not a usable archive index ({error}): rebuild it with '
                               '`focal sandbox build`, or scan the WARCs again') from None
        warcs = []
        for listed in metadata['warcs']:
            warc = (path.parent / listed['path']).resolve()
            if not warc.is_file():
                raise ArchiveError(f'{warc}, indexed in {path}, is missing: put it back, or rebuild '
                                   'the web with `focal sandbox build`')
            if _size(warc) != listed['size']:
                raise ArchiveError(f'{warc} is {_size(warc)} bytes but {path} indexed {listed["size"]}: '
                                   'the WARC changed since; rebuild the index with `focal sandbox build`')
            warcs.append(warc)
        columns = [table[name].to_pylist() for name in ('key', 'file', 'offset', 'length')]
        return cls(warcs, dict(zip(columns[0], zip(*columns[1:]))), collections.Counter(metadata['skipped']))

    # -- reading ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._locations)

    def urls(self) -> Iterator[str]:
        """Every archived URL (normalised), in WARC order."""
        return iter(self._locations)

    def hosts(self) -> set[str]:
        """Host names with at least one archived URL."""
        if self._hosts is None:
            self._hosts = {host_of(url) for url in self._locations}
        return self._hosts

    def get(self, url: str) -> ArchivedResponse | None:
        """The archived response for `url`, or for the same URL with the other scheme; else None.

        The other scheme is tried because clients reach archived https pages through a plain
        http proxy.
        """
        try:
            key = normalize_url(url)
        except UrlError:
            return None
        if key not in self._locations:
            scheme = 'https://' if key.startswith('https://') else 'http://'
            key = _OTHER_SCHEME[scheme] + key[len(scheme):]
            if key not in self._locations:
                return None
        response = self._cache.get(key)
        if response is None:
            response = self._read(key)
            self._cache.put(key, response, len(response.body))
        return response

    def html_pages(self) -> Iterator[tuple[str, str, str, list[str]]]:
        """(url, title, text, links) of every archived 200 HTML page, to index foreign WARCs."""
        for key in self._locations:
            response = self._read(key)
            content_type = response.header('Content-Type') or ''
            if response.status != 200 or 'html' not in content_type.lower():
                continue
            page = extract_page(response.body, key, content_type)
            yield key, page.title, page.text, [link.url for link in page.links]

    def close(self) -> None:
        """Close the WARC file descriptors (reopened if the archive is read again)."""
        with self._open_lock:
            for descriptor in self._descriptors or ():
                os.close(descriptor)
            self._descriptors = None

    def _read(self, key: str) -> ArchivedResponse:
        number, offset, length = self._locations[key]
        raw = os.pread(self._descriptor(number), length, offset)
        try:
            if len(raw) != length:
                raise EOFError(f'{length - len(raw)} bytes missing')
            reader = DecompressingBufferedReader(io.BytesIO(raw))
            record = ArcWarcRecordLoader(verify_http=False).parse_record_stream(reader)
            if record.rec_type == 'resource':
                headers = [('Content-Type', record.content_type or 'application/octet-stream')]
                return ArchivedResponse(key, 200, 'OK', headers, record.raw_stream.read())
            http = record.http_headers
            status, _, reason = http.statusline.partition(' ')
            encoding = (http.get_header('Content-Encoding') or '').strip().lower()
            # An encoding warcio cannot decode stays in the body, so its header stays too.
            dropped = _DROPPED_HEADERS if not encoding or encoding in _DECODABLE else _KEPT_ENCODING
            headers = [(name, value) for name, value in http.headers if name.lower() not in dropped]
            return ArchivedResponse(key, int(status), reason, headers, record.content_stream().read())
        except (ArchiveLoadFailed, StatusAndHeadersParserException, EOFError, AttributeError, ValueError,
                OSError, zlib.error) as error:
            raise ArchiveError(f'the record of {key} in {self.warcs[number]} at offset {offset} is damaged '
                               f'({error!r}): rebuild the web, or scan the WARCs again') from None

    def _descriptor(self, number: int) -> int:
        with self._open_lock:
            if self._descriptors is None:
                try:
                    self._descriptors = [os.open(warc, os.O_RDONLY) for warc in self.warcs]
                except OSError as error:
                    raise ArchiveError(f'cannot open WARC {error.filename} ({error.strerror}): put it back, '
                                       'or scan the WARCs where they are now') from None
            return self._descriptors[number]


class _ResponseCache:
    """Least recently used responses, bounded by total body bytes."""

    def __init__(self, capacity: int):
        self._capacity = capacity
        self._size = 0
        self._entries: collections.OrderedDict[str, tuple[ArchivedResponse, int]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> ArchivedResponse | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: str, response: ArchivedResponse, size: int) -> None:
        if size > self._capacity // 8:  # a few huge bodies would push out thousands of pages
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (response, size)
            self._size += size
            while self._size > self._capacity:
                _, (_, evicted) = self._entries.popitem(last=False)
                self._size -= evicted


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        raise ArchiveError(f'WARC {path} not found: give the path of an existing .warc or .warc.gz file') \
            from None


def _has_status(record) -> bool:
    return record.http_headers is not None and record.http_headers.get_statuscode().isdigit()

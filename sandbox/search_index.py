"""The search engine behind the sandbox's search API: keyword search, related pages, backlinks.

Crawlers find their seeds through search engines; the sandbox answers the same three calls
offline from this index, so an experiment never depends on a live engine. `search` ranks by
Okapi BM25 (Robertson et al., TREC-3), `related` by cosine similarity of TF-IDF vectors with
results spread over sites, `backlinks` by the linking pages' own in-degree. Like real APIs it
serves url, title and snippet only (never a label or a score), at most MAX_RESULTS per call and
nothing beyond rank RESULT_DEPTH.

Everything is weighted once at build(), so a query is a few sparse column or row operations.
The saved index is a directory the server loads in about a second for 100,000 pages:

    index.json          format version and counts, written last
    documents.parquet   url, title, snippet, host, in doc id order
    vocabulary.parquet  the terms, in term id order
    bm25.npz            doc x term BM25 weights, CSC (a query sums a few columns)
    tfidf.npz           doc x term TF-IDF, rows L2-normalised, CSR (a page's row against all)
    links.npz           linking doc x linked doc, CSC (a column is a page's backlinks)
"""
import array
import collections
import json
import zipfile
from pathlib import Path
from typing import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from scipy import sparse

from models.text import is_chinese, tokenize
from models.urls import UrlError, host_of, normalize_url

MAX_RESULTS = 50        # results per call are capped, like real search APIs
DEFAULT_COUNT = 10
RESULT_DEPTH = 500      # no result beyond rank 500 is ever returned (offset + count is clipped)

FORMAT_VERSION = 1
TITLE_BOOST = 3         # a title term counts as three occurrences
BM25_K1 = 1.2
BM25_B = 0.75
SNIPPET_LENGTH = 200
DUPLICATE_SIMILARITY = 0.999  # related pages this close to the page are copies of it, not related
RELATED_PER_HOST = 2

_MATRICES = ('bm25', 'tfidf', 'links')
DOCUMENT_SCHEMA = pa.schema([('url', pa.string()), ('title', pa.string()), ('snippet', pa.string()),
                             ('host', pa.string())])


class SearchIndexError(ValueError):
    """A search index directory that cannot be loaded; the message says what to do."""


def snippet(text: str) -> str:
    """The first SNIPPET_LENGTH characters of `text`, whitespace collapsed, whole words if not Chinese."""
    collapsed = ' '.join(text.split())
    if len(collapsed) <= SNIPPET_LENGTH:
        return collapsed
    cut = collapsed[:SNIPPET_LENGTH]
    if collapsed[SNIPPET_LENGTH] != ' ' and ' ' in cut and not is_chinese(cut):
        cut = cut.rsplit(' ', 1)[0]
    return cut


class SearchIndexBuilder:
    """Collects pages one by one; `build()` weighs them into a SearchIndex.

    Scaled webs repeat the same lines on many pages and Chinese tokenisation is slow, so text is
    tokenised line by line and each distinct line only once.
    """

    def __init__(self):
        self._doc_ids: dict[str, int] = {}           # normalised url -> doc id
        self._titles: list[str] = []
        self._snippets: list[str] = []
        self._term_ids: dict[str, int] = {}
        self._line_term_ids: dict[str, tuple[int, ...]] = {}
        # Term counts as CSR arrays (doc id = row), grown page by page.
        self._indptr = array.array('q', [0])
        self._indices = array.array('i')
        self._counts = array.array('f')
        # Outlinks as (linking doc id, linked url key); a key stands for a normalised URL that
        # may never be added as a page. Raw link strings repeat a lot, so each is normalised once.
        self._url_keys: dict[str, int] = {}
        self._raw_link_keys: dict[str, int | None] = {}
        self._link_sources = array.array('i')
        self._link_targets = array.array('i')

    def add(self, url: str, title: str, text: str, links: Iterable[str] = ()) -> None:
        """Index one page; `text` is its visible text, lines separated by newlines.

        A URL already added is ignored; an invalid page URL raises UrlError. Links are absolute
        URLs; invalid ones, and links to pages never added, are dropped.
        """
        url = normalize_url(url)
        if url in self._doc_ids:
            return
        doc_id = len(self._doc_ids)
        self._doc_ids[url] = doc_id
        self._titles.append(title)
        self._snippets.append(snippet(text))
        counts = collections.Counter()
        for line in text.split('\n'):
            counts.update(self._tokenize_line(line))
        for term_id in self._tokenize_line(title):
            counts[term_id] += TITLE_BOOST
        self._indices.extend(counts.keys())
        self._counts.extend(counts.values())
        self._indptr.append(len(self._indices))
        targets = {self._link_key(link) for link in links} - {None}
        self._link_sources.extend([doc_id] * len(targets))
        self._link_targets.extend(targets)

    def build(self) -> 'SearchIndex':
        """The index of every page added so far."""
        shape = (len(self._doc_ids), len(self._term_ids))
        counts = sparse.csr_matrix((np.array(self._counts, dtype=np.float32), np.array(self._indices),
                                    np.array(self._indptr)), shape=shape)
        urls = list(self._doc_ids)
        documents = pa.table([urls, self._titles, self._snippets, [host_of(url) for url in urls]],
                             schema=DOCUMENT_SCHEMA)
        term_idf = _idf(counts)
        return SearchIndex(documents, list(self._term_ids), _bm25_weights(counts, term_idf).tocsc(),
                           _tfidf_vectors(counts, term_idf), self._link_matrix())

    def _tokenize_line(self, line: str) -> tuple[int, ...]:
        line = line.strip()
        term_ids = self._line_term_ids.get(line)
        if term_ids is None:
            term_ids = tuple(self._term_ids.setdefault(term, len(self._term_ids)) for term in tokenize(line))
            self._line_term_ids[line] = term_ids
        return term_ids

    def _link_key(self, link: str) -> int | None:
        if link not in self._raw_link_keys:
            try:
                url = normalize_url(link)
            except UrlError:
                self._raw_link_keys[link] = None
            else:
                self._raw_link_keys[link] = self._url_keys.setdefault(url, len(self._url_keys))
        return self._raw_link_keys[link]

    def _link_matrix(self) -> sparse.csc_matrix:
        """Linking doc x linked doc; links to pages never added and self-links dropped."""
        doc_of_key = np.full(len(self._url_keys), -1)
        for url, key in self._url_keys.items():
            doc_of_key[key] = self._doc_ids.get(url, -1)
        sources = np.array(self._link_sources, dtype=np.int64)
        targets = doc_of_key[np.array(self._link_targets, dtype=np.int64)]
        kept = (targets >= 0) & (targets != sources)
        documents = len(self._doc_ids)
        return sparse.csc_matrix((np.ones(kept.sum(), dtype=bool), (sources[kept], targets[kept])),
                                 shape=(documents, documents))


def _idf(counts: sparse.csr_matrix) -> np.ndarray:
    """Okapi BM25's idf, ln(1 + (N - n + 0.5) / (n + 0.5)): positive even for a term on every page."""
    document_frequency = np.bincount(counts.indices, minlength=counts.shape[1])
    return np.log1p((counts.shape[0] - document_frequency + 0.5) / (document_frequency + 0.5))


def _with_weights(counts: sparse.csr_matrix, weights: np.ndarray) -> sparse.csr_matrix:
    """A matrix shaped like `counts` holding `weights` in place of its counts."""
    return sparse.csr_matrix((weights.astype(np.float32), counts.indices, counts.indptr), shape=counts.shape)


def _rows(counts: sparse.csr_matrix) -> np.ndarray:
    """The row (doc id) of each stored entry."""
    return np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))


def _bm25_weights(counts: sparse.csr_matrix, term_idf: np.ndarray) -> sparse.csr_matrix:
    """Okapi BM25 term weights: idf * tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))."""
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    average_length = lengths.mean() if counts.nnz else 1.0
    length_norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths / average_length)
    term_frequency = counts.data
    return _with_weights(counts, term_idf[counts.indices] * term_frequency * (BM25_K1 + 1)
                         / (term_frequency + length_norm[_rows(counts)]))


def _tfidf_vectors(counts: sparse.csr_matrix, term_idf: np.ndarray) -> sparse.csr_matrix:
    """Sublinear TF-IDF, (1 + ln tf) * idf with BM25's idf, each row of unit length."""
    weights = (1 + np.log(counts.data)) * term_idf[counts.indices]
    rows = _rows(counts)
    lengths = np.sqrt(np.bincount(rows, weights ** 2, minlength=counts.shape[0]))
    return _with_weights(counts, weights / lengths[rows])


def _window(count: int, offset: int) -> tuple[int, int]:
    """Ranks [start, end) a call may serve: count clipped to [1, MAX_RESULTS], end to RESULT_DEPTH."""
    start = max(offset, 0)
    return start, min(start + min(max(count, 1), MAX_RESULTS), RESULT_DEPTH)


def _ranked(doc_ids: np.ndarray, scores: np.ndarray, limit: int) -> np.ndarray:
    """The `limit` best of `doc_ids` by score, highest first; equal scores in doc id order."""
    if len(doc_ids) > limit:
        threshold = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        kept = scores >= threshold  # every tie at the threshold, so doc id decides among them
        doc_ids, scores = doc_ids[kept], scores[kept]
    return doc_ids[np.lexsort((doc_ids, -scores))][:limit]


class SearchIndex:
    """A built or loaded index; every call answers a ranked window of {url, title, snippet}."""

    def __init__(self, documents: pa.Table, terms: list[str], bm25: sparse.csc_matrix,
                 tfidf: sparse.csr_matrix, links: sparse.csc_matrix):
        self._documents = documents
        self._urls = documents['url'].to_pylist()
        self._titles = documents['title'].to_pylist()
        self._snippets = documents['snippet'].to_pylist()
        self._host_codes = documents['host'].combine_chunks().dictionary_encode().indices.to_numpy()
        self._doc_ids = {url: doc_id for doc_id, url in enumerate(self._urls)}
        self._term_ids = {term: term_id for term_id, term in enumerate(terms)}
        self._bm25 = bm25
        self._tfidf = tfidf
        self._links = links
        self._in_degree = np.diff(links.indptr)

    def __len__(self) -> int:
        return len(self._urls)

    def search(self, query: str, count: int = DEFAULT_COUNT, offset: int = 0) -> list[dict]:
        """Pages matching `query`, best first by Okapi BM25 over its distinct known terms."""
        start, end = _window(count, offset)
        term_ids = sorted({self._term_ids[t] for t in tokenize(query) if t in self._term_ids})
        if start >= end or not term_ids:
            return []
        scores = np.asarray(self._bm25[:, term_ids].sum(axis=1)).ravel()
        matches = np.flatnonzero(scores)
        return self._results(_ranked(matches, scores[matches], end)[start:])

    def related(self, url: str, count: int = DEFAULT_COUNT, offset: int = 0) -> list[dict]:
        """Pages most similar in content to `url` (TF-IDF cosine), at most two per host.

        The page itself and its copies (cosine >= DUPLICATE_SIMILARITY) are left out.
        """
        start, end = _window(count, offset)
        doc_id = self._doc_id(url)
        if start >= end or doc_id is None:
            return []
        similarity = self._tfidf @ self._tfidf[doc_id].toarray().ravel()
        candidates = np.flatnonzero((similarity > 0) & (similarity < DUPLICATE_SIMILARITY))
        chosen, per_host = [], collections.Counter()
        for candidate in _ranked(candidates, similarity[candidates], len(candidates)):
            host = self._host_codes[candidate]
            if per_host[host] < RELATED_PER_HOST:
                per_host[host] += 1
                chosen.append(candidate)
                if len(chosen) == end:
                    break
        return self._results(chosen[start:])

    def backlinks(self, url: str, count: int = DEFAULT_COUNT, offset: int = 0) -> list[dict]:
        """Pages linking to `url`, each once, the most linked-to first."""
        start, end = _window(count, offset)
        doc_id = self._doc_id(url)
        if start >= end or doc_id is None:
            return []
        sources = self._links.indices[self._links.indptr[doc_id]:self._links.indptr[doc_id + 1]]
        return self._results(_ranked(sources, self._in_degree[sources], end)[start:])

    def save(self, directory: str | Path) -> None:
        """Write the index into `directory` (created if needed); index.json goes last."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / 'index.json').unlink(missing_ok=True)
        pq.write_table(self._documents, directory / 'documents.parquet')
        vocabulary = pa.table({'term': pa.array(list(self._term_ids), pa.string())})
        pq.write_table(vocabulary, directory / 'vocabulary.parquet')
        for name in _MATRICES:
            sparse.save_npz(directory / f'{name}.npz', getattr(self, f'_{name}'), compressed=False)
        summary = {'format_version': FORMAT_VERSION, 'documents': len(self), 'terms': len(self._term_ids),
                   'links': int(self._links.nnz)}
        (directory / 'index.json').write_text(json.dumps(summary, indent=2) + '\n', encoding='utf-8')

    @classmethod
    def load(cls, directory: str | Path) -> 'SearchIndex':
        """The index save() wrote into `directory`; SearchIndexError if it is missing or damaged."""
        directory = Path(directory)
        try:
            summary = json.loads((directory / 'index.json').read_text(encoding='utf-8'))
            if summary.get('format_version') != FORMAT_VERSION:
                raise ValueError(f"format version {summary.get('format_version')}, "
                                 f'this Focal reads {FORMAT_VERSION}')
            documents = pq.read_table(directory / 'documents.parquet')
            terms = pq.read_table(directory / 'vocabulary.parquet')['term'].to_pylist()
            bm25, tfidf, links = (sparse.load_npz(directory / f'{name}.npz') for name in _MATRICES)
            shape = (summary['documents'], summary['terms'])
            if (documents.num_rows, len(terms), bm25.shape, tfidf.shape, links.shape) != \
                    (shape[0], shape[1], shape, shape, (shape[0], shape[0])):
                raise ValueError('its files disagree with index.json about the number of pages or terms')
            return cls(documents, terms, bm25, tfidf, links)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
            raise SearchIndexError(f'{directory} holds no usable search index ({error}): '
                                   'rebuild it with `focal sandbox build`') from None

    def _doc_id(self, url: str) -> int | None:
        try:
            return self._doc_ids.get(normalize_url(url))
        except UrlError:
            return None

    def _results(self, doc_ids: Iterable[int]) -> list[dict]:
        return [{'url': self._urls[i], 'title': self._titles[i], 'snippet': self._snippets[i]}
                for i in doc_ids]

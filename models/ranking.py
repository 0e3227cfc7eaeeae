"""DWDBRM's page ranking (§4.1): five rankers fitted on the seed pages, PageRank, and their
combination (eq. 8), on batches of pages as pyarrow tables.

The keyword vocabulary (DWDBRM names none; SEEDS_SPEC §3 item 6): the topic's keywords, then the
terms of at least two seed pages (DISCO's min_df, 10% of the seeds when there are more than 20),
most seed pages first, up to VOCABULARY_SIZE terms. Terms are those of the pages table (title and
main text, jieba for Chinese, stop words out), so the rankers see what relevance sees.

Rankers (each scores a page; higher is more like the seeds):
* nb — the Bayesian ranker (eq. 6, reported as "NB"; DISCO's Bayesian Sets): log P(w|S)/P(w) over
  binary features: keyword presence, and bins of URL length, domain length and keyword count.
* lr — logistic regression (eq. 2) on binary keyword presence; seeds against negatives (by default
  the fetched pages least like the seeds by the cosine ranker; or pages the user names); P(relevant).
* ocsvm — one-class SVM on the seeds only (DISCO: linear kernel, ν = 0.1), keyword TF and presence.
* cosine — eq. 5 on keyword TF vectors, averaged over the seeds (eq. 3).
* jaccard — eq. 4 on binary keyword vectors, averaged over the seeds (eq. 3).
* pagerank — the page's PageRank over the crawl's link graph (eq. 7; models/pagerank.py).

Positions count from 0 (SEEDS_SPEC §3 item 8); pages with equal scores share the mean of the
positions they span, so no ranker orders ties by URL. Combinations (`COMBINATIONS`):
* eq8 — (1 − α)·mean position among the five rankers + α·PageRank position, smaller is better
  (DWDBRM takes α = 0.2; Focal's default is 0: on every sandbox task PageRank ranked relevant pages
  below a random order and pulled eq. 8 far below each text ranker, benchmarks/ranking.py);
* mean — (1 − α)·mean of the five min–max normalised scores + α·normalised PageRank (DISCO);
* rrf — reciprocal rank fusion, (1 − α)·mean 1/(60 + rank) + α·1/(60 + PageRank rank).
"""
import collections
import dataclasses
import hashlib
import math
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy import sparse

from models import text
from models.extract import extract_page
from models.ranking_options import (COMBINATIONS, DEFAULT_ALPHA, DEFAULT_COMBINATION, PAPER_ALPHA, RANKERS,
                                    SCORES, RankingError, check_combination)
from models.topic import Topic
from models.urls import UrlError, normalize_url

RRF_K = 60                   # Cormack et al.'s constant
VOCABULARY_SIZE = 500
MIN_SEED_SHARE = 0.1         # DISCO's min_df: a vocabulary term is on 10% of the seeds, and on 2 at least
NEGATIVES_PER_SEED = 2       # DISCO's ratio of negatives to positives
NEGATIVES_MIN, NEGATIVES_MAX = 20, 200  # DISCO samples 200 negative sites
BAYES_C = 2.0                # Bayesian Sets' prior strength (Ghahramani & Heller; DISCO's c)
OCSVM_NU = 0.1               # DISCO's one-class SVM
URL_LENGTH_BINS = (30, 45, 60, 80, 110)       # characters; fixed, not fitted
DOMAIN_LENGTH_BINS = (8, 12, 16, 22)
KEYWORD_COUNT_BINS = (1, 3, 6, 11, 21)        # keyword occurrences on the page
TIE_DECIMALS = 12
PAGE_COLUMNS = ['round', 'url', 'final_url', 'host', 'title', 'terms', 'term_counts']


# -- pages and their features ----------------------------------------------------------------------

def seed_rows(pages: pa.Table, seeds: list[str]) -> pa.Table:
    """The pages fetched for a seed URL (as requested or after redirects)."""
    wanted = pa.array(seeds, pa.string())
    return pages.filter(pc.or_(pc.is_in(pages['url'], wanted), pc.is_in(pages['final_url'], wanted)))


def keyword_vocabulary(seed_pages: pa.Table, topic: Topic, size: int = VOCABULARY_SIZE) -> list[str]:
    """The rankers' keywords: the topic's terms, then terms shared by the seed pages (see above)."""
    pages_holding, occurrences = {}, {}
    for terms, counts in zip(seed_pages['terms'].to_pylist(), seed_pages['term_counts'].to_pylist()):
        for term, count in zip(terms or [], counts or []):
            pages_holding[term] = pages_holding.get(term, 0) + 1
            occurrences[term] = occurrences.get(term, 0) + count
    least = 1 if seed_pages.num_rows < 2 else max(2, math.ceil(MIN_SEED_SHARE * seed_pages.num_rows))
    shared = sorted((term for term, pages in pages_holding.items() if pages >= least),
                    key=lambda term: (-pages_holding[term], -occurrences[term], term))
    topic_terms = sorted(topic.term_weights, key=lambda term: (-topic.term_weights[term], term))
    return list(dict.fromkeys(topic_terms + shared))[:size]


@dataclasses.dataclass
class PageFeatures:
    """A batch of pages as the rankers see them."""
    urls: pa.Array              # final URLs: a page's identity in the ranking
    hosts: pa.Array
    titles: pa.Array
    rounds: pa.Array            # the round each page was fetched in
    counts: sparse.csr_matrix   # keyword term counts (pages × vocabulary)
    url_length: np.ndarray
    domain_length: np.ndarray

    @property
    def size(self) -> int:
        return self.counts.shape[0]

    def take(self, rows) -> 'PageFeatures':
        rows = np.asarray(rows, dtype=np.int64)
        index = pa.array(rows)
        return PageFeatures(self.urls.take(index), self.hosts.take(index), self.titles.take(index),
                            self.rounds.take(index), self.counts[rows], self.url_length[rows],
                            self.domain_length[rows])

    def by_url(self) -> 'PageFeatures':
        """The same pages in URL order: a fit must not depend on the order a runner gathered them in."""
        return self.take(pc.sort_indices(self.urls).to_numpy())

    @staticmethod
    def concat(parts: list['PageFeatures'], vocabulary_size: int) -> 'PageFeatures':
        if not parts:
            empty = pa.array([], pa.string())
            return PageFeatures(empty, empty, empty, pa.array([], pa.int32()),
                                sparse.csr_matrix((0, vocabulary_size)), np.zeros(0), np.zeros(0))
        return PageFeatures(*(pa.concat_arrays([getattr(p, name) for p in parts])
                              for name in ('urls', 'hosts', 'titles', 'rounds')),
                            sparse.vstack([p.counts for p in parts], format='csr'),
                            np.concatenate([p.url_length for p in parts]),
                            np.concatenate([p.domain_length for p in parts]))


def page_features(pages: pa.Table, vocabulary: list[str]) -> PageFeatures:
    """Features of a batch of page rows (PAGE_COLUMNS of the pages table)."""
    terms, counts = pages['terms'].combine_chunks(), pages['term_counts'].combine_chunks()
    rows = pc.list_parent_indices(terms).to_numpy(zero_copy_only=False)
    columns = pc.index_in(pc.list_flatten(terms), value_set=pa.array(vocabulary, pa.string()))
    known = columns.is_valid().to_numpy(zero_copy_only=False)
    matrix = sparse.csr_matrix(
        (pc.list_flatten(counts).to_numpy(zero_copy_only=False)[known].astype(np.float64),
         (rows[known], columns.to_numpy(zero_copy_only=False)[known].astype(np.int64))),
        shape=(pages.num_rows, len(vocabulary)))
    return PageFeatures(pages['final_url'].combine_chunks(), pages['host'].combine_chunks(),
                        pc.fill_null(pages['title'], '').combine_chunks(), pages['round'].combine_chunks(),
                        matrix, pc.utf8_length(pages['final_url']).to_numpy(zero_copy_only=False).astype(np.float64),
                        pc.utf8_length(pages['host']).to_numpy(zero_copy_only=False).astype(np.float64))


def terms_features(documents: list[tuple[str, dict[str, int]]], vocabulary: list[str]) -> PageFeatures:
    """Features of pages given as (URL or file name, term counts): a user's negative examples."""
    names = [name for name, _ in documents]
    table = pa.table({'round': pa.array([0] * len(documents), pa.int32()), 'url': pa.array(names, pa.string()),
                      'final_url': pa.array(names, pa.string()), 'host': pa.array([''] * len(documents), pa.string()),
                      'title': pa.array([''] * len(documents), pa.string()),
                      'terms': pa.array([list(counts) for _, counts in documents], pa.list_(pa.string())),
                      'term_counts': pa.array([list(counts.values()) for _, counts in documents],
                                              pa.list_(pa.int32()))})
    return page_features(table, vocabulary)


def _binary(counts: sparse.csr_matrix) -> sparse.csr_matrix:
    present = counts.copy()
    present.data = (present.data > 0).astype(np.float64)
    return present


def _unit_rows(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags(1.0 / norms) @ matrix)


def _one_hot(values: np.ndarray, bins: tuple) -> sparse.csr_matrix:
    columns = np.digitize(values, bins)
    return sparse.csr_matrix((np.ones(len(values)), (np.arange(len(values)), columns)),
                             shape=(len(values), len(bins) + 1))


def bayes_features(features: PageFeatures) -> sparse.csr_matrix:
    """The Bayesian ranker's binary features: keyword presence, URL length, domain length and
    keyword count, each length and count as one-hot bins (Bayesian Sets takes binary features)."""
    keyword_total = np.asarray(features.counts.sum(axis=1)).ravel()
    return sparse.hstack([_binary(features.counts), _one_hot(features.url_length, URL_LENGTH_BINS),
                          _one_hot(features.domain_length, DOMAIN_LENGTH_BINS),
                          _one_hot(keyword_total, KEYWORD_COUNT_BINS)], format='csr')


def _ocsvm_features(features: PageFeatures) -> sparse.csr_matrix:
    """Keyword TF and presence, each scaled to unit length so that neither outweighs the other."""
    return sparse.hstack([_unit_rows(features.counts), _unit_rows(_binary(features.counts))], format='csr')


def mean_similarity(features: PageFeatures, seeds: PageFeatures, kind: str) -> np.ndarray:
    """DWDBRM eq. 3: each page's similarity averaged over the seed pages, with eq. 5 (cosine, TF)
    or eq. 4 (Jaccard, binary)."""
    if seeds.size == 0:
        return np.zeros(features.size)
    if kind == 'cosine':
        return np.asarray((_unit_rows(features.counts) @ _unit_rows(seeds.counts).T).mean(axis=1)).ravel()
    pages, seed = _binary(features.counts), _binary(seeds.counts)
    shared = (pages @ seed.T).toarray()
    union = np.asarray(pages.sum(axis=1)) + np.asarray(seed.sum(axis=1)).T - shared
    return np.divide(shared, union, out=np.zeros_like(shared), where=union > 0).mean(axis=1)


def read_negatives(path: str) -> tuple[list[str], list[tuple[str, dict[str, int]]]]:
    """A user's negative examples for LR: a file with one URL (a page of the crawl) or one path of
    a local HTML or text page a line ('#' starts a comment); relative paths are from the file's
    folder. Returns the normalised URLs and (path, term counts) of the local pages."""
    try:
        lines = Path(path).read_text(encoding='utf-8').splitlines()
    except OSError as error:
        raise RankingError(f'cannot read the negatives file {path}: {error.strerror}') from None
    urls, documents = [], []
    for line in (line.strip() for line in lines):
        if not line or line.startswith('#'):
            continue
        if line.lower().startswith(('http://', 'https://')):
            try:
                urls.append(normalize_url(line))
            except UrlError as error:
                raise RankingError(f'{path}: {error}') from None
            continue
        page_path = Path(path).parent / line
        try:
            body = page_path.read_bytes()
        except OSError as error:
            raise RankingError(f'{path}: cannot read the page {page_path}: {error.strerror} '
                               '(give URLs of crawled pages or paths of local pages)') from None
        page = extract_page(body, f'http://local.invalid/{page_path.name}')  # a base for links, never fetched
        words = f'{page.title}\n{page.text}' if not page.error else body.decode('utf-8', 'replace')
        documents.append((str(page_path), dict(collections.Counter(text.tokenize(words)))))
    if not urls and not documents:
        raise RankingError(f'the negatives file {path} names no page: one URL or file path a line')
    return urls, documents


# -- fitting ---------------------------------------------------------------------------------------

def negatives_wanted(seeds: int) -> int:
    return min(max(NEGATIVES_PER_SEED * seeds, NEGATIVES_MIN), NEGATIVES_MAX)


def negative_order(features: PageFeatures, seeds: PageFeatures) -> list[tuple]:
    """(cosine to the seeds, a hash of the URL, URL) per page that is not a seed, smallest first
    is least like the seeds; the hash makes the pick among equal scores a sample, not one site."""
    seed_urls = set(seeds.urls.to_pylist())
    likeness = mean_similarity(features, seeds, 'cosine')
    return [(float(score), hashlib.sha1(url.encode()).hexdigest(), url, row)
            for row, (score, url) in enumerate(zip(likeness, features.urls.to_pylist())) if url not in seed_urls]


@dataclasses.dataclass
class BayesBackground:
    """Sums of the Bayesian ranker's features over every page (the prior's mean, Bayesian Sets)."""
    totals: np.ndarray
    pages: int

    @classmethod
    def of(cls, features: PageFeatures) -> 'BayesBackground':
        return cls(np.asarray(bayes_features(features).sum(axis=0)).ravel(), features.size)

    def __add__(self, other: 'BayesBackground') -> 'BayesBackground':
        return BayesBackground(self.totals + other.totals, self.pages + other.pages)


@dataclasses.dataclass
class Rankers:
    """The five rankers fitted on the seeds (and negatives), ready to score any batch of pages."""
    seeds: PageFeatures
    bayes_constant: float
    bayes_weights: np.ndarray
    lr: object | None        # sklearn LogisticRegression; None without negatives
    ocsvm: object            # sklearn OneClassSVM
    negatives: int

    def score(self, features: PageFeatures) -> dict[str, np.ndarray]:
        if features.size == 0:
            return {name: np.zeros(0) for name in RANKERS}
        present = _binary(features.counts)
        return {
            'nb': self.bayes_constant + bayes_features(features) @ self.bayes_weights,
            'lr': self.lr.predict_proba(present)[:, 1] if self.lr is not None else np.full(features.size, 0.5),
            'ocsvm': self.ocsvm.decision_function(_ocsvm_features(features)),
            'cosine': mean_similarity(features, self.seeds, 'cosine'),
            'jaccard': mean_similarity(features, self.seeds, 'jaccard'),
        }


def bayesian_sets(query: sparse.csr_matrix, background: BayesBackground, c: float = BAYES_C) -> tuple[float, np.ndarray]:
    """log P(x|S)/P(x) = constant + weights·x for binary x (Bayesian Sets, Ghahramani & Heller 2005,
    the closed form of DWDBRM eq. 6 with Beta priors of mean m, the features' mean over all pages)."""
    m = np.clip(background.totals / max(background.pages, 1), 1e-6, 1 - 1e-6)
    a, b = c * m, c * (1 - m)
    n, hits = query.shape[0], np.asarray(query.sum(axis=0)).ravel()
    a_post, b_post = a + hits, b + n - hits
    constant = float(np.sum(np.log(a + b) - np.log(a + b + n) + np.log(b_post) - np.log(b)))
    return constant, np.log(a_post) - np.log(a) - np.log(b_post) + np.log(b)


def fit_rankers(seeds: PageFeatures, negatives: PageFeatures, background: BayesBackground) -> Rankers:
    from sklearn.linear_model import LogisticRegression  # imported where used: sklearn takes a second
    from sklearn.svm import OneClassSVM
    if seeds.size == 0:
        raise RankingError('no seed page was fetched: the rankers learn from the seed pages')
    seeds, negatives = seeds.by_url(), negatives.by_url()
    constant, weights = bayesian_sets(bayes_features(seeds), background)
    lr = None
    if negatives.size:
        labels = np.r_[np.ones(seeds.size), np.zeros(negatives.size)]
        lr = LogisticRegression(class_weight='balanced', max_iter=1000).fit(
            sparse.vstack([_binary(seeds.counts), _binary(negatives.counts)]), labels)
    with warnings.catch_warnings():  # a handful of seeds is few for an SVM; it still draws a boundary
        warnings.simplefilter('ignore')
        ocsvm = OneClassSVM(kernel='linear', nu=OCSVM_NU).fit(_ocsvm_features(seeds))
    return Rankers(seeds, constant, weights, lr, ocsvm, negatives.size)


def score_table(features: PageFeatures, rankers: Rankers) -> pa.Table:
    """Each page of a batch with its five rankers' scores."""
    scores = rankers.score(features)
    return pa.table({'url': features.urls, 'host': features.hosts, 'title': features.titles,
                     'fetched_round': features.rounds,
                     **{f'score_{name}': pa.array(scores[name], pa.float64()) for name in RANKERS}})


# -- positions and their combination ---------------------------------------------------------------

def positions(scores: np.ndarray) -> np.ndarray:
    """0-based places in descending score order; ties share the mean of the places they span.
    Scores equal to TIE_DECIMALS tie: the float noise of another summation order (another runner's
    shuffle) must not order pages."""
    from scipy.stats import rankdata  # scipy.stats takes ~0.9 s to import: only rankings need it
    return rankdata(-np.round(np.asarray(scores, dtype=np.float64), TIE_DECIMALS), method='average') - 1


def _normalised(scores: np.ndarray) -> np.ndarray:
    low, high = float(np.min(scores)), float(np.max(scores))
    return (scores - low) / (high - low) if high > low else np.zeros(len(scores))


def combine(table: pa.Table, combination: str = DEFAULT_COMBINATION, alpha: float = DEFAULT_ALPHA) -> pa.Table:
    """Rank pages by a combination of the rankers (table: url and score_<name> of SCORES):
    adds position_<name> per ranker, `combined` and `position` (0 = best), sorted best first."""
    check_combination(combination, alpha)
    n = table.num_rows
    scores = {name: table[f'score_{name}'].to_numpy() for name in SCORES}
    places = {name: positions(scores[name]) if n else np.zeros(0) for name in SCORES}
    mean_place = np.mean([places[name] for name in RANKERS], axis=0) if n else np.zeros(0)
    if combination == 'eq8':  # DWDBRM eq. 8, Alg. 2 line 13
        combined = (1 - alpha) * mean_place + alpha * places['pagerank']
        better_first = combined
    elif combination == 'mean':
        combined = ((1 - alpha) * np.mean([_normalised(scores[name]) for name in RANKERS], axis=0)
                    + alpha * _normalised(scores['pagerank'])) if n else np.zeros(0)
        better_first = -combined
    else:
        combined = ((1 - alpha) * np.mean([1 / (RRF_K + places[name] + 1) for name in RANKERS], axis=0)
                    + alpha / (RRF_K + places['pagerank'] + 1)) if n else np.zeros(0)
        better_first = -combined
    columns = {name: table[name] for name in table.column_names
               if not name.startswith('position') and name != 'combined'}
    columns.update({f'position_{name}': pa.array(places[name], pa.float64()) for name in SCORES})
    columns['combined'] = pa.array(combined, pa.float64())
    keys = pa.table({'better': better_first, 'mean_place': mean_place, 'url': table['url']})
    ranked = pa.table(columns).take(pc.sort_indices(  # ties: the five rankers' mean place, then the URL
        keys, [('better', 'ascending'), ('mean_place', 'ascending'), ('url', 'ascending')]))
    return ranked.append_column('position', pa.array(np.arange(n), pa.int64()))


def first_per_url(table: pa.Table) -> pa.Table:
    """One row per URL, the earliest fetched (a page reached by two requested URLs is one page)."""
    table = table.sort_by([('url', 'ascending'), ('fetched_round', 'ascending')])
    urls = table['url'].to_numpy(zero_copy_only=False)
    keep = np.ones(len(urls), dtype=bool)
    keep[1:] = urls[1:] != urls[:-1]
    return table.filter(pa.array(keep))


def ranking_table(score_tables: list[pa.Table], pagerank_tables: list[pa.Table], seeds: PageFeatures,
                  combination: str = DEFAULT_COMBINATION, alpha: float = DEFAULT_ALPHA) -> pa.Table:
    """Every fetched page once, with its rankers' scores (score_table) and PageRank, combined."""
    if not score_tables:
        raise RankingError('no page was fetched: there is nothing to rank')
    scores = first_per_url(pa.concat_tables(score_tables))
    ranks = pa.concat_tables([t.select(['url', 'pagerank']) for t in pagerank_tables]) if pagerank_tables \
        else pa.table({'url': pa.array([], pa.string()), 'pagerank': pa.array([], pa.float64())})
    joined = scores.join(ranks, 'url', join_type='left outer')
    joined = joined.append_column('score_pagerank', pc.fill_null(joined['pagerank'], 0.0)).drop_columns(['pagerank'])
    joined = joined.append_column('seed', pc.is_in(joined['url'], seeds.urls))
    return combine(joined, combination, alpha)

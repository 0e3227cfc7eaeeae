"""Every Parquet table of a crawl directory, in one place.

Round tables live in `rounds/NNNNNN/`, rank tables in `ranks/NNNNNN/`. Every table has a
`round` column (the round that wrote the row) and a `url` column (normalised). A change to
any schema here raises SCHEMA_VERSION, and Focal refuses to mix versions in one directory.
"""
import pyarrow as pa

from models import block_model, fetch

SCHEMA_VERSION = 2

FETCH_OUTCOMES = fetch.OUTCOMES

BLOCK_CLASSES = block_model.BLOCK_CLASSES

_TIMESTAMP = pa.timestamp('ms', tz='UTC')

# URLs chosen for a round, and why.
FRONTIER = pa.schema([
    ('round', pa.int32()),
    ('url', pa.string()),
    ('strategy', pa.string()),      # best-first, bfs, bandit, wl, ssaps, shark, dth
    ('operator', pa.string()),      # discovery operator: seed, FC, BC, KS, RS, link
    ('priority', pa.float64()),     # the strategy's score when it chose the URL
    ('depth', pa.int32()),          # Shark/SSAPS depth or DTH tunnel budget left; -1 if unused
    ('parent_url', pa.string()),    # page the URL was found on; null for seeds and search results
])

# One row per fetch attempt, redirects included, with its typed outcome.
FETCH_LOG = pa.schema([
    ('round', pa.int32()),
    ('url', pa.string()),
    ('attempt', pa.int16()),
    ('outcome', pa.string()),       # one of FETCH_OUTCOMES
    ('http_status', pa.int16()),    # null when no response arrived
    ('final_url', pa.string()),
    ('redirects', pa.list_(pa.string())),
    ('content_type', pa.string()),
    ('bytes', pa.int64()),
    ('started_at', _TIMESTAMP),
    ('elapsed_ms', pa.float64()),
    ('error', pa.string()),
])

# Every fetched HTML page.
PAGES = pa.schema([
    ('round', pa.int32()),
    ('url', pa.string()),           # as requested
    ('final_url', pa.string()),     # after redirects
    ('host', pa.string()),
    ('title', pa.string()),
    ('text', pa.string()),          # main text
    ('meta_keywords', pa.string()),
    ('meta_description', pa.string()),
    ('canonical', pa.string()),
    ('encoding', pa.string()),
    ('relevance', pa.float64()),    # page relevance to the topic (VSM)
    ('terms', pa.list_(pa.string())),  # distinct index terms: the crawl's TF-IDF statistics
    ('fetched_at', _TIMESTAMP),
])

# Graph edges: one row per link found on a page.
LINKS = pa.schema([
    ('round', pa.int32()),
    ('url', pa.string()),           # source page (src)
    ('dst', pa.string()),           # target, absolute and normalised
    ('anchor', pa.string()),
    ('context', pa.string()),       # text around the anchor
    ('block', pa.string()),         # one of BLOCK_CLASSES
    ('predicted_relevance', pa.float64()),
])

# URLs known but not yet fetched, with what is known of them.
CANDIDATES = pa.schema([
    ('round', pa.int32()),
    ('url', pa.string()),
    ('operator', pa.string()),
    ('score', pa.float64()),
    ('parent_url', pa.string()),
    ('title', pa.string()),         # from a search result, when there was one
    ('snippet', pa.string()),
])

PAGERANK = pa.schema([
    ('round', pa.int32()),
    ('url', pa.string()),
    ('pagerank', pa.float64()),
])

# Combined ranking (DWDBRM eq. 8): smaller score is better.
RANKING = pa.schema([
    ('round', pa.int32()),
    ('url', pa.string()),
    ('score', pa.float64()),
    ('position', pa.int64()),
])

ROUND_TABLES = {'frontier': FRONTIER, 'fetch_log': FETCH_LOG, 'pages': PAGES, 'links': LINKS,
                'candidates': CANDIDATES}
RANK_TABLES = {'pagerank': PAGERANK, 'ranking': RANKING}

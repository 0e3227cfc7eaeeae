"""Every Parquet table of a crawl directory, in one place.

Round tables live in `rounds/NNNNNN/`, rank tables in `ranks/NNNNNN/`. Every table has a
`round` column (the round that wrote the row), and every table of URLs a `url` column
(normalised). The strategy's state after choosing a round's frontier is committed with the
round as `selector/NNNNNN.json` (pipelines/state.py). A change to
any schema here raises SCHEMA_VERSION, and Focal refuses to mix versions in one directory.
"""
import pyarrow as pa

from models import block_model, fetch, ranking_options

SCHEMA_VERSION = 5

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
    ('depth', pa.int32()),          # Shark/SSAPS depth or DTH tunnel budget left (2^31-1: unlimited); -1 unused
    ('parent_url', pa.string()),    # page the URL was found on; null for seeds and search results
    ('position', pa.int32()),       # place in the round's choice, 0 = chosen first
    ('inherited', pa.float64()),    # what the link carries to the page (Shark's inherited score, WL's
                                    # R(anchor), DTH's irrelevant pages crossed); null if nothing
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
    ('relevance', pa.float64()),    # page relevance to the topic, the strategy's paper's (models/relevance.py)
    ('relevant', pa.bool_()),       # judged relevant: a seed, or relevance >= the calibrated threshold
    ('inherited', pa.float64()),    # what the link that reached the page carried (FRONTIER.inherited)
    ('terms', pa.list_(pa.string())),         # distinct index terms of title and main text, sorted
    ('term_counts', pa.list_(pa.int32())),    # how often terms[i] occurs (the rankers' TF)
    ('depth', pa.int32()),          # the depth budget the page was fetched with (its frontier row)
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
    ('link_index', pa.int32()),     # place of the link on its page, 0 = first
    ('anchor_relevance', pa.float64()),   # cos(topic, anchor words)
    ('context_relevance', pa.float64()),  # cos(topic, words around the anchor); 0 outside content/related blocks
    ('url_relevance', pa.float64()),      # cos(topic, words of the target URL)
    ('priority', pa.float64()),     # the crawl strategy's score of the link; null if it dropped the link
])

# One row per search call of a discovery round (transforms/discover.py): what it cost and how it ended.
DISCOVER_LOG = pa.schema([
    ('round', pa.int32()),
    ('operator', pa.string()),      # KS, RS, BC (FC asks no provider)
    ('provider', pa.string()),      # sandbox, linkgraph, searxng, brave
    ('method', pa.string()),        # keyword, related, backlinks
    ('query', pa.string()),         # the query, or the URL of the input page
    ('results', pa.int32()),
    ('outcome', pa.string()),       # models.search.KINDS: ok, empty, unsupported, rate_limited, ...
    ('http_status', pa.int16()),    # of the last request; null when none was sent or none answered
    ('error', pa.string()),
    ('elapsed_ms', pa.float64()),
    ('requests', pa.int32()),       # what the call cost: HTTP requests sent, retries included
])

# The frontier as data: every URL known and not yet requested after the round, one row per
# normalised URL, computed in the round pipeline (transforms/frontier.py UpdateFrontier) from the
# previous round's candidates, this round's links and every URL requested or reached by redirect.
# A URL found again keeps the row of its best link (highest priority, then earliest found), the
# largest depth budget, its first round and the count of links to it (models/frontier.py).
CANDIDATES = pa.schema([
    ('round', pa.int32()),          # the round whose commit holds this table
    ('url', pa.string()),
    ('host', pa.string()),
    ('priority', pa.float64()),     # the strategy's best score of any link or result to the URL
    ('depth', pa.int32()),          # largest depth (Shark/SSAPS) or tunnel budget (DTH) given; -1 unused
    ('operator', pa.string()),      # what found the best link: link (a fetched page's outlink), seed, FC, BC, KS, RS
    ('parent_url', pa.string()),    # the page of the best link; null for search results
    ('parent_relevance', pa.float64()),  # that page's relevance to the topic
    ('block', pa.string()),         # the best link's block on its page (BLOCK_CLASSES)
    ('anchor', pa.string()),
    ('anchor_relevance', pa.float64()),
    ('context_relevance', pa.float64()),
    ('url_relevance', pa.float64()),
    ('first_round', pa.int32()),    # round the URL was first found in; 0 for a seed
    ('parent_position', pa.int32()),  # the best link's page: its place in its round's frontier
    ('link_index', pa.int32()),     # the best link's place on that page; a seed's in the seed list
    ('times_linked', pa.int32()),   # links (or results) to the URL found so far
    ('inherited', pa.float64()),    # what the best link carries (FRONTIER.inherited)
    ('title', pa.string()),         # from a search result, when there was one
    ('snippet', pa.string()),
])

# The crawl's document frequencies after the round (WL eq. 3's D_i over every page fetched so far,
# cumulative), read by the next round's Score stage; D is the sum of the manifests' pages rows.
TERM_STATS = pa.schema([
    ('round', pa.int32()),
    ('term', pa.string()),
    ('documents', pa.int64()),      # pages whose title or main text hold the term
])

# PageRank over the crawl's link graph after a round (ranks/NNNNNN/, models/pagerank.py): every
# page fetched or linked so far; a page votes once for each page it links to (links to itself
# dropped, links to a URL that redirected count for the page reached); damping 0.85, uniform
# teleport, the rank of pages without outlinks spread over all.
PAGERANK = pa.schema([
    ('round', pa.int32()),          # the last round the ranks cover (the ranks/ directory's number)
    ('url', pa.string()),
    ('pagerank', pa.float64()),     # sums to 1 over the table (DWDBRM eq. 7)
    ('pagerank_wl', pa.float64()),  # WL eq. 6's un-normalised form: pages × pagerank, mean 1 (WL keeps PR >= 2)
])

# DWDBRM's ranking of every page fetched so far against the seed pages (models/ranking.py): one
# row per page (by final URL), best first. Positions count from 0; pages with equal scores share
# the mean of the positions they span. Smaller `combined` is better for eq8, larger for mean and rrf.
RANKING = pa.schema([
    ('round', pa.int32()),          # the last round the ranking covers
    ('url', pa.string()),           # the page's final URL
    ('host', pa.string()),
    ('title', pa.string()),
    ('fetched_round', pa.int32()),  # the round the page was fetched in
    ('seed', pa.bool_()),           # one of the crawl's seed pages (the rankers' positives)
    *[(f'score_{name}', pa.float64()) for name in ranking_options.SCORES],     # higher is more like the seeds
    *[(f'position_{name}', pa.float64()) for name in ranking_options.SCORES],  # 0 = that ranker's best
    ('combined', pa.float64()),     # the combination's value (eq8, mean or rrf)
    ('position', pa.int64()),       # final place, 0 = best, each page its own
])

# The rankers' keyword vocabulary, in order: the topic's terms, then terms shared by the seed pages.
VOCABULARY = pa.schema([
    ('round', pa.int32()),
    ('term', pa.string()),
    ('index', pa.int32()),          # the term's column in the rankers' feature vectors
])

ROUND_TABLES = {'frontier': FRONTIER, 'fetch_log': FETCH_LOG, 'pages': PAGES, 'links': LINKS,
                'candidates': CANDIDATES, 'term_stats': TERM_STATS, 'discover_log': DISCOVER_LOG}
RANK_TABLES = {'pagerank': PAGERANK, 'ranking': RANKING, 'vocabulary': VOCABULARY}

"""Extract: fetched bytes -> decoded, segmented page with its terms and its links' terms."""
import functools
import gc
from array import array

import apache_beam as beam
from apache_beam.metrics import Metrics

from models import text
from models.extract import extract_page

CONTEXT_BLOCKS = ('content', 'related')  # elsewhere the "context" is only more menu anchors
CARRIED = ('url', 'final_url', 'depth', 'position', 'inherited', 'fetched_at')  # of the fetched record, for Score
# A page's links travel as one string per column, the links' values joined by newlines (none holds
# one: URLs lose theirs, anchors and contexts are whitespace-collapsed, terms are space-joined),
# and their blocks' places as a list ('block_index').
JOINED_LINK_COLUMNS = ('url', 'anchor', 'context', 'block', 'anchor_terms', 'context_terms', 'url_terms')
TERM_COUNT = 'I'  # the array type of a page's term counts (C unsigned int, as text.term_counts writes them)


def page_term_counts(extracted: dict) -> dict[str, int]:
    """An extracted page's distinct terms -> how often each occurs, in order of first occurrence."""
    return dict(zip(extracted['terms'].split(), array(TERM_COUNT, extracted['term_counts'])))


def link_columns(links: dict) -> dict[str, list]:
    """A page's links as ExtractPagesFn gives them -> a list per column (JOINED_LINK_COLUMNS and
    'block_index', each of a value per link in document order)."""
    count = len(links['block_index'])
    columns = {name: links[name].split('\n') if count else [] for name in JOINED_LINK_COLUMNS}
    if any(len(values) != count for values in columns.values()):
        raise ValueError('a link value holds a newline: the columns of a page\'s links do not line up')
    return {**columns, 'block_index': links['block_index']}


# Container objects made between two young collections of the garbage collector (Python's default: 700).
YOUNG_COLLECTION_OBJECTS = 10_000


@functools.cache
def quiet_garbage_collector() -> None:
    """Once per process: what it holds when the first extraction starts (modules, tables, the
    pipeline) leaves the garbage collector's care. A page makes thousands of objects, so full
    collections ran often, and each one walked all of that again (0.6 CPU-s of 1.3 in GC per 1,000
    real pages). The price, once: in a crawl run in one process, cycles of the first round's
    pipeline stay in memory after it (~100,000 objects). And young collections run every
    YOUNG_COLLECTION_OBJECTS new objects: almost nothing a page makes is in a cycle (its tree,
    boxes and links go with their last reference), so a collection every 700 found next to
    nothing (a 2,000-page CWCED round in one process: 1,511 collections, 0.42 CPU-s, ~12,000
    objects freed; 329, 0.15 CPU-s and a peak RSS 10 MB higher now)."""
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_OBJECTS, *gc.get_threshold()[1:])


class ExtractPagesFn(beam.DoFn):
    """Fetched page -> what Score needs of it: the page's fields, its index terms counted (each
    distinct term in order of first occurrence, and how often it occurs) and, per link, the
    terms of its anchor, its context (content and related blocks only) and its URL, kept apart,
    and its block's place among the page's content and related blocks. With `blocks`, also the
    terms of each of those blocks (SSAPS scores them one by one). The body and block measures stay
    here: the record is materialised between stages, and Beam's coder writes and reads one long
    string much faster than many short ones. So the page's distinct terms and each link's terms
    travel as one string each, the terms separated by spaces (a term holds no whitespace; `.split()`
    gives them back), their counts as one bytes string of 32-bit integers (term_counts; as a list of
    ~700 ints, they took as long to code as the page's text), and the links as columns, each one
    string (JOINED_LINK_COLUMNS, link_columns splits them): a real page has ~1,300 tokens, ~700 of
    them distinct, and ~100 links with ~900 link terms; as a tuple per link, coding the record
    between the stages took ~0.3 ms of it. The page is counted once, here: the document
    frequencies need its distinct terms, TF-IDF and the pages table their counts (a Counter of a
    page's tokens is ~0.15 ms, and was made three times), compiled (text.term_counts: jieba's ~3,000
    tokens of a real page, separators included, are filtered and counted without lists between).
    Chinese is segmented with the topic's keywords as whole words (`dictionary_words`,
    Topic.dictionary_words)."""

    def __init__(self, blocks: bool = False, dictionary_words: frozenset[str] = frozenset()):
        self.blocks = blocks
        self.dictionary_words = dictionary_words
        self.unreadable = Metrics.counter(self.__class__, 'unreadable_pages')

    def setup(self):
        text.use_dictionary_words(self.dictionary_words)
        quiet_garbage_collector()

    def process(self, fetched):
        page = extract_page(fetched['body'], fetched['final_url'], fetched['content_type'])
        if page.error:
            self.unreadable.inc()
        scored_blocks = [block for block in page.blocks if block.kind in CONTEXT_BLOCKS]
        block_of = {id(link): index for index, block in enumerate(scored_blocks) for link in block.links}
        urls, anchors, contexts, kinds = zip(*page.links) if page.links else ((), (), (), ())
        columns = {'url': urls, 'anchor': anchors, 'context': contexts, 'block': kinds,
                   'anchor_terms': [text.recurring_terms(anchor) for anchor in anchors],
                   'context_terms': [text.recurring_terms(context) if kind in CONTEXT_BLOCKS else ''
                                     for context, kind in zip(contexts, kinds)],
                   'url_terms': [text.url_terms(url) for url in urls]}
        terms, term_counts = text.term_counts(f'{page.title}\n{page.text}')
        yield {**{key: fetched[key] for key in CARRIED}, 'title': page.title, 'text': page.text,
               'meta_keywords': page.meta_keywords, 'meta_description': page.meta_description,
               'canonical': page.canonical, 'encoding': page.encoding,
               'terms': terms, 'term_counts': term_counts,
               'links': {**{name: '\n'.join(columns[name]) for name in JOINED_LINK_COLUMNS},
                         'block_index': [block_of.get(id(link)) for link in page.links]},
               'blocks': [(block.kind, text.tokenize(block.text)) for block in scored_blocks] if self.blocks else []}


class Extract(beam.PTransform):
    """Fetched pages -> extracted pages (see ExtractPagesFn)."""

    def __init__(self, blocks: bool = False, dictionary_words: frozenset[str] = frozenset()):
        super().__init__()
        self.blocks = blocks
        self.dictionary_words = dictionary_words

    def expand(self, fetched_pages):
        # Not reshuffled: each page is extracted by the worker that fetched it, in the time its
        # host's politeness delay leaves between requests, and its body never travels between
        # processes (with two workers, passing every body through the runner cost more CPU than
        # the idle time it saved when a few hosts hold most of a round).
        return fetched_pages | 'ExtractPages' >> beam.ParDo(ExtractPagesFn(self.blocks, self.dictionary_words))

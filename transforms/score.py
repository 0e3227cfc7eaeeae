"""Score: extracted pages -> page rows with the strategy's relevance and judgment, scored links
(the graph's edges) and the links the crawl's strategy keeps as candidates for its frontier."""
import apache_beam as beam
import numpy as np
import pyarrow as pa

from models.frontier import link_candidates
from models.relevance import TopicRelevance
from models.segment import sorted_words
from models.strategies import LinkBatch, PageFeatures, ParentPage, Strategy
from models.termstats import TermStats
from models.topic import Topic
from models.urls import host_of
from transforms.extract import TERM_COUNT, link_columns, page_term_counts
from transforms.termstats import DocumentFrequencies


def sorted_term_columns(extracted: dict) -> tuple[pa.Array, pa.Array]:
    """The pages table's terms (an extracted page's distinct terms in code-point order, as sorted()
    gives them) and term_counts, as Arrow arrays made from the page's joined terms and counts bytes
    (transforms/extract.py), sorted compiled (models/segment.pyx sorted_words): sorting ~700 Python
    strings and converting them and their counts took ~0.23 ms of a real page, Arrow's split and
    sort_indices ~0.13 ms, this ~0.06 ms."""
    joined, offsets, places = sorted_words(extracted['terms'].encode())
    terms = pa.StringArray.from_buffers(len(places) // 4, pa.py_buffer(offsets), pa.py_buffer(joined))
    counts = np.frombuffer(extracted['term_counts'], np.dtype(TERM_COUNT))[np.frombuffer(places, np.int32)]
    return terms, pa.array(counts.astype(np.int32))


def looked_up_words(extracted: dict) -> list[str]:
    """The words besides the page's own whose statistics Score looks up, as space-joined strings:
    its links' anchor, context and URL terms (transforms/extract.py) and its related blocks' terms
    (the content blocks' are the page's). The document frequencies split each distinct string of
    a bundle once: a site's menus recur on each of its pages."""
    links = extracted['links']
    words = [words for name in ('anchor_terms', 'context_terms', 'url_terms') for words in links[name].split('\n')]
    words.extend(' '.join(terms) for _, terms in extracted['blocks'])
    return words


class ScorePagesFn(beam.DoFn):
    """The strategy's page relevance and judgment (TF-IDF with the crawl's statistics up to and
    including this round), the relevance of each link's anchor, context and URL, and the
    strategy's score of the link."""

    def __init__(self, topic: Topic, strategy: Strategy, round_number: int):
        self.topic = topic
        self.strategy = strategy
        self.round = round_number

    def setup(self):
        self.relevance = self.tables = None

    def process(self, extracted, documents, frequency_tables):
        relevance = self._relevance(documents, frequency_tables)
        counts = page_term_counts(extracted)
        source = extracted['final_url']
        page = self.strategy.score_page(PageFeatures(extracted['url'], source, counts, extracted['blocks'],
                                                     extracted['depth'], extracted['inherited']), relevance)
        terms, term_counts = sorted_term_columns(extracted)
        yield {'round': self.round, 'url': extracted['url'], 'final_url': source,
               'host': host_of(source), 'title': extracted['title'], 'text': extracted['text'],
               'meta_keywords': extracted['meta_keywords'], 'meta_description': extracted['meta_description'],
               'canonical': extracted['canonical'], 'encoding': extracted['encoding'], 'relevance': page.relevance,
               'relevant': page.relevant, 'inherited': extracted['inherited'],
               'terms': terms, 'term_counts': term_counts,
               'depth': extracted['depth'], 'fetched_at': extracted['fetched_at']}
        parent = ParentPage(source, page.relevance, extracted['depth'], extracted['position'], page.relevant,
                            extracted['inherited'], page.blocks)
        links = link_columns(extracted['links'])
        count = len(links['url'])
        if not count:
            return
        (anchor_terms, anchor_relevance), (context_terms, context_relevance), (url_terms, url_relevance) = (
            self._words_column(links[name]) for name in ('anchor_terms', 'context_terms', 'url_terms'))
        batch = LinkBatch(links['url'], links['anchor'], links['block'], anchor_terms, context_terms, url_terms,
                          anchor_relevance, context_relevance, url_relevance, links['block_index'])
        scores = self.strategy.score_links(batch, parent, relevance).checked()
        yield beam.pvalue.TaggedOutput(Score.LINKS, {
            'round': [self.round] * count, 'url': [source] * count, 'dst': batch.url, 'anchor': batch.anchor,
            'context': links['context'], 'block': batch.block, 'link_index': list(range(count)),
            'anchor_relevance': anchor_relevance, 'context_relevance': context_relevance,
            'url_relevance': url_relevance, 'priority': scores.priority})
        found = link_candidates(batch, scores, parent, self.round)
        if found['url']:
            yield beam.pvalue.TaggedOutput(Score.FOUND, found)

    def _relevance(self, documents: int, frequency_tables: list) -> TopicRelevance:
        """One for as long as the side inputs stay the same objects (a bundle's pages, usually), so
        the tables of (term, pages holding it) become a dict and each term's idf is computed once,
        not once per page."""
        if self.relevance is None or self.relevance.stats.documents != documents or self.tables is not frequency_tables:
            frequency = {}
            for table in frequency_tables:
                frequency.update(zip(table['term'].to_pylist(), table['documents'].to_pylist()))
            self.relevance = TopicRelevance(self.topic, TermStats(documents, frequency))
            self.tables = frequency_tables
            self.known_link_words = {}  # joined terms -> (terms, relevance), with these statistics
        return self.relevance

    def _words_column(self, column: list[str]) -> tuple[tuple, tuple]:
        """The terms of each link's anchor, context or URL words (Extract joins them with spaces)
        and their relevance, as two columns; each distinct string's kept in known_link_words while
        the statistics stay the same: a site's menus recur on each of its pages."""
        known, link_words = self.known_link_words, self._link_words
        return tuple(zip(*[known.get(joined) or link_words(joined) for joined in column]))

    def _link_words(self, joined: str) -> tuple[tuple[str, ...], float]:
        """A string _words_column has not met with these statistics: its terms and their relevance, kept."""
        terms = tuple(joined.split())
        known = self.known_link_words[joined] = (terms, self.relevance(terms))
        return known


class Score(beam.PTransform):
    """Extracted pages -> {'pages': page rows (their terms and term_counts Arrow arrays:
    sorted_term_columns), 'links': each page's edges as columns
    (transforms/tables.py columns_table: ~100 rows of a real page travel and are written as one
    element, without a dict per row), 'found': candidate rows of the links the strategy keeps (a
    batch of columns per page: models/frontier.py link_candidates), 'term_stats': tables of the
    crawl's cumulative (round, term, pages) counts}.

    `prior_term_stats` is the previous round's committed term_stats (tables: ReadCommitted batched) and
    `prior_documents` the pages fetched before this round (D of WL eq. 3, from the manifests).
    """
    PAGES, LINKS, FOUND, TERM_STATS = 'pages', 'links', 'found', 'term_stats'

    def __init__(self, topic: Topic, strategy: Strategy, round_number: int, prior_documents: int,
                 prior_term_stats):
        super().__init__()
        self.topic = topic
        self.strategy = strategy
        self.round = round_number
        self.prior_documents = prior_documents
        self.prior_term_stats = prior_term_stats

    def expand(self, extracted):
        frequencies = (extracted
                       | 'Terms' >> beam.Map(lambda page: (page['terms'], looked_up_words(page)))
                       | 'DocumentFrequencies' >> DocumentFrequencies(self.prior_term_stats, self.round))
        prior_documents = self.prior_documents
        documents = (extracted
                     | 'CountPages' >> beam.combiners.Count.Globally()
                     | 'AddPriorPages' >> beam.Map(lambda pages: pages + prior_documents))
        scored = extracted | 'ScorePages' >> beam.ParDo(
            ScorePagesFn(self.topic, self.strategy, self.round),
            beam.pvalue.AsSingleton(documents), beam.pvalue.AsList(frequencies['lookup'])
        ).with_outputs(self.LINKS, self.FOUND, main=self.PAGES)
        return {self.PAGES: scored[self.PAGES], self.LINKS: scored[self.LINKS],
                self.FOUND: scored[self.FOUND], self.TERM_STATS: frequencies['cumulative']}

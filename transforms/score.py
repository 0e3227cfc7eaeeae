"""Extract and Score: fetched bytes -> page rows with relevance, and scored link rows (edges)."""
import re

import apache_beam as beam
from apache_beam.metrics import Metrics

from models import relevance, text
from models.extract import extract_page
from models.termstats import TermStats
from models.topic import Topic
from models.urls import host_of

CONTEXT_BLOCKS = ('content', 'related')  # elsewhere the "context" is only more menu anchors
_URL_WORDS = re.compile(r'[^\w\u4e00-\u9fff]+')


def url_words(url: str) -> str:
    """The words of a URL's host and path ('/house/2011/price-drop.html' -> 'house price drop html')."""
    return _URL_WORDS.sub(' ', url.split('://', 1)[-1])


class ExtractPagesFn(beam.DoFn):
    """Fetched page -> decoded, segmented page with its tokens and its links' tokens."""

    def __init__(self):
        self.unreadable = Metrics.counter(self.__class__, 'unreadable_pages')

    def process(self, fetched):
        page = extract_page(fetched['body'], fetched['final_url'], fetched['content_type'])
        if page.error:
            self.unreadable.inc()
        tokens = text.tokenize(f'{page.title}\n{page.text}')
        links = []
        for link in page.links:
            words = f'{link.anchor} {link.context if link.block in CONTEXT_BLOCKS else ""} {url_words(link.url)}'
            links.append((link, text.tokenize(words)))
        yield {**fetched, 'page': page, 'tokens': tokens, 'links': links}


class ScorePagesFn(beam.DoFn):
    """Page relevance (VSM, TF-IDF with the crawl's statistics so far plus this round's) and each
    outlink's predicted relevance (WL: anchor words and parent page). Links go to 'links'."""

    def __init__(self, topic: Topic, prior_stats: TermStats, round_number: int):
        self.topic = topic
        self.prior_stats = prior_stats
        self.round = round_number

    def setup(self):
        self._stats_for = None

    def _stats(self, round_stats: TermStats) -> TermStats:
        if self._stats_for is not round_stats:  # merge once per worker, not per page
            self._merged = TermStats().merge(self.prior_stats).merge(round_stats)
            self._stats_for = round_stats
        return self._merged

    def process(self, extracted, round_stats):
        stats = self._stats(round_stats)
        page = extracted['page']
        page_relevance = relevance.terms_relevance(extracted['tokens'], self.topic, stats)
        source = extracted['final_url']
        yield {'round': self.round, 'url': extracted['url'], 'final_url': source,
               'host': host_of(source), 'title': page.title, 'text': page.text,
               'meta_keywords': page.meta_keywords, 'meta_description': page.meta_description,
               'canonical': page.canonical, 'encoding': page.encoding, 'relevance': page_relevance,
               'terms': sorted(set(extracted['tokens'])), 'fetched_at': extracted['fetched_at']}
        for link, tokens in extracted['links']:
            yield beam.pvalue.TaggedOutput('links', {
                'round': self.round, 'url': source, 'dst': link.url, 'anchor': link.anchor,
                'context': link.context, 'block': link.block,
                'predicted_relevance': relevance.link_relevance(tokens, page_relevance, self.topic, stats,
                                                                link.block)})

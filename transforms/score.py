"""Score: extracted pages -> page rows with relevance, and scored link rows (the graph's edges)."""
import apache_beam as beam

from models import relevance
from models.termstats import TermStats
from models.topic import Topic
from models.urls import host_of


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

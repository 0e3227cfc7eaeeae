"""Extract: fetched bytes -> decoded, segmented page with its tokens and its links' tokens."""
import re

import apache_beam as beam
from apache_beam.metrics import Metrics

from models import text
from models.extract import extract_page

CONTEXT_BLOCKS = ('content', 'related')  # elsewhere the "context" is only more menu anchors
CARRIED = ('url', 'final_url', 'depth', 'position', 'fetched_at')  # of the fetched record, for Score
_URL_WORDS = re.compile(f'[^\\w{text.HAN_RANGES}]+')


def url_words(url: str) -> str:
    """The words of a URL's host and path ('/house/2011/price-drop.html' -> 'house price drop html')."""
    return _URL_WORDS.sub(' ', url.split('://', 1)[-1])


class ExtractPagesFn(beam.DoFn):
    """Fetched page -> what Score needs of it: the page's fields and tokens and, per link, the
    terms of its anchor, its context (content and related blocks only) and its URL, kept apart.
    The body, blocks and block measures stay here: the record is materialised between stages."""

    def __init__(self):
        self.unreadable = Metrics.counter(self.__class__, 'unreadable_pages')

    def process(self, fetched):
        page = extract_page(fetched['body'], fetched['final_url'], fetched['content_type'])
        if page.error:
            self.unreadable.inc()
        links = [(link, text.recurring_terms(link.anchor),
                  text.tokenize(link.context) if link.block in CONTEXT_BLOCKS else [],
                  text.tokenize(url_words(link.url)))
                 for link in page.links]
        yield {**{key: fetched[key] for key in CARRIED}, 'title': page.title, 'text': page.text,
               'meta_keywords': page.meta_keywords, 'meta_description': page.meta_description,
               'canonical': page.canonical, 'encoding': page.encoding,
               'tokens': text.tokenize(f'{page.title}\n{page.text}'), 'links': links}


class Extract(beam.PTransform):
    """Fetched pages -> extracted pages (see ExtractPagesFn)."""

    def expand(self, fetched_pages):
        return fetched_pages | 'ExtractPages' >> beam.ParDo(ExtractPagesFn())

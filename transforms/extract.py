"""Extract: fetched bytes -> decoded, segmented page with its tokens and its links' tokens."""
import re

import apache_beam as beam
from apache_beam.metrics import Metrics

from models import text
from models.extract import extract_page

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

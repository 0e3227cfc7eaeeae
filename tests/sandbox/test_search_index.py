import collections
import itertools

import pytest

from sandbox import corpora
from sandbox.search_index import (MAX_RESULTS, RESULT_DEPTH, SearchIndex, SearchIndexBuilder,
                                  SearchIndexError)

RESULT_KEYS = {'url', 'title', 'snippet'}


def thucnews_url(number: int) -> str:
    return f'http://site-{number // 5}.test/a/{number}.html'


@pytest.fixture(scope='module')
def thucnews(shared_data):
    """Pages of the first 200 THUCNews articles (all ten classes), five per host, plus the 房产
    articles among the next 200 crowded on one host; and each page's class, for the test only."""
    articles = corpora.thucnews_articles(shared_data / 'corpora' / 'thucnews' / 'cnews_sample1000.tsv')
    pages = {thucnews_url(number): article for number, article in enumerate(articles[:200])}
    pages.update({f'http://estate.test/{number}.html': article
                  for number, article in enumerate(articles[200:400]) if article.labels[0] == '房产'})
    return pages, {url: article.labels[0] for url, article in pages.items()}


@pytest.fixture(scope='module')
def news_index(thucnews):
    pages, _ = thucnews
    builder = SearchIndexBuilder()
    for url, article in pages.items():
        builder.add(url, article.title, article.text)
    first = pages[thucnews_url(0)]
    builder.add('http://mirror.test/copy.html', first.title, first.text)
    # One more word that is common in the news: cosine 0.9997 to the original, a copy.
    builder.add('http://mirror.test/near-copy.html', first.title, first.text + '\n新浪')
    return builder.build()


@pytest.fixture(scope='module')
def tiny_web():
    """d -> a, b, c; c -> a, b; b -> a; e -> a: in-degrees a 4, b 2, c 1, d 0, e 0."""
    builder = SearchIndexBuilder()
    builder.add('http://a.test/x', 'A', 'page a', ['http://a.test/x', 'mailto:a@a.test', 'not a url'])
    builder.add('http://b.test/', 'B', 'page b', ['HTTP://A.test/x#f', 'http://a.test/x', 'http://no.test/'])
    builder.add('http://c.test/', 'C', 'page c', ['http://a.test/x', 'http://b.test'])
    builder.add('http://d.test/', 'D', 'page d', ['http://a.test/x', 'http://b.test/', 'http://c.test/'])
    builder.add('http://e.test/', 'E', 'page e', ['http://a.test/./x'])
    builder.add('http://b.test/', 'B again', 'a later copy is ignored', ['http://e.test/'])
    return builder.build()


def urls(results: list[dict]) -> list[str]:
    assert all(set(result) == RESULT_KEYS for result in results)
    return [result['url'] for result in results]


def test_bm25_finds_chinese_pages_on_the_query_topic(news_index, thucnews):
    _, labels = thucnews
    results = news_index.search('房价 楼市', count=10)
    assert len(results) == 10
    assert sum(labels[url] == '房产' for url in urls(results)) >= 8


def test_bm25_finds_english_pages_with_the_query_words(shared_data):
    builder = SearchIndexBuilder()
    path = shared_data / 'corpora' / 'wikispeedia' / 'articles.jsonl.gz'
    for article in itertools.islice(corpora.wikispeedia_articles(path), 300):
        builder.add(f'http://en.test/wiki/{article.id}', article.title, article.text)
    index = builder.build()
    assert index.search('penguin')[0]['title'] == 'African Penguin'
    assert {'2003 Atlantic hurricane season', '2005 Atlantic hurricane season'} <= \
        {result['title'] for result in index.search('hurricane season', count=5)}
    assert index.search('the of and') == [] and index.search('') == [] and index.search('zxqvw') == []


def test_title_terms_outweigh_the_same_terms_in_the_text():
    builder = SearchIndexBuilder()
    builder.add('http://text.test/', 'Notes', 'orchids orchids need light water soil')
    builder.add('http://title.test/', 'Orchids', 'plants need light water soil')
    builder.add('http://other.test/', 'Ferns', 'ferns need shade water soil')
    assert urls(builder.build().search('orchids')) == ['http://title.test/', 'http://text.test/']


def test_count_is_capped_and_nothing_is_served_beyond_the_result_depth():
    builder = SearchIndexBuilder()
    for number in range(RESULT_DEPTH + 100):
        builder.add(f'http://site-{number}.test/', f'Page {number}', f'common word{number}x')
    index = builder.build()
    assert len(index) == RESULT_DEPTH + 100
    assert len(index.search('common', count=1000)) == MAX_RESULTS
    assert len(index.search('common', count=0)) == 1
    assert index.search('common', offset=-5) == index.search('common')
    assert len(index.search('common', count=50, offset=RESULT_DEPTH - 20)) == 20
    assert index.search('common', offset=RESULT_DEPTH) == []
    pages = [urls(index.search('common', count=50, offset=offset)) for offset in range(0, RESULT_DEPTH, 50)]
    served = list(itertools.chain.from_iterable(pages))
    # Equal scores are ranked by insertion order, so pages never overlap and never skip one.
    assert served == [f'http://site-{number}.test/' for number in range(RESULT_DEPTH)]


def test_related_pages_share_the_topic_and_are_spread_over_sites(news_index, thucnews):
    _, labels = thucnews
    for label in ('房产', '体育', '游戏'):
        page = next(url for url in labels if labels[url] == label)
        results = urls(news_index.related(page, count=10))
        assert len(results) == 10
        assert sum(labels.get(url) == label for url in results) >= 6, label
        assert page not in results
        assert max(collections.Counter(url.split('/')[2] for url in results).values()) <= 2


def test_related_leaves_out_the_page_itself_and_its_copies(news_index):
    served = urls(news_index.related(thucnews_url(0), count=50))
    assert served and not {thucnews_url(0), 'http://mirror.test/copy.html',
                           'http://mirror.test/near-copy.html'} & set(served)
    assert news_index.related('http://unknown.test/') == [] and news_index.related('no url') == []


def test_backlinks_rank_linking_pages_by_their_own_in_degree(tiny_web):
    assert urls(tiny_web.backlinks('http://a.test/x')) == \
        ['http://b.test/', 'http://c.test/', 'http://d.test/', 'http://e.test/']
    assert tiny_web.backlinks('HTTP://A.test/x#f') == tiny_web.backlinks('http://a.test/x')
    assert urls(tiny_web.backlinks('http://b.test/', count=1, offset=1)) == ['http://d.test/']
    assert tiny_web.backlinks('http://e.test/') == []  # only the ignored second copy of b linked e
    assert tiny_web.backlinks('http://no.test/') == []


def test_a_url_added_twice_keeps_its_first_page(tiny_web):
    assert len(tiny_web) == 5
    assert tiny_web.search('page b') and tiny_web.search('later copy') == []


def test_snippets_collapse_whitespace_and_stop_at_a_word_boundary():
    builder = SearchIndexBuilder()
    builder.add('http://long.test/', 'Long', 'Title line\n\n  ' + 'wordy ' * 100)
    snippet = builder.build().search('wordy')[0]['snippet']
    assert snippet.startswith('Title line wordy wordy') and snippet.endswith('wordy') and len(snippet) <= 200


def test_a_saved_index_loads_and_answers_the_same(news_index, tiny_web, tmp_path):
    for number, index in enumerate((news_index, tiny_web)):
        index.save(tmp_path / f'search-{number}')
        loaded = SearchIndex.load(tmp_path / f'search-{number}')
        assert len(loaded) == len(index)
        some_url = urls(index.search('page 房价'))[0]
        for call, argument in ((SearchIndex.search, '房价 楼市 page'), (SearchIndex.related, some_url),
                               (SearchIndex.backlinks, 'http://a.test/x')):
            assert call(loaded, argument, count=20) == call(index, argument, count=20)


def test_a_missing_or_damaged_index_says_to_rebuild_it(tiny_web, tmp_path):
    with pytest.raises(SearchIndexError, match='focal sandbox build'):
        SearchIndex.load(tmp_path / 'nothing-here')
    tiny_web.save(tmp_path / 'search')
    bm25 = tmp_path / 'search' / 'bm25.npz'
    bm25.write_bytes(bm25.read_bytes()[:100])
    with pytest.raises(SearchIndexError, match='focal sandbox build'):
        SearchIndex.load(tmp_path / 'search')
    tiny_web.save(tmp_path / 'search')
    (tmp_path / 'search' / 'index.json').write_text('{"format_version": 1, "documents": 9, "terms": 2}')
    with pytest.raises(SearchIndexError, match='disagree'):
        SearchIndex.load(tmp_path / 'search')

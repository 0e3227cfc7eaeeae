import collections

from sandbox import corpora


def test_thucnews_articles_have_their_class_and_a_headline():
    articles = corpora.thucnews_articles()
    assert len(articles) == 1000
    counts = collections.Counter(a.labels[0] for a in articles)
    assert counts['房产'] == 104 and counts['体育'] == 116 and len(counts) == 10
    assert all(a.title and a.text.startswith(a.title) for a in articles)


def test_wikispeedia_text_never_leaks_its_category():
    articles = list(corpora.wikispeedia_articles())
    assert len(articles) == 4604
    assert sum('Geography' in a.labels for a in articles) == 1063
    for article in articles:
        assert 'Related subjects' not in article.text[:500], article.id
        assert 'Retrieved from "' not in article.text, article.id
        assert 'Schools Wikipedia Selection' not in article.text[:500], article.id
    honey = next(a for a in articles if a.id == 'Honey')
    assert honey.title == 'Honey' and honey.text.startswith('A jar of honey')

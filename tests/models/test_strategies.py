from models.strategies import BestFirst, BreadthFirst, FoundLink


def round_one(strategy):
    strategy.update(1, ['http://a.test/'], [FoundLink('http://a.test/', 'http://a.test/x', 0.2),
                                            FoundLink('http://a.test/', 'http://b.test/y', 0.9),
                                            FoundLink('http://a.test/', 'http://a.test/', 1.0)])
    strategy.update(2, ['http://a.test/x'], [FoundLink('http://a.test/x', 'http://c.test/z', 0.95),
                                             FoundLink('http://a.test/x', 'http://b.test/y', 0.1)])
    return strategy


def test_best_first_takes_the_most_promising_unfetched_url():
    strategy = round_one(BestFirst())
    chosen = strategy.select(2)
    assert [c.url for c in chosen] == ['http://c.test/z', 'http://b.test/y']
    assert chosen[1].priority == 0.9 and chosen[1].parent_url == 'http://a.test/'
    assert strategy.select(5) == []


def test_breadth_first_takes_the_oldest_discovery_first():
    strategy = round_one(BreadthFirst())
    assert [c.url for c in strategy.select(5)] == ['http://b.test/y', 'http://c.test/z']


def test_fetched_urls_are_never_candidates_again():
    strategy = round_one(BestFirst())
    strategy.update(3, ['http://c.test/z'], [FoundLink('http://c.test/z', 'http://a.test/x', 1.0)])
    assert [c.url for c in strategy.select(5)] == ['http://b.test/y']

import random

import pytest

from models.urls import _CANONICAL, UrlError, _normalize_parts, host_of, normalize_url


@pytest.mark.parametrize('raw, expected', [
    ('HTTP://Example.COM:80/a/../b/./c', 'http://example.com/b/c'),
    ('https://example.com:443', 'https://example.com/'),
    ('http://example.com:8080/x#section', 'http://example.com:8080/x'),
    ('http://example.com/%7euser/%2fa%3F', 'http://example.com/~user/%2Fa%3F'),
    ('http://example.com/房产/新闻?q=楼市', 'http://example.com/%E6%88%BF%E4%BA%A7/%E6%96%B0%E9%97%BB?q=%E6%A5%BC%E5%B8%82'),
    ('http://example.com/a b', 'http://example.com/a%20b'),
    ('http://example.com/a/b/..', 'http://example.com/a/'),
    ('http://example.com/?b=2&a=1', 'http://example.com/?b=2&a=1'),
    ('http://bücher.example/', 'http://xn--bcher-kva.example/'),
    ('http://example.com./x', 'http://example.com/x'),
])
def test_normalize_url(raw, expected):
    assert normalize_url(raw) == expected
    assert normalize_url(expected) == expected


@pytest.mark.parametrize('raw', ['mailto:a@b.c', '/relative/path', 'ftp://example.com/', 'http://',
                                 'http://example.com:99999/', 'javascript:void(0)'])
def test_normalize_url_refuses_what_is_not_an_absolute_http_url(raw):
    with pytest.raises(UrlError):
        normalize_url(raw)


def test_host_of():
    assert host_of('http://News.Example.test:8080/a') == 'news.example.test'
    assert host_of('/relative') == ''


def test_canonical_urls_take_the_short_way_to_the_same_answer():
    """normalize_url returns a URL that is canonical already without splitting it; whatever the
    URL, the answer is the one of the long way (split, canonicalise each part, join)."""
    pieces = ['a.b', 'A.b', 'x', '.', '..', '/', '//', '?', '#', '%41', '%7e', ':80', ':8080', '@', 'é', ' ', '\t',
              'b-c', '~', ';', '=', '&', "'", '房', '_', 'x.html']
    rng = random.Random(7)
    urls = ['http://example.com', 'http://example.com?q', 'http://example.com/a?', 'http://example.com/a/./b',
            'http://example.com/a/../', 'http://example.com/.../b', 'http://example.com/a/.', 'http://a..b/',
            'http://example.com/a//b', 'http://example.com/a/b.html#top', 'https://example.com/?a=1&b=/c?d']
    urls += [rng.choice(['http://', 'https://']) + ''.join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
             for _ in range(20000)]

    def answer(normalize, url):
        try:
            return normalize(url)
        except UrlError:
            return UrlError

    assert sum(1 for url in urls if _CANONICAL.match(url)) > 300
    assert [answer(normalize_url.__wrapped__, url) for url in urls] == [answer(_normalize_parts, url) for url in urls]


def test_the_compiled_canonical_check_is_the_regular_expression():
    """canonical_url (compiled, models/segment.pyx), which resolving a page's links tries first,
    answers what normalize_url's _CANONICAL match answers: the URL without its fragment and with
    '/' for an empty path, or None; random URLs of hosts, dot segments, every kind of escape, queries,
    fragments with and without whitespace, and other scripts."""
    from models.segment import canonical_url

    def by_expression(url):
        match = _CANONICAL.match(url)
        return f'{match[1]}{match[2] or "/"}{match[3] or ""}' if match else None

    plain = ['a', 'x.html', 'b-c', '~', ';', '=', '&', "'", '_', '@', ':', '...', '%E4', '%00', '%2F', '%7F',
             *(f'%{high}{low}' for high in '234567' for low in '09ACDEF')]
    odd = ['.', '..', '', 'A', 'é', ' ', '\t', '\u3000', '\x00', '房', '"', '[', '%', '%4', '%G1', '%e4',
           '/', '?', '#']
    hosts = ['a', 'b-c', 'x1', 'a.b', 'example'] * 4 + ['A', 'é', '', 'a.']
    rng = random.Random(17)

    def part(pieces_odd=0.08):
        return ''.join(rng.choice(odd if rng.random() < pieces_odd else plain) for _ in range(rng.randint(0, 3)))

    urls = ['http://example.com', 'https://example.com/', 'http://example.com?q', 'http://example.com/a?',
            'http://a..b/', 'http://a.b./', 'http://a.b/./', 'http://a.b/..', 'http://a.b/.../', 'http://a.b//',
            'http://a.b/%2E', 'http://a.b/x#frag ment', 'http://a.b/x#', 'HTTP://a.b/', 'http:/a.b', 'http://']
    for _ in range(30000):
        url = rng.choice(['http://', 'https://', 'https://', 'http:/', 'ftp://'])
        url += '.'.join(rng.choice(hosts) for _ in range(rng.randint(1, 3))) + rng.choice(['', '', '', ':80'])
        url += ''.join('/' + part() for _ in range(rng.randint(0, 4))) + rng.choice(['', '', '/'])
        url += rng.choice(['', '', '?' + part(), '?'])
        url += rng.choice(['', '', '#' + part(0.3), '#'])
        urls.append(url)
    assert sum(1 for url in urls if _CANONICAL.match(url)) > 1000
    for url in urls:
        assert canonical_url(url) == by_expression(url), url

"""The sandbox web's structure: sites of articles, laid out the way real sites are.

A corpus reader (news_web, wiki_web, jsonl_web) turns documents into `Site`s and `Article`s
with URLs. `assemble_pages` then gives every site what a real one has: a home page, paginated
index pages per section, article pages with related links, "see also" links, navigation,
breadcrumbs, footers, ads and "popular elsewhere" boxes, printable copies that robots.txt
disallows, and an about page. Each block keeps its role, so the HTML renderer can mark it up
the way the site's template does and tests know which class of block a link sits in.

Topic islands (news webs): sites of one label never link to each other directly; the only
paths between them go through tunnels of one to three pages of other labels, placed in
"recommended" boxes. Ads and partner links never point to a site of the page's own label.
"""
import dataclasses
import datetime
import random
import re
from typing import Iterable

# Block role -> the SSAPS block class it belongs to.
BLOCK_CLASS = {
    'content': 'content', 'list': 'related', 'related': 'related', 'see_also': 'related',
    'recommended': 'related', 'menu': 'navigation', 'breadcrumb': 'navigation',
    'pagination': 'navigation', 'footer': 'navigation', 'ad': 'noise', 'popular': 'noise',
}
INDEX_PAGE_SIZE = {'zh': 20, 'en': 15}
RELATED_LINKS = 6
POPULAR_LINKS = 5
AD_LINKS = 3
PARTNER_LINKS = 4
TUNNEL_LENGTHS = (1, 1, 2, 2, 3)  # drawn uniformly: short tunnels are the common case


@dataclasses.dataclass(frozen=True)
class Link:
    url: str
    anchor: str


def paragraph_text(pieces: tuple) -> str:
    """The visible text of a paragraph: its strings and its links' anchors."""
    return ''.join(p if isinstance(p, str) else p.anchor for p in pieces)


@dataclasses.dataclass
class Block:
    role: str
    heading: str = ''
    paragraphs: list[tuple] = dataclasses.field(default_factory=list)  # pieces: str | Link
    links: list[Link] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Site:
    host: str
    name: str
    language: str
    labels: tuple[str, ...]
    charset: str = 'utf-8'
    declares: str = 'both'        # where the charset is declared: header, meta or both
    style: int = 0                # which page template the site uses
    has_print: bool = False       # printable copies under /print/, disallowed by robots.txt
    sections: dict[str, str] = dataclasses.field(default_factory=dict)  # slug -> title

    @property
    def home(self) -> str:
        return f'http://{self.host}/'


@dataclasses.dataclass
class Article:
    id: str
    site: Site
    section: str                  # slug in site.sections, '' for a single-topic site
    path: str
    title: str
    paragraphs: list[tuple]       # pieces: str | Link; headings are ('## heading',)
    labels: tuple[str, ...]
    date: datetime.date
    kind: str = 'article'         # article or brief
    see_also: list[Link] = dataclasses.field(default_factory=list)
    description: str = ''

    @property
    def url(self) -> str:
        return f'http://{self.site.host}{self.path}'

    @property
    def print_url(self) -> str:
        return f'http://{self.site.host}/print{self.path}'


@dataclasses.dataclass
class Plan:
    """What a corpus reader produces: the sites, their articles, and whether sites of one
    label should form islands joined by tunnels (when the corpus has no links of its own)."""
    sites: list[Site]
    articles: list[Article]
    islands: bool


@dataclasses.dataclass
class Page:
    url: str
    site: Site
    kind: str                     # home, index, article, brief, print, about
    title: str
    labels: tuple[str, ...]
    blocks: list[Block]
    date: datetime.date
    description: str = ''

    def links(self) -> Iterable[Link]:
        for block in self.blocks:
            yield from block.links
            for paragraph in block.paragraphs:
                yield from (piece for piece in paragraph if isinstance(piece, Link))

    def text(self) -> str:
        """The page's content text, for the search index: what a search engine would index."""
        lines = []
        for block in self.blocks:
            if block.role in ('content', 'list'):
                lines.extend(paragraph_text(paragraph) for paragraph in block.paragraphs)
                lines.extend(link.anchor for link in block.links)
        return '\n'.join(lines)


def slug(name: str) -> str:
    """ASCII host-name and path part for a name: 'African_Geography' -> 'african-geography'."""
    return re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')


def _find_word(text: str, title: str, start: int = 0) -> int:
    """First index of `title` in `text` from `start` not inside a longer word, or -1."""
    position = text.find(title, start)
    while position >= 0:
        before = text[position - 1] if position else ' '
        after = text[position + len(title)] if position + len(title) < len(text) else ' '
        if not (before.isascii() and before.isalnum() and title[0].isalnum()) and \
                not (after.isascii() and after.isalnum() and title[-1].isalnum()):
            return position
        position = text.find(title, position + 1)
    return -1


def link_inline(paragraphs: list[str], targets: dict[str, str]) -> tuple[list[tuple], set[str]]:
    """Paragraphs as pieces with each target linked where its title first occurs.

    targets: title -> URL; longer titles are placed first, so "New York City" wins over
    "New York". Paragraphs starting with '## ' are headings and get no links. Returns the
    pieces and the titles that were placed.
    """
    body = '\n'.join('' if p.startswith('## ') else p for p in paragraphs)
    spans = []  # (start, end, link), not overlapping
    for title in sorted(targets, key=len, reverse=True):
        position = _find_word(body, title)
        while position >= 0 and any(s < position + len(title) and position < e for s, e, _ in spans):
            position = _find_word(body, title, position + 1)
        if position >= 0:
            spans.append((position, position + len(title), Link(targets[title], title)))
    spans.sort(key=lambda span: span[0])
    result, offset, next_span = [], 0, 0
    for paragraph in paragraphs:
        end = offset + (0 if paragraph.startswith('## ') else len(paragraph))
        pieces, cursor = [], offset
        while next_span < len(spans) and spans[next_span][0] < end:
            start, stop, link = spans[next_span]
            pieces += [body[cursor:start], link]
            cursor, next_span = stop, next_span + 1
        pieces.append(paragraph if paragraph.startswith('## ') else body[cursor:end])
        result.append(tuple(p for p in pieces if p != ''))
        offset = end + 1
    return result, {link.anchor for _, _, link in spans}


WORDS = {
    'zh': {'home': '首页', 'index': '全部文章', 'next': '下一页', 'previous': '上一页',
           'related': '相关新闻', 'see_also': '延伸阅读', 'recommended': '推荐阅读',
           'popular': '热门排行', 'ad': '广告', 'about': '关于我们', 'print': '打印本页',
           'partners': '友情链接', 'page': '第{}页', 'copyright': '版权所有',
           'about_text': '{}是一家综合信息网站，欢迎访问。', 'source': '来源：{} {}'},
    'en': {'home': 'Home', 'index': 'All articles', 'next': 'Next page', 'previous': 'Previous page',
           'related': 'Related articles', 'see_also': 'See also', 'recommended': 'Recommended',
           'popular': 'Popular elsewhere', 'ad': 'Advertisement', 'about': 'About us',
           'print': 'Printable version', 'partners': 'Partner sites', 'page': 'Page {}',
           'copyright': 'All rights reserved', 'about_text': '{} is a free online encyclopedia '
           'for schools.', 'source': '{} {}'},
}
AD_TEXTS = {
    'zh': ['限时特惠 点击领取', '免费试玩 立即下载', '低价机票 今日秒杀', '名师一对一 免费试听',
           '新车上市 预约试驾', '爆款手机 直降五百'],
    'en': ['Cheap flights today', 'Win a free holiday', 'Learn a language in 30 days',
           'Best mortgage rates', 'Download the free game', 'Top 10 gadgets of the year'],
}


def assemble_pages(sites: list[Site], articles: list[Article], rng: random.Random,
                   islands: bool = False) -> list[Page]:
    """Every page of the web: articles with their boxes, plus each site's home, index,
    printable and about pages."""
    by_site = {site.host: [] for site in sites}
    for article in articles:
        by_site[article.site.host].append(article)
    sections = {(a.site.host, a.section): [] for a in articles}
    for article in articles:
        sections[(article.site.host, article.section)].append(article)
    recommended = _tunnels(sites, by_site, rng) if islands else {}
    popular = _popular_articles(articles, rng)
    layout = _Layout(sites, rng, islands)

    pages = []
    for site in sites:
        pages.append(layout.home_page(site, by_site[site.host], popular))
        pages.append(layout.about_page(site))
        for section in [''] if not site.sections else list(site.sections):
            pages.extend(layout.index_pages(site, section, sections.get((site.host, section), [])))
    for (host, section), members in sections.items():
        for position, article in enumerate(members):
            nearby = members[position + 1:position + 1 + RELATED_LINKS]
            nearby += members[:RELATED_LINKS - len(nearby)] if len(members) > RELATED_LINKS else []
            page = layout.article_page(article, [a for a in nearby if a is not article],
                                       recommended.get(article.url, []), popular)
            pages.append(page)
            if article.site.has_print:
                pages.append(layout.print_page(article))
    return pages


def _popular_articles(articles: list[Article], rng: random.Random) -> list[Article]:
    """The "popular elsewhere" pool: a fixed random tenth of the articles."""
    full = [a for a in articles if a.kind == 'article'] or articles
    return rng.sample(full, max(1, len(full) // 10)) if full else []


def _tunnels(sites: list[Site], by_site: dict[str, list[Article]],
             rng: random.Random) -> dict[str, list[Link]]:
    """Links that join each label's island to the others through 1-3 pages of other labels.

    For every ordered pair of sites (or portal sections) sharing a label, one tunnel: a page of
    the first -> t1 -> ... -> tk -> a page of the second, where t1..tk carry other labels.
    Returns extra "recommended" links per source URL.
    """
    by_label = {}
    for site in sites:
        for article in by_site[site.host]:
            by_label.setdefault(article.labels[0], {}).setdefault(site.host, []).append(article)
    pools = {label: [a for group in members.values() for a in group] for label, members in by_label.items()}
    links = {}
    for label, members in sorted(by_label.items()):
        hosts = sorted(members)
        for source in hosts:
            for target in hosts:
                if source == target:
                    continue
                path, previous = [rng.choice(members[source])], label
                for _ in range(rng.choice(TUNNEL_LENGTHS)):
                    # each step changes label, so a tunnel never joins two islands of another label
                    others = [other for other in pools if other not in (label, previous)]
                    if not others:
                        break
                    previous = rng.choice(others)
                    path.append(rng.choice(pools[previous]))
                if len(path) == 1:
                    continue
                path.append(rng.choice(members[target]))
                for here, there in zip(path, path[1:]):
                    links.setdefault(here.url, []).append(Link(there.url, there.title))
    return links


class _Layout:
    """Builds the pages of each kind; one instance per web (shared partner and ad choices)."""

    def __init__(self, sites: list[Site], rng: random.Random, islands: bool):
        self.sites = sites
        self.rng = rng
        self.islands = islands

    def _strangers(self, site: Site) -> list[Site]:
        """Sites an ad or partner link may point to: in islands mode, none of the same label."""
        others = [s for s in self.sites if s is not site]
        if self.islands:
            others = [s for s in others if not set(s.labels) & set(site.labels)] or others
        return others

    def _menu(self, site: Site) -> Block:
        words = WORDS[site.language]
        links = [Link(site.home, words['home'])]
        if site.sections:
            links += [Link(f'{site.home}{slug}/', title) for slug, title in site.sections.items()]
        else:
            links.append(Link(f'{site.home}list/', words['index']))
        links.append(Link(f'{site.home}about.html', words['about']))
        return Block('menu', links=links)

    def _footer(self, site: Site) -> Block:
        words = WORDS[site.language]
        partners = self.rng.sample(self._strangers(site), min(PARTNER_LINKS, len(self.sites) - 1))
        return Block('footer', heading=words['partners'],
                     links=[Link(s.home, s.name) for s in partners]
                     + [Link(f'{site.home}about.html', words['about'])],
                     paragraphs=[(f'© {site.name} {words["copyright"]}',)])

    def _ads(self, site: Site) -> Block:
        texts = AD_TEXTS[site.language]
        targets = self.rng.sample(self._strangers(site), min(AD_LINKS, len(self.sites) - 1))
        return Block('ad', heading=WORDS[site.language]['ad'],
                     links=[Link(s.home, self.rng.choice(texts)) for s in targets])

    def _popular(self, site: Site, popular: list[Article]) -> Block:
        labels = set(site.labels) if self.islands else set()
        pool = [a for a in popular if a.site is not site and not labels & set(a.labels)] or popular
        chosen = self.rng.sample(pool, min(POPULAR_LINKS, len(pool)))
        return Block('popular', heading=WORDS[site.language]['popular'],
                     links=[Link(a.url, a.title) for a in chosen])

    def _section_home(self, site: Site, section: str) -> tuple[str, str]:
        if section:
            return f'{site.home}{section}/', site.sections[section]
        return f'{site.home}list/', WORDS[site.language]['index']

    def home_page(self, site: Site, articles: list[Article], popular: list[Article]) -> Page:
        latest = sorted(articles, key=lambda a: (a.date, a.id), reverse=True)
        blocks = [self._menu(site)]
        for section in [''] if not site.sections else list(site.sections):
            members = [a for a in latest if a.section == section][:10]
            url, title = self._section_home(site, section)
            blocks.append(Block('list', heading=title, links=[Link(a.url, a.title) for a in members]
                                + [Link(url, WORDS[site.language]['index'])]))
        blocks += [self._popular(site, popular), self._ads(site), self._footer(site)]
        date = latest[0].date if latest else datetime.date(2011, 1, 1)
        return Page(site.home, site, 'home', site.name, site.labels if not site.sections else (),
                    blocks, date)

    def about_page(self, site: Site) -> Page:
        words = WORDS[site.language]
        blocks = [self._menu(site), Block('content', heading=words['about'],
                                          paragraphs=[(words['about_text'].format(site.name),)]),
                  self._footer(site)]
        return Page(f'{site.home}about.html', site, 'about', f'{words["about"]} - {site.name}', (),
                    blocks, datetime.date(2011, 1, 1))

    def index_pages(self, site: Site, section: str, members: list[Article]) -> list[Page]:
        """Headline lists of a section, newest first, with previous/next pagination."""
        words = WORDS[site.language]
        first_url, title = self._section_home(site, section)
        labels = sorted({a.labels[0] for a in members if a.labels})
        page_labels = tuple(labels) if len(labels) == 1 else ()
        ordered = sorted(members, key=lambda a: (a.date, a.id), reverse=True)
        size = INDEX_PAGE_SIZE[site.language]
        chunks = [ordered[i:i + size] for i in range(0, len(ordered), size)] or [[]]
        urls = [first_url] + [f'{first_url}index_{n}.html' for n in range(2, len(chunks) + 1)]
        pages = []
        for number, chunk in enumerate(chunks):
            pagination = []
            if number > 0:
                pagination.append(Link(urls[number - 1], words['previous']))
            pagination += [Link(u, str(n + 1)) for n, u in enumerate(urls)
                           if abs(n - number) <= 4 and n != number]
            if number + 1 < len(urls):
                pagination.append(Link(urls[number + 1], words['next']))
            heading = title if number == 0 else f'{title} {words["page"].format(number + 1)}'
            blocks = [self._menu(site),
                      Block('breadcrumb', links=[Link(site.home, words['home']), Link(first_url, title)]),
                      Block('list', heading=heading, links=[Link(a.url, a.title) for a in chunk]),
                      Block('pagination', links=pagination), self._ads(site), self._footer(site)]
            date = chunk[0].date if chunk else datetime.date(2011, 1, 1)
            pages.append(Page(urls[number], site, 'index', f'{heading} - {site.name}', page_labels,
                              blocks, date))
        return pages

    def article_page(self, article: Article, related: list[Article], recommended: list[Link],
                     popular: list[Article]) -> Page:
        site = article.site
        words = WORDS[site.language]
        section_url, section_title = self._section_home(site, article.section)
        source = words['source'].format(site.name, article.date.isoformat())
        blocks = [self._menu(site),
                  Block('breadcrumb', links=[Link(site.home, words['home']),
                                             Link(section_url, section_title)]),
                  Block('content', heading=article.title, paragraphs=[(source,)] + article.paragraphs)]
        if site.has_print:
            blocks[-1].links.append(Link(article.print_url, words['print']))
        if article.see_also:
            blocks.append(Block('see_also', heading=words['see_also'], links=article.see_also))
        if related:
            blocks.append(Block('related', heading=words['related'],
                                links=[Link(a.url, a.title) for a in related]))
        if recommended:
            blocks.append(Block('recommended', heading=words['recommended'], links=recommended))
        blocks += [self._popular(site, popular), self._ads(site), self._footer(site)]
        return Page(article.url, site, article.kind, f'{article.title} - {site.name}',
                    article.labels, blocks, article.date, article.description)

    def print_page(self, article: Article) -> Page:
        """A printable copy: the article alone, a duplicate that robots.txt keeps crawlers off."""
        content = Block('content', heading=article.title, paragraphs=list(article.paragraphs))
        return Page(article.print_url, article.site, 'print', article.title, article.labels,
                    [content], article.date)

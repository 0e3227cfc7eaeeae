import datetime
import encodings.aliases
import html
import json
import os
import random
import re
import unicodedata

import pytest

from models.block_model import BLOCK_CLASSES, BlockMeasures
from models.extract import Block, _story_parts_the_model_misses, extract_page
from models.text import HAN_CHARACTER
from sandbox.render import render_response
from sandbox.site import BLOCK_CLASS, INDEX_PAGE_SIZE, Article, Link, Page, Site, assemble_pages

PAGE_URL = 'http://news.example.test/world/2024/storm.html'

SEMANTIC_PAGE = '''<!DOCTYPE html><html><head><title>Storm hits the coast | The Paper</title></head><body>
<header><a href="/">Home</a><nav><ul><li><a href="/news/">News</a></li><li><a href="/sport/">Sport</a></li>
<li><a href="/weather/">Weather</a></li></ul></nav></header>
<main>
<article><h1>Storm hits the coast</h1><p>By a staff reporter</p>
<p>A strong storm hit the coast on Monday, the <a href="/weather/office.html">weather office</a> said,
bringing heavy rain and high winds to the towns along the shore.</p>
<p>Schools were closed and the ferries stayed in port for a second day.</p></article>
<aside class="relatedStories"><h2>More on this story</h2><ul>
<li><a href="/news/flood-warnings.html">Flood warnings issued for the whole of the coast</a></li>
<li><a href="/news/ferries.html">Ferries cancelled as the winds reach record speeds</a></li></ul></aside>
<div id="adSlot1"><a href="http://ads.example.test/1">Cheap flights</a>
<a href="http://ads.example.test/2">Win a car</a></div>
<div class="most-popular"><h3>Most read</h3><ol>
<li><a href="/news/chef.html">Celebrity chef opens a new restaurant in the city</a></li>
<li><a href="/news/weekend.html">Ten things to do in town this weekend</a></li></ol></div>
</main>
<footer><p>&copy; 2024 The Paper</p><a href="/about/">About us</a> | <a href="/contact/">Contact</a></footer>
</body></html>'''

DIV_PAGE = '''<html><head><title>暴雨袭击南方多省</title></head><body>
<div id="topNav"><a href="/">首页</a> | <a href="/guonei/">国内</a> | <a href="/guoji/">国际</a></div>
<div id="breadCrumbs">您的位置：<a href="/">首页</a> &gt; <a href="/guonei/">国内</a></div>
<div id="content"><div class="title"><h1>暴雨袭击南方多省</h1></div><div class="info">2024-06-01 来源：本报</div>
<div class="article-body"><p>中央气象台消息，受强降雨影响，南方多省出现洪涝灾害，
<a href="/guonei/2024/0601/123.html">防汛部门</a>已经启动应急响应，各地正在全力抢险救灾。</p>
<p>气象专家表示，未来三天降雨仍将持续，请公众注意防范。</p></div></div>
<div id="sidebar">
<div class="xgxw"><h3>相关新闻</h3><ul><li><a href="/guonei/1.html">长江中下游进入主汛期水位持续上涨</a></li>
<li><a href="/guonei/2.html">多地发布暴雨橙色预警提醒市民注意安全</a></li></ul></div>
<div class="hotRank"><h3>排行榜</h3><ul><li><a href="/yule/1.html">明星婚礼现场曝光引发网友热议</a></li>
<li><a href="/yule/2.html">夏季旅游目的地推荐与攻略大全</a></li></ul></div>
<div class="gg"><a href="http://ad.example.test/1">限时特惠 点击领取</a></div></div>
<div id="bottom"><a href="/about.html">关于我们</a> | <a href="/contact.html">联系我们</a><p>版权所有 © 2024</p></div>
</body></html>'''

TABLE_PAGE = '''<html><head><title>楼市新政出台</title></head><body>
<table width="100%"><tr><td><a href="/">首页</a> | <a href="/news/">新闻</a> | <a href="/bbs/">论坛</a></td></tr>
</table>
<table width="100%"><tr>
<td width="70%"><font size="4"><b>楼市新政出台</b></font><br>本市昨日出台楼市新政，首套住房贷款利率下调，<a
href="/news/loan.html">公积金贷款</a>额度同步提高，业内人士认为此举将提振市场信心。<br><br>
多家银行表示将在本月内落实新的利率政策。<br></td>
<td width="30%"><b>相关文章</b><br><table>
<tr><td><a href="/news/1.html">二手房成交量连续三周上涨创年内新高</a></td></tr>
<tr><td><a href="/news/2.html">多家银行下调首套房贷利率支持刚需</a></td></tr></table>
<b>热门排行</b><br><table>
<tr><td><a href="/ent/1.html">明星婚礼现场曝光引发网友热议不断</a></td></tr>
<tr><td><a href="/ent/2.html">夏季旅游热门目的地推荐与攻略大全</a></td></tr></table>
<b>广告</b><br><table>
<tr><td><a href="http://ad.example.test/1">低价机票 今日秒杀</a></td></tr>
<tr><td><a href="http://ad.example.test/2">名师一对一 免费试听</a></td></tr></table></td>
</tr></table>
<table width="100%"><tr><td>友情链接：<a href="http://a.example.test/">新浪</a> <a href="http://b.example.test/">搜狐</a>
<a href="http://c.example.test/">网易</a></td></tr></table>
</body></html>'''


def extract(markup: str, url: str = PAGE_URL, content_type: str | None = 'text/html; charset=utf-8',
            rules_only: bool = False):
    return extract_page(markup.encode('utf-8'), url, content_type, rules_only)


def link_classes(page) -> dict[str, str]:
    return {link.url.rsplit('.test', 1)[1]: link.block for link in page.links}


def test_semantic_layout_blocks():
    page = extract(SEMANTIC_PAGE)
    assert link_classes(page) == {
        '/': 'navigation', '/news/': 'navigation', '/sport/': 'navigation', '/weather/': 'navigation',
        '/weather/office.html': 'content',
        '/news/flood-warnings.html': 'related', '/news/ferries.html': 'related',
        '/1': 'noise', '/2': 'noise', '/news/chef.html': 'noise', '/news/weekend.html': 'noise',
        '/about/': 'navigation', '/contact/': 'navigation'}
    assert page.text.splitlines() == [
        'Storm hits the coast', 'By a staff reporter',
        'A strong storm hit the coast on Monday, the weather office said, bringing heavy rain and high '
        'winds to the towns along the shore.',
        'Schools were closed and the ferries stayed in port for a second day.']


def test_div_id_layout_blocks():
    page = extract(DIV_PAGE)
    assert link_classes(page) == {
        '/': 'navigation', '/guonei/': 'navigation', '/guoji/': 'navigation',
        '/guonei/2024/0601/123.html': 'content',
        '/guonei/1.html': 'related', '/guonei/2.html': 'related',
        '/yule/1.html': 'noise', '/yule/2.html': 'noise', '/1': 'noise',
        '/about.html': 'navigation', '/contact.html': 'navigation'}
    assert '防汛部门已经启动应急响应' in page.text and '首页' not in page.text


def test_table_layout_without_hints_uses_headings_and_anchors():
    page = extract(TABLE_PAGE)
    assert link_classes(page) == {
        '/': 'navigation', '/news/': 'navigation', '/bbs/': 'navigation',
        '/news/loan.html': 'content', '/news/1.html': 'related', '/news/2.html': 'related',
        '/ent/1.html': 'noise', '/ent/2.html': 'noise', '/1': 'noise', '/2': 'noise'}
    assert [block.kind for block in page.blocks] == ['navigation', 'content', 'related', 'noise', 'noise',
                                                 'navigation']
    assert page.blocks[2].text.startswith('相关文章\n二手房成交量')  # the heading stays with its list
    assert page.text.splitlines() == ['楼市新政出台', '本市昨日出台楼市新政，首套住房贷款利率下调，公积金贷款额度同步提高，'
                                      '业内人士认为此举将提振市场信心。', '多家银行表示将在本月内落实新的利率政策。']


def test_class_words_match_whole_tokens_and_camel_case():
    markup = ('<div class="thread-head"><p>{0}</p></div>'
              '<div class="shadow addItem"><a href="/a.html">{1}</a><a href="/b.html">{1}</a></div>'
              '<div class="topAdBox"><a href="/c.html">{1}</a><a href="/d.html">{1}</a></div>')
    page = extract(markup.format('A long paragraph of article text about the storm and the coast. ' * 2,
                                 'A headline about the weather on the coast'))
    assert [block.kind for block in page.blocks] == ['content', 'related', 'noise']  # 'head', 'add' are not 'ad'


def test_a_css_module_class_name_s_hash_is_not_a_class_word():
    """Next.js's CSS Modules name a class file_name__hash: 'Nav' in a random hash is not a menu,
    'Ad' in a class's own name is an ad, and BEM's block__element keeps its element."""
    markup = ('<main class="BasePageLayout_Main__2pNav"><p>{0}</p></main>'
              '<div class="Ad_Slot__x9kQ1"><p>Buy a new car today, the best prices in town.</p></div>'
              '<div class="article__share"><p>Share this story with your friends today.</p></div>')
    page = extract(markup.format(STORY), rules_only=True)
    assert [block.kind for block in page.blocks] == ['content', 'noise', 'noise']


def test_what_a_print_stylesheet_leaves_out_is_noise():
    """A page's chrome is marked to stay off paper ('noprint', Bootstrap's 'hidden-print' and
    'd-print-none', Tailwind's 'print:hidden', 'hide-print', 'DontPrint'); a print button, a
    footprint or a blueprint is not."""
    from models.segment import _attribute_hint
    assert [_attribute_hint(value) for value in ('noprint', 'box hidden-print', 'd-flex d-print-none', 'hide-print',
                                                 'DontPrint', 'donotprint', 'print:hidden', 'print-button',
                                                 'footprint', 'blueprint-note')] == ['noise'] * 7 + [None] * 3
    page = extract(f'<div><p>{STORY}</p></div><div class="noprint"><p>Write a comment: log in to join the '
                   'discussion of this story.</p></div>', rules_only=True)
    assert [block.kind for block in page.blocks] == ['content', 'noise']


def test_styled_components_generated_names_are_not_class_words():
    """styled-components names a component 'sc-' and a hash, and gives it a class of random letters:
    'gGgCMh' held 'gg' (an ad, in pinyin) and 'jChgTj' 'tj' (recommended) and made a news site's
    story noise; the component's own name, a class of words and a theme's own 'sc-' names still count."""
    from models.segment import _attribute_hint
    assert [_attribute_hint(value) for value in ('sc-oTOtL gGgCMh', 'sc-qWfkp sc-plfsi jChgTj',
                                                 'Box-sc-1fet97o-0 sc-jAaTju jpAdLJ')] == [None] * 3
    assert [_attribute_hint(value) for value in (
        'Footer-sc-1fet97o-0 jpAdLJ', 'sc-bdVaJa navItem', 'sc-bdVaJa TopAds', 'sc-bdVaJa PROMO', 'sc-ad-container',
        'sc-sidebar', 'woo-sc-related-posts', 'gGgCMh')] == [
        'navigation', 'navigation', 'noise', 'noise', 'noise', 'related', 'related', 'noise']
    markup = '<div class="sc-oTOtL gGgCMh"><p>A short paragraph of the story.</p></div><div><p>{0}</p></div>'
    page = extract(markup.format(STORY), rules_only=True)
    assert [block.kind for block in page.blocks] == ['content', 'content']


def test_class_words_are_looked_up_as_the_regular_expressions_search_for_them():
    """The compiled lookup of a class/id value's words names the kind the rule's regular
    expressions name: words split as the _TOKEN expression finds them, a kind's short words whole
    and its long ones as prefixes of a word, or of two adjacent words joined when they take more than
    half of the second, the first kind in order that matches; a word after a relation word ('has',
    'no' ...), 'bottom' after a spacing word and generated names left out.
    Random values of the lists' words and pieces of them, any case, with digits, separators and
    other scripts around them."""
    from models.segment import (_ARTICLE_WORDS, _CLASS_KINDS, _CLASS_WORD_LISTS, _RELATION_WORDS, _SPACING_BOTTOM,
                                _attribute_hint, _without_module_hash, _without_styled_names, hint_words)

    def pattern(words):
        whole = [rf'{word}\b' for word in words.split() if len(word) < 4]
        return re.compile(rf'^(?:{"|".join(whole + [word for word in words.split() if len(word) >= 4])})')

    patterns = {kind: pattern(words) for kind, words in _CLASS_WORD_LISTS}
    patterns['article'] = re.compile(r'^(?:article|entry|post|story|main|body)(?:body|content|text)$')
    token = re.compile(r'[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+')
    long_words = {kind: [word for word in words.split() if len(word) >= 4] for kind, words in _CLASS_WORD_LISTS}

    def names(kind, first, second):
        joined = first + second
        if not second:
            return bool(patterns[kind].search(joined))
        return (bool(re.fullmatch(patterns[kind].pattern[1:], joined)) or
                any(joined.startswith(word) and 2 * (len(word) - len(first)) > len(second)
                    for word in long_words.get(kind, ())))

    def by_search(value):  # after the module's own clean-up of generated names, tested above
        if 'sc-' in value:
            value = _without_styled_names(value)
        if '__' in value:
            value = ' '.join(_without_module_hash(name) for name in value.split())
        tokens = [found.lower() for found in token.findall(_SPACING_BOTTOM.sub(r'\1', value))]
        after_relation = {index + 1 for index, word in enumerate(tokens[:-1]) if word in _RELATION_WORDS}
        words = ([(word, '') for index, word in enumerate(tokens) if index not in after_relation] +
                 [pair for index, pair in enumerate(zip(tokens, tokens[1:]))
                  if index not in after_relation and index + 1 not in after_relation])
        return next((kind for kind in _CLASS_KINDS if any(names(kind, *word) for word in words)), None)

    chance = random.Random(7)
    words = [word for _, listed in _CLASS_WORD_LISTS for word in listed.split()] + sorted(_ARTICLE_WORDS)
    words += ['margin', 'padding', 'page', 'root', 'section', 'bars', 'crumbs', 'has', 'no', 'below']
    pieces = ['-', '_', ' ', '2', '10', 'é', '中', 'X', 'HTML', 'box', 'head', 'inner', 'Top']
    values = ['', ' ', 'ad', 'head', 'addItem', 'topAdBox', 'HTMLParser', 'sideBar', 'side-bar', 'post_content',
              'navigationMenu', 'ABCdef', 'A', 'aB', 'a1b', 'listing item-7', 'side-bars', 'bread-crumbs',
              'page-root', 'PageSection', 'public-page site', 'margin-bottom', 'modelMarginBottom', 'bottom',
              'sc-oTOtL gGgCMh', 'Box-sc-1fet97o-0 sc-jAaTju jpAdLJ', 'sc-ad-container', 'sc-bdVaJa Footer navItem']
    for _ in range(20000):
        parts = []
        for _ in range(chance.randint(1, 6)):
            word = chance.choice(words) if chance.random() < 0.6 else chance.choice(pieces)
            word = word[:chance.randint(1, len(word))] if chance.random() < 0.2 else word
            parts.append(chance.choice([word, word.upper(), word.capitalize(), word.lower()]))
        values.append(''.join(part + chance.choice(['', '', '-', ' ', '_', '3']) for part in parts))
    for value in values:
        assert _attribute_hint(value) == by_search(value), value
        tokens = [found.lower() for found in token.findall(value)]
        assert hint_words(value) == tokens + [first + second for first, second in zip(tokens, tokens[1:])], value


def test_a_class_word_after_has_no_with_below_names_a_neighbour_not_the_container():
    """'o-section--has-ad' holds an ad, 'karma-below-banner' is below one, 'no-sidebars' has none:
    none of them is one, as 'ad', 'banner' and 'sidebar' are."""
    from models.segment import _attribute_hint
    assert [_attribute_hint(value) for value in ('o-section--has-ad', 'karma-below-banner', 'no-sidebars',
                                                 'hasSidebar', 'with-menu', 'no-comments')] == [None] * 6
    assert [_attribute_hint(value) for value in ('has-ad banner', 'no-js menu', 'ad', 'sidebar')] == [
        'noise', 'navigation', 'noise', 'related']
    markup = ('<section class="o-section o-section--has-ad"><p>A short paragraph of the story.</p></section>'
              '<div><p>{0}</p></div>')
    page = extract(markup.format(STORY), rules_only=True)
    assert [block.kind for block in page.blocks] == ['content', 'content']


def test_an_author_s_box_is_noise_but_the_byline_stays_with_the_story():
    """The author's biography under a story ('author-box', 'authorBio', 'td-author-description',
    'author_section') is not the story; a byline ('post-author', 'author-info', 'the-author') is a
    line of its head, which 2012 gold keeps and a noise block there would cut from the headline."""
    from models.segment import _attribute_hint
    assert [_attribute_hint(value) for value in ('author-box-wrap', 'authorBio', 'td-author-description',
                                                 'author_section-content', 'about-author', 'mntl-author-tooltip')
            ] == ['noise'] * 6
    assert [_attribute_hint(value) for value in ('post-author', 'author-info', 'the-author', 'author-name',
                                                 'authority', 'author-profile')] == [None] * 6
    bio = 'Jane Doe has written about the weather and the sea for the paper since 2008, from the coast.'
    page = extract(f'<article><p class="post-author">By Jane Doe</p><p>{STORY}</p>'
                   f'<div class="author-box"><p>{bio}</p></div></article>', rules_only=True)
    assert page.text.splitlines() == ['By Jane Doe', STORY.strip()]
    assert [block.kind for block in page.blocks] == ['content', 'noise']


def test_a_class_word_joined_from_two_words_takes_more_than_a_letter_of_the_second():
    """'PageSection' and 'APageRoot' hold 'pages' and 'pager' only across their words (a site's
    whole <main> was a pager's links), 'margin-bottom' is a spacing, not a footer, and 'list' names
    ingredient lists as often as link lists; 'read-mores', 'see-also' and a footer's 'bottom' are
    still what they say."""
    from models.segment import _attribute_hint
    assert [_attribute_hint(value) for value in (
        'PageSection_Section', 'APageRoot', 'public-page site', 'margin-bottom', 'modelMarginBottom',
        'marginBottomLg', 'padding_bottom_1', 'MARGIN_BOTTOM', 'ingredient-list')] == [None] * 9
    assert [_attribute_hint(value) for value in ('read-mores', 'see-also', 'news-list', 'pager', 'page-list pages',
                                                 'bottom', 'footer-bottom', 'bottomNav')] == [
        'related', 'related', 'related', 'navigation', 'navigation', 'navigation', 'navigation', 'navigation']
    markup = ('<main class="APageRoot"><section class="PageSection_Section"><div class="mod margin-bottom">'
              '<p>A short paragraph of the story, on the storm and the coast.</p></div></section></main>'
              '<div><p>{0}</p><p>{0}</p></div>'  # the longest block: marks around it would be void anyway
              '<div class="bottom"><p>Copyright 2024 The Example Times, all rights reserved.</p></div>')
    page = extract(markup.format(STORY), rules_only=True)
    assert [block.kind for block in page.blocks] == ['content', 'content', 'navigation']


@pytest.mark.parametrize('section', ['article', 'main', 'section'])
def test_header_and_footer_inside_an_article_main_or_section_belong_to_it(section):
    """As HTML-AAM maps them: the page's banner and footer only outside sectioning content and <main>."""
    page = extract(f'<{section}><header><h1>Title of the story</h1><p>By a reporter, with a '
                   '<a href="/profile.html">profile</a> and more words about who wrote this story.</p></header>'
                   f'<p>{STORY}</p><footer><p>Filed under weather, with notes from the desk on the coast.</p>'
                   f'</footer></{section}><header><p>The Example Times, news from the coast since 1901, with a '
                   '<a href="/about.html">word about us</a> and our promise to readers.</p></header>',
                   rules_only=True)
    assert 'By a reporter' in page.text and 'Filed under weather' in page.text
    assert 'The Example Times' not in page.text


GBK_PAGE = ('<html><head>{meta}<title>北京房价走势</title></head><body><p>楼盘销售火爆，开发商推出新房，'
            '北京市住房和城乡建设委员会公布的数据显示，本周新建商品住宅成交量明显回落。</p>'
            '<a href="/house/">房产频道</a></body></html>')


@pytest.mark.parametrize('meta, content_type', [
    ('', 'text/html; charset=GBK'),
    ('<meta http-equiv="Content-Type" content="text/html; charset=gb2312">', 'text/html'),
    ('', None),
])
def test_gbk_pages_decode_with_the_charset_in_the_header_the_meta_or_nowhere(meta, content_type):
    page = extract_page(GBK_PAGE.format(meta=meta).encode('gbk'), PAGE_URL, content_type)
    assert page.encoding == 'gb18030'
    assert page.title == '北京房价走势' and '商品住宅成交量明显回落' in page.text
    assert [(link.url, link.anchor) for link in page.links] == [('http://news.example.test/house/', '房产频道')]


def test_utf8_without_a_declaration_and_big5_with_one():
    page = extract_page(GBK_PAGE.format(meta='').encode('utf-8'), PAGE_URL)
    assert (page.encoding, page.title) == ('utf-8', '北京房价走势')
    big5 = '<html><head><meta charset="big5"><title>臺北房價</title></head><body><p>樓盤銷售火爆。</p></body></html>'
    page = extract_page(big5.encode('big5'), PAGE_URL, 'text/html')
    assert (page.encoding, page.title, page.text) == ('big5', '臺北房價', '樓盤銷售火爆。')


@pytest.mark.parametrize('codec, content_type, encoding', [
    ('utf-16-le', 'text/html; charset=utf-16', 'utf-16-le'),  # no byte-order mark: the NULs show the order
    ('utf-16-be', 'text/html; charset=utf-16', 'utf-16-be'),
    ('utf-16-be', 'text/html; charset=UTF-16BE', 'utf-16-be'),
    ('utf-32-le', 'text/html; charset=utf-32le', 'utf-32-le'),
    ('utf-16', 'text/html', 'utf-16'),                     # a byte-order mark (Python's codec writes one)
    ('utf-32', None, 'utf-32'),
])
def test_utf16_and_utf32_pages_are_text_when_a_mark_or_the_header_says_so(codec, content_type, encoding):
    page = extract_page(GBK_PAGE.format(meta='').encode(codec), PAGE_URL, content_type)
    assert (page.error, page.encoding) == (None, encoding)
    assert page.title == '北京房价走势' and '商品住宅成交量明显回落' in page.text


@pytest.mark.parametrize('charset', ['hex', 'base64', 'idna', 'undefined', 'utf-16'])
def test_a_header_charset_that_decodes_no_page_is_ignored(charset):
    page = extract_page(GBK_PAGE.format(meta='').encode('utf-8'), PAGE_URL, f'text/html; charset={charset}')
    assert (page.error, page.encoding, page.title) == (None, 'utf-8', '北京房价走势')


def test_a_short_utf16_page_cut_inside_a_character_is_text():
    page = extract_page('<p>Storm</p>'.encode('utf-16-le') + b'\x00', PAGE_URL, 'text/html; charset=utf-16')
    assert page.error is None and page.text.startswith('Storm')


def test_utf16_without_a_mark_or_a_header_and_byte_soup_labelled_utf16_are_binary():
    assert extract_page(GBK_PAGE.format(meta='').encode('utf-16-le'), PAGE_URL, 'text/html').error == \
        'not HTML (binary)'
    soup = random.Random(5).randbytes(8192)
    for label in ('utf-16', 'utf-16be', 'utf-32'):
        assert extract_page(soup, PAGE_URL, f'text/html; charset={label}').error == 'not HTML (binary)'


def test_broken_html_is_repaired():
    page = extract('<html><body><div><p>Unclosed paragraph <b>bold<div>inner <a href="/x.html">x link</a>'
                   '</div></div></div></span></td><p>After the stray closers')
    assert page.error is None
    assert [link.url for link in page.links] == ['http://news.example.test/x.html']
    assert 'After the stray closers' in page.text


@pytest.mark.parametrize('body, error', [
    (b'', 'empty body'),
    (b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' + bytes(range(256)) * 4, 'not HTML (binary)'),
    (os.urandom(4096), 'not HTML (binary)'),
    (b'<html>' + b'\x00' * 2000 + b'</html>', 'not HTML (binary)'),
    (b'  \n\t ', 'no HTML document'),
])
def test_empty_and_binary_bodies_set_error_and_nothing_else(body, error):
    page = extract_page(body, PAGE_URL, 'text/html')
    assert page.error == error
    assert (page.title, page.text, page.links, page.blocks, page.canonical) == ('', '', [], [], None)


def test_links_resolve_against_base_href_and_skip_what_is_not_http():
    page = extract('<html><head><base href="http://cdn.example.test/docs/"></head><body><p>'
                   '<a href="page.html#part">relative</a> <a href="../up.html">parent</a> '
                   '<a href="//other.example.test/x">protocol-relative</a> <a href="/root">site-relative</a> '
                   '<a href=" HTTPS://Other.Example.test:443/y ">absolute</a> <a href="#top">fragment</a> '
                   '<a href="javascript:void(0)">script</a> <a href="mailto:a@example.test">mail</a> '
                   '<a href="http://[broken/">broken</a> <a>no href</a></p></body></html>')
    assert [(link.url, link.anchor) for link in page.links] == [
        ('http://cdn.example.test/docs/page.html', 'relative'), ('http://cdn.example.test/up.html', 'parent'),
        ('http://other.example.test/x', 'protocol-relative'), ('http://cdn.example.test/root', 'site-relative'),
        ('https://other.example.test/y', 'absolute')]


def test_canonical_meta_and_title():
    head = ('<head><title>  Storm \n hits  </title><meta name="Keywords" content="storm, coast">'
            '<meta name="description" content=" A storm\n hit the coast. ">'
            '<link rel="Canonical" href="/world/storm.html?utm=x#top"></head>')
    page = extract(f'<html>{head}<body><p>Text</p></body></html>')
    assert (page.title, page.meta_keywords, page.meta_description, page.canonical) == (
        'Storm hits', 'storm, coast', 'A storm hit the coast.', 'http://news.example.test/world/storm.html?utm=x')
    assert extract('<link rel="canonical" href="javascript:x"><p>Text</p>').canonical is None
    assert extract('<p>Text</p>').canonical is None
    assert extract('<body><h1>Heading  title</h1><p>Text</p></body>').title == 'Heading title'


def test_context_is_the_text_around_an_inline_link():
    page = extract('<p>' + 'Earlier sentences fill the paragraph. ' * 5 + 'Flood defences along the '
                   '<a href="/river.html">river  Thames</a> were raised overnight by the agency. '
                   + 'Later sentences follow. ' * 5 + '</p>')
    [link] = page.links
    assert link.anchor == 'river Thames'
    assert 'Flood defences along the' in link.context and 'were raised overnight' in link.context
    assert 'Thames' not in link.context and len(link.context) <= 101


def test_a_block_s_lines_are_its_raw_text_s_lines_and_words_collapsed():
    """The compiled lines_text gives what splitting the raw text into lines and words gives, with
    every kind of whitespace str.split() knows (a line break is only a newline); visible_chars counts
    the characters that splitting leaves."""
    from models.segment import lines_text, visible_chars

    def by_splits(raw):
        return '\n'.join(' '.join(line.split()) for line in raw.split('\n') if line and not line.isspace())

    chance = random.Random(5)
    pieces = ['a', 'Z', '中', ' ', '  ', '\n', '\n\n', '\t', '\r', '\x1c', '\x1d', '\x1e', '\x1f', '\u3000', '\xa0',
              '\u2028', '\x85', '\u200b', '😀', 'é']
    texts = ['', ' ', '\n', 'word', ' \n \n', '\n a \n\n b c \n']
    texts += [''.join(chance.choice(pieces) for _ in range(chance.randint(0, 60))) for _ in range(5000)]
    for raw in texts:
        assert lines_text(raw) == by_splits(raw), raw
        assert visible_chars(raw) == len(''.join(raw.split())), raw


def test_context_is_fifty_collapsed_characters_each_side_whatever_the_whitespace():
    """The compiled context reads characters outwards from the anchor; it must give what collapsing
    the 200-character windows gives, with every kind of whitespace str.split() knows."""
    from models.segment import collapse, context

    def by_windows(raw, start, end):
        before = collapse(raw[max(0, start - 200):start])[-50:]
        return f'{before} {collapse(raw[end:end + 200])[:50]}'.strip()

    chance = random.Random(11)
    pieces = ['a', 'Z', '中', '文', ' ', '  ', '\n', '\t', '\x1c', '\x1d', '\x1e', '\x1f', '\u3000', '\xa0',
              '\u2028', '\x85', '\u200b', '😀', 'é']
    texts = ['', ' ', 'word', ' '.join(['w'] * 60), '中' * 300, ('ab ' * 40) + '|' + (' cd' * 40)]
    texts += [''.join(chance.choice(pieces) for _ in range(chance.randint(0, 500))) for _ in range(3000)]
    for raw in texts:
        start = chance.randint(0, len(raw) + 250)  # past the end too, as slices allow
        end = chance.randint(start, len(raw) + 300)
        assert context(raw, start, end) == by_windows(raw, start, end), (raw, start, end)
    with pytest.raises(ValueError):
        context('abc', -1, 2)


def test_a_block_heading_is_its_first_non_blank_line_before_the_first_link():
    """_heading reads lines only up to the first that is not blank; it must give what splitting all
    the text before the first link gives (the last, incomplete line never counts)."""
    from models.extract import MAX_HEADING_CHARS, _heading
    from models.segment import collapse

    def by_splits(before_first_link):
        first = collapse(next((line for line in before_first_link.split('\n')[:-1] if line.strip()), ''))
        return first if len(first) <= MAX_HEADING_CHARS else ''

    chance = random.Random(7)
    pieces = ['\n', '\n\n', ' ', '\t', '\u3000', '\x0b', '\x1f', '\u2028', '\x85', 'a', '相关', 'Related',
              'x' * (MAX_HEADING_CHARS + 5)]
    texts = ['', '\n', 'heading', 'heading\n', '\n \n相关新闻\nlink', ' ' * 50 + 'x\n']
    texts += [''.join(chance.choice(pieces) for _ in range(chance.randint(0, 30))) for _ in range(20000)]
    for raw in texts:
        first_link = chance.randint(0, len(raw))
        assert _heading(raw, first_link) == by_splits(raw[:first_link]), (raw, first_link)


def test_duplicate_links_are_collapsed_but_other_anchors_kept():
    page = extract('<ul><li><a href="/a">Alpha</a></li><li><a href="/a">Alpha</a></li>'
                   '<li><a href="/a"><img src="a.png" alt="Alpha logo"></a></li></ul>')
    assert [(link.url, link.anchor) for link in page.links] == [
        ('http://news.example.test/a', 'Alpha'), ('http://news.example.test/a', 'Alpha logo')]


def test_the_compiled_walk_reads_text_and_attributes_as_lxml_does():
    """models/segment.pyx reads libxml2's nodes itself: entities in text and attributes, text
    around a removed comment, non-ASCII, a title or an image's alt for an empty anchor, and text
    after </body> come out as lxml's .text, .tail and .get give them."""
    page = extract('<div class="entry-content"><p>Rain &amp; wind <!-- a note --> on the coast, '
                   '<b>Ünïcode</b> 北京 text.</p>'
                   '<p><a href="/search?q=storm&amp;page=2" title="Search &quot;storm&quot;"> </a> '
                   '<a href="/photo.html"><span><img src="p.png" alt="Photo: the pier"></span></a> '
                   '<a href="/t&#xE9;l&#233;.html">Télé</a></p></div></body>After the body')
    assert 'Rain & wind on the coast, Ünïcode 北京 text.' in page.text
    assert [(link.url, link.anchor) for link in page.links] == [
        ('http://news.example.test/search?q=storm&page=2', 'Search "storm"'),
        ('http://news.example.test/photo.html', 'Photo: the pier'),
        ('http://news.example.test/t%C3%A9l%C3%A9.html', 'Télé')]
    assert 'After the body' in ' '.join(block.text for block in page.blocks)


STORY = ('The storm reached the coast early on Monday and the weather office kept its red warning in '
         'place for the whole day, as rivers rose and the wind brought down trees across the region. ' * 3)


def test_hidden_subtrees_are_never_content_but_their_links_keep_their_class():
    page = extract('<div><p>' + STORY + '</p><p style="display: none">Hidden sentence in the story.</p>'
                   '<span hidden>Hidden words</span><span style="VISIBILITY:hidden">Invisible words</span></div>'
                   '<div style="display:none"><ul><li><a href="/news/">News</a></li><li><a href="/sport/">Sport</a>'
                   '</li><li><a href="/weather/">Weather</a></li></ul></div>'
                   '<p><a style="display:none" href="/hidden-link.html">Hidden link</a></p>')
    assert page.text == STORY.strip()
    assert {block.text: block.kind for block in page.blocks if 'Hidden' in block.text or 'Invisible' in block.text} \
        == {'Hidden sentence in the story.': 'noise', 'Hidden words': 'noise', 'Invisible words': 'noise',
            'Hidden link': 'navigation'}  # a hidden link list is still a link list
    assert link_classes(page) == {'/news/': 'navigation', '/sport/': 'navigation', '/weather/': 'navigation',
                                  '/hidden-link.html': 'navigation'}


def test_classes_that_hide_an_element_make_it_hidden():
    """A CSS framework's hiding class (Bootstrap's d-none, Tailwind's and HTML5 Boilerplate's
    hidden, hide, Bulma's is-hidden) hides an element as display:none does: a script's settings in
    a <div class="hidden"> read as a line of the page. A class that may show it again (on wider
    screens: 'hidden lg:flex', 'd-none d-md-block', 'visible-lg'; any Tailwind variant) leaves it
    visible, one that does not ('d-md-none', 'd-print-block', 'visible-print-block') hidden. Class
    names match as CSS matches them ('Hidden', 'hidden-xs' are other classes). aria-hidden hides
    nothing from the eye (an icon's ligature, a drop cap), so it is not hidden."""
    hidden = ['<div class="hidden">initialComments:true! pubdate:11/29/2011</div>', '<div class="x  d-none\tcard">a</div>',
              '<span class="is-hidden">b</span>', '<p class="hide">c</p>', '<div class="hidden&#32;x">e</div>',
              '<div class="d-none d-md-none">m</div>', '<div class="d-none d-print-block">n</div>',
              '<div class="hidden visible-print-block">o</div>']
    shown = ['<div class="hidden lg:flex">f</div>', '<div class="d-none d-md-block">g</div>',
             '<div class="hidden visible-lg">h</div>', '<div class="hidden visible-md-block">p</div>',
             '<div class="hidden hover:underline">q</div>', '<div class="Hidden">i</div>',
             '<div class="hidden-xs">j</div>', '<div class=" ">r</div>', '<p aria-hidden="true">k</p>']
    for snippet, is_hidden in [(snippet, True) for snippet in hidden] + [(snippet, False) for snippet in shown]:
        page = extract(f'<div><p>{STORY}</p></div><div><p>Before.</p>{snippet}<p>After.</p></div>')
        text = html.unescape(re.sub('<[^>]+>', '', snippet))
        measures = [measure for block, measure in zip(page.blocks, page.measures) if text in block.text.split('\n')]
        assert [measure.hidden for measure in measures] == ([True] if is_hidden else [False]), snippet
        assert not is_hidden or text not in page.text.split('\n')


def test_a_page_left_without_content_keeps_its_densest_block():
    """A paywalled story's teaser under an 'isPaywall' mark: every block is noise or navigation, and
    the densest visible one is the page's main text rather than none; a line is not enough."""
    teaser = ('The centre held a round of talks on wages and work. Employers, staff and the town council '
              'spoke about how to keep people in the region when every trade is short of hands.')
    menu = '<nav>' + ''.join(f'<a href="/{index}.html">Section number {index}</a> ' for index in range(20)) + '</nav>'
    page = extract(f'{menu}<div class="article isPaywall"><h1>Good wages are not enough</h1><p>{teaser}</p></div>'
                   '<div class="paywall"><p>Read on? Subscribe.</p></div>')
    assert page.text == f'Good wages are not enough\n{teaser}'
    assert [block.kind for block in page.blocks] == ['navigation', 'content', 'noise']
    page = extract(f'{menu}<div class="paywall"><p>Read on? Subscribe today.</p></div>')
    assert page.text == ''


def test_a_ruby_annotation_s_reading_is_not_the_text():
    """Furigana and pinyin (<rt>, with <rp> brackets for browsers without ruby) would break the
    words they annotate: 災害に気をつけて, not 災害さいがいに気きをつけて."""
    page = extract('<p><ruby>災害<rp>(</rp><rt>さいがい</rt><rp>)</rp></ruby>に<ruby>気<rt>き</rt></ruby>をつけて'
                   'ください。<ruby>汉<rt>hàn</rt>字<rt>zì</rt></ruby>的读音。</p>')
    assert page.text == '災害に気をつけてください。汉字的读音。'


def test_a_formula_s_mathml_is_not_the_text_and_does_not_split_its_line():
    """Wikipedia's formulas: MathML for screen readers in a hidden span (its TeX in an annotation),
    an image for the eye. The sentence around them stays one line of one block."""
    formula = ('<span class="mwe-math-element"><span class="mwe-math-mathml-inline" style="display: none;">'
               '<math alttext="{{\\displaystyle {0}}}"><semantics><mrow><mi>{0}</mi></mrow>'
               '<annotation encoding="application/x-tex">{{\\displaystyle {0}}}</annotation></semantics></math>'
               '</span><img src="/math/{0}.svg" class="mwe-math-fallback-image-inline" aria-hidden="true" alt="{0}">'
               '</span>')
    page = extract('<div id="mw-content-text"><p>{0}</p><p>Given a set of {1} high-dimensional objects, t-SNE '
                   'first computes probabilities proportional to the similarity of objects {2} and {3}.</p>'
                   '<p>{0}</p></div>'.format(STORY, formula.format('N'), formula.format('x'), formula.format('y')))
    assert page.text.splitlines() == [STORY.strip(), 'Given a set of high-dimensional objects, t-SNE first computes '
                                      'probabilities proportional to the similarity of objects and .', STORY.strip()]
    assert len(page.blocks) == 1


def test_soft_hyphens_and_zero_width_spaces_are_not_text():
    """German sites hyphenate every long word with &shy;: the reader sees 'Mittelalter', and so must
    search, tokens and the main text. Joiners that shape letters (ZWJ, ZWNJ) stay."""
    page = extract('<div><p>Schon im Mit&shy;tel&shy;al\u00adter war der St. Mag\u00adda\u00adle\u00adner das '
                   'Aus\u00adhän\u00adge\u00adschild der Süd\u2060ti\u200bro\ufeffler Wein\u00adwirt\u00adschaft. '
                   + STORY + '</p><p>میخواهم \u200c ایران 👩\u200d💻 ' + STORY + '</p>'
                   '<p><a href="/wein/">Wein\u00adkel\u00adler</a></p></div>')
    assert page.text.splitlines()[0] == ('Schon im Mittelalter war der St. Magdalener das Aushängeschild der '
                                         'Südtiroler Weinwirtschaft. ' + STORY.strip())
    assert '\u200c' in page.text and '👩\u200d💻' in page.text
    assert [link.anchor for link in page.links] == ['Weinkeller']


def test_the_main_text_is_in_one_normal_form_whichever_the_page_used():
    """'য়' is one code point on some Bengali sites and two (য + nukta) on others; 'é' likewise in
    decomposed Latin text: the main text is NFC, so the same words are the same string whichever
    the page's bytes used (index terms are NFKC anyway)."""
    as_the_page_wrote_it = 'কুষ্টি\u09dfা-১ আসনের সংসদ সদস্য। Cafe\u0301 de la gare. '
    page = extract('<div><p>' + as_the_page_wrote_it + STORY + '</p><p>' + STORY + '</p></div>')
    assert page.text.splitlines()[0] == unicodedata.normalize('NFC', as_the_page_wrote_it + STORY.strip())
    assert 'কুষ্টি\u09af\u09bcা-১' in page.text and 'Caf\u00e9 de la gare' in page.text


def test_noscript_is_read_only_when_it_holds_text_outside_links():
    # a tag left open in a <noscript> makes the parser nest the rest of the page in it
    page = extract('<noscript><div id="nojs"></noscript><div id="main"><p>' + STORY + '</p></div>'
                   '<ul><li><a href="/news/">News</a></li><li><a href="/sport/">Sport</a></li></ul>')
    assert page.text == STORY.strip()
    assert link_classes(page) == {'/news/': 'navigation', '/sport/': 'navigation'}
    # a post shown by a script from a template, its copy for readers without scripts in a <noscript>
    page = extract('<div itemprop="articleBody"><script type="text/template"><p>' + STORY + '</p></script>'
                   '<noscript><p>' + STORY + '</p></noscript></div>')
    assert page.text == STORY.strip()
    # tracking pixels, ads and notes stay out, and so do their links
    page = extract('<p>' + STORY + '</p><noscript><a href="http://ads.example.test/c?n=1">'
                   '<img alt="Information" src="http://ads.example.test/v?n=1"></a></noscript>'
                   '<noscript>Please enable JavaScript to see the comments.</noscript>')
    assert page.text == STORY.strip() and page.links == []


def test_a_mark_on_a_container_of_most_of_the_page_is_void():
    markup = ('<div id="{0}"><h1>Storm hits the coast</h1><p>{1}</p>'
              '<div class="shareBar"><a href="/share.html">Share this story</a></div>'
              '<div id="subNav"><a href="/a/">Home</a> <a href="/b/">News</a> <a href="/c/">Sport</a></div></div>'
              '<div class="menu"><a href="/d/">Weather</a> <a href="/e/">Travel</a> <a href="/f/">Money</a>'
              '<p>{2}</p></div>')
    page = extract(markup.format('outerAd', STORY, 'A short line under the menu.'))
    assert page.text.splitlines() == ['Storm hits the coast', STORY.strip()]
    assert link_classes(page) == {'/share.html': 'noise', '/a/': 'navigation', '/b/': 'navigation',
                                  '/c/': 'navigation', '/d/': 'navigation', '/e/': 'navigation',
                                  '/f/': 'navigation'}
    # the mark holds when the container has a smaller share of the page
    page = extract(markup.format('outerAd', 'A short story.', STORY))
    assert 'A short story.' not in page.text and STORY.strip() in page.text


def test_rules_on_an_article_page_content_outside_the_long_blocks_is_noise():
    """The rules alone (the block model weighs this window as one feature among others)."""
    markup = ('<div class="main"><div class="box"><p>Another story: the mayor opened a new bridge over the river on '
              'Sunday, with a <a href="/bridge.html">parade</a> and music.</p></div>'
              '<div class="box"><h1>Storm hits the coast</h1></div><div class="box">June 1, 2024</div>'
              '<div class="box"><p>{0}</p><p>{0}</p></div></div>'
              '<div class="box"><p>A reader wrote: a great report on the storm, thank you for it.</p></div>')
    page = extract(markup.format(STORY), rules_only=True)
    assert page.text.splitlines() == ['Storm hits the coast', 'June 1, 2024', STORY.strip(), STORY.strip()]
    assert [block.kind for block in page.blocks] == ['noise', 'content', 'content', 'content', 'noise']
    assert link_classes(page) == {'/bridge.html': 'noise'}
    # no long block: not an article page, everything stays content
    page = extract(markup.format('A short paragraph of the story.'), rules_only=True)
    assert {block.kind for block in page.blocks} == {'content'} and 'Another story' in page.text
    assert 'A reader wrote' in page.text
    # long blocks with little of the content text: not an article page either
    page = extract(markup.replace('<p>{0}</p><p>{0}</p>', '<p>{0}</p>').format(STORY) + ''.join(
        f'<div class="box"><p>Entry {n} of a long list of short entries, each in a box.</p></div>' for n in range(30)),
        rules_only=True)
    assert page.blocks[0].kind == 'content' and 'Entry 29' in page.text
    # the headline (a line of the <title>) is kept across a share bar and a byline further up
    page = extract('<html><head><title>Storm hits the coast | The Paper</title></head><body>'
                   '<div class="box"><p>Another story: the mayor opened a new bridge over the river.</p></div>'
                   '<div class="box"><p>Storm hits the coast</p></div><div class="share">Share this</div>'
                   '<div class="box">By a staff reporter</div><div class="box">June 1, 2024</div>'
                   '<div class="box">Updated at noon</div><div class="box"><p>{0}</p></div></body></html>'.format(STORY),
                   rules_only=True)
    assert page.text.splitlines() == ['Storm hits the coast', 'By a staff reporter', 'June 1, 2024',
                                      'Updated at noon', STORY.strip()]
    # ... and under a kicker, the headline's block's first line
    page = extract('<html><head><title>Storm hits the coast | The Paper</title></head><body>'
                   '<div class="box"><p>Another story: the mayor opened a new bridge over the river.</p></div>'
                   '<div class="box"><p>Weather</p><h1>Storm hits the coast</h1></div>'
                   '<div class="share">Share this</div><div class="box"><p>{0}</p></div></body></html>'.format(STORY),
                   rules_only=True)
    assert page.text.splitlines() == ['Weather', 'Storm hits the coast', STORY.strip()]
    # the story's closing paragraphs, split from its last long block by a photo, in the same container
    # as that block, are the story's; a reader's comment in another container is not
    page = extract('<div class="story"><div class="box"><p>{0}</p><p>{0}</p></div><div class="photo"><img '
                   'src="/pier.jpg" alt="The pier"></div><div class="box"><p>The coast road opens again on Friday.'
                   '</p></div><div class="box"><p>Schools stay shut until then.</p></div></div>'
                   '<div class="box"><p>A reader wrote: a great report on the storm, thank you for it.</p></div>'
                   .format(STORY), rules_only=True)
    assert page.text.splitlines() == [STORY.strip(), STORY.strip(), 'The coast road opens again on Friday.',
                                      'Schools stay shut until then.']


def test_hash_and_script_anchors_count_as_link_text_but_are_not_links():
    menu = ('<div class="box"><a href="#">Home</a> | <a href="javascript:void(0)">News</a> | '
            '<a href="#sport">Sport</a> | <a href=" JavaScript:go(3)">Weather</a></div>'
            '<div class="box"><p>A paragraph with a <a href="#note">note</a> in its text, about the storm.</p></div>')
    page = extract(menu)
    assert [block.kind for block in page.blocks] == ['navigation', 'content']
    assert page.links == [] and page.text == 'A paragraph with a note in its text, about the storm.'


def test_real_cwced_page_decodes_with_chinese_title_and_links(shared_data):
    path = sorted((shared_data / 'extraction' / 'cwced' / 'original').glob('*.html'))[0]
    body = path.read_bytes()
    url = re.search(rb'<text id="([^"]+)"', body).group(1).decode()
    page = extract_page(body, url)
    assert page.error is None and page.encoding == 'gb18030'
    assert len(HAN_CHARACTER.findall(page.title)) >= 4 and '\ufffd' not in page.title
    assert len(page.links) >= 5 and any(HAN_CHARACTER.search(link.anchor) for link in page.links)
    assert all(link.block in BLOCK_CLASSES for link in page.links)
    assert len(page.text) > 500 and HAN_CHARACTER.search(page.text)



ODD_MARKUP = (b'<base href="http://[::1/">', b'<a href="http://[x/y">x</a>', b'<a href="http://a:99999/">p</a>',
              b'<a href="//[::1">v</a>', b'<a href="http://\xff\xfe/">w</a>', b'<link rel="canonical" href="http://[x">',
              b'<a href="http://a.example/%zz%">z</a>', b'<a href="http://xn--/">i</a>', b'</table></div></td>',
              b'<div style="display:none">', b'<script type="application/ld+json">{"articleBody": [', b'<pre>')


def test_mutated_real_pages_extract_without_an_exception(shared_data):
    """Bad input is normal input: real pages with flipped bytes, cuts, odd links and markup, and
    charset labels of every codec Python knows, in the header or the page ('hex' and 'idna' raised)."""
    labels = sorted(set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values()))
    bodies = [path.read_bytes() for path in sorted((shared_data / 'extraction').glob('*/*/*.html'))[::60]]
    chance = random.Random(15)
    for _ in range(300):
        body = bytearray(chance.choice(bodies))
        for _ in range(chance.randrange(4)):
            at, mutation = chance.randrange(len(body)), chance.randrange(4)
            if mutation == 0:
                body[at] = chance.randrange(256)
            elif mutation == 1:
                del body[at:]
            elif mutation == 2:
                body[at:at] = chance.choice(ODD_MARKUP)
            else:
                body[at:at] = b'<meta charset="%s">' % chance.choice(labels).encode()
        page = extract_page(bytes(body), PAGE_URL, f'text/html; charset={chance.choice(labels)}')
        assert page.error is None or page.error.startswith(('empty body', 'not HTML', 'unparsable', 'no HTML'))

def sandbox_web(style: int, language: str) -> list[Page]:
    """Every page of a small sandbox web in one template: three labels with two sites each, enough
    articles for a second index page, inline links, "see also" links and tunnels (recommended)."""
    zh = language == 'zh'
    sentence = '今天南方多省出现强降雨，防汛部门启动应急响应。' if zh else 'Heavy rain fell across the south today. '
    sites = [Site(f'{label}{n}.test', f'{label} {n}', language, (label,), charset='gbk' if zh else 'utf-8',
                  style=style, has_print=n == 1) for label in ('house', 'sport', 'tech') for n in (1, 2)]
    articles = []
    for site in sites:
        for n in range(INDEX_PAGE_SIZE[language] + 1):
            headline = f'{site.name}：长江中下游进入主汛期水位持续上涨第{n}天' if zh else \
                f'Flood warnings issued for {site.name} on day {n}'
            inline = Link(f'{site.home}topic/{n}.html', '防汛部门' if zh else 'the flood office')
            articles.append(Article(f'{site.host}-{n}', site, '', f'/2024/{n}.html', headline,
                                    [(sentence * 3, inline, sentence * 3), ('## ' + headline,), (sentence * 2,)],
                                    site.labels, datetime.date(2024, 1, 1 + n),
                                    see_also=[Link(f'{site.home}see/{n}.html', f'{headline}（续）')]))
    return assemble_pages(sites, articles, random.Random(1), islands=True)


@pytest.mark.parametrize('language', ['zh', 'en'])
@pytest.mark.parametrize('style', [0, 1, 2])
def test_sandbox_links_get_the_class_of_their_blocks_role(style, language):
    roles = set()
    for page in sandbox_web(style, language):
        headers, body = render_response(page, datetime.date(2024, 6, 1))
        extracted = extract_page(body, page.url, dict(headers)['Content-Type'])
        expected = []
        for block in page.blocks:
            inline = [piece for paragraph in block.paragraphs for piece in paragraph if isinstance(piece, Link)]
            expected += [(link.url, link.anchor, BLOCK_CLASS[block.role]) for link in inline + block.links
                         if (link.url, link.anchor, BLOCK_CLASS[block.role]) not in expected]
            roles.update(block.role for _ in inline + block.links)
        assert [(link.url, link.anchor, link.block) for link in extracted.links] == expected, page.url
    assert roles == set(BLOCK_CLASS)


def test_every_cwced_page_decodes_to_its_gold_chinese(shared_data):
    """No mojibake: nearly every 3-character run of the gold article is in the page's blocks."""
    folder = shared_data / 'extraction' / 'cwced'
    gold = json.loads((folder / 'ground_truth.json').read_text(encoding='utf-8'))
    for page_id, truth in gold.items():
        body = (folder / 'original' / f'{page_id}.html').read_bytes()
        page = extract_page(body, 'http://cwced.test/')
        blocks = ''.join(HAN_CHARACTER.findall(''.join(block.text for block in page.blocks)))
        han = ''.join(HAN_CHARACTER.findall(truth['articleBody']))
        shingles = {han[i:i + 3] for i in range(len(han) - 2)}
        found = sum(shingle in blocks for shingle in shingles)
        assert page.error is None and found >= 0.9 * len(shingles), (page_id, found, len(shingles))


def test_marks_around_the_longest_text_block_are_void():
    """A share bar's or an ad layer's class on the wrapper of a whole story is a mis-mark, even
    when the page's link lists hold more text; the marks inside the story and elsewhere hold."""
    headlines = ''.join(f'<li><a href="/h{number}/">Another long headline about the weather, number {number}</a></li>'
                        for number in range(12))
    markup = (f'<ul>{headlines}</ul>'
              '<div class="share_wrapper"><div class="text"><p>{0}</p></div>'
              '<div class="social"><a href="/tweet.html">Tweet this</a></div></div>'
              '<div class="adBox"><p>Buy a new car today, the best prices in town on every model.</p></div>')
    page = extract(markup.format(STORY), rules_only=True)
    assert page.text.splitlines() == [STORY.strip()]
    assert link_classes(page)['/tweet.html'] == 'noise' and link_classes(page)['/h1/'] == 'related'


def test_a_mark_around_most_of_the_text_dense_characters_is_void():
    """A story laid out a block per paragraph, none of them long, in a container marked as a share
    bar's: the page's link lists hold more text, but the story most of its text-dense characters,
    so the mark is void; an ad inside the story and the lists keep their class."""
    paragraph = STORY[:190].strip()
    headlines = ''.join(f'<li><a href="/h{number}/">Another long headline about the weather, number {number}</a></li>'
                        for number in range(30))
    markup = ('<article class="docked-sharebar-container">'
              + '<div class="paragraph"><p>{0}</p></div>' * 4
              + '<div class="ad-slot"><p>Buy a new car today, the best prices in town on every model.</p></div>'
              f'</article><ul>{headlines}</ul>')
    page = extract(markup.format(paragraph), rules_only=True)
    assert [block.kind for block in page.blocks] == ['content'] * 4 + ['noise', 'related']
    assert page.text.splitlines() == [paragraph] * 4
    # comments holding most of those characters are not the story: its longest block is elsewhere
    comment = 'I was on the coast road that morning and the water came over the wall twice, a reader wrote.'
    page = extract(f'<article><p>{paragraph}</p><p>{paragraph}</p></article><section class="comments">'
                   + ''.join(f'<div><a href="/u{n}">Reader {n}</a><p>{comment}</p><a href="/r{n}">Reply</a></div>'
                             for n in range(8)) + f'</section><ul>{headlines}</ul>', rules_only=True)
    assert page.text.splitlines() == [paragraph] * 2


def test_a_hidden_block_is_never_the_longest_text_block():
    """A consent dialog's texts or a script's data in a hidden <div> can be longer than the story:
    the story's is still the longest block the reader sees, and a mark around it is void."""
    markup = ('<article class="node node--promoted"><p>{0}</p></article>'
              '<div class="consent-dialog" style="display:none"><p>{1}</p></div>')
    page = extract(markup.format(STORY, 'PGRpdiBjbGFzcz0ic3AtZHNndm8gc3AtZHNndm8' * 40), rules_only=True)
    assert page.text.splitlines() == [STORY.strip()]


def test_an_article_mark_voids_the_marks_around_it():
    """'article-body' (or itemprop articleBody) names the story's container: an ad layer around
    it is a mis-mark even for a story shorter than a long block, and the marks inside it hold."""
    story = STORY[:200].strip()
    markup = ('<div class="adLayer"><div itemprop="articleBody"><p>{0}</p>'
              '<div class="share"><a href="/tweet.html">Tweet this</a></div></div>'
              '<div class="promo"><p>Buy a new car today.</p></div></div>')
    page = extract(markup.format(story), rules_only=True)
    assert page.text.splitlines() == [story]
    assert [block.kind for block in page.blocks] == ['content', 'noise', 'noise']
    assert [measure.article_mark for measure in page.measures] == [True, True, False]


def test_roles_and_component_names_mark_blocks():
    markup = ('<div role="navigation"><a href="/a/">Home</a> <a href="/b/">News</a></div>'
              '<div data-component="newsletter-signup"><p>Get the best stories in your inbox every morning.</p></div>'
              '<div data-testid="cookie-banner"><p>We use cookies to improve your experience of our site.</p></div>'
              '<p>{0}</p>')
    page = extract(markup.format(STORY), rules_only=True)
    assert [block.kind for block in page.blocks] == ['navigation', 'noise', 'noise', 'content']


def test_a_figure_caption_is_noise_not_main_text():
    page = extract('<article><p>{0}</p><figure><img src="/storm.jpg" alt="Storm">'
                   '<figcaption>Waves break over the sea wall on Monday. Photo: A. Reporter/Agency</figcaption>'
                   '</figure><p>{0}</p></article>'.format(STORY), rules_only=True)
    assert page.text.splitlines() == [STORY.strip(), STORY.strip()]
    assert [block.kind for block in page.blocks if 'Waves' in block.text] == ['noise']


def test_preformatted_text_keeps_its_lines():
    """A <pre>'s line breaks are lines, as the browser shows them (code, a poem, a plain-text mail);
    elsewhere, and after the </pre>, a line break in the source is a space. A listing's lines are
    no credits or read-also lines."""
    page = extract('<article><p>{0}</p><pre><code>import requests\nresponse = requests.get(url)\n'
                   '<b>print</b>(response.status_code)</code></pre><p>One sentence\nover two source lines.</p>'
                   '<div><pre>image: nginx:1.25\n# © 2024 Example Corp\nCredits: none\nRead more: the docs</pre>'
                   'and then\nthe tail</div><p>{0}</p></article>'.format(STORY), rules_only=True)
    assert page.text.splitlines() == [STORY.strip(), 'import requests', 'response = requests.get(url)',
                                      'print(response.status_code)', 'One sentence over two source lines.',
                                      'image: nginx:1.25', '# © 2024 Example Corp', 'Credits: none',
                                      'Read more: the docs', 'and then the tail', STORY.strip()]


SHELL_SESSION = """>>> from django.contrib.staticfiles import finders, storage
>>> finders.get_finder.cache_clear()
>>> finders.find('tests/index.html')
'/home/me/project/tests/index.html'"""


def test_code_in_a_story_keeps_its_lines_in_the_main_text():
    code = '<div class="codehilite"><pre>{}</pre></div>'.format(html.escape(SHELL_SESSION))
    page = extract('<html><head><title>Testing with Django</title></head><body><article><h1>Testing with Django</h1>'
                   '<p>{0}</p>{1}<p>{0}</p></article></body></html>'.format(STORY, code))
    assert SHELL_SESSION in page.text


def story_block(kind: str, text: str, container: str = 'div', rule_kind: str = 'content',
                stop_word_density: float = 0.5, preformatted: int = 0) -> tuple[Block, BlockMeasures]:
    """A block as Extract finishes it, and its measures (the story-part rules read only these)."""
    return Block(kind, text, []), BlockMeasures(
        chars=len(text), anchor_chars=0, links=0, paragraphs=0, list_items=0, headings=0, container=container,
        depth=5, marker=None, related_marker=False, article_mark=False, hidden=False, rule_kind=rule_kind,
        lines=text.count('\n') + 1, stop_word_density=stop_word_density, punctuation=0, preformatted=preformatted)


@pytest.mark.parametrize('middle, kind', [
    (dict(text=SHELL_SESSION, stop_word_density=0.0, preformatted=1), 'content'),  # a tutorial's code
    (dict(text='6 eggs at room temperature\n250 g of butter, soft\nthe zest of 2 lemons', container='ul',
          stop_word_density=0.3), 'content'),  # a recipe's ingredients
    (dict(text='Year\n2020\n2021\nPoints\n200\n158', container='table', stop_word_density=0.1), 'content'),
    (dict(text='Font size: Decrease Increase\nEmail article: Email\nPrint article: Print', container='ul',
          stop_word_density=0.0), 'noise'),  # a toolbar: no running text
    (dict(text='Entries in a layout table cell', container='td'), 'noise'),  # not one list or table
    (dict(text=SHELL_SESSION, rule_kind='navigation', preformatted=1), 'noise')])  # the rules saw more in it
def test_story_parts_the_block_model_misses_are_content_between_content_blocks(middle, kind):
    """The block model, trained on news pages, calls code and lists noise inside a story (a blog's
    theme marks the story as a side column's, and code has no stop words); the rules take them back
    when they sit between two content blocks: code anywhere between them, a list or table of running
    text right between them."""
    blocks, measures = zip(story_block('content', STORY), story_block('noise', **middle),
                           story_block('content', STORY))
    assert [block.kind for block in _story_parts_the_model_misses(list(blocks), list(measures))] == \
        ['content', kind, 'content']
    # not after the story's last content block
    blocks, measures = zip(story_block('content', STORY), story_block('content', STORY), story_block('noise', **middle))
    assert [block.kind for block in _story_parts_the_model_misses(list(blocks), list(measures))] == \
        ['content', 'content', 'noise']


def test_a_treatment_s_steps_inside_a_wordpress_story_are_main_text():
    """A theme's container of story and sidebar ('penci_sidebar right-sidebar') marks the story as a
    side column's; the block model calls the list of steps between its paragraphs noise, and
    Extract keeps it as the story's (_story_parts_the_model_misses)."""
    steps = ['An aroma compress for the face', 'Cleansing of the face', 'A massage of the face with a warm, reviving '
             'oil', 'A peeling that is made for the skin type', 'A mask and a cream to finish the treatment']
    page = extract('<html><head><title>A facial treatment</title></head><body><div class="container '
                   'container-single penci_sidebar right-sidebar"><div id="main"><div class="theiaStickySidebar">'
                   '<article class="post"><h1>A facial treatment</h1><p>After all the rush of the weeks before '
                   'Christmas, it was time for a break: a facial treatment at a small institute in the old town, '
                   'where the owner has been working with French products for years. She told me that most of her '
                   'clients come back every month, and that many of them are men.</p><ol>{0}</ol><p>Ninety '
                   'minutes later my skin felt rested, and so did I. We talked about what she does and why she does '
                   'it, and about what anyone can do at home after a long day. She showed me how to clean my face in '
                   'the evening and which oil to take in winter, when the air in our flats is dry.</p></article>'
                   '</div></div>'
                   '<div id="sidebar"><h3>Popular</h3><ul><li><a href="/a.html">One story</a></li>'
                   '<li><a href="/b.html">Another story</a></li></ul></div></div></body></html>'.format(
                       ''.join(f'<li>{step}</li>' for step in steps)))
    assert '\n'.join(steps) in page.text


def test_code_anywhere_between_the_story_s_content_blocks_a_list_only_right_between_two():
    blocks, measures = zip(story_block('content', STORY), story_block('noise', 'Advertisement'),
                           story_block('noise', SHELL_SESSION, preformatted=1),
                           story_block('noise', 'Eggs at room temperature\nButter, soft', 'ul'),
                           story_block('noise', 'Advertisement'), story_block('content', STORY))
    assert [block.kind for block in _story_parts_the_model_misses(list(blocks), list(measures))] == \
        ['content', 'noise', 'content', 'noise', 'noise', 'content']


def test_lines_that_are_mostly_a_link_are_not_main_text_but_the_linked_headline_is():
    floods = 'Flood warnings issued for the whole of the coast as the rivers rise'
    page = extract('<html><head><title>Storm hits the coast | The Paper</title></head><body><article>'
                   '<h1><a href="/world/2024/storm.html">Storm hits the coast</a></h1><p>{0}</p>'
                   '<p>Read also: <a href="/news/flood-warnings.html">{1}</a></p>'
                   '<p>{0} The <a href="/weather/office.html">weather office</a> said so.</p>'
                   '</article></body></html>'.format(STORY, floods), rules_only=True)
    assert page.text.splitlines() == ['Storm hits the coast', STORY.strip(),
                                      STORY.strip() + ' The weather office said so.']
    story = next(block for block in page.blocks if block.kind == 'content')
    assert f'Read also: {floods}' in story.text.splitlines()  # the block keeps it
    assert link_classes(page)['/news/flood-warnings.html'] == 'content'


def test_a_photo_s_credit_line_is_not_main_text():
    """A short line naming a photo's source is not the story; a sentence that starts alike, or the
    page's headline, is."""
    page = extract('<html><head><title>PHOTOS: Storm hits the coast</title></head><body><article>'
                   '<h1>PHOTOS: Storm hits the coast</h1><p>{0}</p><p>Foto: dpa/Marcus Brandt</p>'
                   '<p>Photograph by Jane Doe, National Geographic</p><p>Credit: Courtesy</p><p>Fot. PAP</p>'
                   '<p>© Oli Scarff/Getty Images</p><p>(© Reuters 2024)</p>'
                   '<p>Photos by the sea were taken at dawn.</p><p>{0}</p></article></body></html>'.format(STORY),
                   rules_only=True)
    assert page.text.splitlines() == ['PHOTOS: Storm hits the coast', STORY.strip(),
                                      'Photos by the sea were taken at dawn.', STORY.strip()]


def test_lines_pointing_at_another_story_are_not_main_text_linked_or_not():
    page = extract('<article><p>{0}</p>'
                   '<p>Read more: Looted colonial art: Germany to set up new contact office</p>'
                   '<p><strong>LEA TAMBIÉN: <a href="/2024/ortega.html">Juan Carlos</a> en la OEA</strong></p>'
                   '<p>Czytaj też:</p><p>Related</p><p>PASſEND DAZU</p><p>LEİA MAIS: x</p>'  # re.IGNORECASE's 'ſ'
                                                                                   # is 's', its 'İ' 'i'
                   '<p>Related studies were read more slowly: the lead author, who read also the others, '
                   'said so.</p><p>Lee: the coast road was shut by noon.</p><p>Schon gelesen?</p>'
                   '<p>Passend dazu? Nein.</p><p>{0}</p></article>'.format(STORY), rules_only=True)
    assert page.text.splitlines() == [STORY.strip(), 'Related studies were read more slowly: the lead '
                                      'author, who read also the others, said so.',
                                      'Lee: the coast road was shut by noon.', 'Passend dazu? Nein.', STORY.strip()]


def test_a_line_of_the_page_s_controls_is_not_main_text():
    """Controls printed as text beside the story (not links, so not a link line), alone on their
    lines; a sentence or a line of code with the same words, or a line with other words, stays."""
    controls = ['Rezept drucken', 'Artikel teilen/drucken:', 'Print | Email', '35 comments »', 'Kommentare: 10',
                'Close', 'Auf WhatsApp teilen', 'Bild anzeigen Bild schließen', 'Enlarge Image', '- Anzeige -',
                'Advertisement:', 'Publicidad', '【打印】【关闭】', '字号：大 中 小']
    kept = ['Share your story with us.', 'print(e)', '"comment": {', 'Print edition', 'Seite 17', 'Kommentare der Leser',
            'The Show', 'Top 10', 'Download', 'Next', 'Rating: 8/10', '1. Facebook', 'Comment ?', 'Mehr Druck!',
            'Antworten', 'Komentarz', 'Werbung', 'Hide', 'The Print', 'In print', '评论']
    page = extract('<article><p>{0}</p>{1}<p>{0}</p></article>'.format(
        STORY, ''.join(f'<p>{line}</p>' for line in controls + kept)), rules_only=True)
    assert page.text.splitlines() == [STORY.strip(), *kept, STORY.strip()]
    story = next(block for block in page.blocks if block.kind == 'content')
    assert set(controls) <= set(story.text.splitlines())  # the block keeps them


def test_a_json_ld_article_body_says_which_blocks_are_the_story():
    """A modern page: the story in short paragraphs wrapped one by one, a newsletter box and a
    teaser between them, and the full text in JSON-LD (HTML-escaped, in a @graph)."""
    paragraphs = [STORY[start:start + 190].strip() for start in range(0, 570, 190)]
    document = {'@context': 'https://schema.org', '@graph': [
        {'@type': 'WebPage', 'name': 'Storm'},
        {'@type': 'NewsArticle', 'headline': 'Storm hits the coast',
         'articleBody': ' '.join(f'&lt;p&gt;{paragraph}&lt;/p&gt;' for paragraph in paragraphs)}]}
    markup = (f'<html><head><title>Storm hits the coast | The Daily</title>'
              f'<script type="application/ld+json">{json.dumps(document)}</script></head><body>'
              '<nav><a href="/a/">Home</a> <a href="/b/">News</a></nav><h1>Storm hits the coast</h1>'
              + ''.join(f'<div class="para"><p>{paragraph}</p></div>' for paragraph in paragraphs[:2])
              + '<div class="box"><p>Our morning briefing: the news you need to start the day, in your inbox '
                'every weekday before seven.</p></div>'
              + f'<div class="para"><p>{paragraphs[2]}</p></div>'
              '<div class="box"><p>A reader wrote: a great report on the storm, thank you for it.</p></div>'
              '</body></html>')
    page = extract(markup)
    assert page.text.splitlines() == ['Storm hits the coast', *paragraphs]
    # a summary shorter than a long block says nothing: the rules and the model decide alone
    summary = markup.replace(json.dumps(document), json.dumps({'@type': 'NewsArticle', 'articleBody': paragraphs[0]}))
    without = markup.replace(json.dumps(document), '{}')
    assert extract(summary).text == extract(without).text


def test_a_json_ld_article_body_keeps_the_standfirst_and_matches_typographic_quotes():
    """The articleBody types "it's" where the page shows "it’s", and leaves out the standfirst the
    page's meta description holds (cut off with '...'): both are still the story, the newsletter
    box is not."""
    paragraphs = [STORY[start:start + 190].strip() + " It's the coast's worst storm." for start in range(0, 570, 190)]
    standfirst = 'Rivers rose and the wind brought down trees across the region on Monday, the weather office said.'
    document = {'@type': 'NewsArticle', 'articleBody': ' '.join(paragraphs)}
    markup = (f'<html><head><title>Storm hits the coast</title><meta name="description" content="{standfirst[:60]}...">'
              f'<script type="application/ld+json">{json.dumps(document)}</script></head><body>'
              f'<div class="lede"><p>{standfirst}</p></div>'
              + ''.join(f'<div class="para"><p>{paragraph.replace(chr(39), "’")}</p></div>' for paragraph in paragraphs)
              + '<div class="box"><p>Our morning briefing: the news you need to start the day, in your inbox '
                'every weekday before seven.</p></div></body></html>')
    page = extract(markup)
    assert page.text.splitlines() == [standfirst, *[paragraph.replace("'", '’') for paragraph in paragraphs]]


def test_a_story_the_page_does_not_show_is_its_json_ld_article_body():
    """A page whose script renders the story has only its frame in the markup: its main text is the
    articleBody it gives search engines, tags stripped. A page showing the story keeps its blocks."""
    document = {'@type': 'NewsArticle', 'articleBody': f'<p>{STORY.strip()}</p> <p>The <b>ferry</b> did not sail.</p>'}
    frame = ('<html><head><title>Storm hits the coast</title>'
             f'<script type="application/ld+json">{json.dumps(document)}</script></head><body>'
             '<div class="nav"><a href="/news/">News</a> <a href="/sport/">Sport</a></div>SHOWN'
             '<div id="root"><p>Loading the story about the storm on the coast, please wait a moment.</p></div>'
             '</body></html>')
    assert extract(frame.replace('SHOWN', '')).text == STORY.strip() + ' The ferry did not sail.'
    shown = extract(frame.replace('SHOWN', f'<article><p>{STORY}</p></article>'))
    assert shown.text.splitlines() == [STORY.strip()]
    empty = frame.split('<body>')[0] + '<body><div id="root"></div></body></html>'  # no block at all
    assert extract(empty).text == STORY.strip() + ' The ferry did not sail.'
    listing = {'@type': 'ItemList', 'itemListElement': [document, {'@type': 'NewsArticle', 'articleBody': STORY}]}
    assert extract(empty.replace(json.dumps(document), json.dumps(listing))).text == ''  # a front page's stories


DEEP_JSON = '{"articleBody": "x", "a": ' + '[' * 100_000 + ']' * 100_000 + '}'


@pytest.mark.parametrize('script', ['{"articleBody": "cut sh', DEEP_JSON])
def test_broken_or_absurdly_deep_json_ld_leaves_the_page_to_its_blocks(script):
    page = extract(f'<html><head><script type="application/ld+json">{script}</script></head>'
                   f'<body><p>{STORY}</p></body></html>')
    assert page.error is None and page.text == STORY.strip()


def test_the_compiled_hidden_style_check_is_the_regular_expression():
    """hidden_style (compiled) says what searching for display:none or visibility:hidden in any
    case, with any whitespace around the colon, says: random styles of the words, their pieces,
    the characters IGNORECASE reads as 'i' and 's', colons, whitespace and other declarations."""
    from models.segment import hidden_style

    expression = re.compile(r'display\s*:\s*none|visibility\s*:\s*hidden', re.I)
    names = ['display', 'DISPLAY', 'Display', 'dİsplay', 'dıſplay', 'displa', 'max-display', 'visibility',
             'VISIBILITY', 'vısıbılıty', 'visibilit', 'color', '中']
    values = ['none', 'NONE', 'nOne', 'non', 'hidden', 'HİDDEN', 'hidde', 'block', '', 'none!important']
    spaces = ['', '', ' ', '\t', '\n', '\u3000', '\xa0', '  ']
    chance = random.Random(23)
    styles = ['', 'display:none', 'display : none', 'display:\tNONE', 'visibility:hidden', 'display:block',
              'displaynone', 'display: inline; visibility :hidden', 'max-display:none']
    styles += [''.join(chance.choice(names) + chance.choice(spaces) + chance.choice([':', ':', '', '::', ';'])
                       + chance.choice(spaces) + chance.choice(values) + chance.choice([';', '', ' ', 'x'])
                       for _ in range(chance.randint(1, 4))) for _ in range(20000)]
    assert sum(1 for style in styles if expression.search(style)) > 1000
    for style in styles:
        assert hidden_style(style) == (expression.search(style) is not None), style

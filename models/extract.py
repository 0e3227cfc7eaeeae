"""One fetched page's bytes -> its text, metadata, blocks and classified links (the Extract step).

SSAPS scores a page block by block (ARCHITECTURE.md, Blocks): links in related-link blocks carry
their anchor's relevance, navigation blocks a constant, noise blocks nothing. Segmentation and
rules take one walk over the tree; then a small trained model (models/block_model.py) decides
content or noise among the blocks the rules found text-dense. Main text = the content blocks in
document order, a line per paragraph or heading, but the lines that are mostly a link ('Read
also: <a>another story</a>').

Blocks are the containers (div, td, ul, ...) that hold text or links, innermost first, with two
exceptions that keep a block whole: a container with at most one link and a line or two of text
(a cell of a link table, a date line, a print link under an article) rejoins its parent's text,
and a short text just before a block ("相关新闻", "See also") becomes that block's heading.
A block's class comes from, in order: navigation or noise marks on it or an ancestor (tag names,
class/id/role/itemprop/data-component words), its heading, related-list words, and last its links:
text-dense -> content, short anchors -> navigation, headline anchors -> related. Link density
counts '#' and javascript: anchors as link text (menus are built from them) though they are not
links. A mark is a mis-mark and void on a container holding most of the page's text (as the
<body>'s class is), around the page's longest text-dense block, on a container holding most of its
text-dense characters (a story a block per paragraph), or around an article mark (the
story's own container: 'article-body', 'entry-content', itemprop articleBody), so 'share_wrapper'
or 'adSkinLayer' around a whole story does not make it noise. A subtree the page hides (inline
display:none, visibility:hidden, a hidden attribute, a CSS framework's hiding class such as
'hidden' or 'd-none': segment.pyx _is_hidden) is its own block and never content. Then, on
an article page (long blocks hold a good share of the content text), content blocks before the
first long block (but the headline lines right before it) or after the last one become noise, so
the main text is the article; every block stays in `blocks`. Last, a JSON-LD articleBody (what
news sites give search engines) names the story's blocks outright (_structured_window), and is
the main text of a page that does not show it (a story its script renders in the browser).
"""
import bisect
import collections
import dataclasses
import html
import itertools
import json
import re
import threading
import unicodedata
from typing import NamedTuple
from urllib.parse import urljoin

import numpy as np
from lxml import etree

from models.block_model import (BlockMeasures, TreeEnsemble, decide_content, density_stop_words, feature_rows,
                                text_measures)
from models.html import WIDE_CODECS, header_charset, stated_codec, utf8_markup
from models.segment import (HEADING, LIST_ITEM, PARAGRAPH, PREFORMATTED, Anchor, Box, Hrefs, collapse, layout, segment,
                            visible_chars, void_marks)
from models.text import is_chinese

# Block headings, matched as lower-case substrings; the first class that matches wins.
_HEADING_WORDS = (
    ('noise', ('广告', '推广', '赞助', '热门', '热点', '排行', '评论', '分享', 'advertisement',
               'sponsored', 'popular', 'most read', 'most viewed', 'most shared', 'trending', 'comments',
               'newsletter', 'sign up', 'subscribe', 'follow us')),
    ('related', ('相关', '推荐', '延伸阅读', '猜你喜欢', 'related', 'see also', 'recommended',
                 'further reading', 'you may also like', 'you might also like', 'read more', 'read next',
                 'more stories', 'more from', 'top stories', 'editors\' picks')),
    ('navigation', ('友情链接', '合作伙伴', '导航', 'partner', 'navigation')),
)
# A line of an article that starts with one of these and a colon (or is one alone) points at another
# story, linked or not ('Read more: ...', 'LEA TAMBIÉN: ...', 'Czytaj też: ...'): not the story's.
# No word a speaker's line can start with ('Lee:', 'Mira:', 'Mire:' begin an interview's lines).
_READ_ALSO_WORDS = (
    'read more', 'read also', 'also read', 'read next', 'see also', 'related', 'recommended', 'more on this',
    'lea también', 'lee también', 'lea además', 'lea más', 'lee más', 'mire también', 'mira también', 'vea también',
    'ver también', 'ver más', 'puedes ver', 'puede ver', 'le puede interesar', 'te puede interesar',
    'también le puede interesar', 'te recomendamos', 'leer más', 'recomendado', 'relacionado', 'relacionada',
    'relacionados', 'relacionadas', 'leia também', 'veja também', 'leia mais', 'veja mais',
    'à lire aussi', 'a lire aussi', 'lire aussi', 'voir aussi', 'à lire', 'lire la suite', 'sur le même sujet',
    'lesen sie auch', 'lesen sie mehr', 'lesen sie dazu', 'lesen sie hier', 'auch interessant', 'mehr zum thema',
    'zum weiterlesen', 'weiterlesen', 'schon gelesen', 'siehe auch', 'das könnte sie auch interessieren',
    'passend dazu', 'mehr dazu', 'leggi anche', 'guarda anche',
    'czytaj też', 'czytaj także', 'czytaj więcej', 'zobacz też', 'zobacz także', 'zobacz', 'czytaj', 'polecamy',
    '相关阅读', '延伸阅读', '相关新闻', '推荐阅读', '相关链接')

LINK_DENSITY = 0.5            # anchor share of a block's text from which it is a link list
LINK_LINE_SHARE = 0.8         # anchor share of a content block's line from which it is not the story's
MAX_ANCHOR_MISSES = 50        # anchors not found in their block's text before the rest are not looked for
HEADING_LINK_DENSITY = 0.3    # a heading names a block of links, not an article's first line
MAX_HEADING_CHARS = 40
SHORT_ANCHOR_CHARS = 6        # a menu's mean anchor length: Chinese characters ...
SHORT_ANCHOR_WORDS = 3        # ... or words in other languages
LONG_BLOCK_CHARS = 400        # an article's paragraphs: longer than a teaser, a caption or a comment
ARTICLE_SHARE = 0.3           # long blocks with this share of the content text make an article page
KEEP_BEFORE = 2               # content blocks right before the first long one: headline, date line
HEADLINE_LOOKBACK = 10        # blocks before the first long one searched for the headline: share bars,
                              # bylines, a lead image sit between them, a page's other stories further up
MIN_HEADLINE_CHARS = 10       # a headline line found in the <title>, not a one-word site name
HEADLINE_LINES = 2            # of a block, where its headline is: the first, or the second under a kicker
IN_BODY_SHARE = 0.5           # of a block's characters in lines of the JSON-LD articleBody: the story's
FULL_BODY_SHARE = 0.8         # of the articleBody found in such blocks: a full text, not a summary
STORY_MARK_SHARE = 0.5        # of a page's text-dense characters inside one mark: the story's container
SHOWN_BODY_SHARE = 0.5        # of a JSON-LD articleBody in the page's blocks: else a script renders the story
STORY_LIST_CONTAINERS = ('ul', 'ol', 'dl', 'table')  # a block that is one list or table (not a layout's cell)
STORY_LIST_STOP_WORDS = 0.1   # stop-word density of a list of running text, not of a toolbar's labels
FALLBACK_MIN_CHARS = 100      # of a page's densest block, made content when nothing else is (a paragraph)
MIN_STANDFIRST_CHARS = 40     # of a meta description a block starts with: a sentence, not a site's slogan
MIN_BODY_LINE_CHARS = 20      # a shorter line ('Photo', 'Share') is found in any long text
MAX_READ_ALSO_CHARS = 200     # of a 'Read more: <headline>' line; a longer one is a paragraph
MAX_CREDIT_CHARS = 100        # of a 'Photo: <agency>' line
MAX_CONTROLS_CHARS = 40       # of a line of a page's controls ('Print | Email', 'Kommentare: 10')

_BINARY_SIGNATURES = (b'\x89PNG', b'GIF8', b'\xff\xd8\xff', b'%PDF', b'PK\x03\x04', b'\x1f\x8b')
_CONTROL_BYTES = bytes([*range(0, 9), *range(14, 27), *range(28, 32)])  # not ESC: ISO-2022 uses it
_NOT_TEXT = dict.fromkeys([*_CONTROL_BYTES, 0xFFFD])  # characters text never has many of, for str.translate
_MARKUP_TAG = re.compile(r'<[^>]*>')
# A photo's credit line: 'Foto: dpa', 'Photograph by ...', 'Bild via ...', 'Credit: Courtesy', '© Getty Images'
# (and a copyright line, '© Reuters 2007': today's main-text gold leaves both out, 2012's kept some).
_PHOTO_CREDIT = re.compile(r'\W{0,3}(?:(?:foto|fotos|photo|photos|photograph|photographs|photographer|photography|'
                           r'picture|image|images|bild|bilder|credit|credits|crédit|crédito|créditos|zdjęcie)'
                           r'(?:\s*(?:by|von|via|credit))?\s*[:：©/]|fot\.\s|©|(?:photo|photograph|foto|bild|image)s?'
                           r'\s+(?:by|von|via)\s)(?!.*[.!?。！？]$)', re.IGNORECASE)
_READ_ALSO = re.compile(r'\W{0,3}(?:%s)\s*(?:[:：»>]|[?？]?\s*$)' % '|'.join(
    re.escape(words) for words in sorted(_READ_ALSO_WORDS, key=len, reverse=True)), re.IGNORECASE)
# The words of a page's controls, printed beside its story as text rather than links: actions on the
# page (print, share, comment, close, font size, show an image ...) and an advertisement's label; a
# line of them alone ('Rezept drucken', 'Artikel teilen:', '35 comments »', 'Bild anzeigen Bild
# schließen', '- Anzeige -', '【打印】【关闭】') is no one's story. Words a story's heading or line can be
# alone ('Top 10', 'Download', 'Next', 'Rating: 8/10', '1. Facebook', 'Comment ?', 'Mehr Druck!',
# 'Antworten', 'Komentarz', 'Werbung', 'Hide', '评论') are only their companions.
_CONTROL_WORDS = frozenset('''
    print drucken drukuj imprimir imprimer stampare afdrukken
    share teilen partager compartir condividi udostępnij delen tweet twittern retweet email e-mail mailen
    comments kommentare kommentieren commenter commentaires comentar comentarios commenti
    komentarze skomentuj reply répondre responder enregistrer zapisz close schließen fermer cerrar chiudi zamknij
    schriftgröße vergrößern verkleinern bewerten anzeigen einblenden ausblenden enlarge
    advertisement anzeige publicidad publicité pubblicità reklama 广告
    打印 关闭 分享 分享到 发表评论 返回顶部 字号 纠错 打印本页 关闭窗口 复制链接'''.split())
# Words that may stand beside them ('Print this article', 'Auf WhatsApp teilen', 'Enlarge image', '字号：大 中 小'),
# never alone.
_CONTROL_COMPANION_WORDS = frozenset('''
    this it article artikel beitrag den diesen das der die dieser post seite page zur vorherigen auf per par en
    via bei on to of and und et y e o or oder size text recipe rezept recette receta przepis read lesen more
    mehr bild bilder image images foto fotos photo photos druck stampa mail comment kommentar komentarz werbung
    hide antworten like save speichern merken guardar salva download herunterladen télécharger descargar scarica
    pobierz back zurück retour volver indietro wstecz top previous next weiter nächste vorherige suivant
    précédent siguiente anterior font rate rating bewertung facebook twitter whatsapp linkedin xing pinterest
    telegram reddit 评论 返回 收藏 转发 顶部 大 中 小 本页 本文 窗口 到'''.split())
_CONTROL_LINE_WORDS = _CONTROL_WORDS | _CONTROL_COMPANION_WORDS
_CONTROL_SEPARATORS = re.compile(r'[\s\d|:/.\-–—•·»«›‹…>【】，：、!?#+]*')  # no brackets: 'print(e)' is code
_WORD = re.compile(r'[^\W\d_]+(?:-[^\W\d_]+)?')  # letters, 'e-mail' one word
_READ_ALSO_FIRST_WORDS = frozenset(_WORD.match(words).group() for words in _READ_ALSO_WORDS)
_PLAIN_PUNCTUATION = str.maketrans({**dict.fromkeys('‘’‚‛′', "'"), **dict.fromkeys('“”„‟″', '"'),
                                    **dict.fromkeys('‐‑‒–—―', '-'), '…': '...'})


class ExtractedLink(NamedTuple):
    """A NamedTuple: a real page has ~130 of them, made in a quarter of a dataclass's time."""
    url: str        # absolute, normalised
    anchor: str     # whitespace-collapsed anchor text; an image's alt or title when it has none
    context: str    # up to ~100 characters of the block's text around the anchor
    block: str      # one of block_model.BLOCK_CLASSES


@dataclasses.dataclass
class Block:
    kind: str                       # one of block_model.BLOCK_CLASSES
    text: str                       # a line per paragraph; a list's heading first
    links: list[ExtractedLink]


@dataclasses.dataclass
class ExtractedPage:
    title: str
    text: str                       # the content blocks' text in document order, a line per paragraph
                                    # (or the JSON-LD articleBody of a story the page does not show), in
                                    # NFC: one spelling of 'য়' or 'é' whichever the page's bytes used
    meta_keywords: str
    meta_description: str
    canonical: str | None
    encoding: str
    links: list[ExtractedLink]      # document order; exact duplicates dropped
    blocks: list[Block]             # document order
    measures: list[BlockMeasures]   # of each block: the block model's input
    error: str | None = None        # why nothing could be extracted


def extract_page(body: bytes, url: str, content_type: str | None = None, rules_only: bool = False,
                 model: TreeEnsemble | None = None) -> ExtractedPage:
    """Everything the crawl round needs from one page; bad input gives `error`, never an exception.
    rules_only leaves out the block model (to train it on the rules' classes; `model` is then unused);
    `model` replaces the shipped one (block_model.content_model(); a benchmark's model fitted without
    the page)."""
    if not body:
        return _failed('empty body')
    declared = header_charset(content_type)
    if _is_binary(body, stated_codec(body, declared)):
        return _failed('not HTML (binary)')
    markup, encoding = utf8_markup(body, declared)
    try:
        root = etree.fromstring(markup, _parser())
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as error:
        return _failed(f'unparsable HTML: {error}', encoding)
    if root is None:
        return _failed('no HTML document', encoding)
    landmarks = _landmarks(root)
    hrefs = Hrefs(_base_url(landmarks.base, url))
    meta = {}
    for element in landmarks.metas:
        meta.setdefault((element.get('name') or '').strip().lower(), collapse(element.get('content') or ''))
    body_element = root.find('body')
    boxes = segment(root if body_element is None else body_element, hrefs)
    layouts = [layout(box) for box in boxes]  # what a box reads does not depend on its marks
    words = density_stop_words(root.get('lang') or root.get('xml:lang'), (laid_out[1] for laid_out in layouts))
    finished = [_finish(box, laid_out, words) for box, laid_out in zip(boxes, layouts)]
    headlines = _headlines(landmarks)
    if _void_marks_around_the_story(boxes, finished, headlines):
        finished = [_finish(box, laid_out, words) if box.mark is not None else done
                    for box, laid_out, done in zip(boxes, layouts, finished)]
    measures = [measure for _, measure in finished]
    blocks = _article_window([block for block, _ in finished], [measure.chars for measure in measures],
                             [box.enclosing for box in boxes], headlines)
    for block, measure in zip(blocks, measures):
        measure.windowed = block.kind != measure.rule_kind
    bodies = [] if rules_only else _structured_bodies(landmarks.scripts)
    if not rules_only and blocks:
        blocks = _story_parts_the_model_misses(_model_classes(blocks, measures, model), measures)
        blocks = _structured_window(blocks, measures, ' '.join(bodies), headlines, meta.get('description', ''))
        blocks = _densest_when_none(blocks, measures)
    text = '\n'.join(line for block, measure in zip(blocks, measures) if block.kind == 'content'
                     for line in _story_lines(block, headlines, measure.preformatted > 0))
    return ExtractedPage(
        title=_title(landmarks),
        text=unicodedata.normalize('NFC', _script_rendered_story(text, blocks, bodies)),
        meta_keywords=meta.get('keywords', ''), meta_description=meta.get('description', ''),
        canonical=_canonical(landmarks.links, hrefs), encoding=encoding, links=_distinct_links(blocks),
        blocks=blocks, measures=measures)


def _failed(error: str, encoding: str = '') -> ExtractedPage:
    return ExtractedPage('', '', '', '', None, encoding, [], [], [], error)


def _model_classes(blocks: list[Block], measures: list[BlockMeasures],
                   model: TreeEnsemble | None = None) -> list[Block]:
    """Among the blocks the rules found text-dense (content, before the article window), the block
    model decides content or noise. What the rules saw more in (link lists, marks, headings such
    as 'Advertisement', hidden subtrees) keeps their class: it is what SSAPS scores links by."""
    rows = feature_rows(measures)
    is_content = decide_content(rows, np.array([block.kind == 'content' for block in blocks]), model)
    classes = []
    for block, measure, content in zip(blocks, measures, is_content):
        kind = 'content' if content else 'noise' if measure.rule_kind == 'content' else block.kind
        classes.append(block if kind == block.kind else _reclassed(block, kind))
    return classes


def _story_parts_the_model_misses(blocks: list[Block], measures: list[BlockMeasures]) -> list[Block]:
    """Blocks the rules found text-dense that the block model, trained on news pages, calls noise
    inside a story: preformatted text (code) anywhere between its first and last content blocks,
    and a list or table with running text (_is_story_list) right between two content blocks."""
    content = [index for index, block in enumerate(blocks) if block.kind == 'content']
    if len(content) < 2:
        return blocks
    first, last = content[0], content[-1]
    return [_reclassed(block, 'content') if (first < index < last and block.kind == 'noise'
                                             and measure.rule_kind == 'content'
                                             and (measure.preformatted or _is_story_list(blocks, index, measure)))
            else block for index, (block, measure) in enumerate(zip(blocks, measures))]


def _is_story_list(blocks: list[Block], index: int, measure: BlockMeasures) -> bool:
    """One list or table (not a layout's cell) with running text (STORY_LIST_STOP_WORDS) between two
    content blocks: a recipe's ingredients, a story's bullet points, a table of figures; a toolbar's
    'Font size: Decrease Increase' or a weather widget there has no running text."""
    return (measure.container in STORY_LIST_CONTAINERS and measure.stop_word_density >= STORY_LIST_STOP_WORDS
            and blocks[index - 1].kind == 'content' and blocks[index + 1].kind == 'content')


def _is_binary(body: bytes, stated: str | None = None) -> bool:
    """Images, archives and byte soup: a known signature, or control bytes text never has. Text in
    UTF-16 or UTF-32 (`stated` so by a byte-order mark or the header: html.stated_codec) is full of
    NUL bytes, so its characters are judged instead, with those its bytes cannot spell (U+FFFD; the
    sample cut to whole characters)."""
    sample = body[:4096]
    if sample.startswith(_BINARY_SIGNATURES):
        return True
    if stated in WIDE_CODECS:
        characters = sample[:len(sample) // 4 * 4].decode(stated, errors='replace')
        return len(characters) - len(characters.translate(_NOT_TEXT)) > 0.02 * len(characters)
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    return controls > 0.02 * len(sample)


_parsers = threading.local()


def _parser() -> etree.HTMLParser:
    """One parser per thread (lxml parsers are not thread-safe). The decoded markup is parsed
    as UTF-8 bytes, so no charset declaration in the page can decode it a second time. No table of
    id attributes: nothing looks an element up by id."""
    if not hasattr(_parsers, 'parser'):
        _parsers.parser = etree.HTMLParser(encoding='utf-8', remove_comments=True, remove_pis=True,
                                           huge_tree=True, collect_ids=False)
    return _parsers.parser


@dataclasses.dataclass
class _Landmarks:
    """The elements anywhere in a page that say what it is, found in one pass over the tree (a
    search of its own for each is a pass: seven of them cost ~0.5 ms on a real page)."""
    title: str | None = None      # text of the first <title>; None: the page has none
    h1: object = None             # the first <h1>
    base: str | None = None       # href of the first <base href>
    metas: list = dataclasses.field(default_factory=list)
    links: list = dataclasses.field(default_factory=list)
    scripts: list = dataclasses.field(default_factory=list)


def _landmarks(root) -> _Landmarks:
    found = _Landmarks()
    for element in root.iter('title', 'h1', 'base', 'meta', 'link', 'script'):
        tag = element.tag
        if tag == 'meta':
            found.metas.append(element)
        elif tag == 'link':
            found.links.append(element)
        elif tag == 'script':
            found.scripts.append(element)
        elif tag == 'title':
            if found.title is None:
                found.title = element.text or ''
        elif tag == 'h1':
            if found.h1 is None:
                found.h1 = element
        elif found.base is None:
            found.base = element.get('href')
    return found


def _base_url(base: str | None, url: str) -> str:
    if base is None:
        return url
    try:
        return urljoin(url, base.strip())
    except ValueError:  # a malformed <base href> is ignored, as browsers do
        return url


def _title(landmarks: _Landmarks) -> str:
    title = collapse(landmarks.title or '')
    heading = landmarks.h1 if not title else None
    return collapse(''.join(heading.itertext())) if heading is not None else title


def _canonical(links: list, hrefs: Hrefs) -> str | None:
    for link in links:
        if 'canonical' in (link.get('rel') or '').lower().split() and link.get('href'):
            return hrefs.url(link.get('href'))
    return None


def _void_marks_around_the_story(boxes: list[Box], finished: list[tuple[Block, BlockMeasures]], headlines: str) -> bool:
    """Navigation or noise marks around the story are mis-marks ('share_wrapper', 'adSkinLayer',
    'docked-sharebar' around a whole article) and void, with the marks above them: the marks around
    the page's longest visible text-dense block when it is long, and (a story laid out a block per
    paragraph, none of them long) the innermost mark whose blocks hold most of the page's
    text-dense characters when it also holds that longest block or the headline (comments can hold
    more text than a short story, never its headline). A hidden block is never the story (a consent
    dialog's texts, a script's data in a hidden <div>). True when a mark was voided."""
    dense = _dense_chars([measure for _, measure in finished])
    longest = max(range(len(dense)), key=dense.__getitem__, default=None)
    if longest is None or not dense[longest]:
        return False
    voided = dense[longest] >= LONG_BLOCK_CHARS and boxes[longest].marker is not None
    if voided:
        void_marks(boxes[longest].mark)
    held = collections.Counter()  # mark -> text-dense characters of the blocks inside it
    for box, chars in zip(boxes, dense):
        if chars:
            for mark in _marks_around(box):
                held[mark] += chars
    half = STORY_MARK_SHARE * sum(dense)
    holding = [mark for mark, chars in held.items() if chars >= LONG_BLOCK_CHARS and chars > half]
    innermost = min(holding, key=held.__getitem__, default=None)  # marks holding over half hold each other
    if innermost is None or innermost.void or not any(
            innermost in _marks_around(box) and (index == longest or _is_headline(block, headlines))
            for index, (box, (block, _)) in enumerate(zip(boxes, finished)) if dense[index]):
        return voided
    void_marks(innermost)
    return True


def _marks_around(box: Box):
    """The box's mark and the ones it overrides, innermost first."""
    mark = box.mark
    while mark is not None:
        yield mark
        mark = mark.outer


def _dense_chars(measures: list[BlockMeasures]) -> list[int]:
    """Each block's characters outside links when it is visible and text-dense (anchors under
    LINK_DENSITY of its text), else 0."""
    return [measure.chars - measure.anchor_chars
            if not measure.hidden and measure.anchor_chars < LINK_DENSITY * measure.chars else 0
            for measure in measures]


def _finish(box: Box, laid_out: tuple, stop_words: frozenset) -> tuple[Block, BlockMeasures]:
    """The box's text (a line per paragraph), its class, its links with their context, and what
    the block model measures of it; `laid_out`: the box's layout; `stop_words`: of the page's
    language (density_stop_words)."""
    raw, text, text_chars, anchor_chars, anchors, links = laid_out
    kind = _classify(box, raw, text_chars, anchor_chars, anchors)
    block = Block(kind, text, [ExtractedLink(url, anchor, context, kind) for url, anchor, context in links])
    lines, density, punctuation = text_measures(text, stop_words)
    # BlockMeasures' fields in order: made with keywords, it took three times as long (~80 blocks a page)
    measures = BlockMeasures(text_chars, anchor_chars, len(anchors), raw.count(PARAGRAPH), raw.count(LIST_ITEM),
                             raw.count(HEADING), box.tag, box.depth, box.marker, box.related_marker, box.article,
                             box.hidden, kind, lines, density, punctuation, raw.count(PREFORMATTED))
    return block, measures


def _classify(box: Box, raw: str, text_chars: int, anchor_chars: int, anchors: list[tuple[Anchor, int]]) -> str:
    """Marks first, then the heading, related-list words, and the links (module docstring); a
    hidden block is never content."""
    kind = _link_class(box, raw, text_chars, anchor_chars, anchors)
    return 'noise' if box.hidden and kind == 'content' else kind


def _link_class(box: Box, raw: str, text_chars: int, anchor_chars: int,
                anchors: list[tuple[Anchor, int]]) -> str:
    if box.marker:
        return box.marker
    density = anchor_chars / text_chars if text_chars else 1.0
    if anchors and density >= HEADING_LINK_DENSITY:
        named = _heading_class(_heading(raw, anchors[0][1]))
        if named:
            return named
    if not anchors or density < LINK_DENSITY:
        return 'content'
    if box.related_marker:
        return 'related'
    return 'navigation' if _short_anchors([anchor.anchor for anchor, _ in anchors]) else 'related'


def _headlines(landmarks: _Landmarks) -> str:
    """The <title> and the first <h1>, lower-cased, where the article's headline is found."""
    h1 = ''.join(landmarks.h1.itertext()) if landmarks.h1 is not None else ''
    return collapse(f'{landmarks.title or ""} | {h1}').lower()


def _is_headline(block: Block, headlines: str) -> bool:
    """The block's first line is the page's headline, or its second, under a kicker (a section's
    name, 'Updated', a topic's tag)."""
    return any(_is_headline_line(line, headlines) for line in block.text.split('\n', HEADLINE_LINES)[:HEADLINE_LINES])


def _is_headline_line(line: str, headlines: str) -> bool:
    """The line is the page's headline: found in its <title> or first <h1> (_headlines), and not
    a one-word site name."""
    line = line.lower()
    return len(line) >= MIN_HEADLINE_CHARS and line in headlines


def _article_window(blocks: list[Block], chars: list[int], enclosing: list[int],
                    headlines: str = '') -> list[Block]:
    """On an article page (its long content blocks hold ARTICLE_SHARE of the content text), content
    blocks before the first long block or after the last one become noise: teasers, short
    comments, the text of other stories. They had few links (< LINK_DENSITY), so noise, not
    navigation. The article starts earlier at up to KEEP_BEFORE adjacent content blocks (headline,
    date line), or at its headline: a content block that starts with a line of the <title> or
    first <h1>, among the HEADLINE_LOOKBACK blocks before the first long one. It ends later, at the
    last of the content blocks that follow the last long one in its container (`enclosing`:
    Box.enclosing of each block), up to the first block that is not content: the story's closing
    paragraphs, split from it by an image or an embed without text. `chars`: each block's visible
    characters (BlockMeasures.chars, counted as its text was laid out)."""
    sizes = [size if block.kind == 'content' else 0 for block, size in zip(blocks, chars)]
    long = [index for index, size in enumerate(sizes) if size >= LONG_BLOCK_CHARS]
    if not long or sum(sizes[index] for index in long) < ARTICLE_SHARE * sum(sizes):
        return blocks
    first, last = long[0], long[-1]
    while first > 0 and long[0] - first < KEEP_BEFORE and blocks[first - 1].kind == 'content':
        first -= 1
    story_container = enclosing[last]
    while last + 1 < len(blocks) and blocks[last + 1].kind == 'content' and enclosing[last + 1] == story_container:
        last += 1
    headline = next((index for index in range(first - 1, max(0, long[0] - HEADLINE_LOOKBACK) - 1, -1)
                     if blocks[index].kind == 'content' and _is_headline(blocks[index], headlines)), first)
    return [block if block.kind != 'content' or headline <= index <= last else _reclassed(block, 'noise')
            for index, block in enumerate(blocks)]


def _story_lines(block: Block, headlines: str, preformatted: bool = False) -> list[str]:
    """The lines of a content block that are the story's: not a line pointing at another story
    ('Read more: ...', _READ_ALSO_WORDS) or crediting a photo ('Foto: dpa'), nor a line that is
    mostly a link's anchor (LINK_LINE_SHARE of its visible characters), as 'Read also: <a>another
    story</a>' or a teaser's headline inside an article are; the page's own headline stays (many
    sites link it to the page itself). A block with preformatted text keeps every line: a code
    listing's '# © 2024 Example Corp' or 'image: nginx:1.25' is no credit. Each anchor is found in
    the text after the one before (links are in document order), so a block's lines and links take
    one pass, not one search per pair; after MAX_ANCHOR_MISSES anchors not in the text (an image's
    alt), the rest are not looked for."""
    lines = block.text.split('\n')
    if preformatted:
        return lines
    if not block.links:
        return [line for line in lines if not _aside_line(line) or _is_headline_line(line, headlines)]
    starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    linked, position, misses = [0] * len(lines), 0, 0
    for link in block.links:
        found = block.text.find(link.anchor, position) if link.anchor else -1
        if found < 0:
            misses += 1
            if misses > MAX_ANCHOR_MISSES:
                break
            continue
        linked[bisect.bisect_right(starts, found) - 1] += len(link.anchor) - link.anchor.count(' ')
        position = found + len(link.anchor)
    return [line for line, anchors in zip(lines, linked)
            if _is_headline_line(line, headlines)  # 'PHOTOS: ...' can be a headline
            or (anchors < LINK_LINE_SHARE * (len(line) - line.count(' ')) and not _aside_line(line))]


def _aside_line(line: str) -> bool:
    """'Read more: <another story>' (_READ_ALSO_WORDS) or such words alone on the line, a photo's
    credit ('Foto: dpa', '© Getty Images'), or a line of the page's controls ('Print | Email',
    _controls_line): not the story's words, though inside its paragraphs. Most lines fail at their
    first word, looked up in a set before a pattern of a hundred phrases is tried (~1 µs a line)."""
    first = _WORD.search(line)
    # lower-cased as re.IGNORECASE matches: 'ſ' as 's', 'ı' and 'İ' as 'i' (str.replace: ~0.05 µs a word)
    first = first.group().lower().replace('ſ', 's').replace('ı', 'i').replace('i\u0307', 'i') if first else ''
    return ((len(line) <= MAX_READ_ALSO_CHARS and first in _READ_ALSO_FIRST_WORDS
             and _READ_ALSO.match(line) is not None)
            or (len(line) <= MAX_CREDIT_CHARS and _PHOTO_CREDIT.match(line) is not None)
            or (len(line) <= MAX_CONTROLS_CHARS and first in _CONTROL_LINE_WORDS and _controls_line(line)))


def _controls_line(line: str) -> bool:
    """Words of the page's controls (_CONTROL_WORDS) and their companions, with counts and separators
    between them (not brackets or braces: 'print(e)' and '"comment": {' are code)."""
    words = _WORD.findall(line.lower())
    return (any(word in _CONTROL_WORDS for word in words) and all(word in _CONTROL_LINE_WORDS for word in words)
            and _CONTROL_SEPARATORS.fullmatch(_WORD.sub('', line)) is not None)


def _densest_when_none(blocks: list[Block], measures: list[BlockMeasures]) -> list[Block]:
    """A page left without content (its story under a paywall's or a layout's mark, every block
    called something else) gets its visible block with the most text outside links, when that is a
    paragraph's worth (FALLBACK_MIN_CHARS): a page's densest text is its main text more often than
    none at all is."""
    if any(block.kind == 'content' for block in blocks):
        return blocks
    dense = _dense_chars(measures)
    densest = max(range(len(dense)), key=dense.__getitem__)
    if dense[densest] < FALLBACK_MIN_CHARS:
        return blocks
    return [_reclassed(block, 'content') if index == densest else block for index, block in enumerate(blocks)]


def _structured_bodies(scripts: list) -> list[str]:
    """Each articleBody of the page's schema.org JSON-LD (news sites give search engines their
    story's text there), tags stripped and whitespace collapsed."""
    bodies = []
    for script in scripts:
        text = script.text or ''
        if 'articleBody' in text and (script.get('type') or '').strip().lower() == 'application/ld+json':
            try:
                bodies += _article_bodies(json.loads(text))
            except (ValueError, RecursionError):  # broken or absurdly deep JSON: the blocks alone decide
                continue
    return [collapse(html.unescape(_MARKUP_TAG.sub(' ', body))) for body in bodies]


def _article_bodies(document) -> list[str]:
    """Every articleBody string in a JSON-LD document, @graph lists and nested objects included."""
    if isinstance(document, list):
        return [body for item in document for body in _article_bodies(item)]
    if not isinstance(document, dict):
        return []
    own = document.get('articleBody')
    return ([own] if isinstance(own, str) else []) + [body for key, value in document.items() if key != 'articleBody'
                                                      for body in _article_bodies(value)]


def _structured_window(blocks: list[Block], measures: list[BlockMeasures], article_body: str,
                       headlines: str, description: str = '') -> list[Block]:
    """A JSON-LD articleBody of LONG_BLOCK_CHARS or more says what the story is: text-dense, visible
    blocks whose lines are in it (IN_BODY_SHARE of their characters) are content, whatever the
    rules and the model said. When such blocks hold FULL_BODY_SHARE of it (a full text, not a
    summary), the other content blocks (a newsletter box, teasers) become noise, but the headline
    and the standfirst (a block that starts with the page's meta description: the articleBody
    often leaves it out). Lines are matched with their quotes and dashes plain: a CMS types "he's"
    in the articleBody where the page shows "he’s"."""
    body_chars = visible_chars(article_body)
    if body_chars < LONG_BLOCK_CHARS:
        return blocks
    article_body = article_body.translate(_PLAIN_PUNCTUATION)
    standfirst = description.translate(_PLAIN_PUNCTUATION).rstrip('. ')
    in_body = [dense > 0 and _chars_in(block.text, article_body) >= IN_BODY_SHARE * measure.chars
               for block, measure, dense in zip(blocks, measures, _dense_chars(measures))]
    full = sum(measure.chars for measure, inside in zip(measures, in_body) if inside) >= FULL_BODY_SHARE * body_chars
    return [_reclassed(block, 'content') if inside and block.kind != 'content' else
            _reclassed(block, 'noise') if full and not inside and block.kind == 'content'
            and not _is_headline(block, headlines) and not _is_standfirst(block, standfirst) else block
            for block, inside in zip(blocks, in_body)]


def _script_rendered_story(text: str, blocks: list[Block], bodies: list[str]) -> str:
    """The main text, or the page's one JSON-LD articleBody when the page does not show it: a page
    whose script renders the story in the browser has only its frame in the markup (menus, a teaser
    or two, an empty <div id="root">), but tells search engines the whole story. Shown: the
    articleBody's characters in lines of any block (SHOWN_BODY_SHARE of them), or a main text at
    least that long. A page of several articleBodies (a front page's list of stories) is not one
    story."""
    if len(bodies) != 1:
        return text
    article_body = bodies[0]
    body_chars = visible_chars(article_body)
    if body_chars < LONG_BLOCK_CHARS or visible_chars(text) >= SHOWN_BODY_SHARE * body_chars:
        return text
    plain = article_body.translate(_PLAIN_PUNCTUATION)
    if sum(_chars_in(block.text, plain) for block in blocks) >= SHOWN_BODY_SHARE * body_chars:
        return text
    return article_body


def _is_standfirst(block: Block, standfirst: str) -> bool:
    """The block starts with `standfirst`, the page's meta description with plain punctuation and
    without the dots a CMS cuts a long one off with ('...'), when it has MIN_STANDFIRST_CHARS."""
    return (len(standfirst) >= MIN_STANDFIRST_CHARS
            and block.text[:len(standfirst) + 1].translate(_PLAIN_PUNCTUATION).startswith(standfirst))


def _chars_in(text: str, article_body: str) -> int:
    """Visible characters of the text's lines (MIN_BODY_LINE_CHARS or longer) in the articleBody."""
    return sum(visible_chars(line) for line in text.split('\n')
               if len(line) >= MIN_BODY_LINE_CHARS and line.translate(_PLAIN_PUNCTUATION) in article_body)


def _reclassed(block: Block, kind: str) -> Block:
    return Block(kind, block.text, [ExtractedLink(url=link.url, anchor=link.anchor, context=link.context, block=kind)
                                    for link in block.links])


def _heading(raw: str, first_link: int) -> str:
    """The block's first line that is not blank, when it ends before the first link (at
    `first_link` in raw) and is short. Read line by line up to that one: splitting all the text
    before the first link took ~30 µs on a long block, and only its first lines can matter."""
    start = 0
    while (end := raw.find('\n', start, first_link)) >= 0:
        line = raw[start:end]
        if line.strip():
            first = collapse(line)
            return first if len(first) <= MAX_HEADING_CHARS else ''
        start = end + 1
    return ''


def _heading_class(heading: str) -> str | None:
    if not heading:  # most blocks: no search through every word
        return None
    heading = heading.lower()
    return next((kind for kind, words in _HEADING_WORDS if any(word in heading for word in words)), None)


def _short_anchors(anchors: list[str]) -> bool:
    """Menu-like anchors: a few characters (Chinese) or words (other languages) each, on average."""
    joined = ' '.join(anchors)
    if is_chinese(joined):
        return visible_chars(joined) <= SHORT_ANCHOR_CHARS * len(anchors)
    return len(joined.split()) <= SHORT_ANCHOR_WORDS * len(anchors)


def _distinct_links(blocks: list[Block]) -> list[ExtractedLink]:
    seen, links = set(), []
    for block in blocks:
        for link in block.links:
            if (link.url, link.anchor, link.block) not in seen:
                seen.add((link.url, link.anchor, link.block))
                links.append(link)
    return links

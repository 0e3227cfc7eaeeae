# cython: language_level=3
"""Segmentation, compiled: one walk over a parsed page's body (lxml's libxml2 tree, read in C),
putting text and links into the innermost open container -> the page's boxes, the blocks
models/extract.py finishes and classifies (its docstring says what a block is and why).

The walk was Python over lxml's iterwalk, ~5 ms of a real news page's ~10 ms extraction (~600
elements, ~200 containers, ~130 anchors): a Python step per element event. Here the tree is read
in C (each node's children and siblings) and through lxml's public C API (its tag, text, tail
and attributes, as .tag, .text, .tail and .get give them), so only the text pieces, anchors and
boxes are Python objects. What the walk decides is the same, element by element. It visits
elements only, as iterwalk does on the trees of extract's parser, which drops comments and
processing instructions. A block's text measures for the block model are counted here too
(han_counts), in one pass over the text, and the block model's measure matrix and tree walk
(models/block_model.py) are compiled here as well.
"""
import functools
import re
from array import array
from urllib.parse import urljoin

import numpy as np

from cpython.array cimport array as c_array
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.dict cimport PyDict_GetItemWithError, PyDict_SetItem
from cpython.exc cimport PyErr_Occurred
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.ref cimport PyObject
from libc.math cimport log10, sqrt
from libc.stdint cimport uint64_t
from libc.string cimport memchr, memcmp, memcpy, memset, strchr, strcmp, strlen

from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode, xmlAttr, const_xmlChar
cimport lxml.includes.etreepublic as cetree

from models.urls import normalize_url

cetree.import_lxml__etree()

cdef extern from "Python.h":
    enum: PyUnicode_4BYTE_KIND
    bint Py_UNICODE_ISSPACE(Py_UCS4 character)  # str.split()'s whitespace
    bint Py_UNICODE_ISALNUM(Py_UCS4 character)  # with '_', what a regular expression's \w matches
    bint Py_UNICODE_ISDECIMAL(Py_UCS4 character)  # what its \d matches
    str PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)  # text[index], unchecked
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object text)  # from the string's kind: 0x7f for ASCII

cdef enum Role:
    NONE, SKIPPED, CONTAINER, LINE

cdef dict _TAG_ROLES = {  # typed module globals: Cython reads them with C calls, not attribute lookups
    # rt and rp: a ruby annotation's reading (furigana, pinyin) and its fallback brackets, not the text's words
    # math: a formula's MathML (Wikipedia's, hidden for screen readers, with its TeX), whose letters split a sentence
    **dict.fromkeys('script style noscript template svg math head select textarea iframe object rt rp'.split(), SKIPPED),
    **dict.fromkeys('div section article aside nav header footer main menu ul ol dl table td th form '
                    'center figcaption'.split(), CONTAINER),
    **dict.fromkeys('p h1 h2 h3 h4 h5 h6 br li tr dt dd hr blockquote pre address '
                    'caption'.split(), LINE),
}
# A figure's caption and credit line are not the story: news sites leave them out of the articleBody
# they give search engines, and main-text gold of today's pages does too.
cdef dict _TAG_HINTS = {'nav': 'navigation', 'menu': 'navigation', 'header': 'navigation', 'footer': 'navigation',
                        'aside': 'related', 'figcaption': 'noise'}
_SECTION_PARTS = ('header', 'footer')  # inside sectioning content or <main> they are its own (_in_section)
# A line's start marker says which tag began it, in a whitespace character text processing drops
# anyway (str.split), so the block model can count paragraphs, list items and headings, and the
# rules preformatted text (extract.py _story_parts_the_model_misses).
PARAGRAPH, LIST_ITEM, HEADING, PREFORMATTED = '\x1c', '\x1d', '\x1e', '\x1f'
_LINE_STARTS = {'p': '\n' + PARAGRAPH, **dict.fromkeys(('li', 'dt', 'dd'), '\n' + LIST_ITEM),
                **dict.fromkeys(('h1', 'h2', 'h3', 'h4', 'h5', 'h6'), '\n' + HEADING), 'pre': '\n' + PREFORMATTED}

MAX_INLINE_CHARS = 80         # no more text than this (and one link) -> part of the parent's text
MARKED_PAGE_SHARE = 0.5       # a marked container with half the page's text is its body, not a menu
cdef enum:
    CONTEXT_CHARS = 50        # link context on each side of the anchor
    NOSCRIPT_TEXT_CHARS = 200  # a <noscript> with this much text outside links is read (_has_fallback_text)


# A kind's class/id words: words of four letters or more also match as a prefix ('advert' ->
# 'advertisement'); shorter ones only whole ('ad' is not 'head' or 'add'). What a print stylesheet
# leaves out is a page's chrome, never its story: 'noprint', Bootstrap's 'hidden-print' and
# 'd-print-none' ('hiddenprint', 'printnone' as two words joined), Tailwind's 'print:hidden',
# 'hide-print', 'DontPrint' ('no-print' is not: a word after 'no' names what is not there).
_CLASS_WORD_LISTS = (
    ('noise', 'ad ads advert banner sponsor promo popular trending rank hot hotnews comment share social '
              'authorbox authorbio authorbiography authordescription authordesc authorsection authorcard '
              'authortooltip authordetails authorabout aboutauthor copyright newsletter signup subscription '
              'cookie consent gdpr paywall modal popup outbrain taboola disqus gg guanggao '
              'noprint hiddenprint hideprint printnone printhidden dontprint donotprint'),
    ('navigation', 'nav navbar navi menu topbar masthead toolbar breadcrumb crumb crumbs footer bottom pages '
                   'pagination pager'),
    ('related', 'related relate recommend seealso readmore morestories recirc teaser xgxw xgwz tj tuijian '
                'newslist side sidebar'),
)
# An article mark is a whole word of a part and a name: 'articlebody', 'entrycontent', 'storytext'.
_ARTICLE_WORDS = frozenset(f'{part}{name}' for part in ('article', 'entry', 'post', 'story', 'main', 'body')
                           for name in ('body', 'content', 'text'))
# Checked in this order; navigation and noise marks beat article and related ones on the same
# element and wherever they are above it (unless void). An article mark names the story's own
# container ('article-body', 'entry-content', itemprop articleBody): it voids the marks around it,
# and the block model weighs it.
_CLASS_KINDS = ('noise', 'navigation', 'article', 'related')
PREFIX_CHARS = 4


def _class_word_tables() -> tuple:
    """(whole word -> the first kind it names, a prefix's first PREFIX_CHARS letters -> its
    (prefix, kind) pairs), kinds as places in _CLASS_KINDS: a word is looked up, not searched for."""
    whole, prefixes = dict.fromkeys(_ARTICLE_WORDS, _CLASS_KINDS.index('article')), {}
    for kind, words in _CLASS_WORD_LISTS:
        for word in words.split():
            if len(word) < PREFIX_CHARS:
                whole.setdefault(word, _CLASS_KINDS.index(kind))
            else:
                prefixes.setdefault(word[:PREFIX_CHARS], []).append((word, _CLASS_KINDS.index(kind)))
    return whole, {start: tuple(pairs) for start, pairs in prefixes.items()}


cdef dict _WHOLE_CLASS_WORDS, _CLASS_PREFIXES
_WHOLE_CLASS_WORDS, _CLASS_PREFIXES = _class_word_tables()


# Attributes whose values name a block's role: class and id, ARIA roles, microdata, and the
# component names of script-built pages; C strings, so an element's other attribute names never
# become Python strings (_is_hint_attribute).
cdef enum:
    HINT_ATTRIBUTE_COUNT = 6
cdef const char* _HINT_ATTRIBUTES[HINT_ATTRIBUTE_COUNT]
_HINT_ATTRIBUTES[:] = [b'class', b'id', b'role', b'itemprop', b'data-component', b'data-testid']
# Class names that hide an element whatever its content (_hiding_class), and the prefixes of
# Bootstrap's that show it again on wider screens ('d-md-block', 'visible-lg'; not 'visible-print').
cdef enum:
    HIDING_CLASS_COUNT = 4
    SHOWING_PREFIX_COUNT = 9
cdef const char* _HIDING_CLASSES[HIDING_CLASS_COUNT]
_HIDING_CLASSES[:] = [b'hidden', b'hide', b'd-none', b'is-hidden']
cdef const char* _SHOWING_PREFIXES[SHOWING_PREFIX_COUNT]
_SHOWING_PREFIXES[:] = [b'd-sm-', b'd-md-', b'd-lg-', b'd-xl-', b'd-xxl-', b'visible-xs', b'visible-sm', b'visible-md',
                        b'visible-lg']
# styled-components' names (_without_styled_names): a component's id, with a capital or a digit in
# its hash ('sc-bdVaJa') or after the component's own name ('Box-sc-1fet97o-0'); once one says the
# element is styled, any 'sc-' name of that shape ('sc-plfsi' too); its generated class, 5 to 7
# letters that are not words ('jpAdLJ', not 'Header', 'navItem', 'TopAds' or 'PROMO').
_STYLED_ID = re.compile(r'^sc-(?=[a-z]*[A-Z0-9])[A-Za-z0-9]{5,10}$|-sc-[a-z0-9]{5,10}-[0-9]+$')
_STYLED_NAME = re.compile(r'^sc-[A-Za-z0-9]{5,10}$|-sc-[a-z0-9]{5,10}-[0-9]+$')
_STYLED_CLASS = re.compile(r'(?![A-Z]?[a-z]{2,}(?:[A-Z][a-z]{2,})*$|[A-Z]+$)[A-Za-z]{5,7}$')
# 'bottom' after a CSS spacing or alignment word in a class ('margin-bottom', 'modelMarginBottom',
# 'padding_bottom_1', 'u-gap-bottom', 'module--bare-bottom'): a side, where 'bottom' alone is a footer.
_SPACING_BOTTOM = re.compile(r'((?i:margin|padding|border|spacing|space|gap|align|position|remove|offset|inset|bare))'
                             r'[-_]*(?:[0-9]+[-_]*)?(?:[bB]ottom(?![a-z])|BOTTOM(?![A-Z]))')
# A word after these names what a container holds or is next to, not what it is: 'has-ad',
# 'no-sidebars', 'with-menu', 'below-banner' (_attribute_hint).
_RELATION_WORDS = frozenset('has with no without below above after before'.split())
_DEAD_HREF = re.compile(r'\s*(?:#|javascript:)', re.I)  # a menu item or a script's button, not a page
_HTTP_URL = re.compile(r'https?://', re.I)
_HTTP_SCHEME = re.compile(r'https?:', re.I)
_TABS_AND_NEWLINES = str.maketrans('', '', '\t\r\n')  # dropped from URLs, as browsers and urllib do
_ORIGIN = re.compile(r'([a-z][a-z0-9+.-]*)://[^/?#]*', re.I)
_OTHER_SCHEME = re.compile(r'(?!https?:)[a-z][a-z0-9+.-]*:', re.I)  # javascript:, mailto:, ...
cdef object _UNRESOLVED = object()


cpdef str collapse(str text):
    return ' '.join(text.split())


@functools.lru_cache(maxsize=1 << 16)
def _attribute_hint(str attributes):
    """The block class a class/id value names; 'sideBar', 'side-bar' and 'sidebar' alike: the
    first kind of _CLASS_KINDS any of its words or two adjacent words name (hint_words). A kind's
    long word names two adjacent words only when it takes more than half of the second ('side bars'
    is 'sidebar', 'page root' is not 'pager', nor 'page section' 'pages'); a word after a relation
    word names a neighbour ('has-ad'), 'bottom' after a spacing word is a CSS utility's side, not a
    footer ('margin-bottom'), and generated names (CSS Modules, styled-components) spell nothing.
    Remembered for as many values as a round's sites use together, its pages interleaved (over the
    1,166 extraction pages: 35,118 misses against 39,871 when it kept 4,096); a miss is a lookup per
    word, not a regular expression's search per kind (~6 us a value of Dragnet's pages)."""
    cdef Py_ssize_t best = len(_CLASS_KINDS), kind, index, singles, first
    cdef str word
    if 'sc-' in attributes:
        attributes = _without_styled_names(attributes)
    if '__' in attributes:
        attributes = ' '.join([_without_module_hash(name) for name in attributes.split()])
    if 'ottom' in attributes or 'OTTOM' in attributes:
        attributes = _SPACING_BOTTOM.sub(r'\1', attributes)
    cdef list words = hint_words(attributes)
    singles = (len(words) + 1) // 2  # the words, then each two adjacent ones joined
    cdef set after_relation = {index + 1 for index in range(singles - 1) if words[index] in _RELATION_WORDS}
    for index, word in enumerate(words):
        if after_relation and (index in after_relation if index < singles else
                               index - singles in after_relation or index - singles + 1 in after_relation):
            continue
        first = len(<str>words[index - singles]) if index >= singles else 0  # a pair's first word's letters
        kind = _WHOLE_CLASS_WORDS.get(word, best)
        if len(word) >= PREFIX_CHARS:
            for prefix, prefix_kind in _CLASS_PREFIXES.get(word[:PREFIX_CHARS], ()):
                if prefix_kind < kind and word.startswith(prefix) and (
                        not first or 2 * (len(prefix) - first) > len(word) - first):
                    kind = prefix_kind
        if kind < best:
            best = kind
            if best == 0:
                break
    return _CLASS_KINDS[best] if best < len(_CLASS_KINDS) else None


cpdef str _without_module_hash(str name):
    """A class name as CSS Modules make it (Next.js: file, name and a five-character hash,
    'BasePageLayout_Main__2pNav') without its hash, whose random letters can spell a class word
    ('Nav' made a page's <main> navigation); a BEM element ('article__share', 'post_list__title':
    one lower-case word) keeps its name."""
    head, _, tail = name.rpartition('__')
    return head if len(tail) == 5 and '_' in head and not tail.islower() else name


cpdef str _without_styled_names(str attributes):
    """A class value without the names styled-components makes: a component's id ('sc-bdVaJa', or
    'Box-sc-1fet97o-0' with its own name, which stays) and, beside it, its generated class
    ('jpAdLJ'), random letters that can spell a class word ('gGgCMh' held 'gg', 'jChgTj' 'tj' and
    made a news site's story an ad). Without such an id, 'sc-' names are a theme's own ('sc-sidebar')."""
    names = attributes.split()
    if not any([_STYLED_ID.search(name) for name in names]):
        return attributes
    kept = []
    for name in names:
        own = _STYLED_NAME.sub('', name)
        if own != name:  # an id: gone, or the component's own name
            if own:
                kept.append(own)
        elif not _STYLED_CLASS.match(name):
            kept.append(name)
    return ' '.join(kept)


cdef inline bint _is_ascii_capital(Py_UCS4 character):
    return c'A' <= character <= c'Z'


cdef inline bint _is_ascii_small(Py_UCS4 character):
    return c'a' <= character <= c'z'


cpdef list hint_words(str attributes):
    """The lower-cased words of a class/id value, then each two adjacent ones joined: 'hotNews-box2'
    -> hot news box 2 hotnews newsbox box2. Words as re.findall('[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+')
    finds them (ASCII letters and digits; a run of capitals before a capitalised word is a word of
    its own: 'HTMLParser' -> html parser), in one pass."""
    cdef list words = []
    cdef Py_ssize_t start = 0, end, length = len(attributes)
    cdef Py_UCS4 character
    while start < length:
        character = attributes[start]
        end = start + 1
        if _is_ascii_capital(character):
            while end < length and _is_ascii_capital(attributes[end]):
                end += 1
            if end < length and _is_ascii_small(attributes[end]):
                if end - start > 1:  # 'HTMLParser': the capitals but the last, then 'Parser'
                    words.append(attributes[start:end - 1].lower())
                    start = end - 1
                while end < length and _is_ascii_small(attributes[end]):
                    end += 1
        elif _is_ascii_small(character):
            while end < length and _is_ascii_small(attributes[end]):
                end += 1
        elif c'0' <= character <= c'9':
            while end < length and c'0' <= attributes[end] <= c'9':
                end += 1
        else:
            start = end
            continue
        words.append(attributes[start:end].lower())
        start = end
    words.extend([first + second for first, second in zip(words, words[1:])])
    return words


# --- a page's bytes (models/html.py utf8_markup) ---

cdef enum:
    GB_FIRST_LEAD = 0x81
    GB_FIRST_TRAIL = 0x40
    GB_TRAILS = 0xFE - 0x40 + 1  # a row of the table: trail bytes 0x40-0xFE (0x7F starts no character)

cdef c_array _gb18030_table = None


def two_byte_gb18030_table() -> array:
    """The character each two-byte GB18030 code is with Python's codec (0: none), row by lead byte
    (0x81-0xFE), column by trail byte (0x40-0xFE). A row is decoded in one call, and code by code
    only if that fails."""
    table = array('H', bytes(2 * (0xFE - GB_FIRST_LEAD + 1) * GB_TRAILS))
    trails = [trail for trail in range(GB_FIRST_TRAIL, 0xFF) if trail != 0x7F]
    for lead in range(GB_FIRST_LEAD, 0xFF):
        codes = [bytes((lead, trail)) for trail in trails]
        try:
            characters = b''.join(codes).decode('gb18030')
        except UnicodeDecodeError:
            characters = ''
        if len(characters) != len(codes):
            characters = []
            for code in codes:
                try:
                    characters.append(code.decode('gb18030'))
                except UnicodeDecodeError:
                    characters.append('')
        for trail, character in zip(trails, characters):
            if len(character) == 1 and 0x80 <= ord(character) <= 0xFFFF and not 0xD800 <= ord(character) <= 0xDFFF:
                table[(lead - GB_FIRST_LEAD) * GB_TRAILS + trail - GB_FIRST_TRAIL] = ord(character)
    return table


cpdef object gb18030_utf8(bytes body):
    """body.decode('gb18030').encode('utf-8') in one pass through a table, for a page of ASCII and
    two-byte codes (GBK's, as most pages labelled GB2312 or GBK are); None for anything else (a
    four-byte code, bytes that do not decode), which the caller decodes with Python's codec. Python's
    multibyte codec and the UTF-8 encoding after it took ~0.2 ms of a 44 KB Chinese news page."""
    global _gb18030_table
    if _gb18030_table is None:
        _gb18030_table = two_byte_gb18030_table()
    cdef const unsigned short* table = _gb18030_table.data.as_ushorts
    cdef const unsigned char* data = <const unsigned char*>PyBytes_AS_STRING(body)
    cdef Py_ssize_t length = PyBytes_GET_SIZE(body), index = 0, size = 0
    cdef unsigned int lead, trail, character
    # ASCII stays one byte; a two-byte code is at most three bytes of UTF-8 (the BMP's)
    cdef unsigned char* utf8 = <unsigned char*>PyMem_Malloc(length + length // 2 + 1)
    if utf8 is NULL:
        raise MemoryError()
    try:
        while index < length:
            lead = data[index]
            if lead < 0x80:
                utf8[size] = <unsigned char>lead
                size += 1
                index += 1
                continue
            if lead < GB_FIRST_LEAD or lead > 0xFE or index + 1 == length:
                return None
            trail = data[index + 1]
            if trail < GB_FIRST_TRAIL or trail > 0xFE:
                return None
            character = table[(lead - GB_FIRST_LEAD) * GB_TRAILS + trail - GB_FIRST_TRAIL]
            if character == 0:
                return None
            if character < 0x800:
                utf8[size] = <unsigned char>(0xC0 | (character >> 6))
                utf8[size + 1] = <unsigned char>(0x80 | (character & 0x3F))
                size += 2
            else:
                utf8[size] = <unsigned char>(0xE0 | (character >> 12))
                utf8[size + 1] = <unsigned char>(0x80 | ((character >> 6) & 0x3F))
                utf8[size + 2] = <unsigned char>(0x80 | (character & 0x3F))
                size += 3
            index += 2
        return PyBytes_FromStringAndSize(<char*>utf8, size)
    finally:
        PyMem_Free(utf8)


cdef inline bint _continues(const unsigned char* data, Py_ssize_t start, Py_ssize_t count):
    """The `count` bytes from `start` are UTF-8 continuation bytes (10xxxxxx)."""
    cdef Py_ssize_t index
    for index in range(start, start + count):
        if (data[index] & 0xC0) != 0x80:
            return False
    return True


cpdef bint is_utf8(bytes body):
    """body.decode('utf-8') succeeds (strict UTF-8: no overlong form, surrogate or code point past
    U+10FFFF), checked in one pass without making the str."""
    cdef const unsigned char* data = <const unsigned char*>PyBytes_AS_STRING(body)
    cdef Py_ssize_t length = PyBytes_GET_SIZE(body), index = 0, size
    cdef unsigned int lead, second
    cdef uint64_t word
    while index < length:
        lead = data[index]
        if lead < 0x80:
            index += 1
            while index + 8 <= length:  # ASCII runs eight bytes at a time (most of a page's markup)
                memcpy(&word, data + index, 8)
                if word & 0x8080808080808080ULL:
                    break
                index += 8
        elif 0xC2 <= lead <= 0xF4:
            size = 2 if lead <= 0xDF else 3 if lead <= 0xEF else 4
            if index + size > length or not _continues(data, index + 1, size - 1):
                return False
            second = data[index + 1]  # no overlong form, surrogate or code point past U+10FFFF
            if ((lead == 0xE0 and second < 0xA0) or (lead == 0xED and second > 0x9F)
                    or (lead == 0xF0 and second < 0x90) or (lead == 0xF4 and second > 0x8F)):
                return False
            index += size
        else:
            return False
    return True


# --- the libxml2 tree, read through lxml's public C API (what .tag, .text, .tail and .get return) ---

cdef inline str _tag(xmlNode* node):
    return cetree.namespacedName(node)


cdef inline object _attribute(xmlNode* node, const char* name):
    """element.get(name), asked of lxml only when the element has an attribute of that name (one
    C pass over its attributes: most elements have no style, hidden or title)."""
    cdef xmlAttr* attribute = node.properties
    while attribute is not NULL:
        if attribute.ns is NULL and strcmp(<const char*>attribute.name, name) == 0:
            return cetree.attributeValueFromNsName(node, NULL, <const_xmlChar*>name)
        attribute = attribute.next
    return None


cdef inline bint _is_hint_attribute(xmlAttr* attribute):
    cdef Py_ssize_t index
    if attribute.type != tree.XML_ATTRIBUTE_NODE or attribute.ns is not NULL:
        return False
    for index in range(HINT_ATTRIBUTE_COUNT):
        if strcmp(<const char*>attribute.name, _HINT_ATTRIBUTES[index]) == 0:
            return True
    return False


cdef inline xmlNode* _element_from(xmlNode* node):
    while node is not NULL and node.type != tree.XML_ELEMENT_NODE:
        node = node.next
    return node


cdef xmlNode* _first_image(xmlNode* top):
    """element.find('.//img'): the first <img> below `top` in document order."""
    cdef xmlNode* node = _element_from(top.children)
    cdef xmlNode* child
    while node is not NULL:
        if strcmp(<const char*>node.name, b'img') == 0:
            return node
        child = _element_from(node.children)
        if child is not NULL:
            node = child
            continue
        while node is not top and _element_from(node.next) is NULL:
            node = node.parent
        if node is top:
            return NULL
        node = _element_from(node.next)
    return NULL


cdef bint _in_section(xmlNode* node):
    """Inside sectioning content or <main>: where a <header> or <footer> is that part's own, not the
    page's banner or footer (HTML-AAM maps them to banner and contentinfo only outside article,
    aside, main, nav and section)."""
    cdef const char* name
    node = node.parent
    while node is not NULL and node.type == tree.XML_ELEMENT_NODE:
        name = <const char*>node.name
        if (strcmp(name, b'article') == 0 or strcmp(name, b'section') == 0 or strcmp(name, b'main') == 0
                or strcmp(name, b'aside') == 0 or strcmp(name, b'nav') == 0):
            return True
        node = node.parent
    return False


cdef object _element_hint(xmlNode* node, str tag):
    cdef xmlAttr* attribute = node.properties
    values = []
    while attribute is not NULL:  # element.items(), in document order
        if _is_hint_attribute(attribute):
            value = cetree.attributeValue(node, attribute)
            if value:
                values.append(value)
        attribute = attribute.next
    hint = _attribute_hint(' '.join(values)) if values else None
    if hint is None and tag in _TAG_HINTS:
        hint = None if tag in _SECTION_PARTS and _in_section(node) else _TAG_HINTS[tag]
    return hint


cdef bint _has_fallback_text(xmlNode* top):
    """At least NOSCRIPT_TEXT_CHARS visible characters (UTF-8 characters other than ASCII
    whitespace) in the text below `top`, outside links and skipped elements: a <noscript> that is a
    page's copy of its content for readers without scripts (Blogger's posts: the script that shows
    them is a template), or that holds the rest of the page because a tag left open inside it made
    the parser nest the page in it. Tracking pixels, ads and "enable JavaScript" notes stay out."""
    cdef Py_ssize_t chars = 0
    cdef const unsigned char* text
    cdef xmlNode* node = top.children
    while node is not NULL:
        if node.type == tree.XML_TEXT_NODE and node.content is not NULL:
            text = <const unsigned char*>node.content
            while text[0]:
                chars += (text[0] & 0xC0) != 0x80 and strchr(b' \t\n\r\f\v', text[0]) is NULL
                text += 1
            if chars >= NOSCRIPT_TEXT_CHARS:
                return True
        elif (node.type == tree.XML_ELEMENT_NODE and node.children is not NULL
              and strcmp(<const char*>node.name, b'a') != 0 and _role(_tag(node)) != SKIPPED):
            node = node.children
            continue
        while node is not top and node.next is NULL:
            node = node.parent
        if node is top:
            return False
        node = node.next
    return False


cdef bint _is_hidden(xmlNode* node):
    """An inline display:none or visibility:hidden style, a hidden attribute, or a class that
    hides it (_hiding_class), read in one C pass over its attributes. Not aria-hidden: what it
    leaves out of a screen reader's text is shown (an icon's ligature, a drop cap, a page behind an
    open dialog)."""
    cdef xmlAttr* attribute = node.properties
    cdef const char* name
    while attribute is not NULL:
        if attribute.ns is NULL:
            name = <const char*>attribute.name
            if strcmp(name, b'hidden') == 0:
                return True
            if strcmp(name, b'style') == 0:
                if hidden_style(cetree.attributeValue(node, attribute)):
                    return True
            elif strcmp(name, b'class') == 0:
                if _hiding_class(_text_value(attribute)):
                    return True
        attribute = attribute.next
    return False


cdef inline const char* _text_value(xmlAttr* attribute):
    """The attribute's value as libxml2 holds it, one text node (the HTML parser resolves
    references in it); "" when it is empty or held otherwise."""
    cdef xmlNode* text = attribute.children
    if text is NULL or text.next is not NULL or text.type != tree.XML_TEXT_NODE or text.content is NULL:
        return b''
    return <const char*>text.content


cdef inline bint _is_space(char character):
    return character == c' ' or character == c'\t' or character == c'\n' or character == c'\r' or character == c'\f'


cdef bint _hiding_class(const char* value):
    """A class name CSS frameworks hide an element with (_HIDING_CLASSES: Bootstrap's, Tailwind's,
    Bulma's, HTML5 Boilerplate's 'hidden'), and none that may show it again: Bootstrap's display
    from a screen width on ('d-none d-md-block', 'hidden visible-lg'; not 'd-md-none') or any
    Tailwind variant ('hidden lg:flex'; 'hidden hover:underline' too, erring on the side of
    shown). What it hides: a menu's copy for phones, a script's settings in a <div class="hidden">,
    a closed tab. Class names match exactly, as CSS matches them."""
    cdef bint hides = False
    cdef const char* start
    cdef Py_ssize_t length, index, prefix
    while value[0]:
        while _is_space(value[0]):
            value += 1
        start = value
        while value[0] and not _is_space(value[0]):
            value += 1
        length = value - start
        if not length:
            break
        if memchr(start, c':', length) is not NULL:
            return False
        for index in range(SHOWING_PREFIX_COUNT):
            prefix = strlen(_SHOWING_PREFIXES[index])
            if (length >= prefix and memcmp(start, _SHOWING_PREFIXES[index], prefix) == 0
                    and not (length >= 5 and memcmp(value - 5, b'-none', 5) == 0)):
                return False
        for index in range(HIDING_CLASS_COUNT):
            if <size_t>length == strlen(_HIDING_CLASSES[index]) and memcmp(start, _HIDING_CLASSES[index], length) == 0:
                hides = True
    return hides


cdef inline bint _is_in_any_case(Py_UCS4 character, Py_UCS4 small):
    """`character` is the ASCII letter `small` as re.IGNORECASE reads it ('İ' and 'ı' are 'i', 'ſ' is 's')."""
    if character < 128:
        return (<unsigned int>character | 32) == small
    return (small == c'i' and (character == 0x130 or character == 0x131)) or (small == c's' and character == 0x17f)


cdef Py_ssize_t _word_end(int kind, void* data, Py_ssize_t length, Py_ssize_t index, const char* word):
    """Where `word` (lower-case ASCII letters), in any case, ends when it starts at index; -1 when it does not."""
    cdef Py_ssize_t at = 0
    while word[at] != 0:
        if index + at >= length or not _is_in_any_case(PyUnicode_READ(kind, data, index + at), word[at]):
            return -1
        at += 1
    return index + at


cdef Py_ssize_t _after_spaces(int kind, void* data, Py_ssize_t length, Py_ssize_t index):
    while index < length and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, index)):
        index += 1
    return index


cpdef bint hidden_style(str style):
    """re.search(r'display\\s*:\\s*none|visibility\\s*:\\s*hidden', style, re.I) is not None, in one
    pass: a hidden element's inline style (a real page has ~90 elements with a style)."""
    cdef Py_ssize_t length = len(style), start, index
    cdef int kind = PyUnicode_KIND(style)
    cdef void* data = PyUnicode_DATA(style)
    cdef const char* value
    for start in range(length):
        index = _word_end(kind, data, length, start, b'display')
        value = b'none'
        if index < 0:
            index = _word_end(kind, data, length, start, b'visibility')
            value = b'hidden'
        if index < 0:
            continue
        index = _after_spaces(kind, data, length, index)
        if index < length and PyUnicode_READ(kind, data, index) == c':':
            if _word_end(kind, data, length, _after_spaces(kind, data, length, index + 1), value) >= 0:
                return True
    return False


# --- links ---

cdef class Hrefs:
    """Resolves a page's hrefs to absolute normalised http(s) URLs, or None (fragments,
    javascript:, broken). A relative href is appended to the base's directory (or path, for a
    '?query'): normalize_url resolves its dot segments, as urljoin would, at a tenth of the cost.
    Compiled, as the walk that calls it for each anchor (~130 a real page) is."""
    cdef readonly str base
    cdef str scheme, origin, path, directory
    cdef dict resolved              # a page links to its menu's pages from several blocks

    def __init__(self, str base):
        self.base = base
        origin = _ORIGIN.match(base)
        self.scheme, self.origin = (origin.group(1), origin.group()) if origin else ('', '')
        self.path = base.split('#', 1)[0].split('?', 1)[0]
        self.directory = self.path[:self.path.rfind('/') + 1] if self.path.count('/') > 2 else self.path + '/'
        self.resolved = {}

    cpdef object url(self, str href):
        url = self.resolved.get(href, _UNRESOLVED)
        if url is _UNRESOLVED:
            # most hrefs hold no tab or newline: isprintable() says so ~10x faster than translate() does nothing
            url = self.resolved[href] = self._resolve(
                (href if href.isprintable() else href.translate(_TABS_AND_NEWLINES)).strip())
        return url

    cdef object _resolve(self, str href):
        if href.startswith(('http://', 'https://')):  # most hrefs
            absolute = href
        elif href.startswith('//'):
            absolute = f'{self.scheme}:{href}'
        elif href.startswith('/'):
            absolute = self.origin + href
        elif not href or href.startswith('#') or _OTHER_SCHEME.match(href):
            return None
        elif _HTTP_URL.match(href):  # HTTP:// in capitals
            absolute = href
        elif _HTTP_SCHEME.match(href):  # 'http:/path', 'http:path': urljoin's reading of a broken href
            absolute = urljoin(self.base, href)
        else:
            absolute = (self.path if href.startswith('?') else self.directory) + href
        canonical = canonical_url(absolute)
        if canonical is not None:
            return canonical
        try:
            return normalize_url(absolute)
        except ValueError:  # UrlError
            return None


cdef inline bint _is_host_character(Py_UCS4 character):
    return c'a' <= character <= c'z' or c'0' <= character <= c'9' or character == c'-'


cdef inline bint _is_plain(Py_UCS4 character):
    """A character no part of a URL encodes (models.urls._PLAIN)."""
    return (c'a' <= character <= c'z' or c'A' <= character <= c'Z' or c'0' <= character <= c'9'
            or (0 < character < 128 and strchr(b"-._~:@!$&'()*+,;=", <char>character) != NULL))


cdef inline bint _is_upper_hex(Py_UCS4 character):
    return c'0' <= character <= c'9' or c'A' <= character <= c'F'


cdef bint _is_kept_escape(Py_UCS4 high, Py_UCS4 low):
    """%XX in upper case of a byte that is not an unreserved character (models.urls._ESCAPE)."""
    if not (_is_upper_hex(high) and _is_upper_hex(low)):
        return False
    if high == c'2':
        return low != c'D' and low != c'E'        # '-', '.'
    if high == c'3':
        return low >= c'A'                          # not a digit
    if high == c'4' or high == c'6':
        return low == c'0'                          # '@', '`': not a letter
    if high == c'5':
        return c'B' <= low <= c'E'                  # not a letter or '_'
    if high == c'7':
        return c'B' <= low <= c'D' or low == c'F'   # not a letter or '~'
    return True                                     # controls and bytes of 0x80 and above


cdef Py_ssize_t _plain_run(str url, Py_ssize_t index, bint query):
    """The end of the run of plain characters and kept escapes (and '/' and '?' in a query) at index."""
    cdef Py_ssize_t length = len(url)
    cdef int kind = PyUnicode_KIND(url)
    cdef void* data = PyUnicode_DATA(url)
    cdef Py_UCS4 character
    while index < length:
        character = PyUnicode_READ(kind, data, index)
        if _is_plain(character) or (query and (character == c'/' or character == c'?')):
            index += 1
        elif (character == c'%' and index + 2 < length
              and _is_kept_escape(PyUnicode_READ(kind, data, index + 1), PyUnicode_READ(kind, data, index + 2))):
            index += 3
        else:
            break
    return index


cpdef object canonical_url(str url):
    """normalize_url(url) when the URL is one normalisation leaves as it is but for its fragment
    and an empty path (models.urls._CANONICAL matches it), else None; in one compiled pass, as
    the regular expression reads it: most links of real pages are like this, and each new one
    cost a regular expression's match and a cache's miss."""
    cdef Py_ssize_t length = len(url), index, label, path, query, end
    cdef int kind = PyUnicode_KIND(url)
    cdef void* data = PyUnicode_DATA(url)
    if url.startswith('http://'):
        index = 7
    elif url.startswith('https://'):
        index = 8
    else:
        return None
    while True:  # the host's labels: [a-z0-9-]+ separated by dots
        label = index
        while index < length and _is_host_character(PyUnicode_READ(kind, data, index)):
            index += 1
        if index == label:
            return None
        if index < length and PyUnicode_READ(kind, data, index) == c'.':
            index += 1
            continue
        break
    path = index
    while index < length and PyUnicode_READ(kind, data, index) == c'/':  # segments, then maybe a '/'
        end = _plain_run(url, index + 1, False)
        if end == index + 1:  # the closing '/': nothing may follow but a query, a fragment or the end
            index += 1
            break
        if end - index <= 3 and PyUnicode_READ(kind, data, index + 1) == c'.' and (
                end - index == 2 or PyUnicode_READ(kind, data, index + 2) == c'.'):
            return None  # a '.' or '..' segment
        index = end
    query = index
    if index < length and PyUnicode_READ(kind, data, index) == c'?':
        index = _plain_run(url, index + 1, True)
        if index == query + 1:
            return None
    end = index
    if index < length:
        if PyUnicode_READ(kind, data, index) != c'#':
            return None
        for index in range(index + 1, length):
            if Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, index)):
                return None
    if path == query:
        return url[:path] + '/' + url[query:end]
    return url if end == length else url[:end]


# --- boxes ---

cdef class Anchor:
    cdef public object url        # None: a '#' or javascript: link, counted as link text but not a link
    cdef public str anchor
    cdef public Py_ssize_t raw_length  # of its text in the block's raw text


cdef Anchor _anchor(url):
    """A new anchor, made without a Python call (~130 a real page)."""
    cdef Anchor anchor = Anchor.__new__(Anchor)
    anchor.url, anchor.anchor, anchor.raw_length = url, '', 0
    return anchor


cdef class Mark:
    """A navigation or noise mark on a container, valid for everything inside it unless void."""
    cdef public str kind
    cdef public Mark outer        # the mark it overrides, which holds again if this one is void
    cdef public bint void         # the container holds most of the page's text: a mis-mark

    def __init__(self, kind, outer):
        self.kind, self.outer, self.void = kind, outer, False

    cpdef Mark holding(self):
        cdef Mark mark = self
        while mark is not None and mark.void:
            mark = mark.outer
        return mark


cdef Mark _mark(str kind, Mark outer):
    """A new mark, made without a Python call to __init__ (~70 a real page)."""
    cdef Mark mark = Mark.__new__(Mark)
    mark.kind, mark.outer, mark.void = kind, outer, False
    return mark


def void_marks(Mark mark):
    """The mark and the ones it overrides: mis-marks on the containers around the story."""
    while mark is not None:
        mark.void, mark = True, mark.outer


cdef class Box:
    """A block under construction: text pieces, Anchors and inner Boxes in document order."""
    cdef public list items
    cdef public Mark mark           # navigation or noise, from the container or an ancestor
    cdef public bint related_marker  # a related-list word on the container or an ancestor
    cdef public bint article        # in the story's own container (an article mark)
    cdef public bint marked         # the container itself has a hint, so it stays a block
    cdef public bint small          # at most one link and a line or two of text, no marks
    cdef public bint hidden         # in a subtree the browser does not show: never content
    cdef public Mark own_mark       # the container's own mark, made void if it holds most of the page
    cdef public str tag             # the container's
    cdef public int depth           # containers around it
    cdef Py_ssize_t chars           # visible characters, once counted (_box_chars)
    cdef Py_ssize_t inner           # inner boxes added to items: most containers have none
    cdef Py_ssize_t number          # a container's, in document order (0: the body, and own-text boxes)
    cdef public Py_ssize_t enclosing  # the number of the container it is in (its own text's: that container's)
    cdef xmlNode* node              # the container's element while the walk is in it, else NULL

    def __init__(self, list items=None, Mark mark=None, bint related_marker=False, bint article=False,
                 bint marked=False, bint hidden=False, Mark own_mark=None, str tag='body', int depth=0):
        self._fill([] if items is None else items, mark, related_marker, article, marked, hidden, own_mark, tag,
                   depth)

    cdef _fill(self, list items, Mark mark, bint related_marker, bint article, bint marked, bint hidden,
               Mark own_mark, str tag, int depth):
        self.items = items
        self.mark, self.related_marker, self.article, self.marked = mark, related_marker, article, marked
        self.small, self.hidden, self.own_mark, self.tag, self.depth = False, hidden, own_mark, tag, depth
        self.chars, self.inner = -1, 0

    cdef Box inside(self, xmlNode* node, str tag, bint hidden):
        """An empty box for a container (or hidden element) in this one: its own marker beats its
        ancestors'. A hidden element stays a block of its own, as a marked container does."""
        hint = _element_hint(node, tag)
        own = _mark(hint, self.mark) if hint in ('navigation', 'noise') else None
        if hint == 'article':
            void_marks(self.mark)
        cdef Box box = Box.__new__(Box)  # without a Python call to __init__ (~200 boxes a real page)
        box._fill([], own or self.mark, self.related_marker or hint == 'related', self.article or hint == 'article',
                  hint is not None or hidden, self.hidden or hidden, own, tag, self.depth + 1)
        box.node = node
        box.enclosing = self.number
        return box

    cdef Box own_text(self, list items):
        """A block of this container's own pieces, between or around its inner boxes."""
        cdef Box box = Box.__new__(Box)
        box._fill(items, self.mark, self.related_marker, self.article, False, self.hidden, None, self.tag, self.depth)
        box.enclosing = self.number
        return box

    @property
    def marker(self):
        mark = self.mark.holding() if self.mark is not None else None
        return mark.kind if mark is not None else None


def segment(body, Hrefs hrefs) -> list:
    """The body's boxes, in document order. The body's own class says what the page is, not what
    a block is: it is not a hint. `hrefs.url(href)` resolves a link (None: not a page)."""
    cdef xmlNode* top = (<cetree._Element?>body)._c_node
    if top is NULL or top.type != tree.XML_ELEMENT_NODE:
        raise TypeError(f'segment() walks an element, not {body!r}')
    cdef xmlNode* node = top
    cdef xmlNode* child
    cdef _Walk walk = _Walk.__new__(_Walk)
    walk.top, walk.hrefs, walk.page, walk.marks = top, hrefs, Box(), []
    walk.open_boxes, walk.items = [walk.page], walk.page.items
    cdef bint skip = walk.start(node)
    while True:  # as lxml's iterwalk: a start event per element, its end after its subtree's
        child = NULL if skip else _element_from(node.children)
        if child is not NULL:
            node = child
            skip = walk.start(node)
            continue
        while True:
            walk.end(node)
            if node is top:
                return walk.finish()
            child = _element_from(node.next)
            if child is not NULL:
                node = child
                skip = walk.start(node)
                break
            node = node.parent


cdef inline int _role(str tag):
    return _TAG_ROLES.get(tag, NONE)


cdef class _Walk:
    """The walk's state: the open boxes (innermost last), the open anchor, the marks seen."""
    cdef xmlNode* top
    cdef Hrefs hrefs
    cdef Box page                   # the body's box: it has no node, so no end of an element closes it
    cdef list open_boxes, marks
    cdef list items                 # the innermost open box's
    cdef xmlNode* anchor_node
    cdef Anchor anchor
    cdef Py_ssize_t anchor_start
    cdef int preformatted           # open <pre> elements: their text's line breaks are lines
    cdef Py_ssize_t containers_opened  # so far: each container box's number

    cdef bint start(self, xmlNode* node) except -1:
        """The element's start; True: skip its subtree."""
        cdef str tag = _tag(node)
        cdef int role = _role(tag)
        cdef Box box
        if role == SKIPPED:
            if strcmp(<const char*>node.name, b'noscript') != 0 or not _has_fallback_text(node):
                return True
            role = CONTAINER
        hidden = self.anchor is None and node is not self.top and _is_hidden(node)
        if (role == CONTAINER or hidden) and self.anchor is None and node is not self.top:
            box = (<Box>self.open_boxes[-1]).inside(node, tag, hidden)
            self.containers_opened += 1
            box.number = self.containers_opened
            self.open_boxes.append(box)
            self.items = box.items
        elif role == LINE:
            self.items.append(_LINE_STARTS.get(tag, '\n'))
        if self.anchor is None and strcmp(<const char*>node.name, b'a') == 0:
            href = _attribute(node, b'href')
            url = self.hrefs.url(href) if href is not None else None
            if url or (href is not None and _DEAD_HREF.match(href)):
                self.anchor_node, self.anchor, self.anchor_start = node, _anchor(url), len(self.items) + 1
                self.items.append(self.anchor)
        if strcmp(<const char*>node.name, b'pre') == 0:
            self.preformatted += 1
        text = cetree.textOf(node)
        if text:
            self.items.append(self._piece(text))
        return False

    cdef str _piece(self, str text):
        """'\\n' marks line breaks only: a source line break is a space, but in a <pre> (code, a
        poem, a plain-text mail), where the browser shows it as one. Invisible hyphenation and
        word-break hints are not text (_without_invisible)."""
        return _without_invisible(text if self.preformatted else text.replace('\n', ' '))

    cdef int end(self, xmlNode* node) except -1:
        cdef Box box = self.open_boxes[-1], parent
        if node is self.anchor_node:
            _close_anchor(self.anchor, node, self.items[self.anchor_start:])
            self.anchor_node, self.anchor = NULL, None
        if node is box.node:
            self.open_boxes.pop()
            box.node = NULL  # the box outlives the walk, and the tree may not
            if box.own_mark is not None:
                self.marks.append((box.own_mark, _box_chars(box)))
            parent = self.open_boxes[-1]
            self.items = parent.items
            closed = _close(box)
            parent.inner += len(closed)
            self.items.extend(closed)
        elif _role(_tag(node)) == LINE:
            self.items.append('\n')
        if strcmp(<const char*>node.name, b'pre') == 0:
            self.preformatted -= 1
        tail = cetree.tailOf(node)
        if tail:
            self.items.append(self._piece(tail))
        return 0

    cdef list finish(self):
        """Void marks on a container of most of the page's text (extract.py's docstring); the
        page's blocks."""
        cdef Mark mark
        if self.marks:
            page_chars = _box_chars(self.page)
            for mark, chars in self.marks:
                mark.void = mark.void or (page_chars > 0 and chars >= MARKED_PAGE_SHARE * page_chars)
        _inline_small_boxes(self.page)
        return _split(self.page)


cdef inline bint _is_invisible(Py_UCS4 character):
    """A soft hyphen (German and Dutch sites hyphenate every long word with &shy;), a zero-width
    space or word joiner, a byte order mark: shown as nothing, they would split a word for
    search and tokens. Joiners that shape a script's letters (U+200C, U+200D) are kept."""
    return character == 0xAD or character == 0x200B or character == 0x2060 or character == 0xFEFF


cdef str _without_invisible(str text):
    """The text without _is_invisible characters: the same string when it has none, as nearly every
    piece has (checked in place; an ASCII piece is not even read)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t index, length = len(text)
    if PyUnicode_MAX_CHAR_VALUE(text) < 0xAD:
        return text
    for index in range(length):
        if _is_invisible(PyUnicode_READ(kind, data, index)):
            return ''.join([character for character in text if not _is_invisible(character)])
    return text


cdef _close_anchor(Anchor anchor, xmlNode* node, list pieces):
    text = ''.join(pieces)
    anchor.anchor = collapse(text)
    anchor.raw_length = len(text)
    if not anchor.anchor:
        image = _first_image(node)
        labels = (_attribute(image, b'alt'), _attribute(image, b'title')) if image is not NULL else ()
        anchor.anchor = collapse(next((label for label in (*labels, _attribute(node, b'title')) if label), ''))


cdef Py_ssize_t _box_chars(Box box):
    """Visible characters of the box's text and its inner boxes', counted once per box: moving
    pieces between boxes later (inlining, splitting) never changes a box's total."""
    cdef Py_ssize_t chars = 0
    if box.chars < 0:
        for item in box.items:
            if type(item) is str:
                chars += _visible_chars(<str>item, PY_SSIZE_T_MAX)
            elif type(item) is Box:
                chars += _box_chars(<Box>item)
        box.chars = chars
    return box.chars


cdef list _close(Box box):
    """What a finished container adds to its parent: nothing, one small box, or its blocks."""
    if _inline_small_boxes(box):
        return _split(box)
    if not _has_content(box.items):
        return []
    box.small = not box.marked and _is_small(box.items)
    return [box]


cdef bint _inline_small_boxes(Box box):
    """Small inner boxes rejoin the container's text when it has text of its own (a date line, a
    print link under an article) or when all of them are small (a link table's cells). True
    when inner boxes remain."""
    if not box.inner:
        return False
    inner = [item for item in box.items if type(item) is Box]
    if all([(<Box>item).small for item in inner]) or _has_content(box.items):
        box.items = [piece for item in box.items
                     for piece in (['\n', *(<Box>item).items, '\n'] if type(item) is Box and (<Box>item).small
                                   else (item,))]
        return any([not (<Box>item).small for item in inner])
    return True


cdef bint _has_content(list items):
    """An anchor or some text, not counting inner boxes."""
    for item in items:
        if type(item) is str:
            if not (<str>item).isspace():
                return True
        elif type(item) is Anchor and (<Anchor>item).url:
            return True
    return False


cdef bint _is_small(list items):
    strings = [item for item in items if type(item) is str]
    return len(items) - len(strings) <= 1 and _at_most_visible_chars(strings, MAX_INLINE_CHARS)


cdef Py_ssize_t _visible_chars(str string, Py_ssize_t limit):
    """len(''.join(string.split())), counted in place (no list of its words), or more than `limit`
    once it is known to be."""
    cdef Py_ssize_t visible = 0
    cdef Py_UCS4 character
    for character in string:
        visible += not Py_UNICODE_ISSPACE(character)
        if visible > limit:
            break
    return visible


cpdef Py_ssize_t visible_chars(str text):
    """len(''.join(text.split())): the characters a reader sees, whitespace of every kind left out."""
    return _visible_chars(text, PY_SSIZE_T_MAX)


cdef bint _at_most_visible_chars(list strings, Py_ssize_t limit):
    """At most `limit` visible characters in the strings together (short ones are not read)."""
    cdef Py_ssize_t length = 0, visible = 0
    for string in strings:
        length += len(<str>string)
    if length <= limit:
        return True
    for string in strings:
        visible += _visible_chars(<str>string, limit - visible)
        if visible > limit:
            return False
    return True


cdef list _split(Box box):
    """The box's inner boxes, with its own pieces between them as boxes of their own; a short
    text just before an inner box becomes that box's heading."""
    boxes, run = [], []
    for item in box.items:
        if type(item) is not Box:
            run.append(item)
            continue
        if run and _has_content(run):
            if _is_heading(run):
                (<Box>item).items[:0] = [*run, '\n']
            else:
                boxes.append(box.own_text(run))
        boxes.append(item)
        run = []
    if _has_content(run):
        boxes.append(box.own_text(run))
    return boxes


cdef bint _is_heading(list run):
    """Text only, and short: the title of the box that follows."""
    return all([type(piece) is str for piece in run]) and _at_most_visible_chars(run, MAX_INLINE_CHARS)


# --- a finished box's text ---

def layout(Box box) -> tuple:
    """What a finished box reads: its raw text (the pieces joined), its text (a line per paragraph,
    whitespace collapsed: lines_text), the visible characters of that text and of its anchors,
    its Anchors with their start in the raw text, and (URL, anchor text, context) of each anchor
    that is a link (a URL), its context read off the raw text."""
    cdef list pieces = [], anchors = [], links = []
    cdef Py_ssize_t offset = 0, anchor_chars = 0, start, index
    cdef Anchor anchor
    for item in box.items:
        if type(item) is str:
            pieces.append(item)
            offset += len(<str>item)
        else:
            anchors.append((item, offset))
    cdef str raw = ''.join(pieces)
    cdef str text = lines_text(raw)
    cdef int kind = PyUnicode_KIND(raw)
    cdef void* data = PyUnicode_DATA(raw)
    for anchor, start in anchors:
        for index in range(start, min(start + anchor.raw_length, len(raw))):
            anchor_chars += not Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, index))
        if anchor.url:
            links.append((anchor.url, anchor.anchor, context(raw, start, start + anchor.raw_length)))
    return raw, text, len(text) - text.count(' ') - text.count('\n'), anchor_chars, anchors, links


def lines_text(str raw) -> str:
    """'\\n'.join(' '.join(line.split()) for line in raw.split('\\n') if line and not line.isspace())
    in one pass into one buffer: the lines and words of a block's raw text, without a string per
    line and per word."""
    cdef Py_ssize_t length = len(raw), count = 0
    cdef Py_UCS4* found = <Py_UCS4*>PyMem_Malloc(max(length, 1) * sizeof(Py_UCS4))
    if found is NULL:
        raise MemoryError()
    cdef bint in_line = False, space = False, newline = False  # a word on this line; whitespace after it; a line before
    cdef Py_UCS4 character
    try:
        for character in raw:
            if character == u'\n':
                newline = newline or in_line
                in_line = space = False
            elif Py_UNICODE_ISSPACE(character):
                space = in_line
            else:
                if newline and not in_line:
                    found[count] = 10
                    count += 1
                    newline = False
                elif space:
                    found[count] = 32
                    count += 1
                space, in_line = False, True
                found[count] = character
                count += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, found, count)
    finally:
        PyMem_Free(found)


cpdef str context(str raw, Py_ssize_t start, Py_ssize_t end):
    """CONTEXT_CHARS of the block's text on each side of the anchor, whitespace collapsed:
    collapse(raw[start - 4 * CONTEXT_CHARS:start])[-CONTEXT_CHARS:] and
    collapse(raw[end:end + 4 * CONTEXT_CHARS])[:CONTEXT_CHARS], joined by a space, read a character
    at a time from the anchor outwards into one buffer and made one string, instead of splitting
    and joining 200-character windows (a real page has ~100 links)."""
    if start < 0 or end < start:
        raise ValueError(f'context() needs 0 <= start <= end, not {start}, {end}')
    cdef Py_UCS4 found[2 * CONTEXT_CHARS + 1]  # the text before (ending at CONTEXT_CHARS), a space, after
    cdef Py_ssize_t before = _collapsed_run(raw, min(start, len(raw)) - 1, max(0, start - 4 * CONTEXT_CHARS) - 1, -1,
                                            found)
    cdef Py_ssize_t after = _collapsed_run(raw, end, min(len(raw), end + 4 * CONTEXT_CHARS), 1,
                                           &found[CONTEXT_CHARS + 1])
    # a run cut off at CONTEXT_CHARS by the space between two words ends in that space: not kept
    if before and found[CONTEXT_CHARS - before] == 32:
        before -= 1
    if after and found[CONTEXT_CHARS + after] == 32:
        after -= 1
    if before == 0:
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, &found[CONTEXT_CHARS + 1], after)
    found[CONTEXT_CHARS] = 32
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, &found[CONTEXT_CHARS - before],
                                     before + (after + 1 if after else 0))


cdef Py_ssize_t _collapsed_run(str raw, Py_ssize_t first, Py_ssize_t stop, int step, Py_UCS4* found):
    """CONTEXT_CHARS characters of collapse(the text from `first` towards `stop`, excluded), the
    nearest ones, in reading order: a space between words, none before the first or after the last.
    Written to found[0:count] reading forwards, to found[CONTEXT_CHARS - count:CONTEXT_CHARS]
    reading back (filled from the anchor outwards); returns the count."""
    cdef Py_ssize_t count = 0, index = first
    cdef bint space = False
    cdef Py_UCS4 character
    cdef int kind = PyUnicode_KIND(raw)
    cdef void* data = PyUnicode_DATA(raw)
    while (index < stop if step > 0 else index > stop) and count < CONTEXT_CHARS:
        character = PyUnicode_READ(kind, data, index)
        index += step
        if Py_UNICODE_ISSPACE(character):
            space = count > 0
            continue
        if space:
            found[count if step > 0 else CONTEXT_CHARS - 1 - count] = 32
            count += 1
            space = False
            if count == CONTEXT_CHARS:
                break
        found[count if step > 0 else CONTEXT_CHARS - 1 - count] = character
        count += 1
    return count


# --- a block's text measures ---

cdef inline bint _is_han(Py_UCS4 character):
    """In models.text.HAN_RANGES."""
    return (0x4E00 <= character <= 0x9FFF or 0x3400 <= character <= 0x4DBF or 0xF900 <= character <= 0xFAFF
            or 0x20000 <= character <= 0x2EBEF)


cdef inline bint _among(Py_UCS4 character, str characters):
    cdef Py_UCS4 candidate
    for candidate in characters:
        if candidate == character:
            return True
    return False


def full_width_forms_replaced(str text) -> str:
    """The text with the full-width ASCII forms (U+FF01-FF5E: ，：（Ａ１) as ASCII, the ideographic
    space as a space and the ellipsis as '...', what NFKC makes of each (models.text.normalize),
    in one pass into one buffer; the text itself when it holds none. A regular expression's
    findall of them took half of normalising a Chinese page."""
    cdef Py_ssize_t length = len(text), index, count = 0, found = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 character
    for index in range(length):
        character = PyUnicode_READ(kind, data, index)
        found += 0xFF01 <= character <= 0xFF5E or character == 0x3000 or character == 0x2026
    if not found:
        return text
    cdef Py_UCS4* replaced = <Py_UCS4*>PyMem_Malloc((length + 2 * found) * sizeof(Py_UCS4))
    if replaced is NULL:
        raise MemoryError()
    try:
        for index in range(length):
            character = PyUnicode_READ(kind, data, index)
            if 0xFF01 <= character <= 0xFF5E:
                replaced[count] = <Py_UCS4>(<unsigned int>character - 0xFEE0)
            elif character == 0x3000:
                replaced[count] = 32
            elif character == 0x2026:
                replaced[count] = replaced[count + 1] = 46
                count += 2
                replaced[count] = 46
            else:
                replaced[count] = character
            count += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, replaced, count)
    finally:
        PyMem_Free(replaced)


def han_counts(str text, str function_characters, str marks) -> tuple:
    """(Han characters, runs of them, Han characters among `function_characters`, characters among
    `marks`) of `text`, in one pass: what block_model reads off a block's text with regular
    expressions and a count per function character took ~0.5 ms of a real page. `marks` holds no
    Han character."""
    cdef Py_ssize_t[4] counts
    _han_counts(text, function_characters, marks, counts)
    return counts[0], counts[1], counts[2], counts[3]


cdef void _han_counts(str text, str function_characters, str marks, Py_ssize_t* counts):
    """han_counts into counts[0:4]. A character is compared with the lists only when its low byte
    is one of theirs."""
    cdef Py_ssize_t han = 0, runs = 0, function = 0, marked = 0
    cdef bint in_run = False
    cdef Py_UCS4 character
    cdef unsigned char[256] function_bytes, mark_bytes
    memset(function_bytes, 0, 256)
    memset(mark_bytes, 0, 256)
    for character in function_characters:
        function_bytes[<unsigned int>character & 255] = 1
    for character in marks:
        mark_bytes[<unsigned int>character & 255] = 1
    for character in text:
        if _is_han(character):
            han += 1
            runs += not in_run
            in_run = True
            if function_bytes[<unsigned int>character & 255]:
                function += _among(character, function_characters)
        else:
            in_run = False
            if mark_bytes[<unsigned int>character & 255]:
                marked += _among(character, marks)
    counts[0], counts[1], counts[2], counts[3] = han, runs, function, marked


cdef inline bint _is_letter(Py_UCS4 character):
    """What a regular expression's [^\\W\\d_] matches: alphanumeric, not a decimal digit (Han too);
    in ASCII, a to z in either case, told without Python's character tables."""
    if character < 128:
        return 97 <= (<unsigned int>character | 32) <= 122
    return Py_UNICODE_ISALNUM(character) and not Py_UNICODE_ISDECIMAL(character)


def han_and_letters(str text) -> tuple:
    """(Han characters, letters) of `text` in one pass: models.text.HAN_CHARACTER's and _HAS_LETTER's
    matches (a Han character is a letter too), which is_chinese counted with two findall lists
    (~20 us for a menu's anchors, several times a page)."""
    cdef Py_ssize_t han = 0, letters = 0
    cdef Py_UCS4 character
    for character in text:
        han += _is_han(character)
        letters += _is_letter(character)
    return han, letters


def latin_word_counts(str text, frozenset stop_words) -> tuple:
    """(words, how many of them are in `stop_words`) of models.block_model._LATIN_WORD.findall(text)
    in one pass: a run of letters, and one apostrophe with the letters after it ("don't"). The
    regular expression and a set lookup per word took ~5% of a round on English news pages."""
    cdef Py_ssize_t stops = 0
    cdef Py_ssize_t words = _latin_word_counts(text, stop_words, &stops, False)
    return words, stops


cdef Py_ssize_t _latin_word_counts(str text, frozenset stop_words, Py_ssize_t* stops, bint lower) except -1:
    """latin_word_counts: the words, their stop words into stops[0]; with `lower`, those of
    text.lower() for ASCII text only (its capitals lower-cased as they are met, not the text
    copied). A word of PACKED_CHARS ASCII characters or
    fewer is looked up in the stop words' packed table, without a string of its own (an English
    page has ~1,500 words in its blocks)."""
    cdef Py_ssize_t length = len(text), index = 0, start, words = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef uint64_t[2] key
    cdef c_array table = _packed_table(stop_words)
    cdef const uint64_t* slots = <const uint64_t*>table.data.as_ulonglongs
    cdef Py_ssize_t mask = len(table) // 2 - 1
    stops[0] = 0
    while index < length:
        if not _is_letter(PyUnicode_READ(kind, data, index)):
            index += 1
            continue
        start = index
        index += 1
        while index < length and _is_letter(PyUnicode_READ(kind, data, index)):
            index += 1
        if (index + 1 < length and PyUnicode_READ(kind, data, index) == u"'"
                and _is_letter(PyUnicode_READ(kind, data, index + 1))):
            index += 2
            while index < length and _is_letter(PyUnicode_READ(kind, data, index)):
                index += 1
        words += 1
        if _packed(kind, data, start, index, lower, key):
            stops[0] += _is_packed_word(slots, mask, key)
        else:
            word = text[start:index]
            stops[0] += (word.lower() if lower else word) in stop_words
    return words


cdef enum:
    PACKED_CHARS = 16  # a word of up to 16 ASCII characters packs into two 64-bit integers, a byte each
    MAX_PACKED_TABLES = 64

# A stop-word set -> its short ASCII words packed (_packed_table): array('Q') of (low, high) pairs,
# a pair a slot of an open-addressing table, (0, 0) empty, slots a power of two.
cdef dict _packed_tables = {}


cdef inline bint _packed(int kind, void* data, Py_ssize_t start, Py_ssize_t end, bint lower, uint64_t* key):
    """The word data[start:end] (lower-cased when `lower`: ASCII capitals only) packed into key[0:2],
    a character a byte, zero-padded; False when it is longer than PACKED_CHARS or not ASCII. No
    character of a word is a zero byte, so different words pack differently."""
    cdef Py_ssize_t index
    cdef uint64_t code
    if end - start > PACKED_CHARS:
        return False
    key[0] = key[1] = 0
    for index in range(start, end):
        code = PyUnicode_READ(kind, data, index)
        if code >= 128:
            return False
        if lower and 65 <= code <= 90:  # A-Z
            code |= 32
        key[(index - start) >> 3] |= code << (8 * ((index - start) & 7))
    return True


cdef inline Py_ssize_t _packed_slot(const uint64_t* key, Py_ssize_t mask):
    cdef uint64_t mixed = key[0] * <uint64_t>0x9E3779B97F4A7C15 ^ key[1] * <uint64_t>0xC2B2AE3D27D4EB4F
    return <Py_ssize_t>((mixed ^ (mixed >> 29)) & <uint64_t>mask)


cdef bint _is_packed_word(const uint64_t* slots, Py_ssize_t mask, const uint64_t* key):
    cdef Py_ssize_t slot = _packed_slot(key, mask)
    while slots[2 * slot] or slots[2 * slot + 1]:
        if slots[2 * slot] == key[0] and slots[2 * slot + 1] == key[1]:
            return True
        slot = (slot + 1) & mask
    return False


cdef c_array _packed_table(frozenset words):
    """The words of `words` that are PACKED_CHARS ASCII characters or fewer, packed into the table
    _is_packed_word reads; made once for each set a process asks with (a page's blocks ask with
    its language's, models/block_model.py density_stop_words), and kept: a reader holds its own
    reference, so another thread's set never frees the table under it."""
    cdef c_array table = _packed_tables.get(words)
    if table is not None:
        return table
    cdef list short = [word for word in words if word.isascii() and 0 < len(<str>word) <= PACKED_CHARS]
    cdef Py_ssize_t slots = 16, slot, mask
    while slots < 4 * len(short):
        slots *= 2
    table, mask = array('Q', bytes(16 * slots)), slots - 1
    cdef uint64_t* cells = table.data.as_ulonglongs
    cdef uint64_t[2] key
    cdef str word
    for word in short:
        _packed(PyUnicode_KIND(word), PyUnicode_DATA(word), 0, len(word), False, key)
        slot = _packed_slot(key, mask)
        while cells[2 * slot] or cells[2 * slot + 1]:
            slot = (slot + 1) & mask
        cells[2 * slot], cells[2 * slot + 1] = key[0], key[1]
    if len(_packed_tables) >= MAX_PACKED_TABLES:  # a caller of many sets: start again, not grow
        _packed_tables.clear()
    _packed_tables[words] = table
    return table


def text_measures(str text, str function_characters, str marks, frozenset stop_words) -> tuple:
    """(lines, stop-word density, characters among `marks`) of a block's text, as
    models.block_model.text_measures defines them, in one call: the share of function words is
    Chinese function characters among Han characters, or for text with fewer Han characters than
    other characters (or words), the lower-cased words (latin_word_counts) in `stop_words` among
    words. A page has ~30 blocks (an English one ~80), and the Python between the counts cost
    more than counting."""
    cdef Py_ssize_t[4] counts
    cdef Py_ssize_t words, stops = 0
    _han_counts(text, function_characters, marks, counts)
    cdef Py_ssize_t han = counts[0], runs = counts[1], function = counts[2]
    cdef Py_ssize_t lines = text.count(u'\n') + 1 if text else 0
    if han > runs + len(text) - han:
        return lines, <double>function / han, counts[3]
    words = (_latin_word_counts(text, stop_words, &stops, True) if text.isascii()
             else _latin_word_counts(text.lower(), stop_words, &stops, False))
    if han > words:
        return lines, <double>function / han, counts[3]
    return lines, (<double>stops / words if words else 0.0), counts[3]


# --- the block model (models/block_model.py): its measures as a matrix, its trees walked ---

# The block model's features (models/block_model.py), in the order of its rows and its trees.
FEATURES = (
    'log_chars', 'link_density', 'anchor_share', 'log_links', 'log_lines', 'log_chars_per_line',
    'stop_word_density', 'punctuation_density', 'position', 'text_before', 'page_share',
    'paragraphs_per_line', 'list_items_per_line', 'headings', 'in_table_cell', 'in_list', 'depth',
    'navigation_mark', 'noise_mark', 'related_mark', 'article_mark', 'hidden', 'windowed',
    'rule_content', 'rule_related', 'rule_navigation', 'rule_noise',
    'previous_log_chars', 'previous_link_density', 'previous_stop_word_density', 'previous_rule_content',
    'next_log_chars', 'next_link_density', 'next_stop_word_density', 'next_rule_content',
    'page_log_blocks', 'page_content_share',
)
# The features feature_matrix leaves as the logarithm's argument x, for log1p(x) to be taken of all
# at once by numpy (whose log1p is not libm's in the last bit: the trees were trained on numpy's).
LOG_FEATURES = ('log_chars', 'log_links', 'log_lines', 'log_chars_per_line', 'previous_log_chars', 'next_log_chars')

cdef Py_ssize_t _LOG_CHARS = FEATURES.index('log_chars'), _LINK_DENSITY = FEATURES.index('link_density')
cdef Py_ssize_t _ANCHOR_SHARE = FEATURES.index('anchor_share'), _LOG_LINKS = FEATURES.index('log_links')
cdef Py_ssize_t _LOG_LINES = FEATURES.index('log_lines'), _LOG_CHARS_PER_LINE = FEATURES.index('log_chars_per_line')
cdef Py_ssize_t _STOP_WORD_DENSITY = FEATURES.index('stop_word_density')
cdef Py_ssize_t _PUNCTUATION_DENSITY = FEATURES.index('punctuation_density'), _POSITION = FEATURES.index('position')
cdef Py_ssize_t _TEXT_BEFORE = FEATURES.index('text_before'), _PAGE_SHARE = FEATURES.index('page_share')
cdef Py_ssize_t _PARAGRAPHS_PER_LINE = FEATURES.index('paragraphs_per_line')
cdef Py_ssize_t _LIST_ITEMS_PER_LINE = FEATURES.index('list_items_per_line'), _HEADINGS = FEATURES.index('headings')
cdef Py_ssize_t _IN_TABLE_CELL = FEATURES.index('in_table_cell'), _IN_LIST = FEATURES.index('in_list')
cdef Py_ssize_t _DEPTH = FEATURES.index('depth'), _NAVIGATION_MARK = FEATURES.index('navigation_mark')
cdef Py_ssize_t _NOISE_MARK = FEATURES.index('noise_mark'), _RELATED_MARK = FEATURES.index('related_mark')
cdef Py_ssize_t _ARTICLE_MARK = FEATURES.index('article_mark'), _HIDDEN = FEATURES.index('hidden')
cdef Py_ssize_t _WINDOWED = FEATURES.index('windowed'), _RULE_CONTENT = FEATURES.index('rule_content')
cdef Py_ssize_t _RULE_RELATED = FEATURES.index('rule_related'), _RULE_NAVIGATION = FEATURES.index('rule_navigation')
cdef Py_ssize_t _RULE_NOISE = FEATURES.index('rule_noise')
cdef Py_ssize_t _PAGE_CONTENT_SHARE = FEATURES.index('page_content_share')
# Each neighbour feature and the feature it shifts (their logarithm's argument, for log_chars).
_NEIGHBOURS = tuple((FEATURES.index(f'{side}_{name}'), FEATURES.index(name), offset)
                    for side, offset in (('previous', -1), ('next', 1))
                    for name in ('log_chars', 'link_density', 'stop_word_density', 'rule_content'))


def feature_matrix(list measures):
    """A row of FEATURES per BlockMeasures of a page, computed in one compiled pass, but for the
    LOG_FEATURES (their argument: block_model.feature_rows takes the logarithms) and
    page_log_blocks (0). The same doubles as numpy's column arithmetic gave: the counts are whole
    numbers, so their sums are exact in any order, and each division is IEEE's."""
    cdef Py_ssize_t count = len(measures), row = 0, column, source, offset
    matrix = np.zeros((count, len(FEATURES)))
    cdef double[:, ::1] cells = matrix
    cdef double chars, anchor_chars, lines, per_line, page_chars, all_anchor_chars = 0, content_chars = 0
    cdef double before = 0
    for measure in measures:
        container, marker, kind = measure.container, measure.marker, measure.rule_kind
        chars, anchor_chars, lines = measure.chars, measure.anchor_chars, measure.lines
        per_line = lines if lines > 1 else 1
        cells[row, _LOG_CHARS] = chars
        cells[row, _LINK_DENSITY] = anchor_chars / chars if anchor_chars < chars else 1.0  # 1 with no text
        cells[row, _ANCHOR_SHARE] = anchor_chars
        cells[row, _LOG_LINKS], cells[row, _LOG_LINES] = measure.links, lines
        cells[row, _LOG_CHARS_PER_LINE] = chars / per_line
        cells[row, _STOP_WORD_DENSITY] = measure.stop_word_density
        cells[row, _PUNCTUATION_DENSITY] = <double>measure.punctuation / (chars if chars > 1 else 1)
        cells[row, _POSITION] = <double>row / (count - 1 if count > 1 else 1)
        cells[row, _TEXT_BEFORE], cells[row, _PAGE_SHARE] = before, chars
        cells[row, _PARAGRAPHS_PER_LINE] = <double>measure.paragraphs / per_line
        cells[row, _LIST_ITEMS_PER_LINE] = <double>measure.list_items / per_line
        cells[row, _HEADINGS] = min(<double>measure.headings, 3.0)
        cells[row, _DEPTH] = min(<double>measure.depth, 30.0)
        cells[row, _IN_TABLE_CELL] = container == u'td' or container == u'th'
        cells[row, _IN_LIST] = container == u'ul' or container == u'ol' or container == u'dl' or container == u'menu'
        cells[row, _NAVIGATION_MARK], cells[row, _NOISE_MARK] = marker == u'navigation', marker == u'noise'
        cells[row, _RELATED_MARK], cells[row, _ARTICLE_MARK] = bool(measure.related_marker), bool(measure.article_mark)
        cells[row, _HIDDEN], cells[row, _WINDOWED] = bool(measure.hidden), bool(measure.windowed)
        cells[row, _RULE_CONTENT], cells[row, _RULE_RELATED] = kind == u'content', kind == u'related'
        cells[row, _RULE_NAVIGATION], cells[row, _RULE_NOISE] = kind == u'navigation', kind == u'noise'
        before += chars
        all_anchor_chars += anchor_chars
        if kind == u'content':
            content_chars += chars
        row += 1
    page_chars = before if before != 0 else 1.0
    if all_anchor_chars == 0:
        all_anchor_chars = 1.0
    for row in range(count):
        cells[row, _ANCHOR_SHARE] = cells[row, _ANCHOR_SHARE] / all_anchor_chars
        cells[row, _TEXT_BEFORE] = cells[row, _TEXT_BEFORE] / page_chars
        cells[row, _PAGE_SHARE] = cells[row, _PAGE_SHARE] / page_chars
        cells[row, _PAGE_CONTENT_SHARE] = content_chars / page_chars
    for column, source, offset in _NEIGHBOURS:
        for row in range(count):
            if 0 <= row + offset < count:
                cells[row, column] = cells[row + offset, source]
    return matrix


def tree_leaves(const float[:, ::1] rows, const Py_ssize_t[::1] roots, const Py_ssize_t[::1] feature,
                const double[::1] threshold, const Py_ssize_t[::1] left, const Py_ssize_t[::1] right,
                const double[::1] value):
    """The leaf value each row reaches in each tree (rows x trees) of a TreeEnsemble's padded
    arrays, where a leaf's left child is itself: one compiled walk per row and tree instead of a
    few numpy calls per level over all of them. A float32 feature is compared with the float64
    threshold as numpy compares them."""
    leaves = np.empty((rows.shape[0], roots.shape[0]))
    cdef double[:, ::1] reached = leaves
    cdef Py_ssize_t row, tree, node
    for row in range(rows.shape[0]):
        for tree in range(roots.shape[0]):
            node = roots[tree]
            while left[node] != node:
                node = left[node] if <double>rows[row, feature[node]] <= threshold[node] else right[node]
            reached[row, tree] = value[node]
    return leaves


# --- tokenising (models.text.words and tokenize) ---

cdef inline bint _is_word_character(Py_UCS4 character):
    """What models.text._RUN's words are made of: a letter or digit that is not Han."""
    return Py_UNICODE_ISALNUM(character) and not _is_han(character)


cdef inline bint _is_apostrophe(Py_UCS4 character):
    return character == u"'" or character == u"\u2019"


def script_runs(str text) -> tuple:
    """models.text._RUN.findall(text) in one pass, as words() uses it: (the Han runs joined by
    spaces, a newline in place of each other word; the other words in order; how many Han runs).
    An apostrophe (' or ’) between word characters belongs to the word ("don't")."""
    cdef Py_ssize_t length = len(text), index = 0, start, han_runs = 0
    cdef list pieces = [], others = []
    cdef Py_UCS4 character
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    while index < length:
        character = PyUnicode_READ(kind, data, index)
        start = index
        if _is_han(character):
            index += 1
            while index < length and _is_han(PyUnicode_READ(kind, data, index)):
                index += 1
            pieces.append(text[start:index])
            han_runs += 1
        elif _is_word_character(character):
            index += 1
            while True:
                while index < length and _is_word_character(PyUnicode_READ(kind, data, index)):
                    index += 1
                if (index + 1 < length and _is_apostrophe(PyUnicode_READ(kind, data, index))
                        and _is_word_character(PyUnicode_READ(kind, data, index + 1))):
                    index += 2
                else:
                    break
            others.append(text[start:index])
            pieces.append(u'\n')
        else:
            index += 1
    return u' '.join(pieces), others, han_runs


def put_back_words(list tokens, list others) -> list:
    """The segmenter's tokens of script_runs' joined text with each newline replaced by the next
    of `others` and the spaces between runs dropped."""
    cdef list words = []
    cdef Py_ssize_t next_other = 0
    cdef str token
    for token in tokens:
        if token == u'\n':
            words.append(others[next_other])
            next_other += 1
        elif token != u' ':
            words.append(token)
    return words


cdef inline bint _has_letter(str word):
    """A letter among the word's characters (models.text._HAS_LETTER: alphanumeric but not a decimal digit)."""
    cdef Py_UCS4 character
    for character in word:
        if _is_letter(character):
            return True
    return False


def index_terms(list words, frozenset stop_words) -> list:
    """The words that are index terms (models.text.tokenize): two or more characters, not a stop
    word, and a letter among them (_has_letter)."""
    cdef list terms = []
    cdef str word
    for word in words:
        if len(word) >= 2 and word not in stop_words and _has_letter(word):
            terms.append(word)
    return terms


def counted_terms(list tokens, list others, frozenset stop_words) -> tuple:
    """index_terms(put_back_words(tokens, others), stop_words) counted in one pass: (the distinct
    terms in order of first occurrence, joined by spaces; how often each occurs, as the bytes of an
    array('I'): C unsigned ints). `others` (None: no newline among the tokens) stands in for
    each newline token; a space or another one-character token is never a term. A real page's
    ~3,000 tokens went through two lists and a Counter before."""
    cdef dict places = {}
    cdef list terms = []
    cdef Py_ssize_t next_other = 0, place
    cdef object word, found
    cdef str token
    cdef unsigned int* counts = <unsigned int*>PyMem_Malloc(max(1, len(tokens)) * sizeof(unsigned int))
    if counts == NULL:
        raise MemoryError()
    try:
        for token in tokens:
            if len(token) < 2:
                if token != u'\n':
                    continue
                word = others[next_other]
                next_other += 1
                if len(word) < 2:
                    continue
            else:
                word = token
            found = places.get(word)
            if found is not None:
                counts[<Py_ssize_t>found] += 1
                continue
            if word not in stop_words and _has_letter(word):
                place = len(terms)
                places[word] = place
                terms.append(word)
                counts[place] = 1
        return u' '.join(terms), PyBytes_FromStringAndSize(<char*>counts, len(terms) * sizeof(unsigned int))
    finally:
        PyMem_Free(counts)


cdef inline bint _is_ascii_alphanumeric(unsigned char character):
    return c'0' <= character <= c'9' or 97 <= (character | 32) <= 122


def ascii_terms(str text, frozenset stop_words, bint apostrophes=True) -> str:
    """' '.join(index_terms(models.text._ASCII_WORD.findall(text.lower()), stop_words)) for ASCII
    text in one pass over its bytes: runs of letters and digits, joined by an apostrophe between
    two of them ("don't") unless `apostrophes` is False (a URL's words: models.text.url_terms),
    lower-cased, those of two or more characters with a letter that are not stop words. Links'
    words are new on every page of a real web (a story's headline and URL): this is most of their
    tokens' cost."""
    if not text.isascii():
        raise ValueError(f'ascii_terms reads ASCII text only, not {text[:40]!r}')
    cdef const unsigned char* data = <const unsigned char*>PyUnicode_DATA(text)  # a byte a character
    cdef list terms = []
    cdef Py_ssize_t length = len(text), index = 0, start
    cdef bint letter, capital
    while index < length:
        if not _is_ascii_alphanumeric(data[index]):
            index += 1
            continue
        start, letter, capital = index, False, False
        while True:
            while index < length and _is_ascii_alphanumeric(data[index]):
                letter = letter or data[index] > c'9'  # letters come after digits in ASCII
                capital = capital or c'A' <= data[index] <= c'Z'
                index += 1
            if apostrophes and index + 1 < length and data[index] == c"'" and _is_ascii_alphanumeric(data[index + 1]):
                index += 1
            else:
                break
        if letter and index - start >= 2:
            word = text[start:index]
            if capital:
                word = word.lower()
            if word not in stop_words:
                terms.append(word)
    return u' '.join(terms)


# --- a page row's terms in code-point order (transforms/score.py sorted_term_columns) ---

cdef struct _Word:
    uint64_t key                    # its first 8 bytes, big-endian, zero-padded: most comparisons end here
    const unsigned char* start
    Py_ssize_t length
    Py_ssize_t place


cdef inline bint _before(const _Word* a, const _Word* b) noexcept nogil:
    """Byte order, a word before the longer words it begins: UTF-8's byte order is the code points'."""
    if a.key != b.key:
        return a.key < b.key
    cdef Py_ssize_t shorter = a.length if a.length < b.length else b.length
    cdef int compared
    if shorter > 8:
        compared = memcmp(a.start + 8, b.start + 8, shorter - 8)
        if compared:
            return compared < 0
    return a.length < b.length


cdef enum:
    _SORTED_RUN = 8


cdef _Word* _merge_sorted(_Word* words, _Word* spare, Py_ssize_t count) noexcept nogil:
    """The words sorted (_before): runs of _SORTED_RUN by insertion, then bottom-up merges between
    the two arrays; whichever holds the result."""
    cdef Py_ssize_t width = _SORTED_RUN, low, middle, high, i, j, k
    cdef _Word word
    low = 0
    while low < count:  # runs sorted by insertion first: fewer passes
        high = low + _SORTED_RUN if low + _SORTED_RUN < count else count
        for i in range(low + 1, high):
            word = words[i]
            j = i
            while j > low and _before(&word, &words[j - 1]):
                words[j] = words[j - 1]
                j -= 1
            words[j] = word
        low = high
    while width < count:
        low = 0
        while low < count:
            middle = low + width if low + width < count else count
            high = low + 2 * width if low + 2 * width < count else count
            i, j, k = low, middle, low
            while i < middle and j < high:
                if _before(&words[j], &words[i]):
                    spare[k] = words[j]
                    j += 1
                else:
                    spare[k] = words[i]
                    i += 1
                k += 1
            while i < middle:
                spare[k] = words[i]
                i += 1
                k += 1
            while j < high:
                spare[k] = words[j]
                j += 1
                k += 1
            low = high
        words, spare = spare, words
        width *= 2
    return words


def sorted_words(bytes utf8 not None) -> tuple:
    """The words of `utf8` (UTF-8, the words separated by single spaces) sorted as Python sorts
    their strings (by code point, which is UTF-8's byte order), as the buffers of an Arrow string
    array: (the sorted words' bytes, joined; their int32 offsets, one more than words; int32 each
    sorted word's place among the words given). A page row's ~700 terms were sorted by Arrow's
    sort_indices in ~0.07 ms, a C qsort in ~0.1 ms (a call and a memcmp per comparison)."""
    cdef const unsigned char* data = <const unsigned char*>PyBytes_AS_STRING(utf8)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(utf8), count = 0, index, start = 0, at = 0
    if size == 0:
        return b'', b'\0\0\0\0', b''
    for index in range(size):
        count += data[index] == c' '
    count += 1
    if size > 0x7fffffff:
        raise ValueError('too many bytes of words for 32-bit offsets')
    joined = PyBytes_FromStringAndSize(NULL, size - count + 1)
    offsets = PyBytes_FromStringAndSize(NULL, (count + 1) * 4)
    places = PyBytes_FromStringAndSize(NULL, count * 4)
    cdef unsigned char* out = <unsigned char*>PyBytes_AS_STRING(joined)
    cdef int* offset = <int*>PyBytes_AS_STRING(offsets)
    cdef int* place = <int*>PyBytes_AS_STRING(places)
    cdef _Word* words = <_Word*>PyMem_Malloc(2 * count * sizeof(_Word))
    cdef _Word* ordered
    cdef uint64_t key
    cdef Py_ssize_t byte
    if words is NULL:
        raise MemoryError()
    try:
        count = 0
        for index in range(size + 1):
            if index == size or data[index] == c' ':
                key = 0
                for byte in range(start, start + 8):
                    key = key << 8 | (data[byte] if byte < index else 0)
                words[count].key, words[count].start = key, data + start
                words[count].length, words[count].place = index - start, count
                count += 1
                start = index + 1
        ordered = _merge_sorted(words, words + count, count)
        offset[0] = 0
        for index in range(count):
            memcpy(out + at, ordered[index].start, ordered[index].length)
            at += ordered[index].length
            offset[index + 1] = <int>at
            place[index] = <int>ordered[index].place
    finally:
        PyMem_Free(words)
    return joined, offsets, places


# --- relevance (models/relevance.py terms_relevance) ---

def counted(terms) -> dict:
    """collections.Counter(terms) as a plain dict: each term's occurrences, in order of first
    occurrence, counted in a compiled loop (models.termstats.term_counts): the combined words of
    every link a strategy scores are counted, ~10 terms at a time, where making a Counter was most
    of the cost."""
    cdef dict counts = {}
    for term in terms:
        n = counts.get(term)
        counts[term] = 1 if n is None else n + 1
    return counts


cpdef double idf(long long documents, long long document_frequency):
    """WL eq. 3's idf, lg(D / (1 + D_i)) (as Python's math.log10 of the int division gives it), 0
    without documents: models.termstats.IdfTable's, for a term it has not met."""
    return log10(<double>documents / <double>(1 + document_frequency)) if documents else 0.0


cdef inline double _idf(object table, term) except? -1.0:
    """table[term] of an IdfTable (a dict), a term met the first time computed from the table's
    statistics and kept there as its __missing__ does, without a Python call (a real web's pages
    bring new terms on every page)."""
    cdef PyObject* found = PyDict_GetItemWithError(table, term)
    if found is not NULL:
        return <double><object>found
    if PyErr_Occurred():
        return -1.0  # the lookup's error (a term that cannot be hashed): the caller raises it
    weight = idf(table.documents, table.document_frequency.get(term, 0))
    PyDict_SetItem(table, term, weight)
    return weight


def tfidf_cosine(counts, double total, table, dict keywords, double keyword_squares):
    """cos(keyword weights, TF-IDF weights n / total * idfs[term] of the counted terms), in one
    compiled loop: the dot product and the squared weights summed left to right, in the order
    terms_relevance summed them (its counts' order, or the keywords' when they are fewer).
    `counts`: term -> occurrences (a dict), `table`: a models.termstats.IdfTable (term -> idf of its
    documents and document frequencies, a term's computed the first time it is asked)."""
    cdef double weight, dot = 0.0, squares = 0.0, norms
    if len(keywords) > len(counts):
        for term, n in counts.items():
            weight = <double>n / total * _idf(table, term)
            dot += weight * <double>keywords.get(term, 0.0)
            squares += weight * weight
    else:
        for term, keyword in keywords.items():
            n = counts.get(term)
            dot += <double>keyword * (<double>n / total * _idf(table, term) if n is not None else 0.0)
        for term, n in counts.items():
            weight = <double>n / total * _idf(table, term)
            squares += weight * weight
    norms = sqrt(keyword_squares * squares)
    return dot / norms if norms else 0.0

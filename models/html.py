"""Bytes of a page or text file to Unicode text, with the charset decided by Focal.

Charset order: the HTTP header, a byte-order mark, the page's own <meta> declaration, then
detection by charset-normalizer (the requests stack's detector). GB2312 and GBK labels are
decoded as GB18030, their superset, because pages labelled GB2312 routinely use GBK characters.
"""
import codecs
import re

import charset_normalizer
import lxml.html
from lxml import etree

_META_CHARSET = re.compile(rb'<meta[^>]+charset\s*=\s*["\']?\s*([a-zA-Z0-9_.:-]+)', re.I)
_BOMS = ((codecs.BOM_UTF8, 'utf-8'), (codecs.BOM_UTF16_LE, 'utf-16'), (codecs.BOM_UTF16_BE, 'utf-16'))
_SUPERSETS = {'gb2312': 'gb18030', 'gbk': 'gb18030', 'ascii': 'utf-8', 'iso8859-1': 'cp1252'}
_DROPPED_TAGS = ('script', 'style', 'noscript', 'template', 'svg', 'head')
_BLOCK_TAGS = frozenset('address article aside blockquote br dd div dl dt figcaption footer form h1 h2 h3 '
                        'h4 h5 h6 header hr li main nav ol p pre section table td th tr ul'.split())
_XML_DECLARATION = re.compile(r'^\s*<\?xml[^>]*\?>', re.I)
_HTML_START = re.compile(rb'^\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body|meta|title|div|p)\b',
                         re.I | re.S)


def codec_name(label: str | None) -> str | None:
    """Python codec for a charset label, or None for an unknown label."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip('"\'')).name
    except LookupError:
        return None
    return _SUPERSETS.get(name, name)


def looks_like_html(body: bytes) -> bool:
    return bool(_HTML_START.match(body[:2048].removeprefix(codecs.BOM_UTF8)))


def detect_encoding(body: bytes, declared: str | None = None) -> str:
    """The encoding to decode `body` with: header, BOM, <meta>, then detection; utf-8 last."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name
    for label in (declared, _meta_charset(body)):
        name = codec_name(label)
        if name:
            return name
    try:
        body.decode('utf-8')
        return 'utf-8'
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(body[:65536]).best()
    return codec_name(best.encoding if best else None) or 'utf-8'


def _meta_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:4096])
    return match.group(1).decode('ascii') if match else None


def decode(body: bytes, declared: str | None = None) -> tuple[str, str]:
    """(text, encoding); undecodable bytes become U+FFFD rather than failing the page."""
    encoding = detect_encoding(body, declared)
    text = body.decode(encoding, errors='replace')
    return text.lstrip('\ufeff'), encoding


def html_title_and_text(markup: str) -> tuple[str, str]:
    """Title and visible text of an HTML document; broken markup is repaired by lxml."""
    if not markup.strip():
        return '', ''
    try:
        root = lxml.html.document_fromstring(_XML_DECLARATION.sub('', markup, count=1))
    except (etree.ParserError, ValueError):
        return '', ''
    title = ' '.join(root.findtext('.//title', default='').split())
    etree.strip_elements(root, *_DROPPED_TAGS, etree.Comment, with_tail=False)
    for element in root.iter(*_BLOCK_TAGS):  # keep block boundaries as line breaks
        element.tail = '\n' + (element.tail or '')
    lines = (' '.join(line.split()) for line in root.text_content().splitlines())
    return title, '\n'.join(line for line in lines if line)


def document_text(body: bytes, declared: str | None = None) -> tuple[str, str]:
    """(title, text) of an HTML page or a plain text file given as raw bytes."""
    decoded, _ = decode(body, declared)
    if looks_like_html(body):
        return html_title_and_text(decoded)
    return '', decoded.strip()

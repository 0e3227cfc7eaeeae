"""Bytes of a page or text file to Unicode text, with the charset decided by Focal.

Charset order: a byte-order mark (it beats the header, as in the HTML standard), the HTTP
header, the page's own declaration, strict UTF-8, strict GB18030 when the result is Chinese (GBK
is common in Chinese pages and generic detectors mistake it for Cyrillic), then charset-normalizer
(the requests stack's detector). A page whose bytes are valid UTF-8 beyond ASCII is read as UTF-8
even when its <meta> names another charset: pages re-encoded to UTF-8 keep their old <meta>
(five of Dragnet's 691 say ISO-8859-1), and text in GBK or a Latin code page is almost never valid
UTF-8 by chance. GB2312 and GBK labels are decoded as GB18030, their superset,
because pages labelled GB2312 routinely use GBK characters.
"""
import codecs
import re

import charset_normalizer
import lxml.html
from lxml import etree

from models.segment import gb18030_utf8, han_counts, is_utf8


# <meta charset>, <meta content="text/html; charset=...">, <?xml encoding=...?>, and the
# encoding attribute of archive wrappers (CWCED's <text encoding="gb2312">); not accept-charset,
# and not the charset of a <script> or <link>, which names the encoding of the file it loads (the
# Wayback Machine puts <script charset="utf-8"> before a GB2312 page's own <meta>).
_DECLARED_CHARSET = re.compile(rb'<(?:meta|\?xml|text)(?=\s)[^>]*?[\s;"\'](?:charset|encoding)\s*=\s*["\']?\s*'
                               rb'([a-zA-Z0-9_.:-]+)', re.I)
_BOMS = ((codecs.BOM_UTF8, 'utf-8'), (codecs.BOM_UTF32_LE, 'utf-32'), (codecs.BOM_UTF32_BE, 'utf-32'),
         (codecs.BOM_UTF16_LE, 'utf-16'), (codecs.BOM_UTF16_BE, 'utf-16'))  # UTF-32 LE's starts as UTF-16 LE's
WIDE_CODECS = frozenset(('utf-16', 'utf-16-le', 'utf-16-be', 'utf-32', 'utf-32-le', 'utf-32-be'))
_CODEC_PROBE = b'<p>\xc3\xa9\x80\xff\x00</p>'  # non-ASCII and a NUL: no text codec raises on them
_ESCAPE_CODECS = frozenset(('unicode-escape', 'raw-unicode-escape'))
_SUPERSETS = {'gb2312': 'gb18030', 'gbk': 'gb18030', 'ascii': 'utf-8', 'iso8859-1': 'cp1252'}
_ASCII_AS_IS = frozenset(('utf-8', 'cp1252', 'gb18030'))  # codecs that read ASCII bytes as ASCII
_DROPPED_TAGS = ('script', 'style', 'noscript', 'template', 'svg', 'head')
_BLOCK_TAGS = frozenset('address article aside blockquote br dd div dl dt figcaption footer form h1 h2 h3 '
                        'h4 h5 h6 header hr li main nav ol p pre section table td th tr ul'.split())
_XML_DECLARATION = re.compile(r'^\s*<\?xml[^>]*\?>', re.I)
_HTML_TAG = re.compile(rb'<(!doctype\s+html|html|head|body|meta|title|div|p|table|span|a|br)\b', re.I)


def codec_name(label: str | None) -> str | None:
    """Python codec for a charset label, or None for an unknown label or a codec that is no page
    charset: a page or a server can name any of Python's codecs, and decoding with 'hex', 'base64',
    'idna', 'punycode' or 'undefined' raised (every text codec decodes any bytes, with U+FFFD
    where it must), and 'unicode-escape' reads a page's backslashes as escapes."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip('"\'')).name
        _CODEC_PROBE.decode(name, errors='replace')
    except (LookupError, UnicodeError, ValueError):  # ValueError: a NUL in the label
        return None
    return None if name in _ESCAPE_CODECS else _SUPERSETS.get(name, name)


def declared_codec(label: str | None, body: bytes) -> str | None:
    """codec_name of the header's charset `label` for `body`, but a UTF-16 or UTF-32 label on bytes
    that are UTF-8 with few NULs (ASCII or UTF-8 text sent with a wrong header) names nothing, and
    a plain 'utf-16' or 'utf-32' (no byte-order mark: detect_encoding looks for one first) is
    big-endian only when its NULs clearly say so (markup's ASCII is a NUL and a letter, first in
    big-endian), else little-endian, as the HTML standard reads the label."""
    name = codec_name(label)
    if name not in WIDE_CODECS:
        return name
    sample = body[:4096]
    if sample.count(0) < 0.05 * len(sample) and _decodes_as(body, 'utf-8'):
        return None
    if name in ('utf-16', 'utf-32'):
        width = 2 if name == 'utf-16' else 4
        first, last = sample[0::width].count(0), sample[width - 1::width].count(0)  # high bytes of BE, LE
        return name + ('-be' if first >= 0.1 * (len(sample) // width) and first > 2 * last else '-le')
    return name


def header_charset(content_type: str | None) -> str | None:
    """The charset parameter of a Content-Type header value (any case, quoted or not), or None.
    The label is returned as sent: codec_name decides what it means."""
    for parameter in (content_type or '').split(';')[1:]:
        name, _, value = parameter.partition('=')
        if name.strip().lower() == 'charset':
            return value.strip().strip('"\'') or None
    return None


def looks_like_html(body: bytes) -> bool:
    """True when the first 4 KB hold an HTML tag; plain text files are not parsed as markup."""
    return _HTML_TAG.search(body[:4096]) is not None


def stated_codec(body: bytes, declared: str | None) -> str | None:
    """The codec `body` is stated to be in before its own markup is read: its byte-order mark's,
    which beats the header's charset `declared` (declared_codec), as in the HTML standard; or None."""
    return next((name for bom, name in _BOMS if body.startswith(bom)), None) or declared_codec(declared, body)


def detect_encoding(body: bytes, declared: str | None = None) -> str:
    """The encoding for `body`: BOM, header, in-page declaration, UTF-8, GB18030, detection."""
    name = stated_codec(body, declared)
    if name:
        return name
    name = codec_name(_page_charset(body))
    if name in WIDE_CODECS:  # a declaration read as ASCII is no UTF-16 or UTF-32 page's (the HTML standard: UTF-8)
        name = 'utf-8'
    if name:  # but valid UTF-8 beyond ASCII is that, whatever an old <meta> says (see the docstring)
        return 'utf-8' if name != 'utf-8' and not body.isascii() and is_utf8(body) else name
    for candidate in ('utf-8', 'gb18030'):
        if _decodes_as(body, candidate):
            return candidate
    best = charset_normalizer.from_bytes(body[:65536]).best()
    return codec_name(best.encoding if best else None) or 'utf-8'


def _page_charset(body: bytes) -> str | None:
    match = _DECLARED_CHARSET.search(body[:4096])
    return match.group(1).decode('ascii') if match else None


def _decodes_as(body: bytes, encoding: str) -> bool:
    """Strict decoding works; for GB18030 (which decodes most byte soup) the non-ASCII text
    must also be mostly Chinese characters (counted in one compiled pass: a list of them took
    1.4 ms of a 30 KB page without a declared charset)."""
    try:
        decoded = body[:65536].decode(encoding)
    except UnicodeDecodeError as error:
        if error.start < 65536 - 4:  # not just a character cut at the sample's end
            return False
        decoded = body[:error.start].decode(encoding)
    if encoding != 'gb18030':
        return True
    non_ascii = len(decoded) - len(decoded.encode('ascii', errors='ignore'))
    return non_ascii > 0 and han_counts(decoded, '', '')[0] >= 0.7 * non_ascii


def decode(body: bytes, declared: str | None = None) -> tuple[str, str]:
    """(text, encoding); undecodable bytes become U+FFFD rather than failing the page."""
    encoding = detect_encoding(body, declared)
    return _decoded(body, encoding), encoding


def _decoded(body: bytes, encoding: str) -> str:
    return body.decode(encoding, errors='replace').lstrip('\ufeff')


def utf8_markup(body: bytes, declared: str | None = None) -> tuple[bytes, str]:
    """(decode's text as UTF-8 bytes, the encoding): what lxml parses, without decoding and encoding
    again where the bytes say what they hold: ASCII bytes, and valid UTF-8 read as UTF-8 (its
    byte-order marks dropped), are their UTF-8 already, and a GBK page (GB18030's one- and
    two-byte codes) goes through a compiled table straight to UTF-8."""
    encoding = detect_encoding(body, declared)
    if encoding in _ASCII_AS_IS and body.isascii():
        return body, encoding
    if encoding == 'utf-8' and is_utf8(body):
        while body.startswith(codecs.BOM_UTF8):
            body = body[len(codecs.BOM_UTF8):]
        return body, encoding
    markup = gb18030_utf8(body) if encoding == 'gb18030' else None
    if markup is None:
        markup = _decoded(body, encoding).encode('utf-8', errors='replace')
    return markup, encoding


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

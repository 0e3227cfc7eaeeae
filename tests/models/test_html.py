import codecs
import json
import random

import pytest

from models import html, segment
from models.text import HAN_CHARACTER

GBK_PAGE = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312">' \
           '<title>北京房价</title></head><body><p>楼盘销售火爆，开发商推出新房。</p></body></html>'


def test_meta_charset_decides_when_the_header_is_silent():
    text, encoding = html.decode(GBK_PAGE.encode('gbk'))
    assert encoding == 'gb18030' and '楼盘销售火爆' in text


def test_a_script_s_or_a_form_s_charset_is_not_the_page_s():
    # as the Wayback Machine serves an archived GB2312 page: its scripts first, then the page's <meta>
    body = ('<html><head><script src="/_static/js/bundle-playback.js" charset="utf-8"></script>'
            '<link rel="stylesheet" href="/a.css" charset="UTF-8">' + GBK_PAGE[12:]).encode('gbk')
    assert html.decode(body) == (body.decode('gb18030'), 'gb18030')
    assert html.detect_encoding(b'<form accept-charset="gbk"><p>plain</p></form>') == 'utf-8'
    assert html.detect_encoding(b'<?xml version="1.0" encoding="gb2312"?><html></html>') == 'gb18030'


def test_valid_utf8_beyond_ascii_beats_an_old_meta_but_not_the_header():
    # re-encoded to UTF-8, the page kept its ISO-8859-1 (or GB2312) <meta>
    for meta in ('iso-8859-1', 'gb2312'):
        body = f'<meta charset="{meta}"><p>Café crème, 楼盘销售火爆</p>'.encode('utf-8')
        assert html.decode(body) == (body.decode('utf-8'), 'utf-8')
        assert html.decode(body, declared=meta)[1] == html.codec_name(meta)  # a server's word stands
    assert html.decode(GBK_PAGE.encode('gbk'))[1] == 'gb18030'  # GBK bytes are not valid UTF-8
    assert html.detect_encoding('<meta charset="iso-8859-1"><p>Café</p>'.encode('latin-1')) == 'cp1252'


def test_gbk_characters_beyond_gb2312_decode_under_a_gb2312_label():
    body = GBK_PAGE.replace('开发商', '开发商（镕）').encode('gbk')  # 镕 is GBK, not GB2312
    assert '镕' in html.decode(body)[0]


def test_header_charset_wins_over_meta_and_bom_wins_over_both():
    body = '<meta charset="gbk"><p>中文</p>'.encode('utf-8')
    assert html.decode(body, declared='utf-8')[1] == 'utf-8'
    assert html.decode(codecs.BOM_UTF8 + body, declared='gbk') == ('<meta charset="gbk"><p>中文</p>', 'utf-8')


@pytest.mark.parametrize('content_type, charset', [
    ('text/html; charset=utf-8', 'utf-8'),
    ('text/html;Charset="GBK"', 'GBK'),              # any case, quoted: the label as sent
    ("text/html; boundary=x; charset='gb2312' ", 'gb2312'),
    ('text/html; charset=x-no-such-charset', 'x-no-such-charset'),  # codec_name judges labels
    ('text/html; charset=', None), ('text/html', None), ('charset=utf-8', None), ('', None), (None, None),
])
def test_header_charset_is_the_content_type_parameter(content_type, charset):
    assert html.header_charset(content_type) == charset


def test_missing_charset_is_detected():
    body = ('<html><body><p>' + '北京市住房和城乡建设委员会公布的数据显示，本周新建商品住宅成交量明显回落。' * 5
            + '</p></body></html>').encode('gbk')
    text, encoding = html.decode(body)
    assert '商品住宅成交量' in text and encoding in ('gb18030', 'gbk', 'gb2312')


def test_wrong_or_unknown_labels_fall_back_to_detection():
    body = '<p>房价</p>'.encode('utf-8')
    assert html.decode(body, declared='x-no-such-charset') == ('<p>房价</p>', 'utf-8')


@pytest.mark.parametrize('label', ['hex', 'base64', 'rot13', 'zlib', 'idna', 'punycode', 'undefined', 'unicode_escape', 'raw_unicode_escape',
                                   'utf-8\x00'])
def test_python_codecs_that_are_no_page_charset_fall_back_to_detection(label):
    """A header or a page may name any of Python's codecs; decoding with these raised."""
    assert html.codec_name(label) is None
    assert html.decode(b'<meta charset="%s"><p>plain</p>' % label.encode(), declared=label) == \
        (f'<meta charset="{label}"><p>plain</p>', 'utf-8')


@pytest.mark.parametrize('codec, label, declared', [
    ('utf-16-le', 'utf-16', 'utf-16-le'), ('utf-16-be', 'utf-16', 'utf-16-be'),  # by where the NULs sit
    ('utf-32-be', 'utf-32', 'utf-32-be'), ('utf-16-be', 'UTF-16BE', 'utf-16-be'),
    ('utf-8', 'utf-16', None), ('utf-8', 'utf-32le', None),    # UTF-8 without NULs: the header is wrong
])
def test_a_wide_header_charset_is_read_by_the_bytes_it_labels(codec, label, declared):
    body = '<html><body><p>北京房价 prices</p></body></html>'.encode(codec)
    assert html.declared_codec(label, body) == declared
    assert html.decode(body, label) == ('<html><body><p>北京房价 prices</p></body></html>', declared or 'utf-8')


def test_utf16_text_without_markup_and_a_wide_meta_declaration():
    # Chinese with no ASCII: few NULs, from characters such as 一 (U+4E00), which mean no byte order
    story = '第一章，北京房价走势，商品住宅成交量明显回落。' * 100
    assert html.decode(story.encode('utf-16-le'), 'utf-16') == (story, 'utf-16-le')
    assert html.decode(story.encode('utf-16-be'), 'utf-16be') == (story, 'utf-16-be')
    # a declaration readable as ASCII is no UTF-16 page's: the page is UTF-8, as the HTML standard says
    assert html.decode(b'<meta charset="utf-16"><p>Plain text</p>')[1] == 'utf-8'


def test_title_and_visible_text_without_scripts_styles_or_comments():
    markup = '<?xml version="1.0" encoding="utf-8"?><html><head><title> A  title </title>' \
             '<script>var x = 1;</script></head><body><p>Hello <b>world</b></p><style>p{}</style>' \
             '<div>two<br>three</div><!-- hidden --></body></html>'
    assert html.html_title_and_text(markup) == ('A title', 'Hello world\ntwo\nthree')


@pytest.mark.parametrize('body', [b'', b'   ', b'\x00\x01\x02\xff\xfe' * 100, b'<html><body><p>broken <div>x',
                                  b'<<<>>>', b'\x1f\x8b\x08\x00' + bytes(range(256))])
def test_broken_empty_and_binary_input_never_raises(body):
    title, text = html.document_text(body)
    assert isinstance(title, str) and isinstance(text, str)


def test_plain_text_files_are_not_parsed_as_html():
    assert html.document_text('房价 <b> 上涨'.encode('gbk')) == ('', '房价 <b> 上涨')
    assert html.document_text(b'<!DOCTYPE html><title>T</title><p>x') == ('T', 'x')


def test_real_chinese_pages_decode_without_mojibake(shared_data):
    """CWCED pages are mostly GB2312/GBK: the gold article's Chinese must be in the decoded page.

    Measured on 3-character shingles of the gold text, so the page's own layout does not matter.
    One page holds truncated GBK characters in its original bytes, so a stray U+FFFD is the
    correct outcome; mojibake would replace or garble hundreds of characters.
    """
    folder = shared_data / 'extraction' / 'cwced'
    truth = json.loads((folder / 'ground_truth.json').read_text(encoding='utf-8'))
    checked = 0
    for page in sorted((folder / 'original').glob('*.html')):
        gold = ''.join(HAN_CHARACTER.findall(truth[page.stem]['articleBody']))[:300]
        text, _ = html.decode(page.read_bytes())
        decoded = ''.join(HAN_CHARACTER.findall(text))
        shingles = {gold[i:i + 3] for i in range(len(gold) - 2)}
        found = sum(1 for shingle in shingles if shingle in decoded)
        assert len(shingles) > 20 and found >= 0.9 * len(shingles), page.name
        assert text.count('\ufffd') <= 0.002 * len(decoded), page.name
        assert html.document_text(page.read_bytes())[1], page.name
        checked += 1
    assert checked == len(truth)



def _decoded_as_utf8(body: bytes, declared: str | None = None) -> bytes:
    """What lxml was given before utf8_markup: decode's text encoded back to UTF-8."""
    return html.decode(body, declared)[0].encode('utf-8', errors='replace')


def test_every_two_byte_gb18030_code_is_pythons_character():
    """The compiled table gives each two-byte code the character Python's codec gives it, and a
    code that codec refuses (a trail byte of 0x7F, or below 0x40) sends the page back to it."""
    for lead in range(0x81, 0xFF):
        for trail in range(0x30, 0x100):
            code = bytes((lead, trail))
            try:
                expected = (b'a' + code + b'z').decode('gb18030').encode('utf-8')
            except UnicodeDecodeError:
                expected = None
            if trail < 0x40:  # the start of a four-byte code, or nothing: Python's codec decides
                expected = None
            assert segment.gb18030_utf8(b'a' + code + b'z') == expected, code


@pytest.mark.parametrize('body', [
    '房价'.encode('gb18030') + '\u00ff'.encode('gb18030'),  # a four-byte code
    '房价'.encode('gbk') + b'\x80', b'\xff' + '房'.encode('gbk'),  # bytes no code starts with
    '房价'.encode('gbk')[:-1],  # a code cut short
    '房'.encode('gbk') + b'\xb0 &q',  # a lead byte without its trail (a real CWCED page)
])
def test_pages_beyond_the_table_go_to_pythons_codec(body):
    assert segment.gb18030_utf8(body) is None
    assert html.utf8_markup(body, 'gbk') == (_decoded_as_utf8(body, 'gbk'), 'gb18030')


def test_is_utf8_is_pythons_strict_decoder():
    """Every one- and two-byte string, every three- and four-byte lead with every second byte, and
    random bytes of every mix and length (the ASCII runs are read eight bytes at a time)."""
    def decodes(body: bytes) -> bool:
        try:
            body.decode('utf-8')
        except UnicodeDecodeError:
            return False
        return True

    cases = [bytes((first,)) for first in range(256)] + [bytes((a, b)) for a in range(256) for b in range(256)]
    cases += [bytes((lead, second, third, fourth)) for lead in range(0xE0, 0x100) for second in range(256)
              for third, fourth in ((0x80, 0x80), (0xBF, 0xBF), (0x41, 0x80), (0x80, 0x41))]
    cases += [bytes((lead, second, 0x80)) for lead in range(0xE0, 0xF0) for second in range(256)]
    generator = random.Random(15)
    pieces = [b'plain ascii markup <p>', 'é'.encode(), '房价'.encode(), '𝄞'.encode(), b'\x80', b'\xc0\xaf',
              b'\xed\xa0\x80', b'\xf4\x90\x80\x80', b'\xe6\x88', b'\xff']
    for _ in range(5_000):
        body = b''.join(generator.choice(pieces) for _ in range(generator.randrange(12)))
        cases.append(body[:generator.randrange(len(body) + 1)])
    for body in cases:
        assert segment.is_utf8(body) == decodes(body), body


@pytest.mark.parametrize('body, declared', [
    (b'<p>plain</p>', None), (b'<p>plain</p>', 'windows-1252'), (b'<p>plain</p>', 'gb2312'),
    (codecs.BOM_UTF8 * 2 + '<p>caf\u00e9 \u623f\u4ef7</p>'.encode(), None),  # byte-order marks dropped
    ('<p>caf\u00e9</p>'.encode('cp1252'), 'windows-1252'), (b'<p>caf\xe9</p>', 'utf-8'),  # a wrong label
    ('\u623f\u4ef7'.encode('utf-16'), None), ('<p>\u623f\u4ef7</p>'.encode('big5'), 'big5'),
    ('<p>\u623f\u4ef7</p>'.encode('gbk'), None), (b'\x00\x01 bytes \xfe\xff soup', None),
])
def test_utf8_markup_is_the_decoded_page_as_utf8(body, declared):
    assert html.utf8_markup(body, declared) == (_decoded_as_utf8(body, declared), html.decode(body, declared)[1])


def test_utf8_markup_of_real_pages_is_the_decoded_page_as_utf8(shared_data):
    """Every page of ../shared/data/extraction: GBK, UTF-8 and English pages of 2012 and today."""
    pages = sorted(path for path in (shared_data / 'extraction').rglob('*') if path.suffix in ('.html', '.htm'))
    assert len(pages) > 1000
    for page in pages:
        body = page.read_bytes()
        assert html.utf8_markup(body) == (_decoded_as_utf8(body), html.decode(body)[1]), page.name

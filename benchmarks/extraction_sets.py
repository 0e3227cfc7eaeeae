"""The five extraction sets of ../shared/data/extraction as a crawler gets them, with gold text.

Shared by benchmarks/extraction.py (which measures extractors on them) and
benchmarks/train_block_model.py (which trains Focal's block model on their even ids).

Tokens: NFKC, case-folded; every Han character is a token, every other run of Unicode letters
and digits is a token (punctuation and whitespace are not).

Gold main text: CleanEval and CleanPortalEval, the gold file without its URL line and its
<p>/<h>/<l> markers; L3S-GN1, the text labelled headline, full text or supplemental (sel1-3:
the article with its date line and captions; related content and comments are not main
text); CWCED, articleBody; Dragnet, its gold file (the article body, with headline and date
lines in some). Pages with no gold tokens are left out (P/R are undefined there).
L3S-GN1's files were re-encoded to UTF-8 by its authors but kept their old <meta charset>
(ISO-8859-1, Big5 ...), so its pages come with a 'charset=utf-8' header, as a server would send.

Split: even ids train, odd ids are held out (`test`); Dragnet's ids (100, R12, T7) by their
number, as CleanEval's; CWCED has UUIDs, so odd positions in
sorted order; L3S-GN1's UUIDs are read as hex numbers.
"""
import collections
import dataclasses
import difflib
import html
import json
import re
from pathlib import Path

from lxml import etree

from models.html import codec_name
from models.text import HAN_RANGES, is_chinese, normalize
from sandbox.corpora import shared_data_dir

_TOKEN = re.compile(rf'[{HAN_RANGES}]|[^\W_{HAN_RANGES}]+')
_GOLD_URL = re.compile(r'\A\s*URL:\s*(\S+)')
_GOLD_MARKER = re.compile(r'</?[phl]>|<!--.*?-->', re.S)
_TRAILING_NUMBER = re.compile(r'(\d+)$')
_ARCHIVE_WRAPPER = re.compile(rb'\A\s*<text\b[^>]*>|</text>\s*\Z')
_WRAPPER_ENCODING = re.compile(rb'\A\s*<text\b[^>]*?\sencoding="([^"]*)"')

L3S_LABELS = {'x-nc-sel0': 'not content', 'x-nc-sel1': 'headline', 'x-nc-sel2': 'full text',
              'x-nc-sel3': 'supplemental', 'x-nc-sel4': 'related', 'x-nc-sel5': 'comments'}
NO_LABEL = 'no label'
MAIN_TEXT_LABELS = ('headline', 'full text', 'supplemental')
_SKIPPED_GOLD_TAGS = ('script', 'style', 'head', 'noscript', 'template')


@dataclasses.dataclass
class Page:
    """One page as a crawler would get it (bytes, URL, header charset) and its gold text."""
    id: str
    body: bytes
    url: str                        # a placeholder where the set has none: Focal needs a base for links
    gold: str
    test: bool                      # in the held-out half (odd id)
    charset: str | None = None      # what an HTTP header would say (see unwrap, l3s_pages)
    units: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # L3S (label, text)
    chinese: bool = dataclasses.field(init=False)  # decided here, outside jusText's timed call

    def __post_init__(self):
        self.chinese = is_chinese(self.gold)


def token_list(text: str) -> list[str]:
    """The tokens of `text` in order (module docstring)."""
    return _TOKEN.findall(normalize(text))


def tokens(text: str) -> collections.Counter:
    """The bag of tokens the main-text metric compares."""
    return collections.Counter(token_list(text))


def aligned(first: list[str], second: list[str]):
    """(i, j) for each token first[i] that is second[j] when the two streams are aligned in order
    (difflib), so a word in a menu and in the article matches where it belongs."""
    matcher = difflib.SequenceMatcher(None, first, second, autojunk=False)
    for first_start, second_start, size in matcher.get_matching_blocks():
        for offset in range(size):
            yield first_start + offset, second_start + offset


def token_stream(texts: list[str]) -> tuple[list[str], list[int]]:
    """The tokens of several texts in order, and for each token the index of its text."""
    stream, owners = [], []
    for index, text in enumerate(texts):
        words = token_list(text)
        stream += words
        owners += [index] * len(words)
    return stream, owners


def gold_shares(texts: list[str], gold: str) -> list[float]:
    """For each text (a page's blocks in document order), the share of its tokens that are the
    gold text's, aligned in order."""
    page_tokens, owners = token_stream(texts)
    matched = [0] * len(texts)
    for _, position in aligned(token_list(gold), page_tokens):
        matched[owners[position]] += 1
    sizes = collections.Counter(owners)
    return [matched[index] / sizes[index] if sizes[index] else 0.0 for index in range(len(texts))]


def cleaneval_pages(directory: Path) -> list[Page]:
    """CleanEval layout: input/N.html, GoldStandard/N.txt starting 'URL: ...' (after blank lines
    in CleanPortalEval, the URL on the next line in some CleanEval files).
    Ids end in a number (12, bbc.co.uk_news_03): its parity splits the set."""
    pages = []
    for path in sorted((directory / 'input').glob('*.html'), key=_natural_key):
        gold = (directory / 'GoldStandard' / f'{path.stem}.txt').read_text(encoding='utf-8-sig',
                                                                           errors='replace')
        url = _GOLD_URL.match(gold)
        body, charset = unwrap(path.read_bytes())
        pages.append(Page(path.stem, body, url.group(1),
                          html.unescape(_GOLD_MARKER.sub(' ', gold[url.end():])),
                          int(_TRAILING_NUMBER.search(path.stem).group()) % 2 == 1, charset))
    return pages


def unwrap(raw: bytes) -> tuple[bytes, str | None]:
    """The page without the corpus's <text id=... encoding=...> record around it, which no
    server sends (trafilatura finds nothing in 6 CleanEval pages that keep it), and the record's
    encoding, which plays the HTTP header's part; 'unset' and unknown labels give None."""
    encoding = _WRAPPER_ENCODING.match(raw)
    return (_ARCHIVE_WRAPPER.sub(b'', raw),
            codec_name(encoding.group(1).decode('ascii', errors='replace')) if encoding else None)


def _natural_key(path: Path) -> tuple:
    """bbc_2 before bbc_10, 9.html before 10.html."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r'(\d+)', path.stem))


def l3s_pages(directory: Path) -> list[Page]:
    """L3S-GN1: the original page, and the annotated copy's labelled text as gold."""
    pages = []
    for path in sorted((directory / 'input').glob('*.html')):
        units = l3s_units((directory / 'annotated' / path.name).read_bytes())
        gold = '\n'.join(text for label, text in units if label in MAIN_TEXT_LABELS)
        pages.append(Page(path.stem, path.read_bytes(), f'http://l3s-gn1.invalid/{path.stem}', gold,
                          int(path.stem.replace('-', ''), 16) % 2 == 1, 'utf-8', units))
    return pages


def l3s_units(annotated: bytes) -> list[tuple[str, str]]:
    """(label, text) of each x-nc-sel span in document order. Spans nest (a sel2 paragraph in a
    sel0 table cell), so text belongs to its innermost span. Text in no span (mostly menu and
    link-list anchors) becomes 'no label' units, kept so that the alignment sees the whole page.
    Text nodes are joined with spaces: adjacent table cells or list items are separate words."""
    parser = etree.HTMLParser(encoding='utf-8', remove_comments=True, remove_pis=True)
    root = etree.fromstring(annotated, parser)
    units, open_units = [], [None]  # open_units[0]: the current unlabelled run, None between spans
    walk = etree.iterwalk(root, events=('start', 'end'))
    for event, element in walk:
        label = L3S_LABELS.get(element.get('class', '')) if element.tag == 'span' else None
        if event == 'start':
            if element.tag in _SKIPPED_GOLD_TAGS:
                walk.skip_subtree()
                continue
            if label:
                units.append((label, []))
                open_units.append(units[-1][1])
            text = element.text
        else:
            if label:
                open_units.pop()
                if len(open_units) == 1:
                    open_units[0] = None
            text = element.tail
        if text and not text.isspace():
            if open_units[-1] is None:
                units.append((NO_LABEL, []))
                open_units[-1] = units[-1][1]
            open_units[-1].append(text)
    return [(label, ' '.join(' '.join(pieces).split())) for label, pieces in units]


def cwced_pages(directory: Path) -> list[Page]:
    """CWCED: original/ID.html (GBK or UTF-8, its declared charset) and articleBody.
    Ids are UUIDs, so the split takes every second page in sorted order."""
    truth = json.loads((directory / 'ground_truth.json').read_text(encoding='utf-8'))
    pages = []
    for index, page_id in enumerate(sorted(truth)):
        body, charset = unwrap((directory / 'original' / f'{page_id}.html').read_bytes())
        pages.append(Page(page_id, body, f'http://cwced.invalid/{page_id}', truth[page_id]['articleBody'],
                          index % 2 == 1, charset))
    return pages


def dragnet_pages(directory: Path) -> list[Page]:
    """Dragnet: input/ID.html and GoldStandard/ID.txt, no URL and no header charset (the pages
    declare their own). Ids end in a number, whose parity splits the set."""
    pages = []
    for path in sorted((directory / 'input').glob('*.html'), key=_natural_key):
        gold = (directory / 'GoldStandard' / f'{path.stem}.txt').read_text(encoding='utf-8', errors='replace')
        pages.append(Page(path.stem, path.read_bytes(), f'http://dragnet.invalid/{path.stem}', gold,
                          int(_TRAILING_NUMBER.search(path.stem).group()) % 2 == 1))
    return pages


def content_type(page: Page) -> str | None:
    return f'text/html; charset={page.charset}' if page.charset else None


@dataclasses.dataclass
class Scores:
    macro: tuple[float, float, float]
    micro: tuple[float, float, float]
    empty: int                      # pages with no extracted text


def score(texts: list[str], pages: list[Page]) -> Scores:
    """Token P/R/F1 per page, averaged (macro), and over the summed counts (micro). An empty
    extraction scores 0 on the page: it is a miss, not an abstention."""
    per_page, sums = [], [0, 0, 0]
    for text, page in zip(texts, pages):
        extracted, gold = tokens(text), tokens(page.gold)
        counts = (sum((extracted & gold).values()), sum(extracted.values()), sum(gold.values()))
        per_page.append(_prf(*counts))
        sums = [total + count for total, count in zip(sums, counts)]
    macro = tuple(sum(values) / len(per_page) for values in zip(*per_page))
    return Scores(macro, _prf(*sums), sum(1 for text in texts if not tokens(text)))


def _prf(overlap: int, extracted: int, gold: int) -> tuple[float, float, float]:
    precision = overlap / extracted if extracted else 0.0
    recall = overlap / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if overlap else 0.0
    return precision, recall, f1


def load_sets(split: str) -> dict[str, tuple[list[Page], int]]:
    """{set name: (pages with gold tokens, in the chosen split), pages left out for no gold}."""
    directory = shared_data_dir() / 'extraction'
    sets = {'CleanEval dev': cleaneval_pages(directory / 'cleaneval-dev'),
            'CleanPortalEval': cleaneval_pages(directory / 'cleanportaleval'),
            'L3S-GN1': l3s_pages(directory / 'l3s_gn1'),
            'CWCED': cwced_pages(directory / 'cwced'),
            'Dragnet': dragnet_pages(directory / 'dragnet')}
    chosen = {}
    for name, pages in sets.items():
        pages = [page for page in pages if split == 'all' or page.test == (split == 'test')]
        with_gold = [page for page in pages if tokens(page.gold)]
        chosen[name] = (with_gold, len(pages) - len(with_gold))
    return chosen


def snippet_pages(tests: Path) -> list[tuple[Page, dict]]:
    """trafilatura's evaluation pages (tests/evaldata.json: URL -> file, 'with' and 'without'
    snippets; the file in tests/cache or tests/eval) with their snippets. A wrong directory or a
    partial clone: ValueError, saying which."""
    try:
        annotations = json.loads((tests / 'evaldata.json').read_text(encoding='utf-8'))
    except (OSError, ValueError) as error:
        raise ValueError(f'--snippets wants the tests/ directory of a trafilatura clone, with evaldata.json: '
                         f'{error}') from error
    pages = []
    for url, item in sorted(annotations.items()):
        path = next((tests / folder / item['file'] for folder in ('cache', 'eval')
                     if (tests / folder / item['file']).is_file()), None)
        if path is None:
            raise ValueError(f'{tests}: no page file {item["file"]!r} in cache/ or eval/ (a partial clone?)')
        if not url.startswith(('http://', 'https://')):  # a few keys are names ('hard::...'): Focal needs a base
            url = f'http://trafilatura-eval.invalid/{item["file"]}'
        pages.append((Page(item['file'], path.read_bytes(), url, '', test=False), item))  # the block model learns from it
    return pages

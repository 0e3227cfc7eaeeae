"""Main-text extraction against hand-made gold text: Focal, trafilatura and jusText on four sets.

For each set of ../shared/data/extraction (README there) prints token-level precision, recall
and F1 of the main text against the gold text, averaged per page (macro) and over all tokens
(micro), and each extractor's pages/s; then, on L3S-GN1, how well Focal's block classes match
the annotators' block labels.

Tokens: NFKC, case-folded; every Han character is a token, every other run of Unicode letters
and digits is a token (punctuation and whitespace are not). Overlap is the bag-of-tokens
intersection (Counter &), so a word kept twice when the gold has it once counts once.

Every extractor gets the same Unicode text: Focal its raw bytes (it decodes them with
models.html.decode), trafilatura and jusText the same bytes decoded by models.html.decode, with
the decoding inside their timed call so all three do bytes -> main text. L3S-GN1's files were
re-encoded to UTF-8 by its authors but kept their old <meta charset> (ISO-8859-1, Big5 ...),
so its pages come with a 'charset=utf-8' header, as a server would send.

Gold main text: CleanEval and CleanPortalEval, the gold file without its URL line and its
<p>/<h>/<l> markers; L3S-GN1, the text labelled headline, full text or supplemental (sel1-3:
the article with its date line and captions; related content and comments are not main
text); CWCED, articleBody. Pages with no gold tokens are left out (P/R are undefined there).

Focal is rules only: no page of these sets trains it. If rules are ever tuned on them, tune on
even ids and report `--split test` (odd ids; CWCED has UUIDs, so odd positions in sorted
order; L3S-GN1's UUIDs are read as hex numbers).

Run: .venv/bin/python benchmarks/extraction.py [--split all|train|test]
Needs trafilatura and jusText, which Focal itself does not use: .venv/bin/pip install trafilatura justext
"""
import argparse
import collections
import dataclasses
import difflib
import html
import json
import re
import sys
import time
from pathlib import Path

try:
    import justext
    import trafilatura
except ImportError as missing:
    sys.exit(f'benchmarks/extraction.py compares Focal with trafilatura and jusText, and {missing.name} '
             'is not installed; they are benchmark-only (not in setup.py):\n'
             '  .venv/bin/pip install trafilatura justext')
from lxml import etree

from models.extract import Block, extract_page
from models.html import codec_name, decode
from models.text import is_chinese, normalize
from sandbox.corpora import shared_data_dir

_HAN = '\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef'
_TOKEN = re.compile(rf'[{_HAN}]|[^\W_{_HAN}]+')
_GOLD_URL = re.compile(r'\A\s*URL:\s*(\S+)')
_GOLD_MARKER = re.compile(r'</?[phl]>|<!--.*?-->', re.S)
_XML_DECLARATION = re.compile(r'^\s*<\?xml[^>]*\?>')
_TRAILING_NUMBER = re.compile(r'(\d+)$')
_ARCHIVE_WRAPPER = re.compile(rb'\A\s*<text\b[^>]*>|</text>\s*\Z')
_WRAPPER_ENCODING = re.compile(rb'\A\s*<text\b[^>]*?\sencoding="([^"]*)"')

L3S_LABELS = {'x-nc-sel0': 'not content', 'x-nc-sel1': 'headline', 'x-nc-sel2': 'full text',
              'x-nc-sel3': 'supplemental', 'x-nc-sel4': 'related', 'x-nc-sel5': 'comments'}
NO_LABEL = 'no label'
MAIN_TEXT_LABELS = ('headline', 'full text', 'supplemental')
# What Focal should call each label. Text Focal drops (inside <select>, <iframe> ...) is used
# for nothing, as noise is, so it is right where noise is.
EXPECTED_CLASSES = {'not content': {'navigation', 'noise', 'dropped'}, 'headline': {'content'},
                    'full text': {'content'}, 'supplemental': {'content'}, 'related': {'related'},
                    'comments': {'noise', 'dropped'}, NO_LABEL: {'navigation', 'noise', 'dropped'}}
PREDICTIONS = ('content', 'related', 'navigation', 'noise', 'dropped')
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


def tokens(text: str) -> collections.Counter:
    """The bag of tokens the metric compares (module docstring)."""
    return collections.Counter(_TOKEN.findall(normalize(text)))


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


def _content_type(page: Page) -> str | None:
    return f'text/html; charset={page.charset}' if page.charset else None


def focal_text(page: Page) -> str:
    return extract_page(page.body, page.url, _content_type(page)).text


def _markup(page: Page) -> str:
    """The page as Focal decodes it. A leading XML declaration goes: lxml refuses a str that
    declares an encoding, and jusText would then reparse the bytes with its own guess."""
    return _XML_DECLARATION.sub('', decode(page.body, page.charset)[0], count=1)


def trafilatura_text(page: Page) -> str:
    """Default (precise, with fallbacks) mode; comments off, no gold counts them as main text."""
    return trafilatura.extract(_markup(page), url=page.url, include_comments=False) or ''


def justext_text(page: Page) -> str:
    """jusText needs the page's language: the English stoplist, or for Chinese (it has no
    stoplist) its language-independent mode, chosen from the gold text's language."""
    if page.chinese:
        paragraphs = justext.justext(_markup(page), frozenset(), stopwords_low=0, stopwords_high=0)
    else:
        paragraphs = justext.justext(_markup(page), justext.get_stoplist('English'))
    return '\n'.join(paragraph.text for paragraph in paragraphs if not paragraph.is_boilerplate)


EXTRACTORS = {'focal': focal_text, 'trafilatura': trafilatura_text, 'justext': justext_text}


def timed_run(extractor, pages: list[Page]) -> tuple[list[str], float]:
    """Texts and pages/s. A first untimed pass warms caches (lxml, regexes, stoplists) so the
    timed pass measures extraction only, in this process."""
    for page in pages:
        extractor(page)
    texts, seconds = [], 0.0
    for page in pages:
        started = time.perf_counter()
        texts.append(extractor(page))
        seconds += time.perf_counter() - started
    return texts, len(pages) / seconds


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


def evaluate_set(name: str, pages: list[Page], skipped: int) -> dict:
    """Prints the set's table; returns {extractor: (macro F1, pages/s)} for the summary."""
    print(f'\n{name}: {len(pages)} pages ({skipped} without gold text left out)')
    print(f'  {"extractor":<12} {"macro P":>7} {"R":>6} {"F1":>6}   {"micro P":>7} {"R":>6} {"F1":>6}'
          f'   {"pages/s":>8} {"empty":>5}')
    results = {}
    for extractor_name, extractor in EXTRACTORS.items():
        texts, speed = timed_run(extractor, pages)
        scores = score(texts, pages)
        print(f'  {extractor_name:<12} {scores.macro[0]:7.3f} {scores.macro[1]:6.3f} {scores.macro[2]:6.3f}'
              f'   {scores.micro[0]:7.3f} {scores.micro[1]:6.3f} {scores.micro[2]:6.3f}'
              f'   {speed:8.1f} {scores.empty:5d}')
        results[extractor_name] = (scores.macro[2], speed)
    return results


def unit_predictions(units: list[tuple[str, str]], blocks: list[Block]) -> list[tuple[str, str, int]]:
    """(label, Focal's class, characters) per gold unit. Gold and Focal token streams are aligned
    (difflib, in document order, so a repeated word matches where it belongs); a unit takes the
    class holding most of its characters, or 'dropped' when most are in no block. Characters
    are its tokens' characters: whitespace and punctuation do not weigh."""
    gold, gold_unit = [], []
    for index, (_, text) in enumerate(units):
        words = _TOKEN.findall(normalize(text))
        gold += words
        gold_unit += [index] * len(words)
    focal, focal_class = [], []
    for block in blocks:
        words = _TOKEN.findall(normalize(block.text))
        focal += words
        focal_class += [block.kind] * len(words)
    chars = [collections.Counter() for _ in units]
    matched = [False] * len(gold)
    matcher = difflib.SequenceMatcher(None, gold, focal, autojunk=False)
    for start, focal_start, size in matcher.get_matching_blocks():
        for offset in range(size):
            chars[gold_unit[start + offset]][focal_class[focal_start + offset]] += len(gold[start + offset])
            matched[start + offset] = True
    for position, word in enumerate(gold):
        if not matched[position]:
            chars[gold_unit[position]]['dropped'] += len(word)
    return [(label, counts.most_common(1)[0][0], sum(counts.values()))
            for (label, _), counts in zip(units, chars) if counts]


def block_accuracy(pages: list[Page]):
    """Focal's block classes against L3S-GN1's labels, weighted by characters, with the
    confusion table (share of each label's characters per Focal class). The accuracy counts
    labelled text only; text in no span is shown apart, as the annotators left it unmarked."""
    confusion = collections.defaultdict(collections.Counter)
    for page in pages:
        blocks = extract_page(page.body, page.url, _content_type(page)).blocks
        for label, predicted, chars in unit_predictions(page.units, blocks):
            confusion[label][predicted] += chars
    labelled = list(L3S_LABELS.values())
    total = sum(sum(confusion[label].values()) for label in labelled)
    correct = sum(confusion[label][kind] for label in labelled for kind in EXPECTED_CLASSES[label])
    print(f'\nL3S-GN1 block classes, Focal vs annotators: accuracy {correct / total:.3f} by characters '
          f'({total:,} labelled characters of {len(pages)} pages)')
    print('  sel1-3 -> content, sel4 related -> related, sel5 comments -> noise or dropped, '
          'sel0 not content -> navigation, noise or dropped; share of each label\'s characters:')
    print(f'  {"gold label":<14} {"chars":>9} {"right":>6}  '
          + ' '.join(f'{kind:>10}' for kind in PREDICTIONS))
    for label in [*labelled, NO_LABEL]:
        row = confusion[label]
        chars = sum(row.values()) or 1
        right = sum(row[kind] for kind in EXPECTED_CLASSES[label]) / chars
        print(f'  {label:<14} {sum(row.values()):9,} {right:6.3f}  '
              + ' '.join(f'{row[kind] / chars:10.3f}' for kind in PREDICTIONS))


def load_sets(split: str) -> dict[str, tuple[list[Page], int]]:
    """{set name: (pages with gold tokens, in the chosen split), pages left out for no gold}."""
    directory = shared_data_dir() / 'extraction'
    sets = {'CleanEval dev': cleaneval_pages(directory / 'cleaneval-dev'),
            'CleanPortalEval': cleaneval_pages(directory / 'cleanportaleval'),
            'L3S-GN1': l3s_pages(directory / 'l3s_gn1'),
            'CWCED': cwced_pages(directory / 'cwced')}
    chosen = {}
    for name, pages in sets.items():
        pages = [page for page in pages if split == 'all' or page.test == (split == 'test')]
        with_gold = [page for page in pages if tokens(page.gold)]
        chosen[name] = (with_gold, len(pages) - len(with_gold))
    return chosen


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--split', choices=('all', 'train', 'test'), default='all',
                        help='all pages, the even ids rules are tuned on (train), or the held-out '
                             'odd ids (test) (default all)')
    args = parser.parse_args()
    sets = load_sets(args.split)
    print(f'Main text, token P/R/F1 (Han characters, other Unicode words), split {args.split}. '
          'Focal is rules only: no page here trains it; any tuning would use even ids, reported '
          'with --split test.')
    summary = {name: evaluate_set(name, pages, skipped) for name, (pages, skipped) in sets.items()}
    block_accuracy(sets['L3S-GN1'][0])
    print()
    for name, results in summary.items():
        (focal_f1, focal_speed), (other_f1, other_speed) = results['focal'], results['trafilatura']
        print(f'{name}: F1 focal {focal_f1:.3f} vs trafilatura {other_f1:.3f} ({focal_f1 - other_f1:+.3f}), '
              f'pages/s focal {focal_speed:.0f} vs trafilatura {other_speed:.0f} '
              f'({focal_speed / other_speed:.1f}x)')


if __name__ == '__main__':
    main()

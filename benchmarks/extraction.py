"""Main-text extraction against hand-made gold text: Focal, trafilatura and jusText on five sets.

For each set of ../shared/data/extraction (README there) prints token-level precision, recall
and F1 of the main text against the gold text, averaged per page (macro) and over all tokens
(micro), and each extractor's pages/s; then, on L3S-GN1, how well Focal's block classes match
the annotators' block labels.

Tokens (extraction_sets.py): every Han character, every other run of letters and digits.
Overlap is the bag-of-tokens intersection (Counter &), so a word kept twice when the gold has it
once counts once.

Pages and gold text: extraction_sets.py. Every extractor gets the same Unicode text: Focal its
raw bytes (it decodes them with models.html.decode), trafilatura and jusText the same bytes
decoded by models.html.decode, with the decoding inside their timed call so all three do
bytes -> main text.

Focal's rules were tuned and its block model trained (benchmarks/train_block_model.py) on the
even ids only (and on trafilatura's set below): `--split test` (the odd ids) is the held-out
figure; `all` and `train` include pages Focal learnt from.

With `--snippets DIR` (a clone of github.com/adbar/trafilatura: DIR is its tests/ directory), also
trafilatura's own evaluation set: ~990 pages of 2012-2023 from many sites and languages, each with
up to six snippets its main text must hold and six it must not, scored as trafilatura scores
itself (tests/eval_common.py: whitespace-normalised substrings, snippets counted over all pages).
It is today's web, which the five sets are not; but it is a development set, not a held-out one
(Focal's noscript, charset, hidden-block and caption rules came from its failures), trafilatura was
tuned on it, and Focal's block model learns from its snippets: Focal is measured there with the
shipped model and, the fair figure, 2-fold (each page by a model fitted without its half).

Run: .venv/bin/python benchmarks/extraction.py [--split all|train|test] [--snippets DIR]
Needs trafilatura and jusText, which Focal itself does not use: .venv/bin/pip install trafilatura justext
"""
import argparse
import collections
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

from extraction_sets import (L3S_LABELS, NO_LABEL, Page, aligned, content_type, load_sets, score, snippet_pages,
                             token_stream)
from models.block_model import TreeEnsemble
from models.extract import Block, extract_page
from models.html import decode
from models.segment import collapse

_XML_DECLARATION = re.compile(r'^\s*<\?xml[^>]*\?>')

# What Focal should call each label. Text Focal drops (inside <select>, <iframe> ...) is used
# for nothing, as noise is, so it is right where noise is.
EXPECTED_CLASSES = {'not content': {'navigation', 'noise', 'dropped'}, 'headline': {'content'},
                    'full text': {'content'}, 'supplemental': {'content'}, 'related': {'related'},
                    'comments': {'noise', 'dropped'}, NO_LABEL: {'navigation', 'noise', 'dropped'}}
PREDICTIONS = ('content', 'related', 'navigation', 'noise', 'dropped')


def focal_text(page: Page) -> str:
    return extract_page(page.body, page.url, content_type(page)).text


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
    gold, gold_unit = token_stream([text for _, text in units])
    focal, focal_block = token_stream([block.text for block in blocks])
    chars = [collections.Counter() for _ in units]
    matched = [False] * len(gold)
    for position, focal_position in aligned(gold, focal):
        chars[gold_unit[position]][blocks[focal_block[focal_position]].kind] += len(gold[position])
        matched[position] = True
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
        blocks = extract_page(page.body, page.url, content_type(page)).blocks
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


def evaluate_snippets(tests: Path, pages: list[tuple[Page, dict]]) -> None:
    """Focal and trafilatura on trafilatura's evaluation set: snippet precision, recall, F1. The
    shipped block model learnt from these pages' snippets (train_block_model.py), so Focal is also
    measured with two models fitted as it was but each without one half of the set (pages at even
    and odd positions): each page's main text by the model that never saw it."""
    print(f'\ntrafilatura\'s evaluation set ({tests}): {len(pages)} pages, '
          f'{sum(len(item["with"]) for _, item in pages)} snippets to hold, '
          f'{sum(len(item["without"]) for _, item in pages)} to leave out')
    halves, position = _half_models(pages), {id(page): index for index, (page, _) in enumerate(pages)}

    def focal_unseen(page: Page) -> str:
        return extract_page(page.body, page.url, content_type(page), model=halves[position[id(page)] % 2]).text

    print(f'  {"extractor":<34} {"P":>6} {"R":>6} {"F1":>6}   {"pages/s":>8}')
    for extractor_name, extract in (('focal (learnt from these pages)', EXTRACTORS['focal']),
                                    ('focal, 2-fold (never saw the page)', focal_unseen),
                                    ('trafilatura', EXTRACTORS['trafilatura'])):
        texts, speed = timed_run(extract, [page for page, _ in pages])
        held = left_in = missed = 0
        for text, (_, item) in zip(texts, pages):
            text = collapse(text)
            found = sum(collapse(snippet) in text for snippet in item['with'])
            held, missed = held + found, missed + len(item['with']) - found
            left_in += sum(collapse(snippet) in text for snippet in item['without'])
        precision, recall = held / (held + left_in), held / (held + missed)
        f1 = 2 * precision * recall / (precision + recall)
        print(f'  {extractor_name:<34} {precision:6.4f} {recall:6.4f} {f1:6.4f}   {speed:8.1f}')


def _half_models(pages: list[tuple[Page, dict]]) -> list[TreeEnsemble]:
    """Block models fitted as the shipped one (the train half and trafilatura's set), but without
    the pages at even positions (the first) or odd ones (the second)."""
    import train_block_model as training  # scikit-learn, and a minute of fitting: only here
    train_half = training.train_half()
    labelled = [training.snippet_blocks(page, item) for page, item in pages]
    print('  fitting two block models without one half of the set each ...', flush=True)
    return [training.fit(train_half + training.training_pages(blocks for index, blocks in enumerate(labelled)
                                                              if index % 2 != half), training.PARAMETERS)
            for half in (0, 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--split', choices=('all', 'train', 'test'), default='all',
                        help='all pages, the even ids Focal is tuned and trained on (train), or the '
                             'held-out odd ids (test) (default all)')
    parser.add_argument('--snippets', type=Path, metavar='DIR',
                        help="also trafilatura's evaluation set: the tests/ directory of a trafilatura clone")
    args = parser.parse_args()
    try:
        snippet_set = snippet_pages(args.snippets) if args.snippets else None  # a wrong directory fails first
    except ValueError as error:
        parser.error(str(error))
    sets = load_sets(args.split)
    held_out = 'held-out pages only' if args.split == 'test' else 'includes the pages Focal was tuned and trained on'
    print(f'Main text, token P/R/F1 (Han characters, other Unicode words), split {args.split} ({held_out}).')
    summary = {name: evaluate_set(name, pages, skipped) for name, (pages, skipped) in sets.items()}
    block_accuracy(sets['L3S-GN1'][0])
    print()
    for name, results in summary.items():
        (focal_f1, focal_speed), (other_f1, other_speed) = results['focal'], results['trafilatura']
        print(f'{name}: F1 focal {focal_f1:.3f} vs trafilatura {other_f1:.3f} ({focal_f1 - other_f1:+.3f}), '
              f'pages/s focal {focal_speed:.0f} vs trafilatura {other_speed:.0f} '
              f'({focal_speed / other_speed:.1f}x)')
    if snippet_set:
        evaluate_snippets(args.snippets, snippet_set)


if __name__ == '__main__':
    main()

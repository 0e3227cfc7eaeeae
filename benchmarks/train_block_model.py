"""Trains Focal's block model (models/block_model.py) on the training half of the extraction sets
and on today's pages: the blocks of trafilatura's evaluation set that its snippets label.

A block's label on the five sets: at least half of its tokens are gold main text (aligned in
document order). Pages: the even ids of CleanEval dev, CleanPortalEval, L3S-GN1, CWCED and Dragnet
(extraction_sets.py); the odd ids stay held out for `benchmarks/extraction.py --split test`. Blocks
weigh their share of the page's tokens, so a page counts once whatever its length, as in the macro
F1 reported.

The five sets are pages of 2007-2012; trafilatura's evaluation set (github.com/adbar/trafilatura,
tests/evaldata.json: ~990 pages of 2012-2023, many sites and languages) gives each page up to six
snippets its main text must hold and six it must leave out. A block holding one to hold is main
text, one holding only snippets to leave out is not, the others have no label and are not trained
on; labelled blocks weigh their share of the labelled tokens, a page half as much as a page of the
five sets (SNIPPET_PAGE_WEIGHT: its labels are partial). Those blocks' measures
(not the pages: 145 MB of other sites' markup) are kept in benchmarks/snippet_blocks.parquet with a
digest of the train half's blocks, so that anyone can retrain, and a change of the rules that
changes the blocks asks for the file to be made again from a clone (--snippets).

  .venv/bin/python benchmarks/train_block_model.py --cv 5     # grouped cross-validation of the train half
  .venv/bin/python benchmarks/train_block_model.py --cv 5 --probabilities 0.5,0.4   # other content thresholds
  .venv/bin/python benchmarks/train_block_model.py            # fit, write block_model.json
  .venv/bin/python benchmarks/train_block_model.py --snippets ~/trafilatura/tests   # remake snippet_blocks.parquet, fit

Cross-validation folds are whole pages of the train half, so a page's blocks never help predict
each other; every fold's model also learns from all the snippet-labelled blocks, as the shipped one
does (`benchmarks/extraction.py --snippets DIR` measures that set with models fitted without each
page's half of it). --without-snippets fits on the train half alone, as before.
"""
import argparse
import dataclasses
import hashlib
import itertools
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from sklearn.ensemble import GradientBoostingClassifier

from extraction_sets import Page, content_type, gold_shares, load_sets, score, snippet_pages, token_list
from models import block_model
from models.block_model import MODEL_PATH, BlockMeasures, TreeEnsemble, decide_content, feature_rows
from models.extract import Block, extract_page
from models.segment import collapse

GOLD_SHARE = 0.5    # of a block's tokens, from which it is main text
PARAMETERS = {'n_estimators': 120, 'max_depth': 3, 'learning_rate': 0.1, 'subsample': 1.0,
              'min_samples_leaf': 20, 'random_state': 0}
SNIPPET_BLOCKS = Path(__file__).with_name('snippet_blocks.parquet')
# What a page of trafilatura's set weighs against one of the five sets: its snippets label a few of
# its blocks, where the five sets' gold labels every one. Chosen by the train half's cross-validation
# (--cv 5, macro F1: 0.8878 without the set, 0.8889 at 0.5, 0.8856 at 1) and 2-fold on trafilatura's
# set (a seeded random split of its pages, not extraction.py's even/odd one: F1 0.9205 with the model
# fitted without the set, 0.9265 at 0.5, 0.9288 at 1), never by the five sets' held-out half.
SNIPPET_PAGE_WEIGHT = 0.5
_MEASURES = tuple(field.name for field in dataclasses.fields(BlockMeasures))
_DIGEST_KEY = b'train_half_blocks'  # the Parquet file's metadata: blocks_digest of the train half it was made with


@dataclasses.dataclass
class PageBlocks:
    set_name: str
    page: Page | None           # None on a page of trafilatura's set (only its blocks' measures are kept)
    blocks: list[Block]         # the rules' classes (empty on a page of trafilatura's set)
    rows: np.ndarray            # block_model.FEATURES per block (per labelled block on trafilatura's set)
    labels: np.ndarray          # main text or not, per block
    weights: np.ndarray
    measures: list[BlockMeasures]  # as the rules measured each block of rows


def train_half() -> list[PageBlocks]:
    """The even ids of the five sets, as the rules split and the gold labels them."""
    return [page_blocks(set_name, page) for set_name, (set_pages, _) in load_sets('train').items()
            for page in set_pages]


def page_blocks(set_name: str, page: Page) -> PageBlocks:
    extracted = extract_page(page.body, page.url, content_type(page), rules_only=True)
    texts = [block.text for block in extracted.blocks]
    sizes = np.array([max(1, len(token_list(text))) for text in texts], dtype=float)
    shares = np.array(gold_shares(texts, page.gold))
    return PageBlocks(set_name, page, extracted.blocks, feature_rows(extracted.measures),
                      shares >= GOLD_SHARE, sizes / sizes.sum() if len(sizes) else sizes, extracted.measures)


@dataclasses.dataclass
class SnippetBlocks:
    """A page of trafilatura's evaluation set as the rules split it, each block labelled by its
    snippets: 1 holds one the main text must hold, 0 only ones it must leave out, -1 none."""
    measures: list[BlockMeasures]
    labels: np.ndarray          # int8
    tokens: np.ndarray          # per block (extraction_sets.token_list), for its weight

    def training_page(self) -> PageBlocks | None:
        """Its labelled blocks, weighing their share of the labelled tokens (of SNIPPET_PAGE_WEIGHT,
        the page's weight); None when none is labelled."""
        labelled = self.labels >= 0
        if not labelled.any():
            return None
        sizes = np.maximum(self.tokens[labelled], 1).astype(float)
        return PageBlocks('trafilatura', None, [], feature_rows(self.measures)[labelled],  # neighbours' too
                          self.labels[labelled] == 1, SNIPPET_PAGE_WEIGHT * sizes / sizes.sum(),
                          [measure for measure, kept in zip(self.measures, labelled) if kept])


def snippet_blocks(page: Page, snippets: dict) -> SnippetBlocks:
    """The page's blocks (the rules' split) labelled by `snippets` ('with', 'without': whitespace-
    normalised substrings, as trafilatura's evaluation matches them)."""
    extracted = extract_page(page.body, page.url, content_type(page), rules_only=True)
    to_hold = [collapse(snippet) for snippet in snippets['with'] if collapse(snippet)]
    to_leave_out = [collapse(snippet) for snippet in snippets['without'] if collapse(snippet)]
    labels, tokens = [], []
    for block in extracted.blocks:
        text = collapse(block.text)
        labels.append(1 if any(snippet in text for snippet in to_hold)
                      else 0 if any(snippet in text for snippet in to_leave_out) else -1)
        tokens.append(len(token_list(block.text)))
    return SnippetBlocks(extracted.measures, np.array(labels, dtype=np.int8), np.array(tokens, dtype=np.int64))


def blocks_digest(pages: list[PageBlocks]) -> str:
    """What the rules made of the train half (every block's measures and label): a change of the
    rules that moves any of its ~30,000 blocks changes it, and then snippet_blocks.parquet, made with
    the old rules, is out of date. A proxy: a rule that moves only blocks of today's pages and none
    of the train half's would go unseen (remake the file with --snippets after changing the rules)."""
    digest = hashlib.sha256()
    for page in pages:
        for measure, label in zip(page.measures, page.labels):
            digest.update(repr((dataclasses.astuple(measure), bool(label))).encode())
    return digest.hexdigest()


def write_snippet_blocks(path: Path, pages: Iterable[SnippetBlocks], digest: str) -> None:
    columns = {name: [] for name in ('page', 'label', 'tokens', *_MEASURES)}
    for number, page in enumerate(pages):
        columns['page'].extend([number] * len(page.measures))
        columns['label'].extend(page.labels.tolist())
        columns['tokens'].extend(page.tokens.tolist())
        for name in _MEASURES:
            columns[name].extend(getattr(measure, name) for measure in page.measures)
    table = pa.table(columns).replace_schema_metadata({_DIGEST_KEY: digest.encode()})
    pq.write_table(table, path, compression='zstd')


def read_snippet_blocks(path: Path, digest: str) -> Iterator[SnippetBlocks]:
    """The pages of `path`, when it was made with the rules that gave the train half `digest`."""
    remake = f'remake it from a clone of github.com/adbar/trafilatura: {Path(__file__).name} --snippets CLONE/tests'
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as error:
        raise SystemExit(f'{path}: {error}; {remake}') from error
    made_with = (table.schema.metadata or {}).get(_DIGEST_KEY, b'').decode()
    if made_with != digest or set(_MEASURES) - set(table.column_names):
        raise SystemExit(f'{path} was made when the rules split or measured the train half\'s blocks otherwise '
                         f'(other rules, or another lxml/libxml2); {remake}')
    columns = table.to_pydict()
    for _, rows in itertools.groupby(range(table.num_rows), key=columns['page'].__getitem__):
        rows = list(rows)
        yield SnippetBlocks([BlockMeasures(**{name: columns[name][row] for name in _MEASURES}) for row in rows],
                            np.array([columns['label'][row] for row in rows], dtype=np.int8),
                            np.array([columns['tokens'][row] for row in rows], dtype=np.int64))


def training_pages(snippets: Iterable[SnippetBlocks]) -> list[PageBlocks]:
    return [page for page in (blocks.training_page() for blocks in snippets) if page is not None]


def fit(pages: list[PageBlocks], parameters: dict) -> TreeEnsemble:
    rows = np.vstack([page.rows for page in pages])
    labels = np.concatenate([page.labels for page in pages])
    weights = np.concatenate([page.weights for page in pages])
    return TreeEnsemble.from_sklearn(GradientBoostingClassifier(**parameters).fit(rows, labels, weights))


def main_text(page: PageBlocks, model: TreeEnsemble | None,
              probability: float = block_model.CONTENT_PROBABILITY) -> str:
    """The page's content blocks by the model (as models/extract.py uses it, content from
    `probability` up), or by the rules when model is None. (Extract's page text also leaves out
    lines that are mostly a link: the same for every model.)"""
    keep = np.array([block.kind == 'content' for block in page.blocks])
    if model is not None:
        keep = decide_content(page.rows, keep, model, probability)
    return '\n'.join(block.text for block, kept in zip(page.blocks, keep) if kept)


def cross_validate(pages: list[PageBlocks], folds: int, parameters: dict, probabilities: list[float],
                   extra: Sequence[PageBlocks] = ()):
    """Macro F1 per set, rules vs model, each page predicted by a model that never saw it (but saw
    all of `extra`, the snippet-labelled pages), with content from each of `probabilities` up."""
    models = [fit([page for index, page in enumerate(pages) if index % folds != fold] + list(extra), parameters)
              for fold in range(folds)]
    for probability in probabilities:
        texts = {id(page): main_text(page, models[index % folds], probability) for index, page in enumerate(pages)}
        print(f' content from P >= {probability:g}:')
        for set_name in dict.fromkeys(page.set_name for page in pages):
            chosen = [page for page in pages if page.set_name == set_name]
            rules = score([main_text(page, None) for page in chosen], [page.page for page in chosen]).macro[2]
            model = score([texts[id(page)] for page in chosen], [page.page for page in chosen]).macro[2]
            print(f'  {set_name:<16} rules {rules:.4f}  model {model:.4f}  ({model - rules:+.4f}, {len(chosen)} pages)')
        every = score([texts[id(page)] for page in pages], [page.page for page in pages]).macro[2]
        print(f'  all pages        model {every:.4f}')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--cv', type=int, metavar='K', help='K-fold cross-validation on the train half; '
                        'writes no model')
    snippets = parser.add_mutually_exclusive_group()
    snippets.add_argument('--snippets', type=Path, metavar='DIR',
                          help=f"remake {SNIPPET_BLOCKS.name} from trafilatura's evaluation set (DIR: the tests/ "
                               'directory of a clone of github.com/adbar/trafilatura)')
    snippets.add_argument('--without-snippets', action='store_true',
                          help="fit on the train half alone, without trafilatura's set")
    parser.add_argument('--probabilities', default='', metavar='P,P,...',
                        help='with --cv, also these content thresholds (default: only the shipped '
                             f'block_model.CONTENT_PROBABILITY, {block_model.CONTENT_PROBABILITY:g})')
    parser.add_argument('--trees', type=int, default=PARAMETERS['n_estimators'])
    parser.add_argument('--depth', type=int, default=PARAMETERS['max_depth'])
    parser.add_argument('--out', type=Path, default=MODEL_PATH, help=f'where to write (default {MODEL_PATH})')
    args = parser.parse_args()
    try:
        probabilities = [float(value) for value in args.probabilities.split(',') if value.strip()]
    except ValueError:
        parser.error(f'--probabilities takes numbers between 0 and 1 separated by commas, not {args.probabilities!r}')
    parameters = {**PARAMETERS, 'n_estimators': args.trees, 'max_depth': args.depth}
    try:
        snippet_set = snippet_pages(args.snippets) if args.snippets else None  # a wrong directory fails first
    except ValueError as error:
        parser.error(str(error))
    pages = train_half()
    blocks = sum(len(page.labels) for page in pages)
    print(f'train half: {len(pages)} pages, {blocks:,} blocks, '
          f'{sum(page.labels.sum() for page in pages) / blocks:.1%} main text')
    extra = [] if args.without_snippets else _snippet_training_pages(snippet_set, blocks_digest(pages))
    if extra:
        labelled = sum(len(page.labels) for page in extra)
        print(f"trafilatura's set: {len(extra)} pages with labelled blocks, {labelled:,} blocks, "
              f'{sum(page.labels.sum() for page in extra) / labelled:.1%} main text')
    if args.cv:
        print(f'{args.cv}-fold cross-validation (whole pages), main-text macro F1, {parameters}:')
        cross_validate(pages, args.cv, parameters,
                       list(dict.fromkeys([block_model.CONTENT_PROBABILITY, *probabilities])), extra)
        return
    model = fit(pages + extra, parameters)
    args.out.write_text(json.dumps(_rounded(model.to_json()), separators=(',', ':')) + '\n', encoding='utf-8')
    print(f'wrote {args.out} ({len(model.trees)} trees, {args.out.stat().st_size / 1024:.0f} KB)')


def _snippet_training_pages(snippet_set: list[tuple[Page, dict]] | None, digest: str) -> list[PageBlocks]:
    """From a clone's pages (and written to SNIPPET_BLOCKS for the next run) or from SNIPPET_BLOCKS."""
    if snippet_set is None:
        return training_pages(read_snippet_blocks(SNIPPET_BLOCKS, digest))
    labelled = [snippet_blocks(page, item) for page, item in snippet_set]
    write_snippet_blocks(SNIPPET_BLOCKS, labelled, digest)
    print(f'wrote {SNIPPET_BLOCKS} ({len(labelled)} pages, {SNIPPET_BLOCKS.stat().st_size / 1024:.0f} KB)')
    return training_pages(labelled)


def _rounded(document):
    """Numbers to 9 significant digits: a smaller file, the same splits (features are compared
    as float32, whose neighbours differ in the 8th digit)."""
    if isinstance(document, float):
        return float(f'{document:.9g}') if math.isfinite(document) else document
    if isinstance(document, list):
        return [_rounded(item) for item in document]
    if isinstance(document, dict):
        return {key: _rounded(value) for key, value in document.items()}
    return document


if __name__ == '__main__':
    main()

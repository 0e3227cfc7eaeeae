"""Trains Focal's block model (models/block_model.py) on the training half of the extraction sets.

A block's label: at least half of its tokens are gold main text (aligned in document order).
Pages: the even ids of CleanEval dev, CleanPortalEval, L3S-GN1, CWCED and Dragnet (extraction_sets.py);
the odd ids stay held out for `benchmarks/extraction.py --split test`. Blocks weigh their share of
the page's tokens, so a page counts once whatever its length, as in the macro F1 reported.

  .venv/bin/python benchmarks/train_block_model.py --cv 5     # grouped cross-validation, train half only
  .venv/bin/python benchmarks/train_block_model.py --cv 5 --probabilities 0.5,0.4   # other content thresholds
  .venv/bin/python benchmarks/train_block_model.py            # fit on the train half, write block_model.json

Cross-validation folds are whole pages, so a page's blocks never help predict each other.
"""
import argparse
import dataclasses
import json
import math
from pathlib import Path

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier

from extraction_sets import Page, content_type, gold_shares, load_sets, score, token_list
from models import block_model
from models.block_model import MODEL_PATH, TreeEnsemble, decide_content, feature_rows
from models.extract import Block, extract_page

GOLD_SHARE = 0.5    # of a block's tokens, from which it is main text
PARAMETERS = {'n_estimators': 120, 'max_depth': 3, 'learning_rate': 0.1, 'subsample': 1.0,
              'min_samples_leaf': 20, 'random_state': 0}


@dataclasses.dataclass
class PageBlocks:
    set_name: str
    page: Page
    blocks: list[Block]         # the rules' classes
    rows: np.ndarray            # block_model.FEATURES per block
    labels: np.ndarray          # main text or not, per block
    weights: np.ndarray


def page_blocks(set_name: str, page: Page) -> PageBlocks:
    extracted = extract_page(page.body, page.url, content_type(page), rules_only=True)
    texts = [block.text for block in extracted.blocks]
    sizes = np.array([max(1, len(token_list(text))) for text in texts], dtype=float)
    shares = np.array(gold_shares(texts, page.gold))
    return PageBlocks(set_name, page, extracted.blocks, feature_rows(extracted.measures),
                      shares >= GOLD_SHARE, sizes / sizes.sum() if len(sizes) else sizes)


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


def cross_validate(pages: list[PageBlocks], folds: int, parameters: dict, probabilities: list[float]):
    """Macro F1 per set, rules vs model, each page predicted by a model that never saw it, with
    content from each of `probabilities` up."""
    models = [fit([page for index, page in enumerate(pages) if index % folds != fold], parameters)
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
                        'writes nothing')
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
    pages = [page_blocks(set_name, page) for set_name, (set_pages, _) in load_sets('train').items()
             for page in set_pages]
    blocks = sum(len(page.labels) for page in pages)
    print(f'train half: {len(pages)} pages, {blocks:,} blocks, '
          f'{sum(page.labels.sum() for page in pages) / blocks:.1%} main text')
    if args.cv:
        print(f'{args.cv}-fold cross-validation (whole pages), main-text macro F1, {parameters}:')
        cross_validate(pages, args.cv, parameters,
                       list(dict.fromkeys([block_model.CONTENT_PROBABILITY, *probabilities])))
        return
    model = fit(pages, parameters)
    args.out.write_text(json.dumps(_rounded(model.to_json()), separators=(',', ':')) + '\n', encoding='utf-8')
    print(f'wrote {args.out} ({len(model.trees)} trees, {args.out.stat().st_size / 1024:.0f} KB)')


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

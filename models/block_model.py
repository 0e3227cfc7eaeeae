"""Is a block main content? A small boosted-tree model over block features, after the rules.

The rules of models/extract.py classify each block by its marks, heading and links; this model
looks at every block again with the features the rules do not weigh together: text length,
link density, anchor-text share, stop-word density, punctuation, position, the tags it holds,
class/id marks (navigation, noise, related, the story's article mark), the rules' own class, and
the same measures of its neighbours (a short line between two paragraphs is content, one between
two menus is not). It decides content or noise among the blocks the rules found text-dense; link
lists keep the rules' class, and a page it would leave without content keeps the rules' answer
(decide_content).

The trees are trained by benchmarks/train_block_model.py on the even ids (training half) of
../shared/data/extraction and stored as plain JSON next to this module (no pickle): a fitted
sklearn GradientBoostingClassifier's split features, thresholds and leaf values.
"""
import dataclasses
import functools
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import stopwordsiso

from models.segment import FEATURES, LOG_FEATURES, feature_matrix, latin_word_counts, tree_leaves
from models.segment import text_measures as compiled_text_measures
from models.text import stop_words

MODEL_PATH = Path(__file__).with_name('block_model.json')
# From which the model calls a block content. Below 0.5, leaning to recall: on trafilatura's set of
# today's pages (benchmarks/extraction.py --snippets) main-text F1 0.898 at 0.5, 0.901 at 0.45, as
# the model misses more of their short paragraphs than it lets boilerplate in; cross-validated on
# the train half of our five sets, macro F1 0.8884 at 0.5, 0.8893 at 0.45 (0.8877 at 0.4).
CONTENT_PROBABILITY = 0.45

_CHINESE_FUNCTION_CHARS = '的了是在和也就都而及与着或等被把这那之其为对从以将但并所于'
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_SENTENCE_PUNCTUATION = '.,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u3001'
BLOCK_CLASSES = ('content', 'related', 'navigation', 'noise')  # SSAPS's four


@dataclasses.dataclass(slots=True)
class BlockMeasures:
    """What segmentation knows of one block, before the page-level features are derived."""
    chars: int                  # visible characters
    anchor_chars: int           # of which inside anchors ('#' and javascript: ones too)
    links: int                  # anchors, '#' and javascript: ones too
    paragraphs: int             # <p> in it
    list_items: int             # <li>, <dt>, <dd>
    headings: int               # <h1> ... <h6>
    container: str              # tag of its container: div, td, ul, ...
    depth: int                  # of its container in the tree
    marker: str | None          # 'navigation' or 'noise' from class/id words or tags, on it or above
    related_marker: bool        # a related-list word on it or above
    article_mark: bool          # in the story's own container ('article-body', itemprop articleBody)
    hidden: bool
    rule_kind: str              # the rules' class, before the article window
    lines: int
    stop_word_density: float
    punctuation: int            # sentence punctuation marks
    preformatted: int = 0       # <pre> in it: code, a listing (not a model feature)
    windowed: bool = False      # the article window took it out of the content


def text_measures(text: str, words: frozenset | None = None) -> tuple[int, float, int]:
    """The measures read off a block's text: (lines, stop_word_density, punctuation), compiled
    (models/segment.pyx text_measures). The stop-word density is the share of function words:
    Chinese function characters among Han characters, or among words the stop `words` of the
    page's language (density_stop_words; English by default). Running text has many, menus and
    titles few (as in jusText). Chinese text skips the word split: it cannot hold as many words as
    Han characters."""
    return compiled_text_measures(text, _CHINESE_FUNCTION_CHARS, _SENTENCE_PUNCTUATION, words or stop_words())


# Languages (ISO 639-1) whose own stop words measure the density of a page that declares one
# (<html lang>): languages that separate words with spaces. German text has almost no English stop
# words, so without its own its paragraphs measured like menus (on trafilatura's set of today's
# pages, main-text F1 of its German pages 0.913 -> 0.915, French 0.900 -> 0.913, Spanish 0.919 -> 0.919).
DENSITY_LANGUAGES = frozenset('bg ca cs da de el es fi fr hr hu id it nl no pl pt ro ru sk sl sv tr uk'.split())
_LANGUAGE_ALIASES = {'nb': 'no', 'nn': 'no'}


def density_stop_words(language: str | None, texts: Iterable[str]) -> frozenset:
    """The stop words a page's blocks are measured with: those of its declared language ('de-AT',
    'pt_BR'; stopwordsiso's list) when its blocks' `texts` hold more of them than of the English ones (a
    template's lang="de" on an English page is not rare), else the English and Chinese ones of
    tokenising (models.text.stop_words), as for any other language and for none."""
    primary = (language or '').strip().lower().replace('_', '-').split('-')[0]
    declared, default = _language_stop_words(_LANGUAGE_ALIASES.get(primary, primary)), stop_words()
    if declared is default:
        return default
    text = '\n'.join(texts).lower()
    return declared if latin_word_counts(text, declared)[1] > latin_word_counts(text, default)[1] else default


@functools.lru_cache(maxsize=None)
def _language_stop_words(primary: str) -> frozenset:
    if primary not in DENSITY_LANGUAGES:
        return stop_words()
    return frozenset(word.lower() for word in stopwordsiso.stopwords(primary))


_LOG_FEATURES = [FEATURES.index(name) for name in LOG_FEATURES]
_PAGE_LOG_BLOCKS = FEATURES.index('page_log_blocks')


def feature_rows(measures: list[BlockMeasures]) -> np.ndarray:
    """One row of FEATURES per block of a page: computed in one compiled pass (models/segment.pyx
    feature_matrix, ~15 numpy calls on ~30 values each took ~0.15 ms of a real page), and the
    logarithms here, by numpy, as the trees were trained."""
    rows = feature_matrix(measures)
    rows[:, _LOG_FEATURES] = np.log1p(rows[:, _LOG_FEATURES])
    rows[:, _PAGE_LOG_BLOCKS] = math.log1p(len(measures))
    return rows


class TreeEnsemble:
    """A boosted binary classifier: log-odds = prior + rate * sum of the trees' leaf values.

    The trees are padded to one (trees x nodes) array per field, a leaf pointing to itself, which a
    page's blocks walk in one compiled loop (models/segment.pyx tree_leaves): a few numpy calls per
    level over every tree at once cost ~0.06 ms of a real page."""

    def __init__(self, features: tuple[str, ...], prior: float, learning_rate: float, trees: list[dict]):
        if tuple(features) != FEATURES:
            raise ValueError('block_model.json was trained on other features: run '
                             'benchmarks/train_block_model.py')
        self.features, self.prior, self.learning_rate = tuple(features), prior, learning_rate
        self.trees = trees          # per tree, lists: feature, threshold, left, right, value (leaf: left -1)
        nodes = max(len(tree['left']) for tree in trees)
        self._roots = np.arange(len(trees)) * nodes   # node n of tree t is at t * nodes + n
        self._feature, self._threshold = np.zeros(len(trees) * nodes, dtype=int), np.zeros(len(trees) * nodes)
        self._left, self._right = np.zeros(len(trees) * nodes, dtype=int), np.zeros(len(trees) * nodes, dtype=int)
        self._value = np.zeros(len(trees) * nodes)
        for root, tree in zip(self._roots, trees):
            at = slice(root, root + len(tree['left']))
            own = np.arange(len(tree['left']))
            leaf = np.asarray(tree['left']) < 0
            self._feature[at] = np.where(leaf, 0, tree['feature'])
            self._threshold[at] = tree['threshold']
            self._left[at] = root + np.where(leaf, own, tree['left'])
            self._right[at] = root + np.where(leaf, own, tree['right'])
            self._value[at] = tree['value']

    def content_probability(self, rows: np.ndarray) -> np.ndarray:
        """P(content) per row."""
        rows = np.ascontiguousarray(rows, dtype=np.float32)  # as sklearn's trees compare
        leaves = tree_leaves(rows, self._roots, self._feature, self._threshold, self._left, self._right, self._value)
        log_odds = self.prior + self.learning_rate * leaves.sum(axis=1)
        return 1.0 / (1.0 + np.exp(-log_odds))

    def to_json(self) -> dict:
        return {'features': list(self.features), 'prior': self.prior, 'learning_rate': self.learning_rate,
                'trees': self.trees}

    @classmethod
    def from_json(cls, document: dict) -> 'TreeEnsemble':
        return cls(document['features'], document['prior'], document['learning_rate'], document['trees'])

    @classmethod
    def from_sklearn(cls, model) -> 'TreeEnsemble':
        """From a fitted binary GradientBoostingClassifier (log-loss, prior init)."""
        prior = float(model.init_.class_prior_[1])
        trees = [{'feature': tree.feature.tolist(), 'threshold': tree.threshold.tolist(),
                  'left': tree.children_left.tolist(), 'right': tree.children_right.tolist(),
                  'value': tree.value[:, 0, 0].tolist()}
                 for tree in (estimator.tree_ for (estimator,) in model.estimators_)]
        return cls(FEATURES, math.log(prior / (1 - prior)), model.learning_rate, trees)


def decide_content(rows: np.ndarray, is_content: np.ndarray, model: 'TreeEnsemble | None' = None,
                   probability: float = CONTENT_PROBABILITY) -> np.ndarray:
    """Which blocks of a page are content. The model decides among the blocks the rules found
    text-dense (rule_content), content from `probability` up; the others keep is_content (the
    rules' answer). A page the model would leave with no content keeps the rules' answer: a short
    brief is still its own main text."""
    dense = rows[:, FEATURES.index('rule_content')] > 0 if len(rows) else np.zeros(0, dtype=bool)
    if not dense.any():
        return is_content
    decided = is_content.copy()  # the trees walk only the dense blocks' rows: a third of a real page's
    decided[dense] = (model or content_model()).content_probability(rows[dense]) >= probability
    return decided if decided.any() or not is_content.any() else is_content


@functools.cache
def content_model() -> TreeEnsemble:
    return TreeEnsemble.from_json(json.loads(MODEL_PATH.read_text(encoding='utf-8')))

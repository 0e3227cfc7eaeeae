"""TextRank keyword extraction (Mihalcea & Tarau 2004), used to learn a topic lexicon (DTH).

Chinese text goes through jieba's own TextRank (nouns, place names, verbal nouns, verbs, as in
the DTH paper); other languages through `textrank`, the same algorithm over Unicode words:
a co-occurrence graph of index terms within a sliding window, ranked by weighted PageRank.
"""
import collections

import numpy as np

from models import text

DAMPING = 0.85
WINDOW = 5
JIEBA_POS = ('ns', 'n', 'vn', 'v')


def textrank(terms: list[str], window: int = WINDOW, damping: float = DAMPING,
             iterations: int = 50, tolerance: float = 1e-6) -> dict[str, float]:
    """Scores of `terms` (index terms in document order), scaled so the best is 1."""
    from scipy import sparse  # on first use: ~0.12 s, and Beam workers import this module (topics) unused
    vocabulary = {t: i for i, t in enumerate(dict.fromkeys(terms))}
    if len(vocabulary) < 2:
        return {t: 1.0 for t in vocabulary}
    ids = [vocabulary[t] for t in terms]
    pairs = collections.Counter()
    for i, a in enumerate(ids):
        for b in ids[i + 1:i + window]:
            if a != b:
                pairs[(a, b)] += 1
    n = len(vocabulary)
    if not pairs:
        return {t: 1.0 for t in vocabulary}
    (rows, cols), counts = zip(*pairs.keys()), list(pairs.values())
    weights = sparse.coo_matrix((counts + counts, (rows + cols, cols + rows)), shape=(n, n)).tocsr()
    out_weight = np.asarray(weights.sum(axis=1)).ravel()
    out_weight[out_weight == 0] = 1.0
    transition = sparse.diags(1.0 / out_weight) @ weights  # row-stochastic
    scores = np.full(n, 1.0 / n)
    for _ in range(iterations):
        updated = (1 - damping) / n + damping * (transition.T @ scores)
        done = np.abs(updated - scores).sum() < tolerance
        scores = updated
        if done:
            break
    scores /= scores.max()
    return {t: float(scores[i]) for t, i in vocabulary.items()}


def keywords(document: str, top_k: int = 100) -> dict[str, float]:
    """The `top_k` TextRank keywords of one document with scores in (0, 1]."""
    if text.is_chinese(document):
        from jieba import analyse  # loads the POS tagger only when Chinese text needs it
        text.jieba_tokenizer()
        ranked = analyse.textrank(text.normalize(document), topK=top_k * 2, withWeight=True,
                                  allowPOS=JIEBA_POS)
        scores = {w: s for w, s in ranked if text.is_term(w)}
    else:
        scores = textrank(text.tokenize(document))
    best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]
    return dict(best)

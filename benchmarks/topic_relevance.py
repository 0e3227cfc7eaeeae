"""How well a topic learned from 10 example articles ranks a real corpus, against baselines.

Prints ROC AUC (label-vs-rest, mean of 5 draws of 10 examples) for:
  focal        the shipped model: learned keywords, cosine over the page's whole TF-IDF vector
  wl-eq4       the same keywords, cosine over the topic's terms only (WL eq. 4 read literally)
  centroid     a plain TF-IDF centroid of the 10 examples (scikit-learn), the usual baseline
and the tokenisation speed. With --one-site WEB_DIR (a built sandbox web): topics learned from 10
article pages of a single site (as users often give), with and without down-weighting the words of
the pages' shared title part (the site's name, models.topic.title_site_words), AUC over the web's
other article pages. Run: .venv/bin/python benchmarks/topic_relevance.py [--draws N] [--one-site WEB_DIR]
"""
import argparse
import collections
import math
import random
import statistics
import time
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import roc_auc_score

from models import html, relevance, text
from models.termstats import TermStats, tfidf_weights
from models.topic import build_topic, title_site_words
from sandbox import corpora
from sandbox.server import open_web

EXAMPLES = 10


def topic_terms_cosine(keywords: dict, weights: dict) -> float:
    """WL eq. 4 with both sums over the topic's n terms only."""
    dot = sum(w * weights.get(t, 0.0) for t, w in keywords.items())
    norm = math.sqrt(sum(w * w for w in keywords.values()) * sum(weights.get(t, 0.0) ** 2 for t in keywords))
    return dot / norm if norm else 0.0


def evaluate(name, documents, label, draws):
    started = time.perf_counter()
    terms = [text.tokenize(d.text) for d in documents]
    seconds = time.perf_counter() - started
    characters = sum(len(d.text) for d in documents)
    print(f'{name}: {len(documents)} documents tokenised in {seconds:.1f} s '
          f'({len(documents) / seconds:.0f} docs/s, {characters / seconds / 1e6:.2f} M chars/s)')
    stats = TermStats.from_documents(terms)
    weights = [tfidf_weights(t, stats) for t in terms]
    matrix = TfidfVectorizer(analyzer=lambda t: t).fit_transform(terms)
    truth = np.array([label in d.labels for d in documents])
    relevant = np.flatnonzero(truth)
    results = {'focal': [], 'wl-eq4': [], 'centroid': []}
    for draw in range(draws):
        examples = random.Random(draw).sample(list(relevant), EXAMPLES)
        rest = np.setdiff1d(np.arange(len(documents)), examples)
        topic = build_topic(label, [documents[i].text for i in examples])
        keywords = topic.term_weights
        results['focal'].append(roc_auc_score(
            truth[rest], [relevance.cosine(keywords, weights[i]) for i in rest]))
        results['wl-eq4'].append(roc_auc_score(
            truth[rest], [topic_terms_cosine(keywords, weights[i]) for i in rest]))
        centroid = np.asarray(matrix[examples].mean(axis=0)).ravel()
        results['centroid'].append(roc_auc_score(truth[rest], matrix[rest] @ centroid))
    baseline = statistics.mean(results['centroid'])
    for method, aucs in results.items():
        mean = statistics.mean(aucs)
        print(f'  {label:<10} {method:<9} AUC mean {mean:.3f} (min {min(aucs):.3f}, max {max(aucs):.3f})'
              f'  vs centroid {mean - baseline:+.3f}')


def one_site(web_dir: Path, draws: int):
    """AUC of topics learned from one site's pages, site words down-weighted or not."""
    archive, _ = open_web(web_dir)
    labels = pq.read_table(web_dir / 'labels.parquet')
    articles = labels.filter(pc.equal(labels['kind'], 'article'))
    urls, hosts = articles['url'].to_pylist(), articles['host'].to_pylist()
    documents = []
    for url in urls:
        title, body = html.document_text(archive.get(url).body)
        documents.append(f'{title}\n{body}')
    terms = [text.tokenize(document) for document in documents]
    for column in [name for name in articles.column_names if name.startswith('relevant_')]:
        truth = np.array(articles[column].fill_null(False).to_pylist())
        per_host = collections.Counter(host for host, relevant in zip(hosts, truth) if relevant)
        label = column.removeprefix('relevant_')
        for host, _ in per_host.most_common(draws):
            examples = [i for i, (h, relevant) in enumerate(zip(hosts, truth)) if h == host and relevant][:EXAMPLES]
            rest = np.setdiff1d(np.arange(len(documents)), examples)
            aucs = {}
            for site_words in (False, True):
                topic = build_topic(label, [documents[i] for i in examples], site_words=site_words)
                scores = relevance.corpus_relevance(topic, [terms[i] for i in rest])
                aucs[site_words] = roc_auc_score(truth[rest], scores)
            named = sorted(title_site_words([documents[i] for i in examples], label))
            print(f'  {label:<10} examples from {host:<28} AUC {aucs[False]:.3f} -> {aucs[True]:.3f} with site words '
                  f'down-weighted ({", ".join(named) or "none found"})')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--draws', type=int, default=5)
    parser.add_argument('--one-site', type=Path, metavar='WEB_DIR', help='a built sandbox web')
    args = parser.parse_args()
    if args.one_site:
        one_site(args.one_site, args.draws)
        return
    thucnews = corpora.thucnews_articles()
    for label in ('房产', '体育'):
        evaluate('THUCNews', thucnews, label, args.draws)
    wikispeedia = list(corpora.wikispeedia_articles())
    for label in ('Geography', 'Science'):
        evaluate('Wikispeedia', wikispeedia, label, args.draws)


if __name__ == '__main__':
    main()

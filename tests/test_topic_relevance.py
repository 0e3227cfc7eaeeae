"""Acceptance: topics built by `focal topic build` from 10 example pages rank real corpora.

For each task, 5 random draws of 10 relevant articles are written to files, `focal topic build`
learns a topic from them, and every other article of the corpus is ranked by its relevance
(TF-IDF statistics over the whole corpus, as if the crawler had fetched it). The figure is
ROC AUC of label-vs-rest; benchmarks/topic_relevance.py compares it with baselines.
"""
import html as html_escaping
import random
import statistics

import pytest
from sklearn.metrics import roc_auc_score

from models import relevance, text
from models.topic import load_topic
from runners.cli import main
from sandbox import corpora

DRAWS = 5
EXAMPLES = 10


@pytest.fixture(scope='module')
def thucnews():
    documents = corpora.thucnews_articles()
    return documents, [text.tokenize(d.text) for d in documents]


@pytest.fixture(scope='module')
def wikispeedia():
    documents = list(corpora.wikispeedia_articles())
    return documents, [text.tokenize(d.text) for d in documents]


def write_gbk_text(path, document):
    path.write_bytes(document.text.encode('gb18030'))


def write_html(path, document):
    path.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
                    f'{html_escaping.escape(document.title)}</title></head><body><article>'
                    + ''.join(f'<p>{html_escaping.escape(p)}</p>' for p in document.text.split('\n\n'))
                    + '</article></body></html>', encoding='utf-8')


def mean_auc(corpus, label, write, tmp_path, report):
    documents, terms = corpus
    relevant = [i for i, d in enumerate(documents) if label in d.labels]
    aucs = []
    for draw in range(DRAWS):
        examples = set(random.Random(draw).sample(relevant, EXAMPLES))
        folder = tmp_path / f'draw{draw}'
        folder.mkdir()
        files = []
        for i in sorted(examples):
            files.append(folder / f'{i}.{"html" if write is write_html else "txt"}')
            write(files[-1], documents[i])
        topic_file = folder / 'topic.yaml'
        assert main(['topic', 'build', '--name', label, '--out', str(topic_file), '--from',
                     *map(str, files)]) == 0
        topic = load_topic(topic_file)
        scores = relevance.corpus_relevance(topic, terms)
        rest = [i for i in range(len(documents)) if i not in examples]
        aucs.append(roc_auc_score([label in documents[i].labels for i in rest], [scores[i] for i in rest]))
    mean = statistics.mean(aucs)
    report(f'ROC AUC {label}-vs-rest, {DRAWS} draws of {EXAMPLES} examples: '
           + ' '.join(f'{a:.3f}' for a in aucs) + f'  mean {mean:.3f}')
    return mean


@pytest.mark.parametrize('label', ['房产', '体育'])
def test_thucnews_topics_from_ten_gbk_text_files(thucnews, label, tmp_path, report):
    assert mean_auc(thucnews, label, write_gbk_text, tmp_path, report) >= 0.85


def test_wikispeedia_geography_topic_from_ten_html_pages(wikispeedia, tmp_path, report):
    assert mean_auc(wikispeedia, 'Geography', write_html, tmp_path, report) >= 0.80

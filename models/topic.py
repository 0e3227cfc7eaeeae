"""The topic a crawl looks for: a name, a language, weighted keywords and optional seed pages.

A topic is a YAML file a user can read and edit:

    name: 房产
    language: zh
    keywords: {房价: 0.8, 楼盘: 0.6, 开发商: 0.4}
    seeds: [http://example.com/a.html]

Keywords are usually learned from example pages (`build_topic`): TextRank per page (DTH),
averaged over the pages so that terms shared by many examples outrank one page's names, and
for Chinese multiplied by jieba's background IDF so that generic words ("记者", "表示") sink.
"""
import collections
import dataclasses
import functools
import math
import re
from pathlib import Path
from typing import Iterable

import yaml

from models import text, textrank

DEFAULT_KEYWORDS = 100
SITE_TITLE_SHARE = 0.5      # a title part in half the example titles or more names their site
SITE_WORD_WEIGHT = 0.1
_TITLE_SEPARATORS = re.compile(r'\s+[-|_–—:·]+\s+|[|｜_–—]')


class TopicError(ValueError):
    """A topic file that cannot be used; the message says what is wrong and how to fix it."""


@dataclasses.dataclass
class Topic:
    name: str
    language: str
    keywords: dict[str, float]
    seeds: list[str] = dataclasses.field(default_factory=list)
    description: str = ''

    @functools.cached_property
    def dictionary_words(self) -> frozenset[str]:
        """The Chinese keywords (Han only, worth indexing): segmentation keeps them whole
        (text.use_dictionary_words), so a page's 二手房交易 matches the keyword 二手房交易."""
        return frozenset(keyword for keyword in self.keywords
                         if text.is_term(keyword) and text.HAN_RUN.fullmatch(keyword))

    @functools.cached_property
    def term_weights(self) -> dict[str, float]:
        """Keyword weights over index terms: a dictionary word is one term (whatever dictionary this
        process segments with); any other keyword gives each of its terms its weight."""
        weights = {}
        for keyword, weight in self.keywords.items():
            terms = [keyword] if keyword in self.dictionary_words else text.tokenize(keyword)
            for term in terms or [text.normalize(keyword)]:
                weights[term] = max(weight, weights.get(term, 0.0))
        return weights

    @functools.cached_property
    def squared_weights(self) -> float:
        """The sum of the squared term weights (the topic vector's squared length): every cosine
        with the topic needs it, for each page and link scored."""
        return sum(w * w for w in self.term_weights.values())

    def to_dict(self) -> dict:
        data = {'name': self.name, 'language': self.language}
        if self.description:
            data['description'] = self.description
        data['keywords'] = {k: round(v, 6) for k, v in self.keywords.items()}
        data['seeds'] = list(self.seeds)
        return data

    def to_yaml(self) -> str:
        return _dump_yaml(self.to_dict())

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_yaml(), encoding='utf-8')


def _dump_yaml(data: dict) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)


def _read_yaml(path: str | Path, kind: str):
    try:
        return yaml.safe_load(Path(path).read_text(encoding='utf-8'))
    except OSError as error:
        raise TopicError(f'cannot read {kind} file {path}: {error.strerror}') from error
    except yaml.YAMLError as error:
        raise TopicError(f'{kind} file {path} is not valid YAML: {error}') from error


def load_topic(path: str | Path) -> Topic:
    """Read and validate a topic YAML file."""
    return topic_from_dict(_read_yaml(path, 'topic'), source=str(path))


@dataclasses.dataclass
class Task:
    """A sandbox task file: a topic file plus the label it is judged by (`relevant_column` of the
    web's labels.parquet). The crawler reads only the topic; evaluation reads the rest."""
    topic: Topic
    label: str | None
    relevant_column: str | None
    file: str

    def summary(self) -> dict:
        """What crawl.json records of the task."""
        return {'file': self.file, 'label': self.label, 'relevant_column': self.relevant_column}

    def save(self, path: str | Path) -> None:
        """A task file is a topic file (so `--topic` reads it too) plus the label it is judged by."""
        data = {**self.topic.to_dict(), 'label': self.label, 'relevant_column': self.relevant_column}
        Path(path).write_text(_dump_yaml(data), encoding='utf-8')


def load_task(path: str | Path) -> Task:
    """Read a task file (`focal sandbox build` writes them to WEB_DIR/tasks/NAME.yaml)."""
    data = _read_yaml(path, 'task')
    topic = topic_from_dict(data, source=str(path))
    return Task(topic, data.get('label'), data.get('relevant_column'), str(Path(path).resolve()))


def topic_from_dict(data, source: str = 'topic') -> Topic:
    if not isinstance(data, dict):
        raise TopicError(f'{source}: expected a mapping with name, language and keywords')
    name = data.get('name')
    if not isinstance(name, str) or not name.strip():
        raise TopicError(f'{source}: "name" must be a non-empty string')
    keywords = data.get('keywords')
    if not isinstance(keywords, dict) or not keywords:
        raise TopicError(f'{source}: "keywords" must map each keyword to a positive weight, '
                         'e.g. {房价: 0.8}; `focal topic build` learns them from example pages')
    cleaned = {}
    for keyword, weight in keywords.items():
        if not isinstance(weight, (int, float)) or isinstance(weight, bool) or not weight > 0 \
                or not math.isfinite(weight):
            raise TopicError(f'{source}: keyword {keyword!r} has weight {weight!r}; '
                             'weights must be positive numbers')
        cleaned[text.normalize(str(keyword)).strip()] = float(weight)
    seeds = data.get('seeds') or []
    if not isinstance(seeds, list) or not all(isinstance(s, str) for s in seeds):
        raise TopicError(f'{source}: "seeds" must be a list of URLs')
    language = data.get('language') or ('zh' if text.is_chinese(' '.join(cleaned)) else 'en')
    return Topic(name.strip(), str(language), cleaned, seeds, str(data.get('description') or ''))


@functools.lru_cache(maxsize=1)
def _chinese_background_idf() -> tuple[dict, float]:
    """jieba's IDF table (built by jieba's authors from a large Chinese corpus) and its median."""
    from jieba import analyse
    return analyse.default_tfidf.idf_freq, analyse.default_tfidf.median_idf


def term_specificity(term: str) -> float:
    """How rare a term is in general language: jieba's IDF for Chinese terms, 1 otherwise."""
    if not text.is_chinese(term):
        return 1.0
    idf, median = _chinese_background_idf()
    return idf.get(term, median)


def title_site_words(documents: list[str], domain: str = '') -> set[str]:
    """Terms of the title parts most example pages share ("房价上涨 - 安居网", "楼市 - 安居网"): the
    name of the site they come from, not words of the domain (the terms of `domain`, the topic's
    name, never are: "Paris - Geography Wiki"). A document's first line is its title."""
    parts = collections.Counter()
    for document in documents:
        title = document.split('\n', 1)[0]
        parts.update({part.strip() for part in _TITLE_SEPARATORS.split(title) if part.strip()})
    shared = max(2, math.ceil(SITE_TITLE_SHARE * len(documents)))
    return {term for part, count in parts.items() if count >= shared
            for term in text.tokenize(part)} - set(text.tokenize(domain))


def learn_keywords(documents: Iterable[str], top_k: int = DEFAULT_KEYWORDS, site_words: bool = False,
                   domain: str = '') -> dict[str, float]:
    """Topic lexicon from example texts, best first, weights scaled so the best is 1. With
    `site_words`, the terms of the examples' shared title part (title_site_words: the site's name)
    keep SITE_WORD_WEIGHT of their weight. Off by default: on the sandbox it changed topic AUC by
    -0.007 to +0.002 (benchmarks/topic_relevance.py --one-site), since a domain site's name is
    often made of domain words ("楼市新闻网")."""
    documents = [d for d in documents if d.strip()]
    if not documents:
        return {}
    naming_site = title_site_words(documents, domain) if site_words else set()
    totals = collections.Counter()
    for document in documents:
        for term, score in textrank.keywords(document, top_k).items():
            weight = SITE_WORD_WEIGHT if term in naming_site else 1.0
            totals[term] += weight * score * term_specificity(term) / len(documents)
    best = totals.most_common(top_k)
    top = best[0][1] if best else 1.0
    return {term: score / top for term, score in best}


def build_topic(name: str, documents: Iterable[str], seeds: Iterable[str] = (),
                language: str | None = None, top_k: int = DEFAULT_KEYWORDS, site_words: bool = False) -> Topic:
    """A topic whose keywords are learned from example texts (title on the first line)."""
    documents = list(documents)
    keywords = learn_keywords(documents, top_k, site_words, name)
    if not keywords:
        raise TopicError('no keywords could be learned: the example pages have no usable text')
    if language is None:
        language = 'zh' if text.is_chinese(' '.join(documents)[:20000]) else 'en'
    return Topic(name, language, keywords, list(seeds))

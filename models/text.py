"""Language-aware text normalisation and tokenisation.

Chinese runs are segmented by jieba's algorithm, dictionary and HMM as compiled in jieba-rs
(`rjieba`): the same tokens as jieba 0.42.1 (tests/models/test_tokens.py checks every text of
THUCNews and CWCED) about 12 times faster, which is most of a crawl round's CPU on real Chinese
pages. jieba itself stays for what jieba-rs lacks (TextRank and its part-of-speech tags, the IDF
table). A topic's Chinese keywords are added to the dictionary (`use_dictionary_words`) so a
keyword such as 二手房交易 stays one token instead of 二手房 + 交易; every other script is split
into Unicode words. Mixed text ("iPhone手机价格") is cut into
script runs first, so each run gets the right tokenizer. Stop words: the stopwords-iso Chinese
list and scikit-learn's English list (stopwords-iso's English list drops domain words such as
"area", "home" and "world").
"""
import functools
import importlib.util
import logging
import re
import threading
import unicodedata

import rjieba
import stopwordsiso

from models.segment import (ascii_terms, counted_terms, full_width_forms_replaced, han_and_letters, index_terms,
                            put_back_words, script_runs)

# Han characters, for inside a regex character class: the CJK unified ideographs (extension A,
# the basic block, compatibility ideographs, extensions B-F). Every module counts Han with these.
HAN_RANGES = '\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef'
HAN_CHARACTER = re.compile(f'[{HAN_RANGES}]')
HAN_RUN = re.compile(f'[{HAN_RANGES}]+')
# Han runs and other words, and a letter: the definitions models/segment.pyx's compiled script_runs
# and index_terms follow (tests/models/test_text.py compares them).
_RUN = re.compile(rf'([{HAN_RANGES}]+)|([^\W_{HAN_RANGES}]+(?:[\'’][^\W_{HAN_RANGES}]+)*)')
_HAS_LETTER = re.compile(r'[^\W\d_]')
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z0-9]+)*")  # _RUN's words, for ASCII text: 4x faster

_ENGLISH_CONTRACTIONS = ("aren't can't couldn't didn't doesn't don't hadn't hasn't haven't he's i'd "
                         "i'll i'm i've isn't it's let's she's shouldn't that's there's they'd "
                         "they'll they're they've wasn't we'd we're we've weren't what's who's "
                         "won't wouldn't you'd you'll you're you've").split()
_jieba_lock = threading.Lock()
_dictionary_words: frozenset[str] = frozenset()


# Full-width ASCII forms (，：（Ａ１), the ideographic space and the ellipsis are most of what NFKC
# changes in Chinese text: normalize replaces each by its full compatibility decomposition first
# (full_width_forms_replaced, compiled), so the text's NFKD, and so its NFKC, stays what it was;
# most pages are then NFKC already, and the check after the replacement runs NFKC on the others
# (an 'ａ' before a combining accent must still compose). NFKC itself costs ~0.9 ms a page.
_NFKC_STABLE_RUN = re.compile('[\x00-\x7f\u4e00-\u9fff]+')  # ASCII, unified Han: no decomposition


def normalize(text: str) -> str:
    """NFKC (full-width to half-width), case-folded, curly apostrophes straightened.

    So 'ＡＢＣ１' and 'abc1', or 'Don’t' and "don't", are one term. A page that is still not NFKC
    after the full-width forms (circled digits ①, ㎡ in a listing, ℃, Roman numerals Ⅱ) has each
    character NFKC changes replaced by its full compatibility decomposition (NFKD) too, which
    leaves the text's NFKD, and so its NFKC, as it was: NFKC of a whole page is ~5,000
    instructions a character, a check of each distinct one of its characters a few hundred.
    """
    if not unicodedata.is_normalized('NFKC', text):
        text = full_width_forms_replaced(text)
        if not unicodedata.is_normalized('NFKC', text):
            for character in set(_NFKC_STABLE_RUN.sub('', text)):
                if not unicodedata.is_normalized('NFKC', character):
                    text = text.replace(character, unicodedata.normalize('NFKD', character))
            if not unicodedata.is_normalized('NFKC', text):
                text = unicodedata.normalize('NFKC', text)
    return text.casefold().replace('’', "'")


def _english_stop_words() -> set[str]:
    """scikit-learn's English list (the Glasgow IR group's), read from its module alone: importing
    it through sklearn costs every tokenising process (Beam workers too) ~1.2 CPU-s of imports."""
    location = importlib.util.find_spec('sklearn').submodule_search_locations[0]
    spec = importlib.util.spec_from_file_location('_sklearn_stop_words',
                                                  f'{location}/feature_extraction/_stop_words.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return set(module.ENGLISH_STOP_WORDS)


@functools.lru_cache(maxsize=None)
def stop_words() -> frozenset:
    """Chinese and English stop words, normalised like the tokens they filter."""
    words = set(stopwordsiso.stopwords('zh')) | _english_stop_words() | set(_ENGLISH_CONTRACTIONS)
    return frozenset(normalize(w) for w in words)


@functools.lru_cache(maxsize=None)
def jieba_tokenizer() -> 'jieba.Tokenizer':
    """jieba's default tokenizer with its dictionary loaded; once per process, thread-safe.
    Imported here: only TextRank needs jieba itself, and its import takes ~0.15 s."""
    import jieba
    with _jieba_lock:
        jieba.setLogLevel(logging.WARNING)
        jieba.dt.initialize()
    return jieba.dt


_segmenters: dict = {}           # extra words -> something with rjieba.Jieba's cut (_segmenter)
_segmenters_lock = threading.Lock()
_default_has_words = False      # words were added to rjieba's own segmenter


def _segmenter(extra_words: frozenset[str]):
    """jieba's dictionary plus `extra_words`, each with the frequency jieba's own add_word gives it
    (just enough to beat its parts), so the tokens stay jieba's: something with rjieba.Jieba's cut."""
    segmenter = _segmenters.get(extra_words)
    if segmenter is None:
        with _segmenters_lock:
            segmenter = _segmenters.get(extra_words)
            if segmenter is None:
                segmenter = _segmenters[extra_words] = _new_segmenter(extra_words)
    return segmenter


def _new_segmenter(extra_words: frozenset[str]):
    """Loading jieba's dictionary takes ~0.1 CPU-s (1.2% of a 300-page round's instructions), and
    importing rjieba loads one, which its module-level functions use. That one serves without extra
    words until the process first asks for some (a crawl's topic words: the only ones a crawl asks
    for), and from then on with those: as words cannot be taken out again, any other set (none
    included) gets a dictionary of its own."""
    global _default_has_words
    segmenter = rjieba.Jieba() if _default_has_words else rjieba
    if extra_words and segmenter is rjieba:
        _segmenters.pop(frozenset(), None)
        _default_has_words = True
    for word in sorted(extra_words):
        segmenter.add_word(word, None, None)
    return segmenter


def use_dictionary_words(extra_words) -> None:
    """Segment this process's Chinese text with `extra_words` (a topic's keywords, see
    Topic.dictionary_words) as whole words, in place of any words set before. A process works for
    one topic at a time: the driver and every worker that tokenises call this with the crawl's."""
    global _dictionary_words
    words = frozenset(extra_words)
    if words != _dictionary_words:
        _dictionary_words = words
        recurring_terms.cache_clear()
        url_terms.cache_clear()


def is_chinese(text: str, threshold: float = 0.2) -> bool:
    """True when Han characters make up at least `threshold` of the letters in `text` (counted
    compiled, as HAN_CHARACTER and _HAS_LETTER match)."""
    han, letters = han_and_letters(text)
    return letters > 0 and han / letters >= threshold


def words(text: str) -> list[str]:
    """Every normalised word of `text` in order, stop words included (TextRank needs order)."""
    tokens, others = _segmented(text)
    return tokens if others is None else put_back_words(tokens, others)


def _segmented(text: str) -> tuple[list[str], list[str] | None]:
    """words(text) as the segmenter gives them: (tokens, None) when they are the words, else
    (tokens, the other words) for put_back_words or counted_terms.

    The Han runs are segmented in one call, a space between runs and a newline in place of each
    other word: jieba cuts at whitespace and gives each whitespace character back as a token, so
    the tokens are those of each run segmented alone, in one call instead of one per run (a real
    page has ~500 runs). ASCII text and a single Han run take shorter ways to the same tokens."""
    if text.isascii():  # English text, URL words: NFKC changes nothing and casefold() is lower()
        return _ASCII_WORD.findall(text.lower()), None
    joined, others, han_runs = script_runs(normalize(text))  # _RUN.findall, compiled
    if not han_runs:
        return others, None
    tokens = _segmenter(_dictionary_words).cut(joined, True)
    return tokens, (None if han_runs == 1 and not others else others)


def is_term(token: str) -> bool:
    """A token worth indexing: two or more characters, has a letter, not a stop word (the rule
    tokenize applies, compiled in index_terms)."""
    return bool(index_terms([token], stop_words()))


def tokenize(text: str) -> list[str]:
    """Index terms of `text`: normalised words without stop words, numbers or single letters
    (is_term, compiled)."""
    return index_terms(words(text), stop_words())


def term_counts(text: str) -> tuple[str, bytes]:
    """collections.Counter(tokenize(text)) as a page's record holds it: its distinct terms in order
    of first occurrence, joined by spaces, and how often each occurs, the bytes of an array('I')
    (compiled: counted_terms)."""
    return counted_terms(*_segmented(text), stop_words())


@functools.lru_cache(maxsize=1 << 16)
def recurring_terms(text: str) -> str:
    """tokenize() for short texts that recur, such as a link's anchor and context (its URL's:
    url_terms; a site's menus repeat on each of its pages: 72% of the anchors of 300 THUCNews
    sandbox pages were seen before), from a cache, as one string: the terms separated by spaces
    (`.split()` gives them back: a term is letters, digits and apostrophes, never whitespace).
    ASCII text (English anchors) is read in one compiled pass."""
    if text.isascii():
        return ascii_terms(text, stop_words())
    return ' '.join(tokenize(text))


_URL_WORDS = re.compile(f'[^\\w{HAN_RANGES}]+')


def url_words(url: str) -> str:
    """The words of a URL's host and path ('/house/2011/price-drop.html' -> 'house price drop html')."""
    return _URL_WORDS.sub(' ', url.split('://', 1)[-1])


@functools.lru_cache(maxsize=1 << 16)
def url_terms(url: str) -> str:
    """The terms of url_words(url), space-joined, cached per URL (a site's menus link to the same
    URLs from each of its pages). An ASCII URL's terms are its runs of letters and digits (url_words
    makes every other character a space, and _ASCII_WORD splits at '_'), read in one compiled pass:
    a real page's story links are new URLs, each a miss."""
    if url.isascii():
        return ascii_terms(url.split('://', 1)[-1], stop_words(), apostrophes=False)
    return ' '.join(tokenize(url_words(url)))

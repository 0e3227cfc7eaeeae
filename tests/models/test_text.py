import random
import unicodedata

import jieba

from models import text
from models.segment import han_and_letters, index_terms, script_runs


def test_full_width_and_case_are_normalised():
    assert text.normalize('ＡＢＣ１２３ Ｈｅｌｌｏ') == 'abc123 hello'
    assert text.tokenize('ＦＯＯＴＢＡＬＬ') == text.tokenize('football') == ['football']


def test_chinese_is_segmented_with_jieba_and_stop_words_removed():
    terms = text.tokenize('我们的房地产开发商在北京推出了新楼盘')
    assert '房地产' in terms and '开发商' in terms and '北京' in terms
    assert '我们' not in terms and '的' not in terms


def test_mixed_text_splits_scripts_before_tokenizing():
    assert text.tokenize('iPhone手机价格，Beijing房价') == ['iphone', '手机', '价格', 'beijing', '房价']


def test_english_words_without_stop_words_numbers_or_single_letters():
    assert text.tokenize("The houses aren’t cheap: 42 rooms, a b c") == ['houses', 'cheap', 'rooms']


def test_other_scripts_become_unicode_words():
    assert text.tokenize('Ελληνικά κείμενα и русский текст') == ['ελληνικά', 'κείμενα', 'русский', 'текст']


def test_jieba_dictionary_is_loaded_once_per_process():
    first = text.jieba_tokenizer()
    text.tokenize('房价上涨')
    assert text.jieba_tokenizer() is first is jieba.dt
    assert first.initialized


def test_language_detection_by_han_share():
    assert text.is_chinese('北京房价上涨 according to reports')
    assert not text.is_chinese('Beijing house prices rose 北')
    assert not text.is_chinese('')


def test_english_stop_words_are_scikit_learns_list():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    assert text._english_stop_words() == set(ENGLISH_STOP_WORDS)
    assert {'the', 'and'} <= text.stop_words() and 'area' not in text.stop_words()


def test_ascii_text_takes_the_short_way_to_the_same_words():
    """words() splits ASCII text (English, URL words) with a plain ASCII pattern: the same words
    as normalising it and matching the general Unicode pattern, whatever the characters."""
    rng = random.Random(11)
    alphabet = "abcxyzABCXYZ0189_'- .,;:!?\t\n\"()/%#@&~"
    texts = ["Don't stop: it's 2024's best-selling CD_ROM", "O'Neil's", "'quoted'", "a''b", *(
        ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(20000))]
    assert [text.words(t) for t in texts] == [[word for _, word in text._RUN.findall(text.normalize(t))] for t in texts]



def test_ascii_link_words_and_urls_take_the_compiled_way_to_the_same_terms():
    """recurring_terms reads ASCII text, and url_terms an ASCII URL, in one compiled pass
    (ascii_terms): the terms tokenize gives the text, and the URL's url_words, whatever the
    characters (stop words, contractions, digits, '_', percent escapes, upper case)."""
    rng = random.Random(13)
    words = ['the', 'a', "don't", "it's", 'i', 'house', 'Price', 'DROP', '2024', 'x1', 'abc', "o'neil", 'IS']
    alphabet = "abcxyzABCXYZ0189_'- .,;:!?\t\n\"()/%#@&~=+"
    texts = ["Don't stop: it's 2024's best-selling CD_ROM", "O'Neil's", "'quoted'", "a''b", "1'2 a'1 it's'",
             *(''.join(rng.choice(alphabet) if rng.random() < 0.6 else rng.choice(words)
                       for _ in range(rng.randint(0, 25))) for _ in range(20000))]
    assert [text.recurring_terms(t) for t in texts] == [' '.join(text.tokenize(t)) for t in texts]
    urls = ['http://Example.COM/House/2011/price-drop.html', 'https://a.b/p?q=1&s=the_best%20HOMES#x',
            "http://a.cn/it's/don't", 'http://a.cn/', 'http://a.cn/%E6%88%BF/b_c-d.shtml',
            *(f'{rng.choice(["http", "https"])}://'
              + ''.join(rng.choice(alphabet) if rng.random() < 0.6 else rng.choice(words)
                        for _ in range(rng.randint(0, 25))) for _ in range(20000))]
    assert [text.url_terms(url) for url in urls] == [' '.join(text.tokenize(text.url_words(url))) for url in urls]

def expected_runs(value: str) -> tuple:
    """script_runs' answer from its definition, models.text._RUN."""
    runs = text._RUN.findall(value)
    return (' '.join(han_run or '\n' for han_run, _ in runs), [word for han_run, word in runs if not han_run],
            sum(1 for han_run, _ in runs if han_run))


def test_the_compiled_script_runs_are_the_regular_expressions():
    """script_runs (compiled, models/segment.pyx) against _RUN.findall: every code point alone, and
    seeded random strings of Han characters at and beside the edges of its ranges, words of other
    scripts and digits, apostrophes, underscores, combining marks, punctuation and whitespace."""
    for code in range(0x110000):
        assert script_runs(chr(code)) == expected_runs(chr(code)), hex(code)
    alphabet = [*"的房价abZ19_'’é\u0301ж٣²½ア ,.\n\t-", '\u3400', '\u4dbf', '\u4e00', '\u9fff', '\uf900',
                '\ufaff', '\U00020000', '\U0002ebef', '\u33ff', '\u4dc0', '\ufb00', '\U0001ffff', '\U0002ebf0']
    rng = random.Random(5)
    for _ in range(30000):
        value = ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert script_runs(value) == expected_runs(value), value


def test_the_compiled_han_and_letter_counts_are_the_regular_expressions_matches():
    """han_and_letters (compiled, models/segment.pyx), which is_chinese decides by, counts what
    HAN_CHARACTER and _HAS_LETTER find: every code point alone, and seeded random strings."""
    for code in range(0x110000):
        character = chr(code)
        assert han_and_letters(character) == (len(text.HAN_CHARACTER.findall(character)),
                                              len(text._HAS_LETTER.findall(character))), hex(code)
    alphabet = [*"的房价abZ19_'é\u0301ж٣²½ア ,.\n", '\u3400', '\u4dbf', '\U0002ebef', '\u33ff', '\U0002ebf0']
    rng = random.Random(3)
    for _ in range(20000):
        value = ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert han_and_letters(value) == (len(text.HAN_CHARACTER.findall(value)), len(text._HAS_LETTER.findall(value)))


def test_the_compiled_index_terms_are_is_term():
    """index_terms (compiled, models/segment.pyx) keeps what is_term's definition keeps: every code
    point doubled (one character alone is never a term), and random words with stop words among them."""
    doubled = [chr(code) * 2 for code in range(0x110000)]
    assert index_terms(doubled, frozenset()) == [word for word in doubled if text._HAS_LETTER.search(word)]
    rng = random.Random(7)
    alphabet = [*'的房价abZ19_\'é\u0301ж٣²½ア .-', '\u3400', '\U0002ebef']
    candidates = [''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))) for _ in range(50000)]
    stops = frozenset(rng.sample(candidates, 500)) | text.stop_words()
    assert index_terms(candidates, stops) == [word for word in candidates if len(word) >= 2 and word not in stops
                                              and text._HAS_LETTER.search(word)]


def test_full_width_forms_are_replaced_by_what_nfkc_makes_of_them():
    """full_width_forms_replaced (compiled) maps each full-width ASCII form, the ideographic space
    and the ellipsis to its NFKC, leaves every other character as it is, and returns a text
    without any of them unchanged."""
    from models.segment import full_width_forms_replaced

    forms = [chr(code) for code in (*range(0xFF01, 0xFF5F), 0x3000, 0x2026)]
    assert [full_width_forms_replaced(form) for form in forms] == [unicodedata.normalize('NFKC', f) for f in forms]
    others = ''.join(chr(code) for code in range(0x20, 0x30000)
                     if not 0xD800 <= code < 0xE000 and chr(code) not in forms)
    assert full_width_forms_replaced(others) is others
    rng = random.Random(19)
    for _ in range(2000):
        sample = ''.join(rng.choice(forms + ['a', '房', ' ', '\u0301', '😀', '…']) for _ in range(rng.randint(0, 30)))
        assert full_width_forms_replaced(sample) == ''.join(
            unicodedata.normalize('NFKC', character) if character in forms else character for character in sample)


def test_normalize_is_nfkc_casefolded_whatever_the_shortcut_for_full_width_forms():
    """normalize replaces full-width forms, then other characters NFKC changes, before deciding
    whether NFKC is needed: the result must be NFKC's for every character, alone and between
    full-width forms, compatibility characters, combining marks and Hangul jamo that compose."""
    def reference(sample):
        return unicodedata.normalize('NFKC', sample).casefold().replace('’', "'")

    characters = [chr(code) for code in range(0x20, 0x30000) if not 0xD800 <= code < 0xE000]
    samples = [sample for character in characters
               for sample in (character, 'Ａ' + character + '\u0301', '\uff21\u0301，' + character + '\u2026\u3099',
                              '\u1100①' + character + '\u1161㎡')]
    assert [sample for sample in samples if text.normalize(sample) != reference(sample)] == []
    assert text.normalize("ＡＢＣ１，　Don’t…") == "abc1, don't..."

import dataclasses
import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier

from models.block_model import (_LATIN_WORD, FEATURES, MODEL_PATH, BlockMeasures, TreeEnsemble, content_model,
                                decide_content, density_stop_words, feature_rows, text_measures)
from models.extract import extract_page
from models.segment import han_counts, latin_word_counts
from models.text import HAN_RANGES, stop_words

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / 'benchmarks'
sys.path.insert(0, str(BENCHMARKS))  # a script's modules, not a package's: on the path only to import them
try:
    import train_block_model as training
    from extraction_sets import Page, load_sets
finally:
    sys.path.remove(str(BENCHMARKS))


def measures(text: str, **changes) -> BlockMeasures:
    values = dict(chars=len(''.join(text.split())), anchor_chars=0, links=0, paragraphs=1, list_items=0,
                  headings=0, container='div', depth=3, marker=None, related_marker=False, article_mark=False,
                  hidden=False, rule_kind='content')
    lines, density, punctuation = text_measures(text)
    return BlockMeasures(**{**values, 'lines': lines, 'stop_word_density': density, 'punctuation': punctuation,
                            **changes})


def stop_word_density(text: str) -> float:
    return text_measures(text)[1]


def test_stop_word_density_tells_running_text_from_menus_in_both_languages():
    assert stop_word_density('The storm hit the coast on Monday and it rained for a day.') > 0.4
    assert stop_word_density('Home News Sport Weather Travel Money') == 0.0
    assert stop_word_density('中央气象台消息，受强降雨的影响，南方多省出现了洪涝灾害。') > 0.05
    assert stop_word_density('首页 国内 国际 体育 财经') == 0.0
    assert stop_word_density('') == 0.0
    assert stop_word_density('iPhone手机价格的') == pytest.approx(1 / 5)  # Han characters outnumber words


GERMAN = ('Der Sturm hat am Montag die Küste erreicht, und es hat den ganzen Tag geregnet. Die Feuerwehr '
          'war mit allen Kräften im Einsatz, weil viele Keller unter Wasser standen.')
ENGLISH = 'The storm hit the coast on Monday and it rained for a day. Many cellars were under water.'


def test_a_page_is_measured_with_the_stop_words_of_its_language():
    """A German paragraph has few English stop words and measured like a menu: a page that declares
    a language of DENSITY_LANGUAGES (any region, any case) and holds more of its stop words than of
    the English ones is measured with its own; an English page whose template says lang="de",
    a page in another language (or none declared) with the English and Chinese ones of tokenising."""
    german = density_stop_words('de-AT', [GERMAN])
    assert {'und', 'die', 'der', 'für'} <= german and 'the' not in german
    assert text_measures(GERMAN, german)[1] > 0.4 > 0.1 > text_measures(GERMAN)[1]
    assert text_measures('Nachrichten Politik Wirtschaft Sport Kultur', german)[1] == 0.0
    for language in ('DE', 'de_DE', ' de-ch '):
        assert density_stop_words(language, [GERMAN]) is german
    assert {'og', 'ikke'} <= density_stop_words('nb', ['Det var en gang en mann som ikke hadde noe hus og ingen venner.'])
    for language, texts in (('de', [ENGLISH]), ('de', []), (None, [GERMAN]), ('', [GERMAN]), ('en-GB', [GERMAN]),
                            ('zh-CN', [GERMAN]), ('ja', [GERMAN]), ('x-klingon', [GERMAN])):
        assert density_stop_words(language, texts) is stop_words(), language


def test_extraction_measures_a_page_by_its_declared_language():
    """The same German story, with and without lang="de" (or XHTML's xml:lang): its block's
    density is German's, and every other measure is the same."""
    def story_measures(html_attributes):
        page = extract_page(f'<html{html_attributes}><body><div><p>{GERMAN}</p><p>{GERMAN}</p></div>'
                            f'</body></html>'.encode(), 'http://example.com/')
        return next(measure for block, measure in zip(page.blocks, page.measures) if GERMAN[:20] in block.text)
    declared, undeclared = story_measures(' lang="de"'), story_measures('')
    assert declared.stop_word_density > 0.4 > 0.1 > undeclared.stop_word_density
    assert story_measures(' xml:lang="de"').stop_word_density == declared.stop_word_density  # XHTML's attribute
    assert dataclasses.replace(declared, stop_word_density=0) == dataclasses.replace(undeclared, stop_word_density=0)


def test_the_text_measures_read_in_one_pass_are_the_regular_expressions_ones():
    """han_counts (compiled) against the definitions: Han runs and sentence marks by regular
    expression, each function character counted in the text, on seeded random strings of Han
    characters at the edges of its ranges and beside them, marks, Latin words and whitespace."""
    han_run = re.compile(f'[{HAN_RANGES}]+')
    marks = '.,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u3001'
    function = '的了是在和也就都而及与着或等被把这那之其为对从以将但并所于'
    alphabet = [*'的了是手机价格房', *'.,;:!?。，；：！？、 \n', *'abThe1_\'é', '\u3400', '\u4dbf', '\u4e00', '\u9fff',
                '\uf900', '\ufaff', '\U00020000', '\U0002ebef', '\u33ff', '\u4dc0', '\ufb00', '\U0001ffff', '\U0002ebf0']
    rng = random.Random(3)
    for _ in range(3000):
        text = ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        runs = han_run.findall(text)
        assert han_counts(text, function, marks) == (
            sum(map(len, runs)), len(runs), sum(map(text.count, function)), sum(map(text.count, marks))), text


def test_latin_words_counted_in_one_pass_are_the_regular_expressions_words():
    """latin_word_counts (compiled) against _LATIN_WORD.findall and a set lookup per word, on
    seeded random strings of letters, digits, apostrophes (one or two in a word, at its edges),
    underscores, Han, non-decimal digits (², Ⅻ), accented and title-case letters and whitespace."""
    stop = frozenset({'the', 'a', "don't", 'é', 'ab', "b'c"})
    alphabet = [*"abtheé'’_1 \n.", 'don', "'t", '²', 'Ⅻ', '的', '手机', 'ǅ', '\u0301', 'ß', '٣']
    rng = random.Random(5)
    for _ in range(5000):
        text = ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        words = _LATIN_WORD.findall(text)
        assert latin_word_counts(text, stop) == (len(words), sum(word in stop for word in words)), text
    # short ASCII words are looked up packed, longer ones as strings: words around 16 characters,
    # capitals (the set is asked as it is), another set asked in turn, and more sets than the
    # packed tables kept (MAX_PACKED_TABLES: they are packed again)
    long_stop = frozenset({'a' * 15, 'b' * 16, 'c' * 17, "abcdefgh'ijklmno", 'Case', 'é' * 3})
    pieces = ['a' * 15, 'b' * 16, 'c' * 17, 'a', 'b', 'c', "'", ' ', 'Case', 'case', 'é', 'É', '\n']
    many = [frozenset(rng.sample(pieces[:6] + ['Case', 'case', 'é'], 3)) for _ in range(100)]
    for turn in range(3000):
        text = ''.join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        for words_in in (long_stop, stop, many[turn % len(many)]):
            words = _LATIN_WORD.findall(text)
            assert latin_word_counts(text, words_in) == (len(words), sum(word in words_in for word in words)), text


def test_the_compiled_text_measures_are_their_definition():
    """text_measures (one compiled call) against its definition written with the counts: lines,
    function characters among Han characters for text that is mostly Han (or has more Han
    characters than words), otherwise stop words among the lower-cased words, and the marks."""
    from models.block_model import _CHINESE_FUNCTION_CHARS, _SENTENCE_PUNCTUATION
    from models.text import stop_words

    def by_definition(text):
        han, runs, function, marked = han_counts(text, _CHINESE_FUNCTION_CHARS, _SENTENCE_PUNCTUATION)
        if han > runs + len(text) - han:
            density = function / han
        else:
            words, stops = latin_word_counts(text.lower(), stop_words())
            density = function / han if han > words else stops / words if words else 0.0
        return text.count('\n') + 1 if text else 0, density, marked

    alphabet = [*'的了是手机价格房', *'.,;:!?。，；：！？、 \n', 'The', 'and', 'İ', 'ǅ', "don't", 'news', '1']
    rng = random.Random(9)
    texts = ['', 'The storm hit the coast.', '首页 国内', 'iPhone手机价格的'] + [
        ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(5000)]
    for text in texts:
        assert text_measures(text) == by_definition(text), text


def test_feature_rows_measure_each_block_and_its_neighbours():
    texts = ['Home\nNews\nSport', 'A long paragraph of the story, with words.', '']
    rows = feature_rows([measures(texts[0], anchor_chars=13, links=3, rule_kind='navigation', list_items=3,
                                  container='ul', marker='navigation'),
                         measures(texts[1], article_mark=True), measures(texts[2], rule_kind='noise')])
    column = {name: rows[:, index] for index, name in enumerate(FEATURES)}
    assert rows.shape == (3, len(FEATURES))
    assert column['link_density'].tolist() == [1.0, 0.0, 1.0]  # an empty block is all links: nothing to read
    assert column['in_list'].tolist() == [1.0, 0.0, 0.0] and column['navigation_mark'].tolist() == [1.0, 0.0, 0.0]
    assert column['position'].tolist() == [0.0, 0.5, 1.0] and column['article_mark'].tolist() == [0.0, 1.0, 0.0]
    assert column['previous_link_density'].tolist() == [0.0, 1.0, 0.0]
    assert column['next_rule_content'].tolist() == [1.0, 0.0, 0.0]
    assert column['page_content_share'][0] == pytest.approx(35 / (13 + 35))  # visible characters
    assert feature_rows([]).shape == (0, len(FEATURES))


def numpy_feature_rows(measures: list[BlockMeasures]) -> np.ndarray:
    """The features as numpy computed them a column at a time: the specification of feature_rows."""
    count = len(measures)
    column = {name: np.array([float(getattr(m, name)) for m in measures]) for name in (
        'chars', 'anchor_chars', 'links', 'lines', 'stop_word_density', 'punctuation', 'paragraphs', 'list_items',
        'headings', 'depth', 'related_marker', 'article_mark', 'hidden', 'windowed')}
    flags = {'in_table_cell': lambda m: m.container in ('td', 'th'),
             'in_list': lambda m: m.container in ('ul', 'ol', 'dl', 'menu'),
             'navigation_mark': lambda m: m.marker == 'navigation', 'noise_mark': lambda m: m.marker == 'noise',
             **{f'rule_{kind}': (lambda kind: lambda m: m.rule_kind == kind)(kind)
                for kind in ('content', 'related', 'navigation', 'noise')}}
    column.update({name: np.array([float(test(m)) for m in measures]) for name, test in flags.items()})
    column['related_mark'] = column['related_marker']
    chars, anchor_chars, lines = column['chars'], column['anchor_chars'], column['lines']
    per_line = np.maximum(lines, 1)
    page_chars = chars.sum() or 1.0
    column.update({
        'log_chars': np.log1p(chars),
        'link_density': np.where(chars > 0, np.minimum(1.0, anchor_chars / np.maximum(chars, 1)), 1.0),
        'anchor_share': anchor_chars / (anchor_chars.sum() or 1.0),
        'log_links': np.log1p(column['links']), 'log_lines': np.log1p(lines),
        'log_chars_per_line': np.log1p(chars / per_line),
        'punctuation_density': column['punctuation'] / np.maximum(chars, 1),
        'position': np.arange(count) / max(1, count - 1),
        'text_before': (np.cumsum(chars) - chars) / page_chars, 'page_share': chars / page_chars,
        'paragraphs_per_line': column['paragraphs'] / per_line,
        'list_items_per_line': column['list_items'] / per_line,
        'headings': np.minimum(column['headings'], 3), 'depth': np.minimum(column['depth'], 30),
        'page_log_blocks': np.full(count, math.log1p(count)),
        'page_content_share': np.full(count, chars[column['rule_content'] > 0].sum() / page_chars)})
    for name in ('log_chars', 'link_density', 'stop_word_density', 'rule_content'):
        previous, following = np.zeros(count), np.zeros(count)
        previous[1:], following[:-1] = column[name][:-1], column[name][1:]
        column[f'previous_{name}'], column[f'next_{name}'] = previous, following
    return np.column_stack([column[name] for name in FEATURES]).reshape(count, len(FEATURES))


def random_measures(rng: random.Random) -> BlockMeasures:
    chars = rng.choice([0, 1, 2, rng.randint(0, 60), rng.randint(0, 20000)])
    return BlockMeasures(
        chars=chars, anchor_chars=rng.choice([0, chars, rng.randint(0, chars + 5)]), links=rng.randint(0, 200),
        paragraphs=rng.randint(0, 40), list_items=rng.randint(0, 40), headings=rng.randint(0, 6),
        container=rng.choice(['div', 'td', 'th', 'ul', 'ol', 'dl', 'menu', 'p']), depth=rng.randint(0, 60),
        marker=rng.choice([None, 'navigation', 'noise']), related_marker=rng.random() < 0.2,
        article_mark=rng.random() < 0.2, hidden=rng.random() < 0.1,
        rule_kind=rng.choice(['content', 'related', 'navigation', 'noise']), lines=rng.randint(0, 300),
        stop_word_density=rng.random(), punctuation=rng.randint(0, 400), windowed=rng.random() < 0.1)


def test_the_compiled_features_are_numpys_to_the_last_bit(shared_data):
    """feature_rows (one compiled pass, numpy's logarithms) against numpy's column arithmetic, on
    seeded random pages of 0 to 80 blocks (empty blocks, all-link blocks, one block, long pages)
    and on every page of ../shared/data/extraction: the trees compare these numbers."""
    rng = random.Random(11)
    for _ in range(400):
        page = [random_measures(rng) for _ in range(rng.choice([0, 1, 2, rng.randint(0, 80)]))]
        assert np.array_equal(feature_rows(page), numpy_feature_rows(page))
    pages = sorted((shared_data / 'extraction').glob('*/*/*.html'))
    assert len(pages) > 1000
    for path in pages:
        page = extract_page(path.read_bytes(), 'http://example.com/page.html', rules_only=True)
        assert np.array_equal(feature_rows(page.measures), numpy_feature_rows(page.measures)), path


def test_exported_trees_predict_what_sklearn_predicts_after_a_json_round_trip():
    generator = np.random.default_rng(0)
    rows = generator.normal(size=(600, len(FEATURES)))
    labels = rows[:, 0] + 0.5 * rows[:, 3] * rows[:, 5] + generator.normal(scale=0.3, size=600) > 0
    fitted = GradientBoostingClassifier(n_estimators=30, max_depth=3, random_state=0).fit(rows, labels)
    model = TreeEnsemble.from_json(json.loads(json.dumps(TreeEnsemble.from_sklearn(fitted).to_json())))
    unseen = generator.normal(size=(200, len(FEATURES)))
    assert np.allclose(model.content_probability(unseen), fitted.predict_proba(unseen)[:, 1])


def constant_model(log_odds: float) -> TreeEnsemble:
    """A one-leaf ensemble: the same answer for every block."""
    return TreeEnsemble(FEATURES, log_odds, 1.0, [{'feature': [-2], 'threshold': [-2.0], 'left': [-1],
                                                   'right': [-1], 'value': [0.0]}])


def test_the_model_decides_only_the_rules_text_blocks_and_never_empties_a_page():
    rule_content = FEATURES.index('rule_content')
    rows = np.zeros((4, len(FEATURES)))
    rows[[1, 2], rule_content] = 1        # blocks 1 and 2 are the rules' text blocks
    is_content = np.array([False, True, False, False])  # block 2 was taken out by the article window
    assert decide_content(rows, is_content, constant_model(3.0)).tolist() == [False, True, True, False]
    # the model would leave no content: the rules' answer stands
    assert decide_content(rows, is_content, constant_model(-3.0)).tolist() == [False, True, False, False]
    assert decide_content(rows[:0], is_content[:0], constant_model(3.0)).tolist() == []


def test_a_model_trained_on_other_features_is_refused():
    document = json.loads(MODEL_PATH.read_text(encoding='utf-8'))
    document['features'] = document['features'][:-1]
    with pytest.raises(ValueError, match='train_block_model'):
        TreeEnsemble.from_json(document).content_probability(np.zeros((1, len(FEATURES))))


def test_a_page_is_extracted_with_the_model_it_is_given(monkeypatch):
    """A benchmark measures a page with a model fitted without it: that model, never the shipped
    one, decides the rules' text-dense blocks; the others keep the rules' class."""
    body = ('<div><p>{0}</p></div><div><p>Short line one.</p><p>{0}</p></div>'
            '<ul><li><a href="/a">News</a></li><li><a href="/b">Sport</a></li></ul>').format(STORY).encode('utf-8')
    rules = extract_page(body, 'http://example.test/a', rules_only=True)
    dense = [measure.rule_kind == 'content' for measure in rules.measures]
    assert sum(dense) == 2 and not all(dense)

    def shipped_model():
        raise AssertionError('the shipped model was asked')
    monkeypatch.setattr('models.block_model.content_model', shipped_model)
    every = extract_page(body, 'http://example.test/a', model=constant_model(5.0))
    assert [block.kind == 'content' for block in every.blocks] == dense
    assert [block.kind for block, is_dense in zip(every.blocks, dense) if not is_dense] == \
        [block.kind for block, is_dense in zip(rules.blocks, dense) if not is_dense]
    with pytest.raises(AssertionError, match='shipped model'):
        extract_page(body, 'http://example.test/a')


def test_the_shipped_model_is_what_the_training_script_makes(tmp_path, shared_data):
    """No hand-edited trees: retraining on the even ids and benchmarks/snippet_blocks.parquet gives
    the same file (and the script refuses a snippet file made with other rules)."""
    assert content_model().features == FEATURES
    out = tmp_path / 'block_model.json'
    trained = subprocess.run([sys.executable, str(BENCHMARKS / 'train_block_model.py'), '--out', str(out)],
                             capture_output=True, text=True, cwd=REPO)
    assert trained.returncode == 0, trained.stderr[-2000:]
    retrained, shipped = (json.loads(path.read_text(encoding='utf-8')) for path in (out, MODEL_PATH))
    assert (retrained['features'], retrained['learning_rate']) == (shipped['features'], shipped['learning_rate'])
    assert retrained['prior'] == pytest.approx(shipped['prior'])
    assert len(retrained['trees']) == len(shipped['trees'])
    for mine, theirs in zip(retrained['trees'], shipped['trees']):  # same splits; sums may differ in the last bits
        for key in ('feature', 'left', 'right'):
            assert mine[key] == theirs[key]
        assert np.allclose(mine['threshold'], theirs['threshold'], rtol=1e-6)
        assert np.allclose(mine['value'], theirs['value'], rtol=1e-6, atol=1e-9)


STORY = ('The storm reached the coast early on Monday and the weather office kept its red warning in '
         'place for the whole day, as rivers rose and the wind brought down trees across the region. ' * 3)


def snippet_page(markup: str) -> Page:
    return Page('page.html', markup.encode('utf-8'), 'http://example.test/page.html', '', test=False)


def test_trafilatura_s_snippets_label_the_blocks_that_hold_them():
    page = snippet_page('<div><p>{0} The river rose.</p></div><div class="box"><p>Sign up for our newsletter '
                        'and get the news of the day in your inbox every morning.</p></div>'
                        '<div><p>Nothing anyone chose.</p></div>'.format(STORY))
    labelled = training.snippet_blocks(page, {'with': ['The river   rose.', ''],
                                              'without': ['Sign up for our newsletter', 'The river rose.']})
    assert labelled.labels.tolist() == [1, 0, -1]   # a snippet to hold wins over one to leave out
    assert labelled.tokens.tolist()[1:] == [17, 3]
    learnt = labelled.training_page()
    assert learnt.labels.tolist() == [True, False] and learnt.rows.shape == (2, len(FEATURES))
    assert learnt.weights.sum() == pytest.approx(training.SNIPPET_PAGE_WEIGHT) and learnt.weights[0] > learnt.weights[1]
    unlabelled = training.snippet_blocks(page, {'with': ['not on the page'], 'without': []})
    assert unlabelled.training_page() is None


def test_snippet_blocks_come_back_from_their_file_only_for_the_rules_they_were_made_with(tmp_path):
    pages = [training.snippet_blocks(snippet_page(f'<div><p>{STORY}</p></div><nav><a href="/">Home</a></nav>'),
                                     {'with': ['The storm reached'], 'without': ['Home']}),
             training.snippet_blocks(snippet_page('<p>An empty one.</p>'), {'with': [], 'without': []})]
    path = tmp_path / 'snippet_blocks.parquet'
    training.write_snippet_blocks(path, pages, 'digest of these rules')
    back = list(training.read_snippet_blocks(path, 'digest of these rules'))
    assert [page.measures for page in back] == [page.measures for page in pages]
    assert [page.labels.tolist() for page in back] == [page.labels.tolist() for page in pages]
    assert [page.tokens.tolist() for page in back] == [page.tokens.tolist() for page in pages]
    with pytest.raises(SystemExit, match='other rules.*--snippets'):
        list(training.read_snippet_blocks(path, 'digest of changed rules'))
    (tmp_path / 'broken.parquet').write_bytes(b'not parquet')
    with pytest.raises(SystemExit, match='broken.parquet.*--snippets'):
        list(training.read_snippet_blocks(tmp_path / 'broken.parquet', 'digest of these rules'))


def test_the_digest_of_the_train_half_changes_with_any_block(shared_data):
    pages = [training.page_blocks('CleanEval dev', page) for page in load_sets('train')['CleanEval dev'][0][:3]]
    digest = training.blocks_digest(pages)
    assert training.blocks_digest(pages) == digest
    pages[1].measures[0] = dataclasses.replace(pages[1].measures[0], chars=pages[1].measures[0].chars + 1)
    assert training.blocks_digest(pages) != digest
    pages[1].measures.pop(0)
    assert training.blocks_digest(pages) != digest

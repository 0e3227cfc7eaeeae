"""The seed papers' link strategies through `focal crawl` on a real sandbox server: parameters
given, printed and recorded; each strategy's depth budgets and judgments in the committed
tables; WL's chain resumed from its committed state chooses as an uninterrupted crawl."""
import json

import pytest

from models.settings import CrawlSettings
from pipelines.round import round_context
from pipelines.state import CrawlDir
from runners.cli import main
from sandbox.server import SandboxServer, open_web
from test_crawl import assert_nothing_fetched_twice, crawl_args, frontiers, requested, run_crawls


@pytest.fixture(scope='module')
def sandbox(news_web_dir):
    with SandboxServer(*open_web(news_web_dir)) as server:
        yield server


PAPER_STRATEGIES = {  # the parameters given, and the depths the frontier holds besides the seeds'
    'shark': (['--param', 'depth=2'], range(0, 3)),
    'ssaps': (['--param', 'delta=0.2', '--param', 'gamma=0.05'], range(0, 4)),
    'dth': (['--param', 'k_depth=4'], {3, 2, 1, 0, 2 ** 31 - 1}),
    'parent-first': ([], {-1}),
}
WL = ('--strategy', 'wl', '--random-seed', '5')
WL_OPTIONS = dict(budget=45, round_size=15)


@pytest.fixture(scope='module')
def crawls(news_web_dir, sandbox, tmp_path_factory):
    """The crawls these tests start, run at once: WL's whole and stopped after 2 rounds, and 35
    pages of each paper strategy. {name: (directory, what it printed)}"""
    root = tmp_path_factory.mktemp('papers')
    commands = {'wl-whole': crawl_args(news_web_dir, sandbox, root / 'wl-whole', *WL, **WL_OPTIONS)}
    for strategy, (params, _) in PAPER_STRATEGIES.items():
        commands[strategy] = crawl_args(news_web_dir, sandbox, root / strategy, '--strategy', strategy, *params,
                                        budget=35, round_size=15)
    commands['wl-parts'] = crawl_args(news_web_dir, sandbox, root / 'wl-parts', *WL, '--rounds', '2', **WL_OPTIONS)
    return {name: (root / name, printed) for name, printed in run_crawls(commands).items()}


@pytest.mark.parametrize('strategy', PAPER_STRATEGIES)
def test_each_paper_strategy_crawls_with_its_parameters_and_depth_rule(crawls, strategy):
    params, depths = PAPER_STRATEGIES[strategy]
    out, output = crawls[strategy]
    assert f'{strategy} parameters: ' in output and 'budget of 35 pages spent' in output
    crawl = CrawlDir.open(str(out))
    assert len(requested(crawl)) == 35
    assert_nothing_fetched_twice(crawl)
    for given in params[1::2]:
        name, value = given.split('=')
        assert crawl.config['strategy_params'][name] == json.loads(value)
    chosen_depths = set(crawl.read_table('frontier').column('depth').to_pylist())
    assert chosen_depths <= set(depths) | {crawl.read_table('frontier', 1).column('depth')[0].as_py()}
    pages = crawl.read_table('pages', columns=['url', 'relevance', 'relevant'])
    seeds = set(crawl.read_table('frontier', 1).column('url').to_pylist())
    judged = dict(zip(pages['url'].to_pylist(), pages['relevant'].to_pylist()))
    assert all(judged[url] for url in seeds if url in judged)  # seed pages are relevant by definition
    settings = CrawlSettings.from_dict(crawl.config)
    calibrated_on = round_context(crawl, settings, crawl.last_committed_round() + 1).seed_pages(['url'])
    assert sorted(calibrated_on['url'].to_pylist()) == sorted(url for url in seeds if url in judged)
    assert any(judged[url] for url in judged if url not in seeds)  # the calibrated judgment finds others
    assert not all(judged.values())
    if strategy == 'dth':  # a link carries how many irrelevant pages it crossed
        frontier = crawl.read_table('frontier')
        for depth, crossed in zip(frontier['depth'].to_pylist(), frontier['inherited'].to_pylist()):
            if depth == 2 ** 31 - 1:
                assert crossed in (None, 0.0)  # a seed or a relevant page's link
            else:
                assert crossed >= 1 and depth <= 3  # a tunnel: k_depth 4 spent once on its first page


def test_wl_resumed_from_its_committed_chain_chooses_as_an_uninterrupted_crawl(crawls):
    (whole_dir, _), (parts_dir, _) = crawls['wl-whole'], crawls['wl-parts']
    assert main(['crawl', '--resume', str(parts_dir)]) == 0
    whole, parts = CrawlDir.open(str(whole_dir)), CrawlDir.open(str(parts_dir))
    assert frontiers(parts) == frontiers(whole) and len(frontiers(whole)) >= 3
    last = whole.last_committed_round()
    chain = whole.read_selector(last)['state']
    assert parts.read_selector(last)['state'] == chain
    assert chain['expanded'] and chain['ln_g'] and chain['steps'] > 0
    # every URL WL chose is a link of a page it expanded
    links = whole.read_table('links', columns=['url', 'dst'])
    expanded = set(chain['expanded'])
    children = {dst for src, dst in zip(links['url'].to_pylist(), links['dst'].to_pylist()) if src in expanded}
    assert set(url for urls in frontiers(whole)[1:] for url in urls) <= children


def test_parameters_come_from_a_yaml_file_and_wrong_ones_are_refused(news_web_dir, sandbox, tmp_path, capsys):
    params = tmp_path / 'shark.yaml'
    params.write_text('depth: 1\ndecay: 0.3\n', encoding='utf-8')
    out = tmp_path / 'crawl'
    assert main(crawl_args(news_web_dir, sandbox, out, '--strategy', 'shark', '--params', str(params),
                           '--param', 'decay=0.4', '--rounds', '1', budget=10, round_size=5)) == 0
    assert 'shark parameters: depth=1, decay=0.4' in capsys.readouterr().out
    assert main(crawl_args(news_web_dir, sandbox, tmp_path / 'bad', '--strategy', 'shark', '--param', 'k_depth=3')) == 2
    assert 'strategy shark has no parameter k_depth (its parameters: depth, decay' in capsys.readouterr().err
    params.write_text('- depth\n', encoding='utf-8')
    assert main(crawl_args(news_web_dir, sandbox, tmp_path / 'bad2', '--strategy', 'shark', '--params', str(params))) == 2
    assert 'must map parameter names to values' in capsys.readouterr().err

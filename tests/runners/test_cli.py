"""`focal` as a user runs it: the installed console command, and its errors."""
import importlib
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from runners.cli import main

HOUSING = '北京楼市成交量下降，二手房价格回落，开发商推出新楼盘，房价调控政策出台。'
SPORT = '湖人队在比赛中击败马刺，科比得到三十分，球队赢得季后赛，足球联赛开幕。'


def focal_command():
    installed = shutil.which('focal', path=str(pathlib.Path(sys.executable).parent))
    return [installed] if installed else [sys.executable, '-m', 'runners']


def test_console_command_builds_a_topic_from_html_and_text_files(tmp_path):
    (tmp_path / 'a.html').write_bytes(f'<html><head><meta charset="gbk"><title>楼市</title></head>'
                                      f'<body><p>{HOUSING}</p></body></html>'.encode('gbk'))
    (tmp_path / 'b.txt').write_text(HOUSING * 2, encoding='utf-8')
    result = subprocess.run([*focal_command(), 'topic', 'build', '--name', '房产', '--seed',
                             'http://example.com/', '--out', str(tmp_path / 't.yaml'), '--from',
                             str(tmp_path / 'a.html'), str(tmp_path / 'b.txt')],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert 'wrote' in result.stdout and '二手房' in result.stdout
    written = (tmp_path / 't.yaml').read_text(encoding='utf-8')
    assert 'name: 房产' in written and 'language: zh' in written and 'http://example.com/' in written


def test_topic_score_ranks_files_most_relevant_first(tmp_path, capsys):
    (tmp_path / 't.yaml').write_text('name: 房产\nkeywords: {房价: 1.0, 二手房: 0.8, 楼盘: 0.6}\n',
                                     encoding='utf-8')
    for name, body in [('sport.txt', SPORT), ('housing.txt', HOUSING), ('weather.txt', '今天天气晴朗')]:
        (tmp_path / name).write_text(body, encoding='utf-8')
    assert main(['topic', 'score', '--topic', str(tmp_path / 't.yaml'),
                 *(str(tmp_path / n) for n in ('sport.txt', 'housing.txt', 'weather.txt'))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith('housing.txt') and float(lines[0].split('\t')[0]) > 0
    assert len(lines) == 3


@pytest.mark.parametrize('argv, message', [
    (['topic', 'build', '--name', 'x', '--from', 'no-such-file.txt'], 'cannot read no-such-file.txt'),
    (['topic', 'score', '--topic', 'missing.yaml', 'a.txt'], 'cannot read topic file missing.yaml'),
])
def test_errors_say_what_was_wrong(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_build_refuses_to_overwrite_and_to_learn_from_nothing(tmp_path, capsys):
    (tmp_path / 'empty.txt').write_bytes(b'')
    (tmp_path / 't.yaml').write_text('keep me')
    assert main(['topic', 'build', '--name', 'x', '--out', str(tmp_path / 't.yaml'),
                 '--from', str(tmp_path / 'empty.txt')]) == 2
    assert '--force' in capsys.readouterr().err
    assert main(['topic', 'build', '--name', 'x', '--out', str(tmp_path / 't.yaml'), '--force',
                 '--from', str(tmp_path / 'empty.txt')]) == 2
    err = capsys.readouterr().err
    assert 'no usable text' in err and 'no keywords could be learned' in err
    assert (tmp_path / 't.yaml').read_text() == 'keep me'


def test_bad_arguments_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(['topic', 'build', '--name', 'x', '--keywords', '0', '--from', 'a.txt'])
    assert exit_info.value.code == 2 and 'must be 1 or more' in capsys.readouterr().err


def test_demo_benches_the_sandbox_and_checks_its_reports(tmp_path, capsys, news_web_dir):
    (tmp_path / 'web-thucnews').symlink_to(news_web_dir)  # the demo reuses a web built before
    assert main(['demo', '--workdir', str(tmp_path), '--strategies', 'best-first,ssaps', '--budget', '12',
                 '--round-size', '10', '--jobs', '1']) == 0
    out = capsys.readouterr().out
    assert '(built before)' in out and '[ssaps-r0] round 2: fetched 7' in out and 'harvest rate' in out
    report = tmp_path / 'bench-房产' / 'crawls' / 'best-first-r0' / 'report' / 'report.html'
    assert report.exists() and 'data:image/png;base64,' in report.read_text(encoding='utf-8')
    assert (tmp_path / 'bench-房产' / 'bench.html').exists()
    checks = [line for line in out.splitlines() if 'headless Chromium' in line or 'not checked in a browser' in line]
    assert len(checks) == 2 and not any('PROBLEMS' in line for line in checks)


def test_each_subcommand_comes_from_its_module_and_each_user_error_names_an_exception():
    """The registries runners.cli imports lazily from: a renamed command or error class fails here,
    not when a user meets it."""
    from runners import cli

    def lists(parser, command):
        return re.search(rf'\n    {re.escape(command)}\s', parser.format_help()) is not None

    for command in cli.COMMANDS:
        assert lists(cli.build_parser(), command) and lists(cli.build_parser(command), command), command
    assert set(re.findall(r'\n    (\S+)', cli.build_parser().format_help())) == set(cli.COMMANDS)
    for module, name in cli.USER_ERRORS.items():
        assert issubclass(getattr(importlib.import_module(module), name), Exception), (module, name)
    imported = subprocess.run([sys.executable, '-c', 'import sys; from runners import cli; cli.build_parser("crawl"); '
                               'print(sorted(m for m in sys.modules if m.startswith(("runners.", "sandbox.", "scipy"))))'],
                              capture_output=True, text=True, check=True).stdout
    assert 'runners.crawl_command' in imported and 'runners.bench' not in imported and 'sandbox.' not in imported
    assert "'scipy'" not in imported and 'runners.ranks' not in imported  # the rankers: a crawl's rounds do not rank

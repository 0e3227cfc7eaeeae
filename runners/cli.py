"""The `focal` command. Each subcommand lives in its own module and registers its parser here."""
import argparse
import gc
import logging
import sys

from models.evaluation import EvaluationError
from models.pagerank import PageRankError
from models.ranking import RankingError
from models.settings import SettingsError
from models.strategies import StrategyError
from models.topic import TopicError
from pipelines.state import StateError
from runners import (bench, crawl_command, demo, evaluate_command, extract_command, portable, rank_command, sandbox_command,
                     topic_command)
from runners.command import CommandError
from runners.driver import CrawlError
from runners.report import ReportError
from sandbox.archive import ArchiveError
from sandbox.build import BuildError
from sandbox.faults import FaultError
from sandbox.jsonl_web import CorpusError
from sandbox.search_index import SearchIndexError
from sandbox.server import SandboxError
from sandbox.stats import WebDirError

USER_ERRORS = (CommandError, CrawlError, SettingsError, StrategyError, TopicError, StateError, BuildError, CorpusError, WebDirError,
               ArchiveError, SearchIndexError, FaultError, SandboxError, ReportError, RankingError, PageRankError,
               EvaluationError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='focal', description='Focused crawling and domain web discovery on Apache Beam.')
    parser.add_argument('-v', '--verbose', action='store_true', help='log debug messages')
    subparsers = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    topic_command.add_parser(subparsers)
    sandbox_command.add_parser(subparsers)
    crawl_command.add_parser(subparsers)
    rank_command.add_parser(subparsers)
    evaluate_command.add_parser(subparsers)
    bench.add_parser(subparsers)
    extract_command.add_parser(subparsers)
    demo.add_parser(subparsers)
    portable.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, beam_args = parser.parse_known_args(argv)
    takes_beam_args = getattr(args, 'takes_beam_args', False)
    if beam_args and not takes_beam_args:
        parser.error(f'unrecognized arguments: {" ".join(beam_args)}')
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format='%(levelname)s %(name)s: %(message)s', force=True)  # Beam's import set a handler
    try:
        return args.handler(args, beam_args) if takes_beam_args else args.handler(args)
    except USER_ERRORS as error:
        print(f'focal: error: {error}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print('focal: interrupted', file=sys.stderr)
        return 130


def run() -> None:
    """The `focal` process. What it has loaded by now (Beam and Focal's modules, ~120,000 objects)
    lives as long as it does: frozen out of the cyclic collector's sight, the full collections
    of a round scan a fraction as much (a 1,000-page round of real pages: 1.0 -> 0.3 CPU-s)."""
    gc.freeze()
    sys.exit(main())


if __name__ == '__main__':
    run()

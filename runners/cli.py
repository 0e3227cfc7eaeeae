"""The `focal` command. Each subcommand lives in its own module and registers its parser here."""
import argparse
import logging
import sys

from models.topic import TopicError
from pipelines.state import StateError
from runners import demo, sandbox_command, topic_command
from runners.command import CommandError
from sandbox.archive import ArchiveError
from sandbox.build import BuildError
from sandbox.faults import FaultError
from sandbox.jsonl_web import CorpusError
from sandbox.search_index import SearchIndexError
from sandbox.server import SandboxError
from sandbox.stats import WebDirError

USER_ERRORS = (CommandError, TopicError, StateError, BuildError, CorpusError, WebDirError,
               ArchiveError, SearchIndexError, FaultError, SandboxError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='focal', description='Focused crawling and domain web discovery on Apache Beam.')
    parser.add_argument('-v', '--verbose', action='store_true', help='log debug messages')
    subparsers = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    topic_command.add_parser(subparsers)
    sandbox_command.add_parser(subparsers)
    demo.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format='%(levelname)s %(name)s: %(message)s')
    try:
        return args.handler(args)
    except USER_ERRORS as error:
        print(f'focal: error: {error}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print('focal: interrupted', file=sys.stderr)
        return 130


if __name__ == '__main__':
    sys.exit(main())

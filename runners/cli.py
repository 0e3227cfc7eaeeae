"""The `focal` command. Each subcommand lives in its own module and registers its parser here."""
import argparse
import gc
import importlib
import logging
import os
import sys

# Each subcommand's module, in the order `focal --help` lists them. A run imports its own only:
# importing every one (the sandbox's search index and scipy, the bench's report) cost each crawl
# process ~0.15 CPU-s.
COMMANDS = {'topic': 'runners.topic_command', 'sandbox': 'runners.sandbox_command', 'crawl': 'runners.crawl_command',
            'inspect': 'runners.crawl_command', 'rank': 'runners.rank_command', 'evaluate': 'runners.evaluate_command',
            'bench': 'runners.bench', 'extract': 'runners.extract_command', 'demo': 'runners.demo',
            'portable-runner': 'runners.portable'}
# The errors a user's input or environment causes (said in a line, exit 2), by module: a module the
# run has not imported cannot have raised its error.
USER_ERRORS = {'runners.command': 'CommandError', 'runners.driver': 'CrawlError', 'models.settings': 'SettingsError',
               'models.strategies': 'StrategyError', 'models.topic': 'TopicError', 'pipelines.state': 'StateError',
               'sandbox.build': 'BuildError', 'sandbox.jsonl_web': 'CorpusError', 'sandbox.stats': 'WebDirError',
               'sandbox.archive': 'ArchiveError', 'sandbox.search_index': 'SearchIndexError',
               'sandbox.faults': 'FaultError', 'sandbox.server': 'SandboxError', 'runners.report': 'ReportError',
               'models.ranking_options': 'RankingError', 'models.pagerank': 'PageRankError',
               'models.evaluation': 'EvaluationError'}


def user_errors() -> tuple[type, ...]:
    return tuple(getattr(sys.modules[module], name) for module, name in USER_ERRORS.items() if module in sys.modules)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of `command`'s module only."""
    parser = argparse.ArgumentParser(
        prog='focal', description='Focused crawling and domain web discovery on Apache Beam.')
    parser.add_argument('-v', '--verbose', action='store_true', help='log debug messages')
    subparsers = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    for module in dict.fromkeys(module for name, module in COMMANDS.items() if command in (None, name)):
        importlib.import_module(module).add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Before numpy is imported: OpenBLAS's own threads spin for ~0.1 CPU-s after its start and
    # after each call, beside Beam's workers on the same cores; Focal parallelises by workers.
    os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')
    command = next((word for word in argv if not word.startswith('-')), None)
    parser = build_parser(command if command in COMMANDS else None)
    args, beam_args = parser.parse_known_args(argv)
    takes_beam_args = getattr(args, 'takes_beam_args', False)
    if beam_args and not takes_beam_args:
        parser.error(f'unrecognized arguments: {" ".join(beam_args)}')
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format='%(levelname)s %(name)s: %(message)s', force=True)  # Beam's import set a handler
    try:
        return args.handler(args, beam_args) if takes_beam_args else args.handler(args)
    except Exception as error:
        if not isinstance(error, user_errors()):
            raise
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

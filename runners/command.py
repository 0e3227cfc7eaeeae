"""What every `focal` subcommand shares: the user-error type, argument checks and input files."""
import argparse
import json
from pathlib import Path


class CommandError(Exception):
    """A user error: the message says what was wrong and what to do."""


def _whole_number(value: str, least: int) -> int:
    number = int(value)
    if number < least:
        raise argparse.ArgumentTypeError(f'must be {least} or more, not {value}')
    return number


def positive_int(value: str) -> int:
    return _whole_number(value, 1)


def non_negative_int(value: str) -> int:
    return _whole_number(value, 0)


def read_seeds(path: str | Path) -> list[str]:
    """A seeds file: one URL a line; blank lines and lines starting with # are skipped."""
    try:
        lines = Path(path).read_text(encoding='utf-8').splitlines()
    except OSError as error:
        raise CommandError(f'cannot read seeds file {path}: {error.strerror}') from None
    return [line.strip() for line in lines if line.strip() and not line.startswith('#')]


def parameter_value(text: str):
    """A strategy parameter's value given on the command line: JSON when it parses (numbers, true,
    lists), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text

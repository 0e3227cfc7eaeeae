"""What every `focal` subcommand shares: the user-error type and argument checks."""
import argparse


class CommandError(Exception):
    """A user error: the message says what was wrong and what to do."""


def positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f'must be 1 or more, not {value}')
    return number

"""Shared test fixtures: the real data sets in ../shared/data."""
import pytest

from sandbox import corpora


@pytest.fixture(scope='session')
def shared_data():
    return corpora.shared_data_dir()


@pytest.fixture
def report(capsys):
    """Print a figure to the terminal even while pytest captures output."""
    def emit(*lines):
        with capsys.disabled():
            for line in lines:
                print(line)
    return emit

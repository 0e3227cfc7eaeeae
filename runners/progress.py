"""Pages fetched of a round while its pipeline runs: a bar on a terminal, a plain line now and then otherwise.

The fetch workers append one byte per URL they finish to a file (transforms/fetch.py), which
works across the worker processes of a local runner; a thread here watches the file's size. A
remote runner's workers write to their own disks, so there the bar simply does not move.
"""
import os
import sys
import tempfile
import threading
import time

from tqdm import tqdm

POLL_SECONDS = 0.5
LINE_SECONDS = 10.0


class RoundProgress:
    """A context: `path` is the file to give the round's Fetch; on exit the display is cleared."""

    def __init__(self, round_number: int, total: int, show_line=print, bar: bool | None = None):
        self.round, self.total, self.show_line = round_number, total, show_line
        self.bar = sys.stderr.isatty() if bar is None else bar
        self._stop = threading.Event()

    def __enter__(self) -> 'RoundProgress':
        handle, self.path = tempfile.mkstemp(prefix=f'focal-round-{self.round}-', suffix='.progress')
        os.close(handle)
        self._thread = threading.Thread(target=self._watch, name='round-progress', daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        os.unlink(self.path)

    def fetched(self) -> int:
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0

    def _watch(self) -> None:
        started = last_line = time.monotonic()
        bar = (tqdm(total=self.total, desc=f'round {self.round}', unit=' URLs', leave=False, file=sys.stderr,
                    dynamic_ncols=True) if self.bar else None)
        try:
            while not self._stop.wait(POLL_SECONDS):
                done = min(self.fetched(), self.total)
                if bar is not None:
                    bar.update(done - bar.n)
                elif time.monotonic() - last_line >= LINE_SECONDS and done:
                    last_line = time.monotonic()
                    rate = done / (last_line - started)
                    self.show_line(f'round {self.round}: {done} of {self.total} URLs fetched, {rate:.1f} URLs/s, '
                                   f'about {(self.total - done) / rate:.0f} s to go')
        finally:
            if bar is not None:
                bar.close()

"""Beam's portable runner on this machine: a job service and an external worker pool, each in its
own process on 127.0.0.1. It is the Fn API path Flink and Dataflow use: pipelines are serialised
to the job service and run by separate worker processes, so a round that works here does not
depend on the driver's memory reaching the workers by accident.

`focal portable-runner` starts both and prints the Beam options for `focal crawl`; tests and
benchmarks use `portable_services` directly.
"""
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

from apache_beam.options.pipeline_options import PipelineOptions, PortableOptions

from runners.command import CommandError

START_TIMEOUT = 60.0  # seconds for both services to listen; they import Beam first
_POOL_ADDRESS = re.compile(r'Started worker pool servicer at port: localhost:(\d+)')


def worker_environment() -> dict:
    """The environment of the services: the pool starts workers as `python` from PATH, which must
    be this interpreter (with Focal installed) or the job waits for a worker that never comes."""
    env = dict(os.environ)
    env['PATH'] = os.pathsep.join([str(Path(sys.executable).parent), env.get('PATH', '')])
    return env


def beam_args(job_port: int, pool_port: int) -> list[str]:
    return ['--runner=PortableRunner', f'--job_endpoint=localhost:{job_port}',
            '--environment_type=EXTERNAL', f'--environment_config=localhost:{pool_port}']


def check_job_endpoint(options: list[str]) -> None:
    """Refuse to start a round on a job service that does not answer: Beam would wait on it, and an
    endpoint recorded in crawl.json by an earlier `focal portable-runner` is gone once it stops."""
    endpoint = PipelineOptions(options).view_as(PortableOptions).job_endpoint
    if not endpoint or endpoint == 'embed':
        return
    host, _, port = endpoint.rpartition(':')
    try:
        socket.create_connection((host or 'localhost', int(port)), timeout=5).close()
    except (OSError, ValueError) as error:
        raise CommandError(f'the Beam job service at --job_endpoint={endpoint} does not answer ({error}). '
                           'Start one with `focal portable-runner` and pass the options it prints, or run '
                           'locally with --runner=DirectRunner; options given with --resume replace the '
                           'recorded ones') from None


def _wait_for(read_port, process: subprocess.Popen, name: str, log: Path, deadline: float) -> int:
    while time.monotonic() < deadline:
        port = read_port()
        if port:
            return port
        if process.poll() is not None:
            raise CommandError(f'the Beam {name} exited with code {process.returncode}; its log: {log}')
        time.sleep(0.1)
    raise CommandError(f'the Beam {name} did not start listening in {START_TIMEOUT:.0f} s; its log: {log}')


def _job_port(port_file: Path):
    return lambda: int(port_file.read_text()) if port_file.exists() else None


def _pool_port(log: Path):
    def read():
        found = _POOL_ADDRESS.search(log.read_text(errors='replace')) if log.exists() else None
        return int(found.group(1)) if found else None
    return read


def _stop(process: subprocess.Popen) -> None:
    """Stop a service and the workers it started (each runs in its own process group)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextlib.contextmanager
def portable_services(log_dir: str | Path | None = None) -> Iterator[list[str]]:
    """Start a local job service and worker pool; yield the Beam options that run on them.
    Both bind a free port (the OS picks it) and their logs go to `log_dir`."""
    with contextlib.ExitStack() as stack:
        logs = Path(log_dir or stack.enter_context(tempfile.TemporaryDirectory(prefix='focal-portable-')))
        logs.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + START_TIMEOUT
        started = []

        def start(name: str, args: list[str]) -> tuple[subprocess.Popen, Path]:
            log = logs / f'{name}.log'
            with open(log, 'w') as out:
                process = subprocess.Popen([sys.executable, '-m', *args], stdout=out, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, env=worker_environment(),
                                           start_new_session=True)
            started.append(process)
            stack.callback(_stop, process)
            return process, log

        port_file = logs / 'job_service.port'
        port_file.unlink(missing_ok=True)
        job_service, job_log = start('job_service', ['apache_beam.runners.portability.local_job_service_main',
                                                     '--port=0', f'--port_file={port_file}',
                                                     f'--staging_dir={logs / "staging"}'])
        pool, pool_log = start('worker_pool', ['apache_beam.runners.worker.worker_pool_main', '--service_port=0'])
        job_port = _wait_for(_job_port(port_file), job_service, 'job service', job_log, deadline)
        pool_port = _wait_for(_pool_port(pool_log), pool, 'worker pool', pool_log, deadline)
        yield beam_args(job_port, pool_port)


def serve(args) -> int:
    """`focal portable-runner`: run the services until Ctrl-C or SIGTERM (a service manager's stop)."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with portable_services(args.log_dir) as options:
        print('Beam job service and worker pool are running on this machine (Ctrl-C stops them).')
        print('Crawl on them with:  focal crawl ... ' + ' '.join(options), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print('stopping the job service and worker pool')
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        'portable-runner', help="run Beam's portable runner (job service + worker pool) on this machine",
        description="Start a Beam job service and an external worker pool as separate local processes "
                    "(the Fn API path Flink and Dataflow use) and print the options that make "
                    "`focal crawl` run its rounds there. Ctrl-C stops both.")
    parser.add_argument('--log-dir', help='where the services write their logs (default: a temporary directory)')
    parser.set_defaults(handler=serve)

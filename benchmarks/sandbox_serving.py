"""How fast the sandbox serves a warm web: pages/s, MB/s, search queries/s, latency p50/p99.

The server runs in this process, as a crawl runs it; the load comes from --clients separate
processes, each with one keep-alive connection sending absolute-form GETs (as a crawler does
through a proxy) for random archived URLs, then /search queries of random title words. The
archive's response cache is warmed first. The target is 1,000 pages/s on a 2-core machine.

Run: .venv/bin/python benchmarks/sandbox_serving.py --web WEB_DIR [--seconds 10] [--clients 3]
     .venv/bin/python benchmarks/sandbox_serving.py --warc crawl.warc.gz ...
"""
import argparse
import http.client
import multiprocessing
import random
import time
from urllib.parse import quote

from models.html import decode, html_title_and_text
from models.text import tokenize
from sandbox.server import SandboxServer, open_warcs, open_web

SAMPLE_URLS = 20_000        # URLs handed to each client (all of them in smaller archives)
SAMPLE_TITLES = 300


def client(port: int, targets: list[str], start: float, seconds: float,
           seed: int) -> tuple[int, int, list[float]]:
    """(responses, body bytes, latencies) of one keep-alive connection sending `targets` at random."""
    rng = random.Random(seed)
    connection = http.client.HTTPConnection('127.0.0.1', port)
    responses, received, latencies = 0, 0, []
    time.sleep(max(start - time.time(), 0))
    deadline = time.perf_counter() + seconds
    while (sent := time.perf_counter()) < deadline:
        connection.request('GET', rng.choice(targets))
        response = connection.getresponse()
        received += len(response.read())
        latencies.append(time.perf_counter() - sent)
        responses += 1
    connection.close()
    return responses, received, latencies


def run_load(pool, port: int, targets: list[str], clients: int,
             seconds: float) -> tuple[float, float, list[float]]:
    """(responses/s, MB/s, all latencies) of `clients` processes for `seconds`."""
    start = time.time() + 0.5  # every client starts at the same moment
    results = pool.starmap(client, [(port, targets, start, seconds, seed) for seed in range(clients)])
    latencies = sorted(latency for _, _, client_latencies in results for latency in client_latencies)
    return (sum(r[0] for r in results) / seconds, sum(r[1] for r in results) / seconds / 1e6, latencies)


def title_words(archive, urls: list[str]) -> list[str]:
    words = set()
    for url in urls[:SAMPLE_TITLES]:
        response = archive.get(url)
        if response and response.status == 200:
            title, _ = html_title_and_text(decode(response.body)[0])
            words.update(tokenize(title))
    return sorted(words)


def report(name: str, rate: float, megabytes: float | None, latencies: list[float]) -> None:
    p50, p99 = (latencies[int(q * (len(latencies) - 1))] * 1000 for q in (0.5, 0.99))
    volume = f', {megabytes:.1f} MB/s' if megabytes is not None else ''
    print(f'{name}: {rate:,.0f}/s{volume}; latency p50 {p50:.2f} ms, p99 {p99:.2f} ms '
          f'({len(latencies):,} requests)')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument('--web', help='a web directory written by `focal sandbox build`')
    source.add_argument('--warc', nargs='+', help='WARC files to scan and index in memory instead')
    parser.add_argument('--seconds', type=float, default=10.0, help='length of each load phase')
    parser.add_argument('--clients', type=int, default=3, help='client processes (2-4 on a 2-core machine)')
    args = parser.parse_args()

    started = time.perf_counter()
    archive, index = open_web(args.web) if args.web else open_warcs(args.warc, progress=True)
    print(f'opened {len(archive):,} URLs on {len(archive.hosts()):,} hosts '
          f'in {time.perf_counter() - started:.1f} s')
    urls = list(archive.urls())
    random.Random(0).shuffle(urls)
    urls = urls[:SAMPLE_URLS]
    started = time.perf_counter()
    for url in urls:
        archive.get(url)
    print(f'warmed {len(urls):,} URLs in {time.perf_counter() - started:.1f} s')
    queries = [f'/search?q={quote(word)}' for word in title_words(archive, urls)]

    context = multiprocessing.get_context('spawn')  # no fork of a process that runs server threads
    with context.Pool(args.clients) as pool, SandboxServer(archive, index) as server:
        rate, megabytes, latencies = run_load(pool, server.port, urls, args.clients, args.seconds)
        report(f'pages ({args.clients} clients)', rate, megabytes, latencies)
        rate, _, latencies = run_load(pool, server.port, queries, args.clients, args.seconds)
        report(f'search queries ({len(queries)} title words)', rate, None, latencies)


if __name__ == '__main__':
    main()

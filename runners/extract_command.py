"""`focal extract FILE|URL...`: a page's blocks, their classes and its main text.

Reads raw bytes (a file's, or a URL's fetched by Focal's fetcher with its address policy and
robots.txt), so the charset is decided by Focal. One process handles every input: the parser
and jieba's dictionary load once. URLs are fetched several hosts at once, one request at a time
per host, while the pages already fetched are extracted; results are printed in input order.
"""
import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Iterator

from models.extract import ExtractedPage, extract_page
from models.fetch import FetchPolicy, Fetcher, FetchResult, HostFetchPool
from models.urls import host_of


def _is_url(source: str) -> bool:
    return source.lower().startswith(('http://', 'https://'))


WINDOW = 64  # inputs fetched ahead of the one printed: at most this many bodies wait in memory


def read_sources(sources: list[str], fetcher: Fetcher) -> Iterator[tuple[str, bytes, str | None, str | None]]:
    """(url, bytes, content type, error) of each file or URL, in the order given."""
    for start in range(0, len(sources), WINDOW):
        yield from _read_window(sources[start:start + WINDOW], fetcher)


def _read_window(sources: list[str], fetcher: Fetcher) -> Iterator[tuple[str, bytes, str | None, str | None]]:
    urls = {index: source for index, source in enumerate(sources) if _is_url(source)}
    pool = HostFetchPool(fetcher.fetch, fetcher.policy.hosts_at_once)
    by_host = {}
    for index, url in urls.items():
        by_host.setdefault(host_of(url), []).append((index, url))
    for items in by_host.values():
        pool.submit(items, lambda item: item[1])
    arrived, results = {}, pool.completed(wait=True)
    try:
        for index, source in enumerate(sources):
            if index not in urls:
                yield _read_file(source)
                continue
            while index not in arrived:
                (done, _), result = next(results)
                arrived[done] = result
            yield _fetched(source, arrived.pop(index))
    finally:
        pool.close()


def _fetched(url: str, result: FetchResult) -> tuple[str, bytes, str | None, str | None]:
    if result.outcome != 'ok':
        detail = result.final.error or f'HTTP {result.final.http_status}'
        return url, b'', None, f'fetch {result.outcome}: {detail}'
    return result.final.final_url, result.body, result.final.content_type, None


def _read_file(source: str) -> tuple[str, bytes, str | None, str | None]:
    path = Path(source)
    try:
        return path.resolve().as_uri(), path.read_bytes(), None, None
    except OSError as error:
        return source, b'', None, f'cannot read {source}: {error.strerror}'


def as_json(url: str, page: ExtractedPage | None, error: str | None) -> str:
    document = {'url': url}
    if page is not None:
        document.update({'title': page.title, 'encoding': page.encoding, 'main_text': page.text,
                         'blocks': [{'class': block.kind, 'text': block.text,
                                     'links': [link.url for link in block.links]} for block in page.blocks]})
    if error:
        document['error'] = error
    return json.dumps(document, ensure_ascii=False)


def as_text(url: str, page: ExtractedPage | None, error: str | None) -> str:
    if error:
        return f'== {url}\nerror: {error}\n'
    lines = [f'== {url}', f'title: {page.title}', f'encoding: {page.encoding}', '']
    for block in page.blocks:
        first, *rest = block.text.splitlines() or ['']
        lines.append(f'[{block.kind}] {first}')
        lines += [f'    {line}' for line in rest]
        if block.links:
            lines.append(f'    ({len(block.links)} links)')
    lines += ['', '-- main text --', page.text, '']
    return '\n'.join(lines)


def run(args: argparse.Namespace) -> int:
    fetcher = Fetcher(FetchPolicy(proxy=args.proxy, host_delay=0.0,
                                  allowed_hosts=frozenset(args.allow_host)))
    render = as_json if args.format == 'json' else as_text
    failures = 0
    try:
        with contextlib.closing(read_sources(args.sources, fetcher)) as inputs:  # its fetch threads stop with it
            for url, body, content_type, error in inputs:
                page = None if error else extract_page(body, url, content_type)
                error = error or (page.error if page else None)
                failures += bool(error)
                print(render(url, page, error), flush=True)
    finally:
        fetcher.close()
    if failures and args.format == 'text':
        print(f'focal: {failures} of {len(args.sources)} inputs could not be read', file=sys.stderr)
    return 1 if failures == len(args.sources) else 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser('extract', help="print a page's blocks and main text",
                                   description=__doc__)
    parser.add_argument('sources', nargs='+', metavar='FILE|URL', help='HTML files or http(s) URLs')
    parser.add_argument('--format', choices=['text', 'json'], default='text',
                        help='text for reading, json for one object per input a line (default: text)')
    parser.add_argument('--proxy', help='HTTP proxy for URLs, e.g. the sandbox: http://127.0.0.1:8642')
    parser.add_argument('--allow-host', action='append', default=[], metavar='HOST',
                        help='allow a private or loopback host or IP (repeatable)')
    parser.set_defaults(handler=run)

"""`focal topic build` and `focal topic score`."""
import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from models import html, relevance, text, topic as topic_model
from runners.command import CommandError, positive_int


def read_documents(paths: list[str]) -> list[str]:
    """Title and text of each HTML or text file, decoded by Focal from its raw bytes."""
    documents = []
    for path in tqdm(paths, desc='reading', unit='file', disable=len(paths) < 50, file=sys.stderr):
        try:
            body = Path(path).read_bytes()
        except OSError as error:
            raise CommandError(f'cannot read {path}: {error.strerror}') from None
        title, body_text = html.document_text(body)
        documents.append(f'{title}\n{body_text}'.strip())
    return documents


def build(args: argparse.Namespace) -> int:
    out = Path(args.out or f'{args.name}.yaml')
    if out.exists() and not args.force:
        raise CommandError(f'{out} exists: pass --force to overwrite it, or choose --out')
    documents = read_documents(args.sources)
    empty = [p for p, d in zip(args.sources, documents) if not text.tokenize(d)]
    if empty:
        print(f'warning: no usable text in {len(empty)} file(s): {", ".join(empty[:5])}',
              file=sys.stderr)
    try:
        topic = topic_model.build_topic(args.name, documents, seeds=args.seed, language=args.language,
                                        top_k=args.keywords, site_words=args.site_words)
    except topic_model.TopicError as error:
        raise CommandError(f'{error}; give HTML or text files with the pages\' text') from None
    topic.save(out)
    best = ', '.join(f'{k} {v:.2f}' for k, v in list(topic.keywords.items())[:10])
    print(f'wrote {out}: topic "{topic.name}" ({topic.language}), {len(topic.keywords)} keywords '
          f'from {len(documents)} file(s); top: {best}')
    return 0


def score(args: argparse.Namespace) -> int:
    topic = topic_model.load_topic(args.topic)
    documents = read_documents(args.files)
    terms = [text.tokenize(d) for d in tqdm(documents, desc='tokenizing', unit='file',
                                            disable=len(documents) < 50, file=sys.stderr)]
    scores = relevance.corpus_relevance(topic, terms)
    for value, path in sorted(zip(scores, args.files), key=lambda pair: -pair[0]):
        print(f'{value:.4f}\t{path}')
    return 0


def add_parser(subparsers) -> None:
    topic_parser = subparsers.add_parser('topic', help='build and try topic files')
    commands = topic_parser.add_subparsers(dest='topic_command', required=True)

    build_parser = commands.add_parser(
        'build', help='learn a topic YAML from example pages',
        description='Learn a topic (weighted keywords) from example pages, HTML or text files. '
                    'TextRank keywords of each page are averaged over the pages.')
    build_parser.add_argument('--name', required=True, help='topic name, e.g. 房产')
    build_parser.add_argument('--from', dest='sources', nargs='+', required=True, metavar='FILE',
                              help='example pages: HTML or text files, any charset')
    build_parser.add_argument('--out', help='topic file to write (default: NAME.yaml)')
    build_parser.add_argument('--keywords', type=positive_int, default=topic_model.DEFAULT_KEYWORDS,
                              help='how many keywords to keep (default: %(default)s)')
    build_parser.add_argument('--language', help='language code (default: detected, zh or en)')
    build_parser.add_argument('--seed', action='append', default=[], metavar='URL',
                              help='a seed URL to record in the topic (repeatable)')
    build_parser.add_argument('--force', action='store_true', help='overwrite --out if it exists')
    build_parser.add_argument('--site-words', action='store_true',
                              help="down-weight the words of the title part the examples share (their site's name, "
                                   "e.g. '... - 安居网'): for examples taken from one site")
    build_parser.set_defaults(handler=build)

    score_parser = commands.add_parser(
        'score', help='rank files by relevance to a topic',
        description='Print the relevance (TF-IDF cosine, statistics over the given files) of '
                    'each file to the topic, most relevant first.')
    score_parser.add_argument('--topic', required=True, help='topic YAML file')
    score_parser.add_argument('files', nargs='+', metavar='FILE', help='HTML or text files')
    score_parser.set_defaults(handler=score)

"""`focal evaluate CRAWL_DIR --labels FILE`: any labelled sample judges a crawl, every paper's measures."""
import argparse
from pathlib import Path

from models.evaluation import EvaluationError, GroundTruth
from pipelines.state import CrawlDir, StateError
from runners import report
from runners.command import CommandError, positive_int
from runners.evaluate import format_evaluation


def run(args: argparse.Namespace) -> int:
    try:
        crawl = CrawlDir.open(str(args.crawl_dir))
    except StateError as error:
        raise CommandError(str(error)) from None
    column = args.relevant_column or 'relevant'
    try:
        truth = GroundTruth(args.labels, column, args.relevant_value)
    except EvaluationError as error:
        raise CommandError(f'{args.labels}: {error}') from None
    out = Path(args.out) if args.out else Path(args.crawl_dir) / 'report'
    about = {'task': crawl.config.get('topic', {}).get('name', ''), 'labels': str(args.labels),
             'relevant_column': column if args.relevant_value is None else f'{column} = {args.relevant_value}',
             'crawl_dir': str(args.crawl_dir)}
    page, figures = report.write_crawl_report(crawl, truth, about, out, args.budget)
    print(format_evaluation(figures))
    print(f'\nwrote {out / "evaluation.json"} and {page}')
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        'evaluate', help="judge a crawl against labels with every seed paper's measures",
        description='Judge a committed crawl against labels (a sandbox web\'s labels.parquet, or your own labelled '
                    'sample): harvest of pages and sites per fifth of the budget (ours and DWDBRM\'s counting), '
                    'P@N and mean/median rank of the final ranking, WL\'s Accuracy/ARDP/SDDP/ARLP/SDLP at its '
                    'checkpoints, SSAPS\'s sums per segment, DTH\'s query precision and tunnel lengths, and the '
                    'bandit\'s arm choices. Prints a summary, writes evaluation.json and report.html.')
    parser.add_argument('crawl_dir', metavar='CRAWL_DIR')
    parser.add_argument('--labels', required=True, metavar='FILE',
                        help="CSV (.csv/.tsv) or Parquet with a url column; a sandbox web's WEB_DIR/labels.parquet "
                             'works')
    parser.add_argument('--relevant-column', metavar='C',
                        help='the column saying which pages are relevant (true/false, yes/no, 1/0; default: '
                             'relevant), or with --relevant-value the label column, e.g. labels')
    parser.add_argument('--relevant-value', metavar='V',
                        help='the value of --relevant-column that means relevant (in a list column: one of its values)')
    parser.add_argument('--budget', type=positive_int,
                        help="the budget whose fifths are reported (default: crawl.json's)")
    parser.add_argument('--out', metavar='DIR', help='where to write evaluation.json and report.html '
                                                     '(default: CRAWL_DIR/report)')
    parser.set_defaults(handler=run)

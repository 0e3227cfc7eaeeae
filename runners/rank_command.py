"""`focal rank`: the ranking of a committed crawl's pages, computed (or reused) and shown."""
import argparse
import dataclasses
from pathlib import Path

from models import ranking_options, text
from models.pagerank import MODES as PAGERANK_MODES
from models.settings import CrawlSettings
from pipelines.state import CrawlDir
from runners.command import CommandError, positive_int
from runners.driver import DEFAULT_BEAM_ARGS

SHORT_NAMES = {'nb': 'nb', 'lr': 'lr', 'ocsvm': 'ocsvm', 'cosine': 'cos', 'jaccard': 'jac', 'pagerank': 'pr'}


def rank(args: argparse.Namespace, beam_args: list[str]) -> int:
    # Imported here: `focal crawl` imports this module for its rank options, and the rankers bring
    # scipy (~0.08 CPU-s), which a crawl's rounds do not use.
    from models import ranking
    from runners.ranks import rank_round, read_ranking
    crawl = CrawlDir.open(args.crawl_dir)
    settings = CrawlSettings.from_dict(crawl.config, source=f'{crawl.root}/crawl.json')
    text.use_dictionary_words(settings.topic.dictionary_words)  # negatives' pages segmented as the crawl's
    last = crawl.last_committed_round()
    if last is None:
        raise CommandError(f'{crawl.root} has no committed round yet: run `focal crawl --resume {crawl.root}` '
                           'for at least one round, then rank it')
    number = args.round or last
    given = given_rank_options(args)
    settings.rank = dataclasses.replace(settings.rank, **given)
    report = rank_round(crawl, number, settings, beam_args or settings.beam_args or DEFAULT_BEAM_ARGS)
    print(report.line())
    table = read_ranking(crawl, number)
    committed = report.summary
    if (committed['combination'], committed['alpha']) != (settings.rank.combination, settings.rank.alpha):
        table = ranking.combine(table, settings.rank.combination, settings.rank.alpha)
        print(f'combined again here with {settings.rank.combination} (alpha {settings.rank.alpha}); the committed '
              f'ranking keeps {committed["combination"]} (alpha {committed["alpha"]})')
    if report.reused and 'negatives' in given and given['negatives'] != committed['negatives_from']:
        print(f'these ranks were committed with negatives from {committed["negatives_from"]}; committed ranks '
              'are never rewritten: rank with other negatives in a copy of the crawl directory')
    print(format_top(table, args.top))
    return 0


def format_top(table, top: int) -> str:
    """The first pages of a ranking with each ranker's position (0 = its best)."""
    names = [f'{SHORT_NAMES[name]:>6}' for name in ranking_options.SCORES]
    lines = [f'{"#":>4} {"combined":>9} {"".join(names)}  page']
    for row in table.slice(0, top).to_pylist():
        places = ''.join(f'{row[f"position_{name}"]:6.0f}' for name in ranking_options.SCORES)
        seed = ' (seed)' if row['seed'] else ''
        lines.append(f'{row["position"]:4d} {row["combined"]:9.3f} {places}  {(row["title"] or "")[:40]}{seed}  {row["url"]}')
    return '\n'.join(lines)


def given_rank_options(args: argparse.Namespace) -> dict:
    """The RankSettings fields the rank options set (see add_rank_options); a negatives file is
    read now, so a mistake in it shows before anything runs, and kept by its absolute path."""
    given = {name: value for name, value in (('alpha', args.alpha), ('combination', args.combine),
                                             ('pagerank', args.pagerank), ('negatives', args.negatives))
             if value is not None}
    if 'negatives' in given:
        given['negatives'] = str(Path(given['negatives']).resolve())
        from models.ranking import read_negatives
        read_negatives(given['negatives'])
    return given


def add_rank_options(parser) -> None:
    """--alpha, --combine, --pagerank, --negatives: for `focal rank` and new crawls."""
    parser.add_argument('--alpha', type=float,
                        help=f"PageRank's share of the combination (default: the crawl's, else {ranking_options.DEFAULT_ALPHA}; "
                             f'DWDBRM takes {ranking_options.PAPER_ALPHA})')
    parser.add_argument('--combine', choices=ranking_options.COMBINATIONS,
                        help=f"how the rankers combine (default: the crawl's, else {ranking_options.DEFAULT_COMBINATION})")
    parser.add_argument('--pagerank', choices=PAGERANK_MODES,
                        help='where PageRank runs: local (scipy on one worker), beam (iterations in Beam, for graphs '
                             "that do not fit one worker), auto (by the number of links; the crawl's default)")
    parser.add_argument('--negatives', metavar='FILE',
                        help='negative examples for logistic regression: one URL of a crawled page or one local '
                             'page file a line (default: the fetched pages least like the seeds)')


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        'rank', help="rank a crawl's pages against its seed pages (DWDBRM)",
        description="Rank every page a crawl fetched against its seed pages with five rankers (Bayesian, "
                    "logistic regression, one-class SVM, cosine, Jaccard) and PageRank, combined by DWDBRM "
                    "eq. 8 (or mean, rrf). Computes ranks/NNNNNN of the round unless committed before, then "
                    "shows the top pages with each ranker's position. Unknown options go to Beam.")
    parser.add_argument('crawl_dir', metavar='CRAWL_DIR')
    parser.add_argument('--round', type=positive_int, help='rank the pages up to this committed round (default: the last)')
    add_rank_options(parser)
    parser.add_argument('--top', type=positive_int, default=20, help='how many pages to show (default: %(default)s)')
    parser.set_defaults(handler=rank, takes_beam_args=True)

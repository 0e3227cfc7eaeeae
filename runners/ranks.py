"""The rank step: run the rank pipeline (pipelines/rank.py) on a crawl's committed rounds and
commit `ranks/NNNNNN/` like a round (manifest written last, then one rename). The driver runs it
after rounds when its strategy ranks, and once when a crawl ends; `focal rank` runs it on demand.
"""
import dataclasses
import time

import pyarrow as pa
import pyarrow.compute as pc
from apache_beam.options.pipeline_options import PipelineOptions

from models import pagerank, ranking
from models.settings import CrawlSettings
from pipelines.local import metric_total
from pipelines.rank import build_rank
from pipelines.state import CrawlDir


@dataclasses.dataclass
class RankReport:
    round: int
    summary: dict      # what the ranks' manifest keeps (see rank_round)
    reused: bool       # committed before: nothing ran

    def line(self) -> str:
        s = self.summary
        negatives = (f'{s["negatives"]} negatives ({s["negatives_from"]})' if s['negatives']
                     else 'no negatives (LR scores 0.5)')
        timing = 'committed before' if self.reused else f'{s["seconds"]:.1f} s'
        return (f'ranks {self.round}: {s["pages"]:,} pages ranked against {s["seed_pages"]} seed pages with '
                f'{s["vocabulary"]} keywords; {negatives}; PageRank {s["pagerank"]} over {s["links"]:,} links; '
                f'{s["combination"]} (alpha {s["alpha"]}); {timing}')


def rank_round(crawl: CrawlDir, number: int, settings: CrawlSettings, beam_args: list[str]) -> RankReport:
    """The ranks after committed round `number`, computed and committed unless they were already."""
    if number in crawl.committed_rounds('ranks'):
        return RankReport(number, crawl.manifest(number, 'ranks').get('summary', {}), reused=True)
    if number not in crawl.committed_rounds():
        raise ranking.RankingError(f'round {number} of {crawl.root} is not committed: rank a committed round '
                                   f'(the last is {crawl.last_committed_round() or "none yet"})')
    rounds = [r for r in crawl.committed_rounds() if r <= number]
    seeds, _ = settings.seed_urls()
    pages = crawl.read_table('pages', columns=['round', 'url', 'final_url'])
    pages = pages.filter(pc.less_equal(pages['round'], number))
    seed_pages = ranking.seed_rows(pages, seeds).num_rows
    if not seed_pages:
        raise ranking.RankingError(
            f'no seed page was fetched in rounds 1-{number} of {crawl.root}, and the rankers learn from the seed '
            'pages: see the seeds\' outcomes with `focal inspect`, then resume the crawl with a proxy or '
            'seeds that answer')
    links = sum(crawl.manifest(r)['tables'].get('links', {}).get('rows', 0) for r in rounds)
    mode = pagerank.resolve_mode(settings.rank.pagerank, links)
    negatives = ranking.read_negatives(settings.rank.negatives) if settings.rank.negatives else None
    started = time.monotonic()
    pending = crawl.begin(number, 'ranks')
    try:
        result = build_rank(PipelineOptions(beam_args), crawl, pending, settings.topic, seeds, mode,
                            settings.rank.combination, settings.rank.alpha, negatives).run()
        result.wait_until_finish()
        summary = {'pages': pending.read_table('ranking', ['url']).num_rows, 'seed_pages': seed_pages,
                   'negatives': metric_total(result, 'negatives'),
                   'negatives_from': settings.rank.negatives or 'the fetched pages least like the seeds',
                   'vocabulary': pending.read_table('vocabulary', ['term']).num_rows,
                   'pagerank': mode, 'pagerank_iterations': (metric_total(result, 'pagerank_iterations')
                                                             if mode == pagerank.LOCAL else pagerank.iterations_for()),
                   'links': links, 'combination': settings.rank.combination, 'alpha': settings.rank.alpha,
                   'seconds': round(time.monotonic() - started, 2)}
        pending.commit(summary)
    except BaseException:
        pending.discard()
        raise
    return RankReport(number, summary, reused=False)


def read_ranking(crawl: CrawlDir, number: int) -> pa.Table:
    """A committed ranking, best first."""
    return crawl.read_table('ranking', number, kind='ranks').sort_by('position')

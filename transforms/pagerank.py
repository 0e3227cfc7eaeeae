"""PageRank in Beam: the power iteration of models/pagerank.py as an unrolled iterative transform
(for link graphs that do not fit one worker), and the crawl's PageRank in either form.

Each step is one shuffle: every node sends its rank, split evenly, to the pages it links to and
its outlinks to itself; a node with no outlinks adds its rank to the dangling mass, a global sum
read back as a side input. Steps are unrolled (a Beam pipeline has no loops), so the transform
runs a fixed number of them: `models.pagerank.iterations_for` steps bring any graph within the
tolerance the scipy iteration stops at.
"""
import typing

import apache_beam as beam
import pyarrow as pa
from apache_beam.metrics import Metrics

from models import pagerank as pr


@beam.typehints.with_output_types(typing.Tuple[str, typing.Tuple[str, typing.Any]])  # main output
class SpreadRankFn(beam.DoFn):
    """(url, (rank, outlinks)) -> (target, ('rank', share)) per outlink and (url, ('links', outlinks));
    a dangling page's rank goes to the DANGLING output."""
    DANGLING = 'dangling'

    def process(self, node):
        url, (rank, outlinks) = node
        yield url, ('links', outlinks)
        if outlinks:
            share = rank / len(outlinks)
            for target in outlinks:
                yield target, ('rank', share)
        else:
            yield beam.pvalue.TaggedOutput(self.DANGLING, rank)


def _gather_rank(grouped, dangling: float, nodes: int, damping: float):
    url, messages = grouped
    inflow, outlinks = 0.0, ()
    for kind, value in messages:
        if kind == 'rank':
            inflow += value
        else:
            outlinks = value
    return url, (damping * (inflow + dangling / nodes) + (1 - damping) / nodes, outlinks)


class PageRankStep(beam.PTransform):
    """One power-iteration step on (url, (rank, outlinks)) nodes."""

    def __init__(self, nodes, damping: float):
        super().__init__()
        self.nodes = nodes
        self.damping = damping

    def expand(self, state):
        spread = state | 'SpreadRank' >> beam.ParDo(SpreadRankFn()).with_outputs(SpreadRankFn.DANGLING, main='messages')
        dangling = spread[SpreadRankFn.DANGLING] | 'DanglingMass' >> beam.CombineGlobally(sum)
        return (spread['messages']
                | 'GroupByPage' >> beam.GroupByKey()
                | 'NewRank' >> beam.Map(_gather_rank, beam.pvalue.AsSingleton(dangling),
                                        beam.pvalue.AsSingleton(self.nodes), self.damping))


class PageRank(beam.PTransform):
    """{'edges': (source, target) URL pairs, 'nodes': URLs (those without edges too)} ->
    (url, rank), ranks summing to 1, after `iterations` steps from the uniform start. Duplicate
    edges count once (models/pagerank.py)."""

    def __init__(self, iterations: int, damping: float = pr.DAMPING):
        super().__init__()
        pr.check_damping(damping)
        self.iterations = iterations
        self.damping = damping

    def expand(self, inputs):
        edges = inputs['edges'] | 'DistinctEdges' >> beam.Distinct()
        ends = edges | 'EdgeEnds' >> beam.FlatMap(lambda edge: edge)
        nodes = (inputs['nodes'], ends) | 'AllNodes' >> beam.Flatten() | 'DistinctNodes' >> beam.Distinct()
        count = nodes | 'CountNodes' >> beam.combiners.Count.Globally()
        state = ({'node': nodes | 'KeyNodes' >> beam.Map(lambda url: (url, None)), 'edge': edges}
                 | 'GroupOutlinks' >> beam.CoGroupByKey()
                 | 'Start' >> beam.Map(lambda grouped, n: (grouped[0], (1.0 / n, tuple(sorted(grouped[1]['edge'])))),
                                       beam.pvalue.AsSingleton(count)))
        for step in range(1, self.iterations + 1):
            state = state | f'Step{step}' >> PageRankStep(count, self.damping)
        return state | 'Ranks' >> beam.Map(lambda node: (node[0], node[1][0]))


def _local_ranks(edge_tables: list[pa.Table], node_arrays: list[pa.Array], damping: float) -> pa.Table:
    edges = pa.concat_tables(edge_tables) if edge_tables else pr.EDGES.empty_table()
    graph = pr.LinkGraph.from_edges(edges['source'], edges['target'],
                                    pa.concat_arrays(node_arrays) if node_arrays else None)
    result = pr.pagerank(graph, damping)
    Metrics.counter(CrawlPageRank, 'pagerank_iterations').inc(result.iterations)
    return pr.ranks_table(graph.nodes, result.ranks, graph.size)


class CrawlPageRank(beam.PTransform):
    """{'pages': batches of page rows (url, final_url), 'links': batches of link rows (url, dst)} ->
    batches of (url, pagerank, pagerank_wl) over every page fetched or linked.

    mode local gathers the edges on one worker and runs scipy (models/pagerank.py); beam runs the
    PageRank transform above for `iterations` steps. Both read the same edges (pr.crawl_edges)."""

    def __init__(self, mode: str, iterations: int = pr.iterations_for(), damping: float = pr.DAMPING):
        super().__init__()
        if mode not in (pr.LOCAL, pr.BEAM):
            raise ValueError(f'PageRank mode {mode!r}: {pr.LOCAL} or {pr.BEAM}')
        self.mode, self.iterations, self.damping = mode, iterations, damping

    def expand(self, inputs):
        pages = inputs['pages']
        aliases = pages | 'Redirected' >> beam.FlatMap(
            lambda batch: ((url, final) for url, final in zip(batch['url'].to_pylist(), batch['final_url'].to_pylist())
                           if url != final))
        edges = inputs['links'] | 'Edges' >> beam.Map(pr.crawl_edges, beam.pvalue.AsDict(aliases))
        nodes = pages | 'FetchedPages' >> beam.Map(lambda batch: batch['final_url'].combine_chunks())
        if self.mode == pr.LOCAL:
            return (edges
                    | 'AllEdges' >> beam.combiners.ToList()
                    | 'RankOnOneWorker' >> beam.Map(_local_ranks, beam.pvalue.AsList(nodes), self.damping))
        ranks = ({'edges': edges | 'EdgePairs' >> beam.FlatMap(
                      lambda table: zip(table['source'].to_pylist(), table['target'].to_pylist())),
                  'nodes': nodes | 'NodeUrls' >> beam.FlatMap(lambda urls: urls.to_pylist())}
                 | 'PageRank' >> PageRank(self.iterations, self.damping))
        count = ranks | 'CountRanked' >> beam.combiners.Count.Globally()
        return (ranks
                | 'Batch' >> beam.BatchElements(min_batch_size=1024, max_batch_size=65536)
                | 'RankTables' >> beam.Map(lambda batch, n: pr.ranks_table([url for url, _ in batch],
                                                                          [rank for _, rank in batch], n),
                                             beam.pvalue.AsSingleton(count)))

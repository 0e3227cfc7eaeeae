"""PageRank at scale: scipy CSR power iteration against the memory-bandwidth floor and networkx,
and the Beam transform's seconds per step on the DirectRunner, with the largest difference.

Graphs: the link graph of the THUCNews sandbox web at --scale 8 (graph.parquet: 2.56 M links on
141 k pages; built into --web if missing, ~2 minutes), a 1 M-link sample of it, and synthetic
power-law graphs of 1 M and 5 M links (Zipf in-degrees, uniform sources, a tenth as many pages).

Per graph: the CSR's build seconds (from URL strings for the sandbox graphs); scipy seconds per
step (mean of --steps steps run without stopping); the memory-bandwidth floor of a step (the bytes
a step must stream: matrix values, column indices, row pointers, the rank vectors, read at the
speed numpy sums a 1 GB array on this machine) and scipy's ratio to it (goal <= 2); networkx's
pagerank (its own scipy code) on the same DiGraph, and the speed-up; for graphs of up to
--beam-edges links, the Beam transform's seconds per step on the DirectRunner (FnApiRunner) from
runs of 1 and 1 + --beam-steps steps, and the largest difference between Beam's ranks and scipy's
after the same steps.

Run: .venv/bin/python benchmarks/pagerank.py [--web DIR] [--steps 20] [--beam-edges 1000000] [--beam-steps 3]
"""
import argparse
import tempfile
import time
from pathlib import Path

import apache_beam as beam
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.options.pipeline_options import PipelineOptions

from models import pagerank as pr
from pipelines.local import new_pipeline
from sandbox.build import build_web
from transforms.pagerank import PageRank


def read_bandwidth() -> float:
    """Bytes per second numpy streams from memory (best of 5 sums of a 1 GB array)."""
    block = np.ones(1 << 27)
    best = min(_timed(block.sum) for _ in range(5))
    return block.nbytes / best


def _timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def synthetic_graph(edges: int, seed: int) -> pr.LinkGraph:
    """`edges` distinct links among edges/10 pages: uniform sources, Zipf-distributed targets."""
    rng = np.random.default_rng(seed)
    nodes = edges // 10
    pairs = np.zeros(0, dtype=np.int64)
    while len(pairs) < edges:
        sources, targets = rng.integers(0, nodes, edges), (rng.zipf(1.8, edges) - 1) % nodes
        pairs = np.unique(np.concatenate([pairs, sources * nodes + targets]))
    pairs = np.sort(rng.choice(pairs, edges, replace=False))
    return pr.LinkGraph(pa.array([f'n{i}' for i in range(nodes)]), pairs // nodes, pairs % nodes)


def step_bytes(graph: pr.LinkGraph) -> int:
    """What one step must move: the CSR (float64 values, int32 indices, row pointers) and reading
    and writing the rank vector a few times (product, dangling sum, update, change)."""
    return len(graph.sources) * (8 + 4) + graph.size * 4 + graph.size * 8 * 5


def beam_seconds(graph: pr.LinkGraph, steps: int, out: Path) -> tuple[float, dict]:
    """Seconds of a pipeline reading the graph from Parquet, running `steps` steps and writing the ranks."""
    names = graph.nodes
    pq.write_table(pa.table({'source': names.take(pa.array(graph.sources)), 'target': names.take(pa.array(graph.targets))}),
                   out / 'edges.parquet')
    pq.write_table(pa.table({'url': names}), out / 'nodes.parquet')
    started = time.perf_counter()
    with new_pipeline(PipelineOptions(['--runner=DirectRunner'])) as pipeline:
        edges = (pipeline | 'Edges' >> beam.io.ReadFromParquet(str(out / 'edges.parquet'))
                 | 'Pairs' >> beam.Map(lambda row: (row['source'], row['target'])))
        nodes = pipeline | 'Nodes' >> beam.io.ReadFromParquet(str(out / 'nodes.parquet')) | 'Urls' >> beam.Map(
            lambda row: row['url'])
        (({'edges': edges, 'nodes': nodes} | PageRank(steps))
         | 'Batch' >> beam.BatchElements(min_batch_size=10_000, max_batch_size=100_000)
         | 'Table' >> beam.Map(lambda batch: pa.table({'url': [u for u, _ in batch], 'rank': [r for _, r in batch]}))
         | 'Write' >> beam.io.WriteToParquetBatched(str(out / f'beam-{steps}'),
                                                   pa.schema([('url', pa.string()), ('rank', pa.float64())]),
                                                   file_name_suffix='.parquet'))
    seconds = time.perf_counter() - started
    table = pa.concat_tables(pq.read_table(path) for path in out.glob(f'beam-{steps}*.parquet'))
    return seconds, dict(zip(table['url'].to_pylist(), table['rank'].to_pylist()))


def measure(name: str, graph: pr.LinkGraph, build_seconds: float | None, args, bandwidth: float, scratch: Path):
    print(f'\n{name}: {graph.size:,} pages, {len(graph.sources):,} distinct links'
          + (f'; CSR input built from URL strings in {build_seconds:.2f} s' if build_seconds is not None else ''))
    started = time.perf_counter()
    matrix, dangling = pr.transition_matrix(graph), np.flatnonzero(graph.out_degree() == 0)
    matrix_seconds = time.perf_counter() - started
    started = time.perf_counter()
    pr.power_iteration(matrix, dangling, tolerance=-1.0, max_iterations=args.steps)  # never stops early
    per_step = (time.perf_counter() - started) / args.steps
    floor = step_bytes(graph) / bandwidth
    converged = pr.pagerank(graph)
    print(f'  scipy: {per_step * 1000:.2f} ms a step; floor {floor * 1000:.2f} ms ({step_bytes(graph) / 1e6:.0f} MB '
          f'at {bandwidth / 1e9:.1f} GB/s): {per_step / floor:.2f}x the floor (goal <= 2); the matrix built in '
          f'{matrix_seconds:.2f} s; converges in {converged.iterations} steps')
    if args.networkx:
        import networkx as nx
        started = time.perf_counter()
        digraph = nx.DiGraph()
        digraph.add_nodes_from(range(graph.size))
        digraph.add_edges_from(zip(graph.sources.tolist(), graph.targets.tolist()))
        nx_build = time.perf_counter() - started
        started = time.perf_counter()
        theirs = nx.pagerank(digraph, tol=pr.TOLERANCE / graph.size, max_iter=1000)
        nx_seconds = time.perf_counter() - started
        ours_seconds = _timed(lambda: pr.pagerank(graph))
        difference = float(np.max(np.abs(converged.ranks - np.array([theirs[i] for i in range(graph.size)]))))
        print(f'  networkx pagerank {nx_seconds:.2f} s (+ {nx_build:.1f} s to build its DiGraph) against Focal '
              f'{ours_seconds:.2f} s: {nx_seconds / ours_seconds:.1f}x faster ({(nx_seconds + nx_build) / ours_seconds:.0f}x '
              f'with the graph build); largest difference {difference:.1e}')
    if len(graph.sources) <= args.beam_edges:
        one, _ = beam_seconds(graph, 1, scratch)
        more, beam_ranks = beam_seconds(graph, 1 + args.beam_steps, scratch)
        scipy_ranks = pr.pagerank(graph, tolerance=-1.0, max_iterations=1 + args.beam_steps).ranks
        names = graph.nodes.to_pylist()
        difference = max(abs(beam_ranks[names[i]] - scipy_ranks[i]) for i in range(graph.size))
        beam_step = (more - one) / args.beam_steps
        print(f'  Beam (DirectRunner): {beam_step:.1f} s a step ({one:.1f} s with 1 step, {more:.1f} s with '
              f'{1 + args.beam_steps}); {beam_step / per_step:,.0f}x scipy; largest difference after '
              f'{1 + args.beam_steps} steps {difference:.1e}')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--web', type=Path, help='a thucnews web built with --scale 8 (built there if missing)')
    parser.add_argument('--steps', type=int, default=20)
    parser.add_argument('--beam-edges', type=int, default=1_000_000, help='run Beam on graphs up to this many links')
    parser.add_argument('--beam-steps', type=int, default=3)
    parser.add_argument('--no-networkx', dest='networkx', action='store_false')
    args = parser.parse_args()
    bandwidth = read_bandwidth()
    with tempfile.TemporaryDirectory() as scratch:
        web = args.web or Path(scratch) / 'web'
        if not (web / 'web.json').is_file():
            print(f'building the scale-8 THUCNews web in {web} (about 2 minutes)', flush=True)
            build_web('thucnews', web, scale=8, force=True, progress=False)
        links = pq.read_table(web / 'graph.parquet')
        sample = links.take(np.random.default_rng(0).choice(links.num_rows, 1_000_000, replace=False))
        for name, table in (('sandbox scale-8 graph, 1 M-link sample', sample), ('sandbox scale-8 graph', links)):
            started = time.perf_counter()
            graph = pr.LinkGraph.from_edges(table['src'], table['dst'])
            measure(name, graph, time.perf_counter() - started, args, bandwidth, Path(scratch))
        for edges in (1_000_000, 5_000_000):
            measure(f'synthetic power-law graph, {edges // 1_000_000} M links', synthetic_graph(edges, edges),
                    None, args, bandwidth, Path(scratch))


if __name__ == '__main__':
    main()

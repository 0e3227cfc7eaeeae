"""`focal sandbox stats`: what a built web holds, and how hard each task is.

Reachability is measured on the ground-truth link graph: a relevant page that no chain of
links from the task's seeds reaches can only be found through search.
"""
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from scipy import sparse
from scipy.sparse import csgraph

from models.topic import load_task
from models.urls import normalize_url


class WebDirError(ValueError):
    """Not a complete web directory; the message says how to make one."""


def read_manifest(web_dir: Path) -> dict:
    try:
        return json.loads((Path(web_dir) / 'web.json').read_text(encoding='utf-8'))
    except FileNotFoundError:
        raise WebDirError(f'{web_dir} is not a built sandbox web (no web.json): build one with '
                          '`focal sandbox build --corpus thucnews --out DIR`') from None


def link_distances(urls: list[str], sources: list[str], targets: list[str],
                   seeds: list[str]) -> np.ndarray:
    """Fewest links from any seed to each page (inf when unreachable)."""
    ids = {url: n for n, url in enumerate(urls)}
    edges = np.array([(ids[s], ids[t]) for s, t in zip(sources, targets) if s in ids and t in ids],
                     dtype=np.int64).reshape(-1, 2)
    graph = sparse.csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(len(urls), len(urls)))
    starts = [ids[s] for s in seeds if s in ids]
    if not starts:
        return np.full(len(urls), np.inf)
    return csgraph.shortest_path(graph, unweighted=True, indices=starts).min(axis=0)


def web_stats(web_dir: str | Path) -> dict:
    web_dir = Path(web_dir)
    manifest = read_manifest(web_dir)
    labels = pq.read_table(web_dir / 'labels.parquet').to_pydict()
    graph = pq.read_table(web_dir / 'graph.parquet').to_pydict()
    pages = len(labels['url'])
    label_counts, kind_counts = {}, {}
    for page_labels, kind in zip(labels['labels'], labels['kind']):
        kind_counts[kind] = kind_counts.get(kind, 0) + 1
        for label in page_labels:
            label_counts[label] = label_counts.get(label, 0) + 1
    tasks = []
    for name in manifest['tasks']:
        task = load_task(web_dir / 'tasks' / name)
        relevant = np.array(labels[task.relevant_column], dtype=bool)
        allowed = np.array(labels['robots_allowed'], dtype=bool)
        distance = link_distances(labels['url'], graph['src'], graph['dst'],
                                  [normalize_url(s) for s in task.topic.seeds])
        reached = relevant & np.isfinite(distance)
        relevant_hosts = {h for h, r in zip(labels['host'], relevant) if r}
        tasks.append({
            'file': f'tasks/{name}', 'label': task.label, 'seeds': len(task.topic.seeds),
            'relevant': int(relevant.sum()), 'relevant_hosts': len(relevant_hosts),
            'relevant_allowed': int((relevant & allowed).sum()),
            'reachable_relevant': int(reached.sum()),
            'reachable': int(np.isfinite(distance).sum()),
            'median_distance': float(np.median(distance[reached])) if reached.any() else None,
        })
    return {'manifest': manifest, 'pages': pages, 'hosts': len(set(labels['host'])),
            'links': len(graph['src']), 'kinds': kind_counts,
            'label_shares': {k: v / pages for k, v in sorted(label_counts.items(), key=lambda i: -i[1])},
            'tasks': tasks}

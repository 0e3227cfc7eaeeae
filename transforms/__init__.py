"""Beam PTransforms and DoFns: thin shells around the functions in models/.

Imported by the driver and by every Beam worker that unpickles one of Focal's DoFns, so what is set
here holds in each process of a round: Beam's measured inefficiencies worked around
(beam_patches), and Arrow's memory from the system allocator. Arrow's default, mimalloc, kept the
memory of each freed table in its process: with the frontier's and term counts' tables, a
25,000-page crawl on two workers peaked at 1.96 GB (benchmarks/frontier_scale.py), 1.01 GB with
the system allocator, as fast."""
import pyarrow

from transforms import beam_patches

beam_patches.install()
pyarrow.set_memory_pool(pyarrow.system_memory_pool())

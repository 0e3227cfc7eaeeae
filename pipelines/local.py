"""Where a crawl's pipelines run when the user names no remote runner.

Beam 2.77's DirectRunner first offers every pipeline to Prism, a runner written in Go whose binary
it downloads from github.com when it is missing, and falls back to FnApiRunner when that fails.
A crawl must reach no address nobody allowed, and a round that silently moved to another runner
would not be the one we test, so Focal's local pipelines go straight to FnApiRunner, set up as
the DirectRunner sets it up (every option handed on to its workers). It also saves each round
the Prism attempt (~0.3 CPU-s).

Every pipeline Focal builds, on any runner, skips Beam's construction-time type inference
(`--no_pipeline_type_check`): it disassembles each DoFn's and lambda's bytecode and inspects its
signature, 8.5% of a 10-page round's instructions (callgrind: 10.99 G -> 10.05 G), and Focal's
transforms declare no element types it could check (SpreadRankFn's is for pipelines that check,
a test's). Their elements are coded by Beam's general
coder, which most inferred types fell back to anyway: a 1,000-page CWCED round's six tables are
identical with and without it, in one process and on two workers.
"""
import apache_beam as beam
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions, TypeOptions
from apache_beam.portability.api import beam_provision_api_pb2
from apache_beam.runners.portability.fn_api_runner import fn_runner
from apache_beam.runners.portability.portable_runner import JobServiceHandle
from apache_beam.runners.runner import PipelineRunner

DIRECT_RUNNERS = (None, 'DirectRunner', 'direct', 'SwitchingDirectRunner')


class LocalRunner(PipelineRunner):
    """FnApiRunner with the pipeline options for its workers, as the DirectRunner runs a batch
    pipeline it supports (all of Focal's), without trying Prism first. `--direct_running_mode`
    and `--direct_num_workers` apply as with the DirectRunner."""

    def run_pipeline(self, pipeline, options):
        encoded = JobServiceHandle.encode_pipeline_options(options.get_all_options())
        provision = fn_runner.ExtendedProvisionInfo(beam_provision_api_pb2.ProvisionInfo(pipeline_options=encoded))
        return fn_runner.FnApiRunner(provision_info=provision).run_pipeline(pipeline, options)


def new_pipeline(options: PipelineOptions) -> beam.Pipeline:
    """A pipeline on the runner the options name, the DirectRunner (the default) meaning LocalRunner,
    without construction-time type inference (above)."""
    options.view_as(TypeOptions).pipeline_type_check = False
    if options.view_as(StandardOptions).runner in DIRECT_RUNNERS:
        return beam.Pipeline(runner=LocalRunner(), options=options)
    return beam.Pipeline(options=options)


def metric_total(result, name: str) -> int:
    """A counter's total over the steps of a finished pipeline."""
    found = result.metrics().query(MetricsFilter().with_name(name))['counters']
    return sum(counter.result for counter in found)

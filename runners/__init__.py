"""The `focal` command line and the crawl driver."""
import logging


def _is_beam_gcp_notice(record: logging.LogRecord) -> bool:
    """Beam's import warns that Google Cloud client libraries are missing; Focal does not use them,
    and the warning would start every command's output."""
    return record.getMessage().startswith('apitools not found')


logging.getLogger().addFilter(lambda record: not _is_beam_gcp_notice(record))

"""The sandbox web: real corpora built into a multi-site WARC, replayed by an HTTP proxy with a
search API on 127.0.0.1, with ground-truth labels the server never serves."""

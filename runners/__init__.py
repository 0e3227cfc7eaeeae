"""The `focal` command line and the crawl driver."""

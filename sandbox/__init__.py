"""The sandbox web built from real corpora; this release reads the labelled corpora it is built from."""

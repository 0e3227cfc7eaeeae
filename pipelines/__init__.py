"""Beam pipeline builders and the crawl directory (Parquet state, atomic round commits)."""

"""Pure-Python models of Focal: text, topics, relevance. Never imports Apache Beam."""

"""Recall's rooms: run (the query and its stages), channels, observations, fusion and the token budget."""

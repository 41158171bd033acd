"""Reflect: answering only from memory (run) and the standing questions it keeps current (mental_models)."""

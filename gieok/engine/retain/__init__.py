"""Retain's rooms: plan (before the lock), redact and doubt (what comes in), resolve (entities), link,
supersede (versions), and run (the pipeline and its one write transaction)."""

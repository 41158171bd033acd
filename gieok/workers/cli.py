"""``gieok worker``: run the job queue in this process until SIGTERM or SIGINT.

Registered from :data:`gieok.cli.COMMAND_MODULES`; it takes its helpers from :mod:`gieok.cli._common`.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from types import FrameType

import click

from gieok.cli._common import open_memory

__all__ = ["register"]

log = logging.getLogger("gieok.worker")


def register(cli: click.Group) -> None:
    """Add worker to ``cli``."""
    cli.add_command(worker)


@click.command()
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 64),
              help="jobs run at once in this process (threads; each embeds with GIEOK_THREADS cores)")
@click.option("--banks", default=None, metavar="PATTERN",
              help="only banks matching these comma-separated shell patterns, e.g. 'team-*,alice'")
@click.option("--poll", "poll_seconds", default=1.0, show_default=True, type=float,
              help="seconds between looks at an empty queue")
@click.option("--grace", default=30.0, show_default=True, type=float,
              help="at SIGTERM, seconds to let running jobs finish before releasing them")
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
@click.pass_context
def worker(ctx: click.Context, concurrency: int, banks: str | None, poll_seconds: float, grace: float,
           log_level: str) -> None:
    """Run queued jobs (async retains, consolidation, decay, purge, mental models, re-embeds) until SIGTERM/SIGINT.

    Any number of workers and `gieok serve --no-worker` processes may share one PostgreSQL database.
    At SIGTERM or SIGINT the worker stops claiming, lets running jobs finish for --grace seconds and
    releases the rest (queued again at once); a second signal releases them at once."""
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from gieok.workers.pool import WorkerPool  # the engine, imported when a worker starts, not for --help

    memory = open_memory(ctx)
    pool = WorkerPool(memory, concurrency=concurrency, banks=banks, poll_seconds=poll_seconds, grace=grace,
                      on_job=lambda r: log.info("job %s %s (%s): %s %s", r.id, r.kind, r.bank, r.status,
                                                r.error or ""))
    signals = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        if signals.is_set():
            pool.hurry()
        signals.set()
        pool.request_stop()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        # load the models before the first claim: seconds of loading inside a claimed job would
        # hold the GIL past the heartbeat, and another worker would take the job over
        memory.warm_up()
        pool.start()
        click.echo(f"gieok worker on {memory.path}: {concurrency} at once"
                   + (f", banks {banks}" if banks else "") + " (SIGTERM or Ctrl-C stops)", err=True)
        while not signals.wait(0.5):
            pass
        released = pool.stop(grace=grace)
        click.echo(f"gieok worker stopped: {pool.jobs_run} jobs run"
                   + (f", released {', '.join(f'op-{i}' for i in released)}" if released else ""), err=True)
        if pool.alive():
            # a thread is still inside a released job (its late commit would be refused): end the
            # process now rather than tear the interpreter down under it (native libraries abort)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)

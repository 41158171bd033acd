"""Versions and forgetting: history, forget (with proof), verify-erased, the background jobs, and
moving a bank to another embedder (reembed)."""

from __future__ import annotations

import sys
from dataclasses import asdict

import click

from gieok.cli._common import echo_json, open_memory

__all__ = ["register"]


def register(cli: click.Group) -> None:
    """Add history, forget, verify-erased, jobs, maintain and reembed to ``cli``."""
    for command in (history, forget, verify_erased, jobs, maintain, reembed):
        cli.add_command(command)


@click.command()
@click.argument("bank")
@click.argument("memory_id")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def history(ctx: click.Context, bank: str, memory_id: str, as_json: bool) -> None:
    """Every version of the statement MEMORY_ID belongs to, oldest first."""
    versions = open_memory(ctx).history(bank, memory_id)
    if as_json:
        echo_json([v.to_dict() for v in versions])
        return
    for v in versions:
        start = v.valid_from.isoformat() if v.valid_from else "?"
        end = v.valid_to.isoformat() if v.valid_to else "now"
        span = f"{start} → {end}"
        click.echo(f"{v.id}  [{span}]  {v.text}" + (f"   (replaced by {v.superseded_by})" if v.superseded_by else ""))


@click.command()
@click.argument("bank")
@click.option("--source", "source_id", default=None,
              help="a document id, conversation id or message id given on retain")
@click.option("--memory", "memory_id", default=None, help="a memory id (f-12, o-3)")
@click.option("--entity", default=None, help="a person, place or thing: every fact naming it")
@click.option("--before", default=None, help="everything said before this time (ISO 8601)")
@click.option("--user", "user_id", default=None, help="every source retained for this user")
@click.option("--verify", is_flag=True, help="prove it: scan tables, indexes and (after VACUUM) the file")
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
@click.pass_context
def forget(ctx: click.Context, bank: str, source_id: str | None, memory_id: str | None, entity: str | None,
           before: str | None, user_id: str | None, verify: bool, yes: bool, as_json: bool) -> None:
    """Erase memories of BANK for real (hard delete with cascade), optionally with proof."""
    if not yes:
        what = ", ".join(f"{k} {v}" for k, v in (("source", source_id), ("memory", memory_id), ("entity", entity),
                                                   ("before", before), ("user", user_id)) if v)
        click.confirm(f"erase {what or 'nothing'} from {bank!r}? this cannot be undone", abort=True)
    result = open_memory(ctx).forget(bank, source_id=source_id, memory_id=memory_id, entity=entity, before=before,
                                     verify=verify, user_id=user_id)
    if as_json:
        echo_json(result.to_dict())
        return
    counts = ", ".join(f"{n} {k}" for k, n in result.erased.items() if n)
    click.echo(f"erased from {bank}: {counts or 'nothing'}")
    if result.proof is not None:
        click.echo("proof: clean (" + ", ".join(result.proof.checked) + ")" if result.proof.clean
                   else f"proof: NOT clean, still found in {result.proof.found}")


@click.command("verify-erased")
@click.argument("texts", nargs=-1, required=True)
@click.option("--shallow", is_flag=True, help="scan tables and indexes only, skip VACUUM and the file scan")
@click.option("--json", "as_json", is_flag=True, help="print the proof as JSON")
@click.pass_context
def verify_erased(ctx: click.Context, texts: tuple[str, ...], shallow: bool, as_json: bool) -> None:
    """Prove TEXTS appear nowhere in the database (exit 1 if they do)."""
    proof = open_memory(ctx).verify_erased(list(texts), deep=not shallow)
    if as_json:
        echo_json(proof.to_dict())
    else:
        click.echo("clean: " + ", ".join(proof.checked) if proof.clean else f"NOT clean: {proof.found}")
    if not proof.clean:
        ctx.exit(1)


@click.command()
@click.argument("bank", required=False)
@click.option("--status", type=click.Choice(["queued", "running", "done", "failed", "cancelled"]), default=None)
@click.option("--run", "run_now", is_flag=True, help="run the queued jobs now")
@click.option("--cancel", "cancel_id", default=None, metavar="OP",
              help="cancel a queued or running job (op-12 or 12)")
@click.option("--retry", "retry_id", default=None, metavar="OP",
              help="queue a failed or cancelled job again (op-12 or 12)")
@click.option("--limit", default=100, show_default=True, type=int, help="list at most this many jobs")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def jobs(ctx: click.Context, bank: str | None, status: str | None, run_now: bool, cancel_id: str | None,
         retry_id: str | None, limit: int, as_json: bool) -> None:
    """Show the background job queue (retain, consolidation, decay, purge, mental models, reembed), run it
    with --run, or --cancel / --retry one job. `gieok worker` runs it in the background."""
    mem = open_memory(ctx)
    if cancel_id or retry_id:
        op = mem.jobs.cancel(cancel_id) if cancel_id else mem.jobs.retry(retry_id or "")
        if as_json:
            echo_json(asdict(op))
        else:
            click.echo(f"{op.id} {op.kind} ({op.bank}): {op.status}")
        return
    if run_now:
        reports = mem.jobs.run(bank)
        if as_json:
            echo_json([r.to_dict() for r in reports])
        else:
            for r in reports:
                outcome = r.result or r.error or ""
                click.echo(f"job {r.id} {r.kind} ({r.bank}): {r.status} {outcome}")
            click.echo(f"{len(reports)} jobs run")
        return
    rows = mem.jobs.list(bank, status=status, limit=limit)
    if as_json:
        echo_json([j.to_dict() for j in rows])
        return
    if not rows:
        click.echo("no jobs")
    for j in rows:
        error = f"  last error: {j.last_error}" if j.last_error else ""
        done = "  " + ", ".join(f"{k} {v}" for k, v in j.result.items()) if j.result else ""
        click.echo(f"{j.operation_id:>7}  {j.bank}  {j.kind:<14} {j.status:<9} attempts {j.attempts}"
                   f"  facts {j.facts}{done}  updated {j.updated_at}{error}")


@click.command()
@click.argument("bank", required=False)
@click.option("--now", default=None, help="pretend it is this time (ISO 8601)")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def maintain(ctx: click.Context, bank: str | None, now: str | None, as_json: bool) -> None:
    """Decay, TTL purge and every other pending job, for BANK or all banks (run it from cron)."""
    reports = open_memory(ctx).jobs.maintain(bank, now=now)
    if as_json:
        echo_json([r.to_dict() for r in reports])
    else:
        for r in reports:
            click.echo(f"{r.kind} ({r.bank}): {r.status} {r.result or r.error or ''}")


@click.command()
@click.argument("bank")
@click.option("--embedder", "target", required=True, metavar="ID",
              help="the embedder to move BANK to (a registered one, e.g. e5-small, use-multilingual)")
@click.option("--wait", is_flag=True, help="run the job here, with a progress bar, instead of queueing it")
@click.option("--json", "as_json", is_flag=True, help="print the operation as JSON")
@click.pass_context
def reembed(ctx: click.Context, bank: str, target: str, wait: bool, as_json: bool) -> None:
    """Move BANK to another embedder: re-embed every vector it owns in the background (`gieok worker`,
    `gieok jobs --run`), or here with --wait. BANK keeps serving recall with its old embedder until the
    job swaps the new vectors in; afterwards open it with --embedder ID."""
    from rich.progress import Progress

    mem = open_memory(ctx)
    with Progress(transient=True, disable=as_json or not wait or not sys.stderr.isatty()) as bar:
        task = bar.add_task(f"re-embedding {bank}", total=None)
        op = mem.reembed(bank, target, wait=wait,
                         progress=lambda done, total: bar.update(task, completed=done, total=total))
    if as_json:
        echo_json(asdict(op))
    elif op.status == "done" and op.report:
        r = op.report
        click.echo(f"{op.id} reembed ({op.bank}): done, {r.get('facts', 0)} facts, {r.get('context_vectors', 0)} "
                   f"context vectors, {r.get('observations', 0)} observations now {r['embedder']} ({r['dim']}-d) "
                   f"in {r.get('seconds', 0)} s; open the bank with --embedder {r['embedder']}")
    else:
        error = f"; last error: {op.error}" if op.error else ""
        click.echo(f"{op.id} reembed ({op.bank}) to {target}: {op.status}{error}"
                   + ("" if wait else " (run it with `gieok worker` or `gieok jobs --run`)"))
    if wait and op.status != "done":
        sys.exit(2)

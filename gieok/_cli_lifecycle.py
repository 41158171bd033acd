"""CLI commands beyond retain and recall: history, forget, verify-erased, jobs, maintain, reflect,
mental models, observations and the per-bank LLM."""

from __future__ import annotations

import click

from gieok.cli import _echo_json, _handle_errors, _open, cli

__all__: list[str] = []


@cli.command()
@click.argument("bank")
@click.argument("memory_id")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
@_handle_errors
def history(ctx: click.Context, bank: str, memory_id: str, as_json: bool) -> None:
    """Every version of the statement MEMORY_ID belongs to, oldest first."""
    versions = _open(ctx).history(bank, memory_id)
    if as_json:
        _echo_json([v.to_dict() for v in versions])
        return
    for v in versions:
        span = f"{v.valid_from.isoformat() if v.valid_from else '?'} → {v.valid_to.isoformat() if v.valid_to else 'now'}"
        click.echo(f"{v.id}  [{span}]  {v.text}" + (f"   (replaced by {v.superseded_by})" if v.superseded_by else ""))


@cli.command()
@click.argument("bank")
@click.option("--source", "source_id", default=None, help="a document id, conversation id or message id given on retain")
@click.option("--memory", "memory_id", default=None, help="a memory id (f-12, o-3)")
@click.option("--entity", default=None, help="a person, place or thing: every fact naming it")
@click.option("--before", default=None, help="everything said before this time (ISO 8601)")
@click.option("--verify", is_flag=True, help="prove it: scan tables, indexes and (after VACUUM) the file")
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
@click.pass_context
@_handle_errors
def forget(ctx: click.Context, bank: str, source_id: str | None, memory_id: str | None, entity: str | None,
           before: str | None, verify: bool, yes: bool, as_json: bool) -> None:
    """Erase memories of BANK for real (hard delete with cascade), optionally with proof."""
    if not yes:
        what = ", ".join(f"{k} {v}" for k, v in (("source", source_id), ("memory", memory_id), ("entity", entity),
                                                   ("before", before)) if v)
        click.confirm(f"erase {what or 'nothing'} from {bank!r}? this cannot be undone", abort=True)
    result = _open(ctx).forget(bank, source_id=source_id, memory_id=memory_id, entity=entity, before=before,
                               verify=verify)
    if as_json:
        _echo_json(result.to_dict())
        return
    counts = ", ".join(f"{n} {k}" for k, n in result.erased.items() if n)
    click.echo(f"erased from {bank}: {counts or 'nothing'}")
    if result.proof is not None:
        click.echo("proof: clean (" + ", ".join(result.proof.checked) + ")" if result.proof.clean
                   else f"proof: NOT clean, still found in {result.proof.found}")


@cli.command("verify-erased")
@click.argument("texts", nargs=-1, required=True)
@click.option("--shallow", is_flag=True, help="scan tables and indexes only, skip VACUUM and the file scan")
@click.option("--json", "as_json", is_flag=True, help="print the proof as JSON")
@click.pass_context
@_handle_errors
def verify_erased(ctx: click.Context, texts: tuple[str, ...], shallow: bool, as_json: bool) -> None:
    """Prove TEXTS appear nowhere in the database (exit 1 if they do)."""
    proof = _open(ctx).verify_erased(list(texts), deep=not shallow)
    if as_json:
        _echo_json(proof.to_dict())
    else:
        click.echo("clean: " + ", ".join(proof.checked) if proof.clean else f"NOT clean: {proof.found}")
    if not proof.clean:
        ctx.exit(1)


@cli.command()
@click.argument("bank", required=False)
@click.option("--status", type=click.Choice(["queued", "running", "done", "failed"]), default=None)
@click.option("--run", "run_now", is_flag=True, help="run the queued jobs now")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
@_handle_errors
def jobs(ctx: click.Context, bank: str | None, status: str | None, run_now: bool, as_json: bool) -> None:
    """Show the background job queue (consolidation, decay, purge), or run it with --run."""
    mem = _open(ctx)
    if run_now:
        reports = mem.run_jobs(bank=bank)
        if as_json:
            _echo_json(reports)
        else:
            for r in reports:
                click.echo(f"job {r['id']} {r['kind']} ({r['bank']}): {r['status']} {r.get('result') or r.get('error', '')}")
            click.echo(f"{len(reports)} jobs run")
        return
    rows = mem.jobs(bank, status=status)
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        click.echo("no jobs")
    for j in rows:
        error = f"  last error: {j['last_error']}" if j["last_error"] else ""
        click.echo(f"{j['id']:>5}  {j['bank']}  {j['kind']:<14} {j['status']:<8} attempts {j['attempts']}"
                   f"  facts {j['facts']}  updated {j['updated_at']}{error}")


@cli.command()
@click.argument("bank", required=False)
@click.option("--now", default=None, help="pretend it is this time (ISO 8601)")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
@_handle_errors
def maintain(ctx: click.Context, bank: str | None, now: str | None, as_json: bool) -> None:
    """Decay, TTL purge and every other pending job, for BANK or all banks (run it from cron)."""
    reports = _open(ctx).maintain(bank, now=now)
    if as_json:
        _echo_json(reports)
    else:
        for r in reports:
            click.echo(f"{r['kind']} ({r['bank']}): {r['status']} {r.get('result') or r.get('error', '')}")


@cli.command()
@click.argument("bank")
@click.argument("question")
@click.option("--now", default=None, help="reference time for the question (ISO 8601); default: now")
@click.option("--json", "as_json", is_flag=True, help="print the answer, its evidence and the steps as JSON")
@click.pass_context
@_handle_errors
def reflect(ctx: click.Context, bank: str, question: str, now: str | None, as_json: bool) -> None:
    """Answer QUESTION only from BANK's memories, with verified quotes, or say it is not in memory."""
    result = _open(ctx).reflect(bank, question, now=now)
    if as_json:
        _echo_json(result.to_dict())
        return
    click.echo(result.answer)
    for item in result.based_on:
        click.echo(f"  [{item['id']}] {item['text']}" if item["text"] else f"  [{item['id']}]")
    if result.dropped_quotes:
        click.echo(f"  (dropped {len(result.dropped_quotes)} unverified quote(s))")


@cli.group()
def models() -> None:
    """Mental models: standing questions whose answers are kept current in the background."""


@models.command("add")
@click.argument("bank")
@click.argument("name")
@click.argument("question")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
@_handle_errors
def models_add(ctx: click.Context, bank: str, name: str, question: str, as_json: bool) -> None:
    """Add (or replace) mental model NAME asking QUESTION, and answer it now."""
    model = _open(ctx).add_mental_model(bank, name, question)
    _echo_json(model) if as_json else click.echo(f"{model['name']}: {model['answer']}")


@models.command("list")
@click.argument("bank")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
@_handle_errors
def models_list(ctx: click.Context, bank: str, as_json: bool) -> None:
    """List BANK's mental models with their current answers."""
    rows = _open(ctx).mental_models(bank)
    if as_json:
        _echo_json(rows)
        return
    for m in rows:
        click.echo(f"{m['name']}  ({m['question']})  refreshed {m['refreshed_at'] or 'never'}\n  {m['answer']}")


@models.command("delete")
@click.argument("bank")
@click.argument("name")
@click.pass_context
@_handle_errors
def models_delete(ctx: click.Context, bank: str, name: str) -> None:
    """Delete mental model NAME of BANK."""
    _open(ctx).delete_mental_model(bank, name)
    click.echo(f"deleted mental model {name}")


@cli.command()
@click.argument("bank")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
@_handle_errors
def observations(ctx: click.Context, bank: str, as_json: bool) -> None:
    """BANK's consolidated observations and the memories supporting each."""
    rows = _open(ctx).observations(bank)
    if as_json:
        _echo_json([o.to_dict() for o in rows])
        return
    for o in rows:
        click.echo(f"{o.id}  {o.text}\n  based on {', '.join(o.based_on)}")


@cli.command()
@click.argument("bank")
@click.option("--provider", type=click.Choice(["openai", "anthropic"]), default=None, help="LLM provider for BANK")
@click.option("--model", default=None, help="model name")
@click.option("--base-url", default=None, help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp, LM Studio)")
@click.option("--api-key-env", default=None, help="environment variable holding the key (never stored)")
@click.option("--spend-limit", type=float, default=None, help="ceiling on estimated USD spend for BANK (0 = none)")
@click.option("--offline/--online", "offline", default=None, help="keep BANK offline even if an LLM is configured")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
@_handle_errors
def llm(ctx: click.Context, bank: str, provider: str | None, model: str | None, base_url: str | None,
        api_key_env: str | None, spend_limit: float | None, offline: bool | None, as_json: bool) -> None:
    """Configure BANK's LLM (any option given) and show its usage: calls, tokens, estimated cost."""
    mem = _open(ctx)
    if any(v is not None for v in (provider, model, base_url, api_key_env, spend_limit, offline)):
        mem.configure_llm(bank, provider=provider, model=model, base_url=base_url, api_key_env=api_key_env,
                          spend_limit_usd=spend_limit, enabled=None if offline is None else not offline)
    usage = mem.llm_usage(bank)
    if as_json:
        _echo_json(usage)
        return
    limit = f"${usage['spend_limit_usd']:.4f}" if usage["spend_limit_usd"] else "none"
    click.echo(f"{bank}: spent ${usage['spent_usd']:.4f} (ceiling {limit})")
    for r in usage["rows"]:
        click.echo(f"  {r['day']}  {r['operation']:<12} {r['provider']}/{r['model']}  {r['calls']} calls  "
                   f"{r['input_tokens']} in / {r['output_tokens']} out  ${r['cost_usd']:.4f}")

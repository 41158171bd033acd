"""A bank's LLM: configure its provider, model and spending ceiling, and show what it has cost."""

from __future__ import annotations

import click

from gieok.cli._common import echo_json, open_memory

__all__ = ["register"]


def register(cli: click.Group) -> None:
    """Add llm to ``cli``."""
    cli.add_command(llm)


@click.command()
@click.argument("bank")
@click.option("--provider", type=click.Choice(["openai", "anthropic"]), default=None, help="LLM provider for BANK")
@click.option("--model", default=None, help="model name")
@click.option("--base-url", default=None, help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp, LM Studio)")
@click.option("--api-key-env", default=None, help="environment variable holding the key (never stored)")
@click.option("--spend-limit", type=float, default=None, help="ceiling on estimated USD spend for BANK (0 = none)")
@click.option("--offline/--online", "offline", default=None, help="keep BANK offline even if an LLM is configured")
@click.option("--decisions", default=None,
              help="decision model for BANK's judgments: learned (offline, default), llm (BANK's LLM), a plugin; "
                   "'default' returns to the setting decision_model")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def llm(ctx: click.Context, bank: str, provider: str | None, model: str | None, base_url: str | None,
        api_key_env: str | None, spend_limit: float | None, offline: bool | None, decisions: str | None,
        as_json: bool) -> None:
    """Configure BANK's LLM (any option given) and show its usage: calls, tokens, estimated cost."""
    mem = open_memory(ctx)
    if decisions is not None:
        chosen = mem.configure_decisions(bank, None if decisions == "default" else decisions)
        if not as_json:
            click.echo(f"{bank}: decisions by {chosen}")
    if any(v is not None for v in (provider, model, base_url, api_key_env, spend_limit, offline)):
        mem.configure_llm(bank, provider=provider, model=model, base_url=base_url, api_key_env=api_key_env,
                          spend_limit_usd=spend_limit, enabled=None if offline is None else not offline)
    usage = mem.llm_usage(bank)
    if as_json:
        echo_json(usage.to_dict())
        return
    limit = f"${usage.spend_limit_usd:.4f}" if usage.spend_limit_usd else "none"
    using = "offline (no LLM)" if usage.offline else f"{usage.provider} / {usage.model}"
    click.echo(f"{bank}: {using}; spent ${usage.spent_usd:.4f} (ceiling {limit})")
    for r in usage.rows:
        click.echo(f"  {r.day}  {r.operation:<12} {r.provider}/{r.model}  {r.calls} calls  "
                   f"{r.input_tokens} in / {r.output_tokens} out  ${r.cost_usd:.4f}")

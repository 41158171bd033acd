"""``gieok profile`` and ``gieok lookup``: the profile slots people stated (thin over Memory)."""

from __future__ import annotations

import click

from gieok.cli._common import echo_json, open_memory
from gieok.records import Slot

__all__ = ["register"]


def register(cli: click.Group) -> None:
    """Add profile and lookup to ``cli``."""
    for command in (profile, lookup):
        cli.add_command(command)


def _line(slot: Slot) -> str:
    whose = "" if slot.holder == "self" else f"{slot.holder}: "
    values = ", ".join(slot.values) if slot.values else "(none now)"
    earlier = [s.value for s in slot.previous()]
    before = f"  (before: {', '.join(earlier)})" if earlier else ""
    return f"{whose}{slot.slot}\t{values}\t[{', '.join(slot.memory_ids)}]{before}"


@click.command()
@click.argument("bank")
@click.option("--person", default=None, help="only this person's profile (a speaker's name)")
@click.option("--user", "user_id", default=None, help="only from this user's memories")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def profile(ctx: click.Context, bank: str, person: str | None, user_id: str | None, as_json: bool) -> None:
    """Show what people in BANK stated about themselves and their family: name, birthday, allergies,
    job, city, family, preferences … with the memory ids that say so and the earlier values."""
    found = open_memory(ctx).profile(bank, person, user_id=user_id)
    if as_json:
        echo_json([p.to_dict() for p in found])
        return
    if not found:
        click.echo(f"{bank} holds no profile facts yet")
    for p in found:
        click.echo(p.person)
        for slot in p.slots:
            click.echo(f"  {_line(slot)}")


@click.command()
@click.argument("bank")
@click.argument("slot")
@click.option("--entity", default=None, help="whose: a person's name, a relative (sister, 엄마) or a relative's name")
@click.option("--user", "user_id", default=None, help="only from this user's memories")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def lookup(ctx: click.Context, bank: str, slot: str, entity: str | None, user_id: str | None, as_json: bool) -> None:
    """Look up one profile SLOT (birthday, allergy, job, city, …) of BANK's main person or of --entity."""
    found = open_memory(ctx).lookup(bank, slot, entity, user_id=user_id)
    if as_json:
        echo_json(found.to_dict() if found is not None else None)
        return
    click.echo(_line(found) if found is not None else f"{slot}: never stated")

"""``gieok import FORMAT BANK FILE``: a KakaoTalk, ChatGPT or JSONL chat export into a bank
(Memory.import_chat). A line it cannot read stops the import before anything is stored, and the
error names the lines; ``--skip-bad`` imports the rest and lists them."""

from __future__ import annotations

import sys

import click

from gieok.cli._common import echo_json, open_memory

__all__ = ["register"]


class _Formats(click.Choice[str]):
    """``click.Choice`` over Memory.import_chat's formats (:data:`gieok.memory.CHAT_FORMATS`), read when
    the argument is checked or shown: registering the command (``gieok --help``) does not import the
    library behind it."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        from gieok.memory import CHAT_FORMATS

        return tuple(sorted(CHAT_FORMATS))

    @choices.setter
    def choices(self, value: object) -> None:  # click.Choice.__init__ sets it; the formats are fixed
        pass


def register(cli: click.Group) -> None:
    """Add ``import`` to ``cli``."""
    cli.add_command(import_chat)


@click.command("import")
@click.argument("format", type=_Formats())
@click.argument("bank")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--skip-bad", is_flag=True, help="import what can be read and list the lines that cannot")
@click.option("--timezone", default="Asia/Seoul", show_default=True,
              help="time zone of a KakaoTalk export's times (they carry none)")
@click.option("--user", "user_id", default=None, help="whose chats: every conversation is that user's memory")
@click.option("--agent", "agent_id", default=None, help="the agent the conversations belong to")
@click.option("--tag", "tags", multiple=True, help="a tag of every conversation (repeat for more)")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
@click.pass_context
def import_chat(ctx: click.Context, format: str, bank: str, file: str, skip_bad: bool, timezone: str,
                user_id: str | None, agent_id: str | None, tags: tuple[str, ...], as_json: bool) -> None:
    """Import a chat export into BANK, keeping speakers and times: FORMAT is kakaotalk (the app's
    exported .txt), chatgpt (conversations.json of ChatGPT's data export) or jsonl (OpenAI messages).

    Importing the same or a longer export again adds only the new messages."""
    mem = open_memory(ctx)
    from rich.progress import Progress

    with Progress(transient=True, disable=as_json or not sys.stderr.isatty()) as progress:
        task = progress.add_task("importing conversations", total=None)
        result = mem.import_chat(bank, file, format, skip_bad=skip_bad, timezone=timezone, user_id=user_id,
                                 agent_id=agent_id, tags=list(tags) or None,
                                 progress=lambda done, total: progress.update(task, completed=done, total=total))
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(f"imported {result.name} into {result.bank}: {result.conversations} conversation(s), "
               f"{result.messages} messages, {result.facts_added} facts added, {result.skipped} lines skipped")
    for line in result.bad_lines:
        click.echo(f"  not imported: {line}", err=True)

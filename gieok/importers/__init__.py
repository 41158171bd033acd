"""Importers: chat exports people already have, read into conversations :meth:`gieok.Memory.retain`
takes — KakaoTalk's exported .txt (Korean and English layouts), ChatGPT's ``conversations.json``
and OpenAI-format messages as JSONL. Speakers and times are kept; message ids are stable, so
importing the same (or a longer) export again adds only what is new. Parsing only: nothing here
touches a store (the engine's :func:`gieok.engine.sources.chats.import_chat` retains what these read)."""

from __future__ import annotations

from collections.abc import Callable

from gieok.importers._kakaotalk import parse_kakaotalk
from gieok.importers._openai import parse_chatgpt, parse_jsonl
from gieok.importers._types import BadLine, Conversation, Parsed

__all__ = ["FORMATS", "BadLine", "Conversation", "Parsed", "parse_export"]

FORMATS: dict[str, str] = {
    "kakaotalk": "KakaoTalk's exported chat (.txt): PC and phone layouts, Korean and English",
    "chatgpt": "ChatGPT's data export, conversations.json (the branch last shown of each conversation)",
    "jsonl": "OpenAI-format messages, one JSON object a line ({role, content} or {messages: [...]})",
}


def parse_export(text: str, format: str, name: str, *, timezone: str = "Asia/Seoul") -> Parsed:
    """Read ``text`` (the file's contents) as ``format``; ``name`` (the file's) names its conversation.
    ``timezone`` is the zone of a KakaoTalk export's times (the others carry their own)."""
    readers: dict[str, Callable[[], Parsed]] = {
        "kakaotalk": lambda: parse_kakaotalk(text, name, timezone=timezone),
        "chatgpt": lambda: parse_chatgpt(text, name),
        "jsonl": lambda: parse_jsonl(text, name),
    }
    if format not in readers:
        raise ValueError(f"unknown import format {format!r}")
    return readers[format]()

"""Templates and the filters they use. Jinja2 autoescapes every value; the few filters that return
markup (:func:`marked`, :func:`quoted`) escape the text first and add only their own tags."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from gieok import __version__
from gieok.server.ui import _svg
from gieok.server.ui._i18n import LANGUAGES, pick_language, translator
from gieok.server.ui._session import LANG_COOKIE, Sessions

__all__ = ["Renderer", "marked", "quoted", "when", "segment"]

HERE = Path(__file__).parent
_REDACTED = re.compile(r"\[REDACTED:([a-z0-9_]+)\]")

# the pages load their script and style from this app and nothing else; inline SVG needs no source
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def _marks(escaped: str) -> str:
    return _REDACTED.sub(lambda m: f'<mark class="redacted" title="{m.group(1)}">[REDACTED:{m.group(1)}]</mark>',
                         escaped)


def marked(text: object) -> Markup:
    """``text`` escaped, with every ``[REDACTED:type]`` shown as a redaction mark."""
    return Markup(_marks(str(escape(str(text or "")))))


def quoted(text: object, quotes: Sequence[str]) -> Markup:
    """``text`` escaped and marked, with every occurrence of the ``quotes`` highlighted."""
    raw = str(text or "")
    spans: list[tuple[int, int]] = []
    for q in sorted({q for q in quotes if q}, key=len, reverse=True):
        start = raw.find(q)
        while start >= 0:
            end = start + len(q)
            if not any(a < end and start < b for a, b in spans):
                spans.append((start, end))
            start = raw.find(q, end)
    out, at = [], 0
    for a, b in sorted(spans):
        out.append(_marks(str(escape(raw[at:a]))))
        out.append(f'<mark class="quote">{_marks(str(escape(raw[a:b])))}</mark>')
        at = b
    out.append(_marks(str(escape(raw[at:]))))
    return Markup("".join(out))


def when(value: object) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return str(value)
    if isinstance(value, datetime):
        text = value.strftime("%Y-%m-%d %H:%M")
        offset = value.strftime("%z")
        return f"{text} {offset[:3]}:{offset[3:]}" if offset else text
    return str(value)


def segment(value: object) -> str:
    """One URL path segment: everything escaped, slashes included."""
    return quote(str(value), safe="")


def size(n: int | None) -> str:
    if n is None:
        return "—"
    units = ["B", "KB", "MB", "GB", "TB"]
    x, i = float(n), 0
    while x >= 1024 and i < len(units) - 1:
        x, i = x / 1024, i + 1
    return f"{x:.0f} {units[i]}" if i == 0 else f"{x:.1f} {units[i]}"


class Renderer:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self.env = Environment(loader=FileSystemLoader(str(HERE / "templates")), undefined=StrictUndefined,
                               autoescape=select_autoescape(default=True, default_for_string=True),
                               trim_blocks=True, lstrip_blocks=True)
        self.env.filters.update(marked=marked, quoted=quoted, when=when, seg=segment, size=size)
        self.env.globals.update(svg=_svg, version=__version__, colours=_svg.CLASS_COLOURS)

    def language(self, request: Request) -> str:
        return pick_language(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE),
                             request.headers.get("accept-language"))

    def render(self, request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        started = request.scope.get("gieok_ui_started", time.perf_counter())
        lang = self.language(request)
        sid, new = self.sessions.session_id(request)
        switch = {code: str(request.url.include_query_params(lang=code)) for code in LANGUAGES}
        body = self.env.get_template(template).render(
            t=translator(lang), lang=lang, csrf=self.sessions.csrf_token(sid), switch=switch,
            path=request.url.path, **{"who": None, "keys_on": False, "bank": None, "section": None, **context})
        elapsed = (time.perf_counter() - started) * 1000
        response = HTMLResponse(body.replace("__RENDER_MS__", f"{elapsed:.0f}"), status_code=status,
                                headers={**SECURITY_HEADERS, "Server-Timing": f"page;dur={elapsed:.1f}"})
        if new:
            self.sessions.set_session(response, request, sid)
        if request.query_params.get("lang") in LANGUAGES:
            response.set_cookie(LANG_COOKIE, request.query_params["lang"], samesite="lax", path="/ui",
                                max_age=365 * 86400)
        return response

"""Charts drawn on the server as inline SVG: no script, no external file, every label escaped.

* :func:`timeline` — facts per week as stacked bars, one colour per decay class.
* :func:`neighbourhood` — an entity in the middle, its co-mentioned entities on a circle, edge width
  by the number of facts they share.
* :func:`bar` — one horizontal bar (a score, a strength), for tables.
* :func:`budget` — the token budget: one segment per recalled memory, and what is left.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from markupsafe import Markup, escape

from gieok.records import EntityEdge, Neighbour, WeekCounts

__all__ = ["CLASS_COLOURS", "timeline", "neighbourhood", "bar", "budget"]

CLASS_COLOURS = {"pinned": "#7b4fd6", "stable": "#2f7ed8", "transient": "#f0a030"}
_OTHER = "#888888"


def _f(x: float) -> str:
    return f"{x:.1f}"


def timeline(weeks: Sequence[WeekCounts], label: Callable[[str], str], *, width: int = 760,
             height: int = 180) -> Markup:
    if not weeks:
        return Markup("")
    left, bottom, top = 36, 22, 16
    peak = max(sum(w.classes.values()) for w in weeks) or 1
    step = (width - left - 8) / len(weeks)
    scale = (height - bottom - top) / peak
    parts = [f'<svg class="chart timeline" viewBox="0 0 {width} {height + 18}" role="img" '
             f'aria-label="{escape(label("timeline"))}" xmlns="http://www.w3.org/2000/svg">',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 8}" y2="{height - bottom}" stroke="#999"/>',
             f'<text x="{left - 4}" y="{top + 4}" text-anchor="end" class="axis">{peak}</text>',
             f'<text x="{left - 4}" y="{height - bottom}" text-anchor="end" class="axis">0</text>']
    for i, week in enumerate(weeks):
        y = float(height - bottom)
        x = left + i * step
        total = sum(week.classes.values())
        for name in ("pinned", "stable", "transient", *sorted(set(week.classes) - set(CLASS_COLOURS))):
            n = week.classes.get(name, 0)
            if not n:
                continue
            h = n * scale
            y -= h
            parts.append(f'<rect x="{_f(x + 0.5)}" y="{_f(y)}" width="{_f(max(step - 1.0, 0.8))}" height="{_f(h)}" '
                         f'fill="{CLASS_COLOURS.get(name, _OTHER)}"><title>{escape(week.week)} · '
                         f'{escape(label(name + "_class"))}: {n} / {total}</title></rect>')
    parts.append(f'<text x="{left}" y="{height - 6}" class="axis">{escape(weeks[0].week)}</text>')
    if len(weeks) > 1:
        parts.append(f'<text x="{width - 8}" y="{height - 6}" text-anchor="end" class="axis">'
                     f'{escape(weeks[-1].week)}</text>')
    x = float(left)
    for name, colour in CLASS_COLOURS.items():
        parts.append(f'<rect x="{_f(x)}" y="{height + 4}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{_f(x + 14)}" y="{height + 13}" class="axis">{escape(label(name + "_class"))}</text>')
        x += 110
    parts.append("</svg>")
    return Markup("".join(parts))


def neighbourhood(centre: str, neighbours: Sequence[Neighbour], edges: Sequence[EntityEdge],
                  href: Callable[[str], str], *, size: int = 420) -> Markup:
    mid = size / 2
    radius = size / 2 - 70
    where: dict[str, tuple[float, float]] = {centre: (mid, mid)}
    for i, n in enumerate(neighbours):
        angle = 2 * math.pi * i / max(len(neighbours), 1) - math.pi / 2
        where[n.name] = (mid + radius * math.cos(angle), mid + radius * math.sin(angle))
    heaviest = max([n.weight for n in neighbours] + [e.weight for e in edges] + [1])
    parts = [f'<svg class="chart graph" viewBox="0 0 {size} {size}" role="img" aria-label="{escape(centre)}" '
             'xmlns="http://www.w3.org/2000/svg">']
    for e in edges:
        (x1, y1), (x2, y2) = where[e.a], where[e.b]
        parts.append(f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="#bbb" '
                     f'stroke-width="{_f(1 + 3 * e.weight / heaviest)}"><title>{escape(e.a)} – '
                     f'{escape(e.b)}: {e.weight}</title></line>')
    for n in neighbours:
        x, y = where[n.name]
        parts.append(f'<line x1="{_f(mid)}" y1="{_f(mid)}" x2="{_f(x)}" y2="{_f(y)}" stroke="#2f7ed8" '
                     f'stroke-opacity="0.7" stroke-width="{_f(1.5 + 6 * n.weight / heaviest)}">'
                     f'<title>{escape(centre)} – {escape(n.name)}: {n.weight}</title></line>')
    for name, (x, y) in where.items():
        r = 26 if name == centre else 16
        fill = "#7b4fd6" if name == centre else "#e8f0fb"
        label = escape(name if len(name) <= 18 else name[:17] + "…")
        node = (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{r}" fill="{fill}" stroke="#2f7ed8"/>'
                f'<text x="{_f(x)}" y="{_f(y + r + 14)}" text-anchor="middle" class="node">{label}</text>')
        if name != centre:
            node = f'<a href="{escape(href(name))}">{node}</a>'
        parts.append(node)
    parts.append("</svg>")
    return Markup("".join(parts))


def bar(value: float, peak: float, *, width: int = 120, colour: str = "#2f7ed8", title: str = "") -> Markup:
    share = 0.0 if peak <= 0 else max(0.0, min(1.0, value / peak))
    return Markup(f'<svg class="bar" width="{width}" height="10" viewBox="0 0 {width} 10" '
                  f'xmlns="http://www.w3.org/2000/svg"><rect width="{width}" height="10" fill="#eee"/>'
                  f'<rect width="{_f(width * share)}" height="10" fill="{colour}"/>'
                  f'<title>{escape(title)}</title></svg>')


def budget(segments: Sequence[tuple[str, int]], limit: int | None, *, width: int = 760) -> Markup:
    used = sum(t for _, t in segments)
    whole = max(limit or used, used, 1)
    parts = [f'<svg class="chart budget" viewBox="0 0 {width} 24" xmlns="http://www.w3.org/2000/svg">'
             f'<rect width="{width}" height="24" fill="#eee"/>']
    x = 0.0
    for i, (memory_id, tokens) in enumerate(segments):
        w = width * tokens / whole
        colour = ("#2f7ed8", "#5b9be6")[i % 2]
        parts.append(f'<rect x="{_f(x)}" width="{_f(w)}" height="24" fill="{colour}" stroke="#fff">'
                     f'<title>{escape(memory_id)}: {tokens}</title></rect>')
        x += w
    parts.append("</svg>")
    return Markup("".join(parts))

"""The web UI at ``/ui``: see and steer a memory in a browser, on the same server and keys as the API.

An adapter like the HTTP API and the MCP server: every page reads through the public
:class:`gieok.Memory` calls (nothing here touches the store), checks the caller's key against the
bank exactly as the API does (:class:`gieok.records.Principal`), and renders server-side HTML
with Jinja2 (autoescaped) and inline SVG charts. A little vanilla JavaScript (``static/gieok.js``)
only enhances forms; every page works without it. Strings are English and Korean
(:mod:`gieok.server.ui._i18n`); sessions, the key cookie and CSRF are in :mod:`gieok.server.ui._session`.
Errors on UI routes are HTML pages (never a traceback); a missing key leads to the login form.
"""

from __future__ import annotations

from gieok.server.ui._routes import mount_ui

__all__ = ["mount_ui"]

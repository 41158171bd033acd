"""Adapters that serve gieok to agents outside this process: HTTP (FastAPI) and MCP.

They are thin: every route and tool calls the same :class:`gieok.Memory` / engine functions the
library's users call, and reaches storage only through them. Needs the ``server`` extra
(``pip install 'gieok[server]'``).
"""

"""The engine: what each Memory call does, over the store protocol, in rooms by what it serves —
retain/, recall/, reflect/, forget/, jobs/ (background work), sources/ (documents, chat exports),
admin/ (banks, keys, quarantine review, browsing) — and the few modules they share (context,
scopes, slots, speakers, working_memory, llm_calls, and the boundary checks _edge, _validate, _time)."""

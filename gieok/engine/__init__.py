"""The engine: retain, recall (and later reflect, consolidate, forget) over the store protocol."""

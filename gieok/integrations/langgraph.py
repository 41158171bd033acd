"""A LangGraph long-term memory store backed by gieok: ``GieokStore(memory)`` is a ``BaseStore``.

How a LangGraph namespace maps onto gieok:

- ``namespace[0]`` is the **bank**; ``namespace[1]``, when there is one, is the **user_id** scope
  (LangGraph's own examples write ``("memories", user_id)``), so recall for one user never returns
  another's items. Deeper parts (``("memories", "u1", "food")``) only narrow further: they are kept
  with the item and matched by prefix.
- An item is one gieok **source**, ``document_id = "langgraph:" + JSON([*namespace[1:], key])``
  (unique per namespace, so two users' ``"prefs"`` never collide). Its value's text fields (the
  ``index`` fields of the put when given, otherwise every string in it) are the text gieok retains and
  recalls; the whole value, with its namespace and key, rides along as the source's ``metadata``, and
  that is what ``get`` and ``search`` give back (after gieok's redaction, like everything retained).
- ``search`` with a ``query`` is gieok recall (one hit per item, best first, the memory's score as
  the item's); without one it lists the namespace's items, newest first. ``filter`` matches top-level
  value fields by equality (or ``{"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte": x}``).
- ``delete`` (a put of ``None``) is gieok's forget of that source: erased for real, not tombstoned.
- ``list_namespaces`` walks every bank's LangGraph items (a scan: meant for inspection, not hot paths).

Adapter only: every call goes through :class:`gieok.Memory`; ``abatch`` runs ``batch`` in a worker
thread, as :class:`gieok.AsyncMemory` does. TTLs are not supported (``supports_ttl`` is False): use
gieok's own decay and ``ttl=`` on retain for expiring memories.
"""

from __future__ import annotations

import asyncio
import json
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from gieok.errors import BankNotFoundError, SourceNotFoundError
from gieok.memory import Memory
from gieok.records import SourceInfo

__all__ = ["GieokStore"]

_PREFIX = "langgraph:"
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": operator.eq, "$ne": operator.ne, "$gt": operator.gt, "$gte": operator.ge,
    "$lt": operator.lt, "$lte": operator.le}


def _document_id(namespace: tuple[str, ...], key: str) -> str:
    return _PREFIX + json.dumps([*namespace[1:], key], ensure_ascii=False)


def _user(namespace: tuple[str, ...]) -> str | None:
    return namespace[1] if len(namespace) > 1 else None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _text_of(value: Mapping[str, Any], fields: list[str] | None) -> str:
    chosen = [value.get(f) for f in fields] if fields else [value]
    text = "\n".join(s for part in chosen for s in _strings(part) if s.strip())
    # a value with no text at all (numbers, flags) is still an item: its JSON is what gets retained
    return text or json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _matches(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    for field, condition in (wanted or {}).items():
        have = value.get(field)
        tests = condition.items() if isinstance(condition, Mapping) else [("$eq", condition)]
        try:
            if not all(_COMPARE[op](have, want) for op, want in tests):
                return False
        except (KeyError, TypeError):  # an unknown operator or incomparable types: no match
            return False
    return True


class GieokStore(BaseStore):
    """LangGraph's ``BaseStore`` over a :class:`gieok.Memory` (see the module docstring for the mapping)."""

    __slots__ = ("memory",)

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise TypeError(f"GieokStore cannot run {type(op).__name__}: it runs GetOp, PutOp, SearchOp and "
                        "ListNamespacesOp")

    # -- one item ------------------------------------------------------------------------------
    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        if not namespace:
            raise InvalidNamespaceError("a namespace needs at least one part, the gieok bank: ('memories', user_id)")
        try:
            source = self.memory.source(namespace[0], _document_id(namespace, key))
        except (BankNotFoundError, SourceNotFoundError):
            return None
        return self._item(source)

    def _put(self, op: PutOp) -> None:
        if not op.namespace:
            raise InvalidNamespaceError("a namespace needs at least one part, the gieok bank: ('memories', user_id)")
        bank, document_id = op.namespace[0], _document_id(op.namespace, op.key)
        if op.value is None:
            try:
                self.memory.forget(bank, source_id=document_id)
            except (BankNotFoundError, SourceNotFoundError):
                pass  # deleting what is not there is a no-op, as in LangGraph's own stores
            return
        value = dict(op.value)
        fields = op.index if isinstance(op.index, list) else None
        self.memory.retain(bank, text=_text_of(value, fields), document_id=document_id, user_id=_user(op.namespace),
                           metadata={"langgraph": {"namespace": list(op.namespace), "key": op.key, "value": value}})

    @staticmethod
    def _item(source: SourceInfo, score: float | None = None, *, search: bool = False) -> Item | None:
        stored = source.metadata.get("langgraph")
        if not isinstance(stored, Mapping):
            return None  # a source gieok holds that LangGraph did not put there
        namespace, key, value = tuple(stored["namespace"]), str(stored["key"]), dict(stored["value"])
        if search:
            return SearchItem(namespace, key, value, source.created_at, source.updated_at, score)
        return Item(value=value, key=key, namespace=namespace, created_at=source.created_at,
                    updated_at=source.updated_at)

    # -- many items ----------------------------------------------------------------------------
    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = op.namespace_prefix
        if not prefix:
            raise InvalidNamespaceError("search needs a namespace prefix that names the bank: ('memories',)")
        try:
            found = self._recalled(op) if op.query else self._listed(prefix)
        except BankNotFoundError:
            return []
        kept = [item for item in found if item.namespace[:len(prefix)] == prefix and _matches(item.value, op.filter)]
        return kept[op.offset:op.offset + op.limit]

    def _recalled(self, op: SearchOp) -> list[SearchItem]:
        bank, user = op.namespace_prefix[0], _user(op.namespace_prefix)
        # a value yields several memories and the filter drops some: ask for more than the page needs
        want = max(20, (op.offset + op.limit) * 4)
        recall = self.memory.recall(bank, str(op.query), limit=want, user_id=user, include_shared=user is None)
        items: dict[str, SearchItem] = {}
        for memory in recall.memories:
            if memory.source_id in items or not memory.source_id.startswith(_PREFIX):
                continue
            item = self._item(self.memory.source(bank, memory.source_id), memory.score, search=True)
            if isinstance(item, SearchItem):
                items[memory.source_id] = item
        return list(items.values())

    def _listed(self, prefix: tuple[str, ...]) -> list[SearchItem]:
        sources = [s for s in self.memory.sources(prefix[0]) if s.id.startswith(_PREFIX)]
        sources.sort(key=lambda s: s.updated_at, reverse=True)
        # sources() lists without the stored metadata: read each item of this namespace in full
        full = (self.memory.source(prefix[0], s.id) for s in sources)
        return [item for item in (self._item(s, search=True) for s in full) if isinstance(item, SearchItem)]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces: set[tuple[str, ...]] = set()
        for bank in self.memory.banks():
            for item in self._listed((bank.name,)):
                namespaces.add(item.namespace[:op.max_depth] if op.max_depth else item.namespace)
        kept = sorted(n for n in namespaces if all(_condition(n, c.match_type, c.path)
                                                   for c in op.match_conditions or ()))
        return kept[op.offset:op.offset + op.limit]


def _condition(namespace: tuple[str, ...], match_type: str, path: tuple[str, ...]) -> bool:
    """LangGraph's prefix / suffix match, ``"*"`` matching any one part."""
    if len(path) > len(namespace):
        return False
    part = namespace[:len(path)] if match_type == "prefix" else namespace[len(namespace) - len(path):]
    return all(want in ("*", have) for have, want in zip(part, path))

"""The ``store.slots`` contract (:class:`gieok.store.protocol.Slots`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _conversation


def test_profile_slots_round_trip_and_go_with_their_fact(store: AnyStore) -> None:
    """Slot rows (Korean and English) come back in the order they were said, filtered by person, slot
    and holder; a row already there is kept; deleting a fact's chunk takes its slot rows."""
    from gieok.records import SlotRow

    c = _conversation(store)
    f = c["facts"]
    rows = [SlotRow(f[0], "서연", "self", "city", "망원동", None, False, 200.0),
            SlotRow(f[2], "서연", "self", "city", "Austin", None, False, 300.0),
            SlotRow(f[1], "서연", "self", "family", "지수", "sister", False, 100.0),
            SlotRow(f[3], "Tom", "sister", "job", "nurse", None, False, 400.0)]
    with store.write():
        store.slots.add(c["bank"], rows)
        store.slots.add(c["bank"], rows[:1])  # again: kept as it is
    assert store.slots.all(c["bank"]) == [rows[2], rows[0], rows[1], rows[3]]
    assert store.slots.all(c["bank"], person="서연", slot="city") == rows[:2]
    assert store.slots.all(c["bank"], holder="sister") == [rows[3]]
    with store.write():
        store.sources.delete_chunks(c["bank"], [c["chunks"][0]])
    assert [r.fact_id for r in store.slots.all(c["bank"], slot="city")] == [f[2]]


def test_people_come_with_the_most_slots_first_then_by_who_spoke_first(store: AnyStore) -> None:
    """``people`` orders as a whole profile would (gieok.engine.slots): the person with the most
    distinct slots first, ties by who spoke first; Korean and English names."""
    from gieok.records import SlotRow

    c = _conversation(store)
    f = c["facts"]
    with store.write():
        store.slots.add(c["bank"], [SlotRow(f[0], "Tom", "self", "job", "nurse", None, False, 50.0),
                                    SlotRow(f[1], "서연", "self", "city", "망원동", None, False, 100.0),
                                    SlotRow(f[2], "서연", "self", "birthday", "6월 23일", None, False, 200.0),
                                    SlotRow(f[3], "서연", "self", "city", "서울", None, False, 300.0),
                                    SlotRow(f[3], "Ann", "self", "city", "Leeds", None, False, 40.0)])
    assert store.slots.people(c["bank"]) == [(None, "서연"), (None, "Ann"), (None, "Tom")]
    assert store.slots.people(c["bank"] + 1000) == []

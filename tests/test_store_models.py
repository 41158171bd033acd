"""The ``store.models`` contract (:class:`gieok.store.protocol.MentalModels`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _setup

from gieok.store._models import MentalModelRow


def test_mental_models_round_trip(store: AnyStore) -> None:
    bank = _setup(store, "a", ["x"])
    with store.write():
        m1 = store.models.save(bank, "zeta", "Z?")
        m2 = store.models.save(bank, "Alpha", "A?")
        store.models.set_answer(m1, "answer", ["f-1", "o-2"], 10.0)
    models = store.models.all(bank)
    assert [m.name for m in models] == ["Alpha", "zeta"] and all(isinstance(m, MentalModelRow) for m in models)
    assert models[1] == MentalModelRow(m1, bank, "zeta", "Z?", "answer", ["f-1", "o-2"], 10.0, models[1].created_at)
    with store.write():
        assert store.models.save(bank, "zeta", "Z again?") == m1  # same name: reset, same id
        assert store.models.delete(bank, "Alpha") == 1
        assert store.models.delete(bank, "Alpha") == 0
    assert [(m.id, m.question, m.answer, m.based_on) for m in store.models.all(bank)] == [(m1, "Z again?", None, [])]
    assert m2 != m1

"""The ``store.sessions`` contract (:class:`gieok.store.protocol.Sessions`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore

from gieok.store._sessions import SessionOwner, SessionState, SessionTurn


def test_turns_summary_and_owner_round_trip(store: AnyStore) -> None:
    with store.write():
        bank = store.banks.create("a", "fake", 4).id
        assert store.sessions.owner(bank, "s1") is None  # no turn yet: no session
        assert store.sessions.add_turn(bank, "s1", "user", "안녕, 나는 지우야", 5, 10.0, user_id="jiwoo") == 0
        assert store.sessions.add_turn(bank, "s1", "assistant", "Hello Jiwoo", 3, 11.0, user_id="jiwoo") == 1
        assert store.sessions.add_turn(bank, "s2", "user", "shared", 1, 12.0) == 0  # positions are per session
    assert store.sessions.owner(bank, "s1") == SessionOwner("jiwoo")
    assert store.sessions.owner(bank, "s2") == SessionOwner(None)
    assert store.sessions.turns(bank, "s1") == [SessionTurn(0, "user", "안녕, 나는 지우야", 5, 10.0),
                                               SessionTurn(1, "assistant", "Hello Jiwoo", 3, 11.0)]
    assert [t.position for t in store.sessions.turns(bank, "s1", since=1)] == [1]
    assert store.sessions.state(bank, "s1") is None
    with store.write():
        store.sessions.set_summary(bank, "s1", "지우가 인사했다", 1)
        store.sessions.set_summary(bank, "s1", "지우가 인사했고 답을 들었다", 2)
    state = store.sessions.state(bank, "s1")
    assert isinstance(state, SessionState)
    assert (state.summary, state.folded_upto, state.folds) == ("지우가 인사했고 답을 들었다", 2, 2)


def test_erasing_and_deleting_sessions(store: AnyStore) -> None:
    with store.write():
        bank = store.banks.create("a", "fake", 4).id
        store.sessions.add_turn(bank, "mine", "user", "my code is Zebraquartz", 4, user_id="jiwoo")
        store.sessions.add_turn(bank, "mine", "user", "nothing here", 2, user_id="jiwoo")
        store.sessions.set_summary(bank, "mine", "code Zebraquartz", 2)
        store.sessions.add_turn(bank, "theirs", "user", "Zebraquartz too", 3, user_id="minji")
        store.sessions.add_turn(bank, "open", "user", "비밀 Zebraquartz", 3)
        assert store.sessions.erase_turns(bank, ["", "  "]) == 0
        # jiwoo's turn and summary, and the shared session's turn; not minji's
        assert store.sessions.erase_turns(bank, ["Zebraquartz"], only_user="jiwoo") == 3
    assert [t.content for t in store.sessions.turns(bank, "mine")] == ["nothing here"]
    assert store.sessions.state(bank, "mine") is None and store.sessions.turns(bank, "open") == []
    assert [t.content for t in store.sessions.turns(bank, "theirs")] == ["Zebraquartz too"]
    with store.write():
        assert store.sessions.delete_of_user(bank, "minji") == 1
        assert store.sessions.delete(bank, "mine") == 1
        assert store.sessions.delete(bank, "mine") == 0
    assert store.sessions.turns(bank, "theirs") == [] and store.sessions.owner(bank, "mine") is None

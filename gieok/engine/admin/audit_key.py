"""The audit fingerprint key: kept outside the database, so the database alone cannot test guesses.

An audit entry's fingerprint is an HMAC of the value it replaced. With the key, anyone can check a
guess ("was 010-1234-5678 redacted here?"), and a phone number has so few candidates that checking
them all takes minutes. So the key never sits in the database it protects, and the types whose
values are few (phone, registration, card, account, business and passport numbers, e-mail
addresses, passwords) get no fingerprint at all (see :data:`gieok.defense.UNFINGERPRINTED_TYPES`).

Where the key comes from, first match wins:

1. ``Memory(fingerprint_key=…)``: bytes, a string, or a callable returning either (a KMS hook,
   called once when the memory opens);
2. the ``GIEOK_FINGERPRINT_KEY`` environment variable (a secret: read from the environment only,
   never stored, never logged);
3. the ``fingerprint_key_file`` setting (``GIEOK_FINGERPRINT_KEY_FILE``): a file, created with a new
   random key and mode 0600 when missing;
4. SQLite: ``<database>.key`` beside the database file, the same way; an in-memory database gets a
   key that lives as long as the process.
5. PostgreSQL with none of 1-3: no key, and so no fingerprints (there is no "beside the file" for a
   server database, and a key in its own tables is the flaw this module removes).

A database made before this kept its key in the ``meta`` table. Opening it moves that key out (to the
key file of 3 or 4, when that file does not exist yet, so old fingerprints keep matching new ones)
and deletes it from ``meta``; SQLite's secure_delete and a WAL checkpoint take its bytes off disk.
A PostgreSQL database with a key in ``meta`` and nowhere to move it is refused with a ConfigError
rather than opened with the key left in place.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable

from gieok.errors import ConfigError
from gieok.settings import Settings
from gieok.store.protocol import Store

__all__ = ["ENV", "KeySource", "resolve_fingerprint_key"]

ENV = "GIEOK_FINGERPRINT_KEY"
_META = "fingerprint_key"
_MIN_CHARS = 16

KeySource = bytes | str | Callable[[], bytes | str]


def _as_key(value: bytes | str, origin: str) -> bytes:
    key = value.encode("utf-8") if isinstance(value, str) else value
    if not isinstance(key, bytes) or len(key.strip()) < _MIN_CHARS:
        raise ConfigError(f"the fingerprint key from {origin} must be at least {_MIN_CHARS} characters; make one "
                          "with `python -c 'import secrets; print(secrets.token_hex(32))'`")
    return key.strip()


def _read_key_file(path: str) -> bytes:
    if os.name != "nt" and os.stat(path).st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(f"the fingerprint key file {path} can be read by other users: `chmod 600 {path}`")
    with open(path, encoding="utf-8") as handle:
        return _as_key(handle.read(), path)


def _write_key_file(path: str, key_hex: str) -> bool:
    """Create ``path`` (mode 0600) holding ``key_hex``; False when it already exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError as exc:
        raise ConfigError(f"cannot create the fingerprint key file {path}: {exc.strerror}; set "
                          "fingerprint_key_file (GIEOK_FINGERPRINT_KEY_FILE) to a writable path") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(key_hex + "\n")
    return True


def resolve_fingerprint_key(store: Store, settings: Settings, explicit: KeySource | None = None) -> bytes | None:
    """The key this memory fingerprints with, after moving a legacy key out of ``meta`` (see above)."""
    legacy = store.meta.get(_META)
    key: bytes | None
    if explicit is not None:
        key = _as_key(explicit() if callable(explicit) else explicit, "fingerprint_key=")
    elif os.environ.get(ENV):
        key = _as_key(os.environ[ENV], f"${ENV}")
    else:
        path = settings.fingerprint_key_file or store.audit.key_file()
        if path:
            _write_key_file(path, legacy or secrets.token_hex(32))
            key = _read_key_file(path)
        elif legacy is not None:
            raise ConfigError(
                f"this database keeps its audit fingerprint key in its own meta table, where anyone with a copy can "
                f"use it: set fingerprint_key_file (GIEOK_FINGERPRINT_KEY_FILE=/path/outside/the/database, the key "
                f"is moved there) or {ENV}=... (the old key is dropped; old fingerprints stop matching new ones)")
        elif store.ephemeral:
            key = secrets.token_hex(32).encode("ascii")  # an in-memory database: the key dies with it
        else:
            key = None  # a server database with no key configured: no fingerprints
    if legacy is not None:
        with store.write():
            store.meta.delete(_META)
        store.erasure.checkpoint()
    return key

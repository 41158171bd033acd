"""Memory defense: keep secrets and personal identifiers out of everything gieok stores.

Retain calls :func:`redact` on every item before it is chunked, extracted, embedded or indexed, then
:func:`enforce` to refuse items a "block" policy forbids. Redaction is on by default for every type in
:data:`REDACTION_TYPES`, Korean and English alike::

    >>> from gieok.defense import redact
    >>> redact("번호는010-1234-5678이야").text
    '번호는[REDACTED:kr_phone]이야'

Design, in one breath: each type is a detector (a substring trigger plus a compiled pattern plus an
arithmetic or context check), detectors run in priority order and the most specific wins an overlap,
boundaries are ASCII so values glued to Hangul are still found, detectors read a normalised projection
(width, dashes, digit separators, spaces, zero-width characters, Hangul and other scripts' digits)
mapped back to the caller's text, and
results carry positions and keyed fingerprints (high-entropy secrets only) but never the values.
"""

from typing import TYPE_CHECKING

from gieok._lazy import lazy_names
from gieok.defense._catalog import REDACTION_TYPES
from gieok.defense.policy import DEFAULT_POLICY, REDACTION_ACTIONS, Action, RedactionPolicy

# The detectors compile their patterns at import (tens of milliseconds): they load when redaction
# or the instruction check is first used, not when a policy is read (opening a Memory reads one).
if TYPE_CHECKING:
    from gieok.defense._instructions import (
        InstructionJudgment,
        instruction_model,
        judge,
        judged_part,
        quoted_part,
    )
    from gieok.defense._redact import (
        UNFINGERPRINTED_TYPES,
        AuditEntry,
        RedactionResult,
        Span,
        enforce,
        placeholder,
        redact,
    )

_LAZY = {
    **dict.fromkeys(["InstructionJudgment", "instruction_model", "judge", "judged_part", "quoted_part"],
                    "gieok.defense._instructions"),
    **dict.fromkeys(["UNFINGERPRINTED_TYPES", "AuditEntry", "RedactionResult", "Span", "enforce", "placeholder",
                     "redact"], "gieok.defense._redact"),
}

__all__ = [
    "Action",
    "AuditEntry",
    "DEFAULT_POLICY",
    "InstructionJudgment",
    "REDACTION_ACTIONS",
    "REDACTION_TYPES",
    "RedactionPolicy",
    "RedactionResult",
    "Span",
    "UNFINGERPRINTED_TYPES",
    "enforce",
    "instruction_model",
    "judge",
    "judged_part",
    "placeholder",
    "quoted_part",
    "redact",
]


__getattr__, __dir__ = lazy_names("gieok.defense", _LAZY, globals(), __all__)

"""The outcome of a repair: the value, what was changed, and whether the input was cut off."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

RepairStatus = Literal["complete", "repaired", "truncated", "failed"]


@dataclass(frozen=True, slots=True, init=False)
class RepairResult:
    """What :func:`toolwire.repair.repair_json` recovered from one text.

    - ``value``: the recovered value (``None`` when ``ok`` is False; note that
      ``None`` is also a legitimate value of the text ``null``).
    - ``ok``: something was recovered.
    - ``repairs``: names of the repair steps that changed something, in the order
      they were first applied (vocabulary in :mod:`toolwire.repair`).
    - ``truncated``: the input ended inside a value, so closers or a string end had
      to be invented at the end (F1). A truncated result is never ``complete``.
    - ``error``: when ``ok`` is False, what could not be read and where.
    """

    value: Any
    ok: bool
    repairs: tuple[str, ...]
    truncated: bool
    error: str | None = None

    # Written out as ToolCall's is (toolwire.events): each slot set through its own
    # setter (``_SET_RESULT``, below the class) instead of the generated __init__'s
    # ``object.__setattr__`` per field. Still slots, still frozen (checked against the
    # generated dataclass by tests/test_repair_result.py). Callgrind: a call that
    # builds one, 5,400 instructions against 8,600; every repair_json call builds one.
    def __init__(
        self,
        value: Any,
        ok: bool,
        repairs: tuple[str, ...],
        truncated: bool,
        error: str | None = None,
    ) -> None:
        set_value, set_ok, set_repairs, set_truncated, set_error = _SET_RESULT
        set_value(self, value)
        set_ok(self, ok)
        set_repairs(self, repairs)
        set_truncated(self, truncated)
        set_error(self, error)

    @property
    def status(self) -> RepairStatus:
        if not self.ok:
            return "failed"
        if self.truncated:
            return "truncated"
        if self.repairs:
            return "repaired"
        return "complete"


# each field's slot setter (its member descriptor's ``__set__``), in field order
_SET_RESULT = tuple(RepairResult.__dict__[f.name].__set__ for f in fields(RepairResult))

"""The outcome of a repair: the value, what was changed, and whether the input was cut off."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

RepairStatus = Literal["complete", "repaired", "truncated", "failed"]


@dataclass(frozen=True, slots=True)
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

    @property
    def status(self) -> RepairStatus:
        if not self.ok:
            return "failed"
        if self.truncated:
            return "truncated"
        if self.repairs:
            return "repaired"
        return "complete"

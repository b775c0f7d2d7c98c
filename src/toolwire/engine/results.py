"""What the engine hands back for one call: a status, text for the model, the record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolwire.audit.record import ExecutionRecord, Status


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call.

    ``content`` is the text to send back to the model: the (possibly truncated) result,
    or a message it can act on (invalid arguments, unknown tool, denial, timeout…).
    ``value`` is the full JSON-able result for ``ok`` and ``tool_error`` calls, else None.
    ``approval_id`` is set while a call waits for approval.
    """

    call_id: str | None
    name: str
    status: Status
    content: str
    value: Any
    record: ExecutionRecord
    approval_id: str | None = None
    structured: Any = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def is_error(self) -> bool:
        """Whether to flag the result to the model as an error (``is_error`` / error prefix)."""
        return self.status not in ("ok", "pending_approval")

    def to_dict(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "name": self.name,
            "status": self.status,
            "content": self.content,
            "value": self.value,
            "structured": self.structured,
            "approval_id": self.approval_id,
            "record_id": self.record.record_id,
        }

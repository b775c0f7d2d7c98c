"""The audit record: one per tool call the engine answered, whatever the outcome.

Field names follow the OpenTelemetry GenAI "execute tool" span where one exists
(``to_otel_attributes`` gives the mapping); the rest are ``toolwire.*`` attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, Literal, get_args

# ``truncated``: a call the gateway held back because the model was cut off mid-call
Status = Literal[
    "ok",
    "tool_error",
    "invalid_args",
    "denied",
    "pending_approval",
    "timeout",
    "cancelled",
    "truncated",
]
STATUSES: tuple[Status, ...] = get_args(Status)
TaskStatus = Literal["open", "solved", "failed"]


class AuditFileError(ValueError):
    """A file that is not a toolwire audit log, or holds something that is not a record."""


def _known_fields(cls: type[Any], data: Mapping[str, Any], what: str) -> dict[str, Any]:
    """The fields of ``cls`` found in ``data``; a ValueError names any required one missing."""
    if not isinstance(data, Mapping):
        raise ValueError(f"not {what}: a JSON {type(data).__name__}, not an object")
    known = {f.name: f for f in fields(cls)}
    missing = [
        name
        for name, f in known.items()
        if name not in data and f.default is MISSING and f.default_factory is MISSING
    ]
    if missing:
        raise ValueError(f"not {what}: no {', '.join(missing)}")
    return {k: v for k, v in data.items() if k in known}


@dataclass(frozen=True, slots=True)
class ExecutionRecord:
    """What happened to one call. Arguments appear only if storing them was enabled."""

    record_id: str
    call_id: str | None  # gen_ai.tool.call.id
    tool_name: str  # gen_ai.tool.name (the resolved name; as sent when unresolved)
    status: Status
    started_at: float  # epoch seconds
    duration_ms: float
    name_as_sent: str = ""
    tool_type: str = "function"  # gen_ai.tool.type: function | extension (MCP)
    tool_origin: str = ""  # function | mcp:<server> | "" when unresolved
    tool_description: str = ""  # gen_ai.tool.description
    session_id: str | None = None  # gen_ai.conversation.id
    task_id: str | None = None
    turn: int | None = None
    executor: str | None = None
    error_type: str | None = None  # error.type
    error_message: str | None = None
    arguments_sha256: str | None = None
    arguments: str | None = None  # redacted JSON, only when enabled
    arguments_tokens: int = 0
    repairs: tuple[str, ...] = ()
    validation_errors: tuple[str, ...] = ()
    violations: tuple[str, ...] = ()
    policy_decision: str | None = None
    approval_id: str | None = None
    result_chars: int = 0
    result_tokens: int = 0
    result_truncated: bool = False
    tokenizer: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["repairs"] = list(self.repairs)
        out["validation_errors"] = list(self.validation_errors)
        out["violations"] = list(self.violations)
        out["extra"] = dict(self.extra)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExecutionRecord:
        values = _known_fields(cls, data, "a call record")
        for key in ("repairs", "validation_errors", "violations"):
            values[key] = tuple(values.get(key) or ())
        values["extra"] = dict(values.get("extra") or {})
        return cls(**values)

    def to_otel_attributes(self) -> dict[str, str | int | float | bool]:
        """Span attributes, by the GenAI semantic conventions where they define one."""
        attrs: dict[str, str | int | float | bool] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": self.tool_name,
            "gen_ai.tool.type": self.tool_type,
            "toolwire.status": self.status,
            "toolwire.duration_ms": self.duration_ms,
            "toolwire.result.tokens": self.result_tokens,
            "toolwire.result.chars": self.result_chars,
            "toolwire.result.truncated": self.result_truncated,
            "toolwire.arguments.tokens": self.arguments_tokens,
        }
        optional: dict[str, Any] = {
            "gen_ai.tool.call.id": self.call_id,
            "gen_ai.tool.description": self.tool_description or None,
            "gen_ai.conversation.id": self.session_id,
            "gen_ai.tool.call.arguments": self.arguments,
            "error.type": self.error_type,
            "toolwire.task.id": self.task_id,
            "toolwire.turn": self.turn,
            "toolwire.tool.origin": self.tool_origin or None,
            "toolwire.tool.name_as_sent": (
                self.name_as_sent if self.name_as_sent != self.tool_name else None
            ),
            "toolwire.executor": self.executor,
            "toolwire.arguments.sha256": self.arguments_sha256,
            "toolwire.policy.decision": self.policy_decision,
            "toolwire.approval.id": self.approval_id,
            "toolwire.error.message": self.error_message,
            "toolwire.tokenizer": self.tokenizer or None,
        }
        attrs.update({k: v for k, v in optional.items() if v is not None})
        # Sequences are allowed as attribute values but only as homogeneous lists of strings.
        if self.repairs:
            attrs["toolwire.repairs"] = "; ".join(self.repairs)
        if self.violations:
            attrs["toolwire.violations"] = "; ".join(self.violations)
        if self.validation_errors:
            attrs["toolwire.validation_errors"] = "; ".join(self.validation_errors)
        return attrs


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """A task groups calls; the caller marks it solved or failed.

    Token counts are what the caller reported as model usage for the task, summed over
    all of its attempts (a task marked failed and started again is a new attempt).
    """

    task_id: str
    status: TaskStatus = "open"
    session_id: str | None = None
    started_at: float = 0.0
    ended_at: float | None = None
    attempts: int = 1
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def reported_tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.reasoning_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskRecord:
        return cls(**_known_fields(cls, data, "a task record"))

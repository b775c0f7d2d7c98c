"""What a run yields as it goes, and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from toolwire.engine.results import ToolResult
from toolwire.events import FinishReason, ToolCall, Usage

StopReason = Literal[
    "done",  # the model answered without calling a tool
    "max_turns",
    "invalid_retries",  # a tool's budget of invalid calls is spent
    "max_tokens",  # the model's answer was cut off with no call to run
    "content_filter",
    "upstream_error",  # the model server could not be reached or failed mid-answer
    "max_tool_calls",  # the model asked for more calls than the run had left
    "max_input_tokens",  # a token budget of the run is spent (the model's usage)
    "max_output_tokens",
    "max_total_tokens",
    "cancelled",  # the run's task was cancelled or its stream closed (see Agent.last_result)
]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """One call of a run: as the model sent it (after wire repairs) and its result."""

    turn: int
    call: ToolCall  # under the id the history gives it
    result: ToolResult
    reply: str  # the text the model got back for it

    @property
    def status(self) -> str:
        return self.result.status

    @property
    def repairs(self) -> tuple[str, ...]:
        """The wire's repairs and the engine's, each once."""
        return tuple(dict.fromkeys([*self.call.repairs, *self.result.record.repairs]))


@dataclass(frozen=True, slots=True)
class RequestNotes:
    """What of the turn's request the model's wire could not take as sent (a field,
    a schema keyword), in words (``ModelClient.prepare``'s ``lossy``): it was dropped
    or approximated, not sent. Each note once per run, before the answer."""

    notes: tuple[str, ...]
    turn: int


@dataclass(frozen=True, slots=True)
class TextOut:
    """A batch of the model's text (see ``TextEmitter``)."""

    text: str
    turn: int


@dataclass(frozen=True, slots=True)
class ReasoningOut:
    """A batch of the model's reasoning (thinking), batched like text."""

    text: str
    turn: int


@dataclass(frozen=True, slots=True)
class CallStreaming:
    """The model started a call: its name as sent is known, its arguments are still
    streaming (``CallParsed`` follows when they are complete). ``slot``: the parser's
    number for the call, as in ``CallParsed.call.slot``. Text before it went out
    first."""

    name: str
    id: str | None  # as the model sent it (the history may give the call another)
    slot: int
    turn: int


@dataclass(frozen=True, slots=True)
class CallParsed:
    """A call finished streaming: its status (complete, repaired, truncated, invalid)
    and the repairs made on the wire."""

    call: ToolCall
    turn: int


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """A call was handed to the engine (emitted for every call of a turn before the
    turn's calls run in parallel)."""

    call: ToolCall
    turn: int


@dataclass(frozen=True, slots=True)
class ToolReplied:
    """A call's result, as it goes back to the model."""

    outcome: CallOutcome


@dataclass(frozen=True, slots=True)
class TurnFinished:
    turn: int
    finish_reason: FinishReason | None
    usage: Usage | None


@dataclass(slots=True)
class RunResult:
    text: str  # the model's text in its last turn
    stop: StopReason
    turns: int
    task_id: str
    usage_per_turn: list[Usage | None] = field(default_factory=list)
    calls: list[CallOutcome] = field(default_factory=list)
    # the history (Chat shape, JSON-serialisable; see toolwire.agent.history)
    messages: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # for ``upstream_error``
    notes: list[str] = field(default_factory=list)  # every ``RequestNotes`` note, once

    @property
    def usage(self) -> Usage:
        """The run's total (None counts as zero)."""
        return Usage(
            input_tokens=sum(u.input_tokens or 0 for u in self.usage_per_turn if u),
            output_tokens=sum(u.output_tokens or 0 for u in self.usage_per_turn if u),
            reasoning_tokens=sum(u.reasoning_tokens or 0 for u in self.usage_per_turn if u),
        )


@dataclass(frozen=True, slots=True)
class RunFinished:
    result: RunResult


AgentEvent = (
    RequestNotes
    | TextOut
    | ReasoningOut
    | CallStreaming
    | CallParsed
    | ToolStarted
    | ToolReplied
    | TurnFinished
    | RunFinished
)

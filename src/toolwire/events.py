"""The canonical event model: what every decoder produces and every encoder consumes.

Decoders (provider wire formats, model-text extractors) turn input into these events;
encoders turn them back into a wire format. Nothing here does I/O.

Events are slotted dataclasses, treated as immutable by convention: one is built per
delta on the hot path, and a frozen dataclass costs about four times as much to build.
ToolCall and Usage, built once per call or stream, are frozen: they are the product,
shared by events, the engine, the audit and the edges, and hashable. Both write
their own ``__init__`` to be cheaper to build (see there).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

CallStatus = Literal["complete", "repaired", "truncated", "invalid"]
FinishReason = Literal["tool_calls", "stop", "length", "content_filter", "error"]


@dataclass(frozen=True, slots=True, init=False)
class Usage:
    """Token usage as reported by the provider (None where it did not say)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None

    # Written out, the fields in the same order with the same defaults (checked by
    # tests/test_toolcall.py), for one reason: the generated __init__ of a frozen
    # dataclass looks up ``object.__setattr__`` for each field; this calls each slot's
    # own setter (``_SET_USAGE``, below the class). Still slots, still frozen (the
    # class's ``__setattr__`` refuses). Callgrind: 5,600 instructions per Usage
    # against 9,100 (one per stream that reports usage).
    def __init__(
        self,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cache_read_tokens: int | None = None,
        cache_write_tokens: int | None = None,
        reasoning_tokens: int | None = None,
    ) -> None:
        set_input, set_output, set_cache_read, set_cache_write, set_reasoning = _SET_USAGE
        set_input(self, input_tokens)
        set_output(self, output_tokens)
        set_cache_read(self, cache_read_tokens)
        set_cache_write(self, cache_write_tokens)
        set_reasoning(self, reasoning_tokens)

    @property
    def total_tokens(self) -> int | None:
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    def to_dict(self) -> dict[str, int]:
        out = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
        }
        return {k: v for k, v in out.items() if v is not None}


# each field's slot setter (its member descriptor's ``__set__``), in field order
_SET_USAGE = tuple(Usage.__dict__[f.name].__set__ for f in fields(Usage))


@dataclass(frozen=True, slots=True, init=False)
class ToolCall:
    """One finished tool call.

    ``arguments`` is the final, typed value; it is None whenever the call is not fit to
    be executed as given (status ``truncated``, or unreadable arguments). For a truncated
    call ``partial_arguments`` holds the best-effort value, clearly not final.
    """

    id: str | None
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str
    status: CallStatus
    repairs: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    partial_arguments: Any = None
    name_as_sent: str | None = None
    slot: int = 0

    # Written out, as Usage's (checked the same way by tests/test_toolcall.py): each
    # slot set through its own setter (``_SET_CALL``, below the class) instead of the
    # generated __init__'s ``object.__setattr__`` per field. Still slots, still frozen.
    # Callgrind: about 9,100 instructions per ToolCall against 15,500 (setting a
    # ``__dict__`` at once was 7,100, but gave up the slots: larger calls that
    # ``vars()`` could change).
    def __init__(
        self,
        id: str | None,
        name: str,
        arguments: dict[str, Any] | None,
        raw_arguments: str,
        status: CallStatus,
        repairs: tuple[str, ...] = (),
        errors: tuple[str, ...] = (),
        partial_arguments: Any = None,
        name_as_sent: str | None = None,
        slot: int = 0,
    ) -> None:
        (
            set_id,
            set_name,
            set_arguments,
            set_raw_arguments,
            set_status,
            set_repairs,
            set_errors,
            set_partial_arguments,
            set_name_as_sent,
            set_slot,
        ) = _SET_CALL
        set_id(self, id)
        set_name(self, name)
        set_arguments(self, arguments)
        set_raw_arguments(self, raw_arguments)
        set_status(self, status)
        set_repairs(self, repairs)
        set_errors(self, errors)
        set_partial_arguments(self, partial_arguments)
        set_name_as_sent(self, name_as_sent)
        set_slot(self, slot)

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON shape used by the CLI."""
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "partial_arguments": self.partial_arguments,
            "status": self.status,
            "repairs": list(self.repairs),
            "errors": list(self.errors),
        }


# each field's slot setter, in field order (as ``_SET_USAGE``)
_SET_CALL = tuple(ToolCall.__dict__[f.name].__set__ for f in fields(ToolCall))


@dataclass(slots=True)
class TextDelta:
    """Visible text, tool markup removed."""

    text: str


@dataclass(slots=True)
class ReasoningDelta:
    """Reasoning / thinking text. ``signature``: an Anthropic upstream's signature of
    the thinking block this text belongs to (it comes last, and ends the block); a
    client that sends the block back must send it unchanged."""

    text: str
    signature: str = ""


@dataclass(slots=True)
class ReasoningSignature:
    """Something the server wants back verbatim with its reasoning on the next turn,
    opaque: ``redacted``, an Anthropic ``redacted_thinking`` block's data;
    ``thought_signature``, a Gemini part's ``thoughtSignature``, with ``call_id`` the
    id the call of that part was sent with and ``slot`` its slot (None: a text part).
    A call's signature comes before its ``CallStarted`` when the two are read from one
    message. Match it to its call by ``slot``: servers repeat ids, and a call may get
    another id at its finish. (An Anthropic thinking block's signature comes as
    ``ReasoningDelta.signature``.)"""

    kind: Literal["redacted", "thought_signature"]
    value: str
    call_id: str | None = None
    slot: int | None = None


@dataclass(slots=True)
class CallStarted:
    """A new call slot: its id and name as sent (the name is normalized at finish)."""

    slot: int
    id: str | None
    name: str


@dataclass(slots=True)
class ArgumentsDelta:
    """Raw argument text appended to a slot (already de-duplicated for snapshots).

    Argument deltas that arrive in one ``feed`` may come out as one event: join the
    texts of a slot's events for its argument text so far."""

    slot: int
    text: str


@dataclass(slots=True)
class CallFinished:
    """A slot closed: the call after repair, coercion, naming and validation."""

    call: ToolCall


@dataclass(slots=True)
class StreamFinished:
    """End of the model's turn: normalized finish reason and usage."""

    finish_reason: FinishReason
    usage: Usage | None = None
    raw_finish_reason: str | None = None


@dataclass(slots=True)
class StreamError:
    """Input that could not be read; ``raw`` keeps it so nothing is lost."""

    message: str
    raw: str = ""


Event = (
    TextDelta
    | ReasoningDelta
    | ReasoningSignature
    | CallStarted
    | ArgumentsDelta
    | CallFinished
    | StreamFinished
    | StreamError
)


@dataclass(slots=True)
class StreamResult:
    """Everything a finished stream produced, collected from its events."""

    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    reasoning: str = ""
    finish_reason: FinishReason | None = None
    usage: Usage | None = None
    errors: list[StreamError] = field(default_factory=list)

    @classmethod
    def collect(cls, events: list[Event]) -> StreamResult:
        result = cls()
        text: list[str] = []
        reasoning: list[str] = []
        for ev in events:
            if isinstance(ev, TextDelta):
                text.append(ev.text)
            elif isinstance(ev, ReasoningDelta):
                reasoning.append(ev.text)
            elif isinstance(ev, CallFinished):
                result.calls.append(ev.call)
            elif isinstance(ev, StreamFinished):
                result.finish_reason = ev.finish_reason
                result.usage = ev.usage
            elif isinstance(ev, StreamError):
                result.errors.append(ev)
        result.text = "".join(text)
        result.reasoning = "".join(reasoning)
        return result

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON contract: calls, text, finish_reason, usage (+ errors if any)."""
        out: dict[str, Any] = {
            "calls": [c.to_dict() for c in self.calls],
            "text": self.text,
            "finish_reason": self.finish_reason,
            "usage": self.usage.to_dict() if self.usage else None,
        }
        if self.reasoning:
            out["reasoning"] = self.reasoning
        if self.errors:
            out["errors"] = [{"message": e.message, "raw": e.raw} for e in self.errors]
        return out

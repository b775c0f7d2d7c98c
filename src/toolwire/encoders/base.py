"""What every stream encoder shares: canonical events in, wire chunks out.

An encoder is a per-stream object, the mirror image of a decoder: ``feed(event)``
returns the wire chunks (complete SSE messages or NDJSON lines, as ``str``) that the
event produces, ``close()`` ends the stream. ``start()`` emits the preamble early
(a gateway sends ``message_start`` before the upstream answers).

Arguments policy:

- ``"final"`` (default): a tool call goes out whole when it is finished, with the
  repaired, coerced arguments as canonical JSON and the normalized name. A
  truncated call never goes out (G1, ``toolwire.cutoff``): it is held back, noted in
  ``lossy``, and the stop reason says the output was cut (``length``), unless calls
  went out before it: then it is ``tool_calls`` (the client runs the calls it got).
  An unreadable call goes out with its raw text where arguments are text; formats
  that carry arguments as objects cannot express it and leave it out (noted in
  ``lossy``).
- ``"stream"``: argument text is forwarded as it arrives (lower latency). The
  client then sees what the model sent, before repair and name normalization; a
  call cut off after its start went out cannot be taken back: it is left unfinished
  where the format can say so, noted in ``lossy``, and the stop reason is ``length``.

Wire formats whose blocks are sequential (Anthropic, Responses) get one block at a
time: events for other slots wait while a streamed call is open.

``lossy`` lists, in words, what the target format could not express.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from toolwire.cutoff import cut_finish, deliverable, held_back_note
from toolwire.events import (
    ArgumentsDelta,
    CallFinished,
    CallStarted,
    Event,
    FinishReason,
    ReasoningDelta,
    ReasoningSignature,
    StreamError,
    StreamFinished,
    TextDelta,
    ToolCall,
    Usage,
)
from toolwire.jsontext import dumps

ArgumentsMode = Literal["final", "stream"]
_NO_REDACTED = "redacted thinking blocks were dropped (only Anthropic's format carries them)"
LATE_SIGNATURE = "a Gemini thought signature arrived after its call was sent; dropped"


def arguments_text(call: ToolCall) -> str:
    """The argument text a finished call is re-encoded with: canonical JSON of the final
    value, or the raw text when there is no final value (truncated, unreadable)."""
    if call.arguments is not None:
        return dumps(call.arguments)
    return call.raw_arguments


def sse(data: Any, event: str | None = None) -> str:
    """One Server-Sent Events message."""
    body = dumps(data) if not isinstance(data, str) else data
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {body}\n\n"


class StreamEncoder(ABC):
    """Canonical events → one wire format. One object per stream."""

    format_name: ClassVar[str] = ""
    media_type: str = "text/event-stream"  # the HTTP Content-Type for this stream
    # False for formats that send each call whole (arguments as an object)
    streams_arguments: ClassVar[bool] = True
    format_title: ClassVar[str] = ""  # the format's name in notes ("Gemini")
    # raw finish reasons this format can repeat verbatim, per canonical reason
    native_reasons: ClassVar[dict[str, frozenset[str]]] = {}

    def __init__(
        self,
        *,
        model: str = "toolwire",
        message_id: str | None = None,
        created: int | None = None,
        arguments: ArgumentsMode = "final",
        input_tokens: int | None = None,
    ) -> None:
        self.model = model
        self.message_id = message_id or uuid.uuid4().hex
        self.created = created if created is not None else int(time.time())
        self.arguments: ArgumentsMode = arguments
        self.input_tokens = input_tokens  # an estimate for formats that report it up front
        self.lossy: list[str] = []
        self.calls_emitted = 0
        self.calls_held_back = 0  # truncated calls the client did not get as calls
        self.calls_left_unfinished = 0  # of those, streamed ones whose start went out
        self.finished = False
        self._started = False
        self._open_call: int | None = None  # slot of a streamed call whose block is open
        self._queue: list[Event] = []
        self._last_error: str | None = None
        # Gemini thought signatures of calls not out yet, by slot (formats that carry
        # them write each on its call)
        self._signatures: dict[int, str] = {}

    # -- public API -------------------------------------------------------------------

    def start(self) -> list[str]:
        """The preamble; emitted once (also implicitly by the first feed)."""
        if self._started:
            return []
        self._started = True
        return self._preamble()

    def feed(self, event: Event) -> list[str]:
        out = self.start()
        if not self.finished:
            self._dispatch(event, out)
        return out

    def encode(self, events: Iterable[Event]) -> list[str]:
        """Feed many events and close."""
        out: list[str] = []
        for event in events:
            out.extend(self.feed(event))
        out.extend(self.close())
        return out

    def close(self) -> list[str]:
        """End of the event stream. Without a StreamFinished the stream failed: the
        client gets the format's error, never a synthetic success."""
        out = self.start()
        if self.finished:
            return out
        pending, self._queue = self._queue, []
        if self._open_call is not None:
            self._open_call = None
        for event in pending:
            self._dispatch(event, out)
        if not self.finished:
            self.finished = True
            out.extend(self._fail(self._last_error or "the stream ended before it finished"))
        return out

    # -- helpers for subclasses -------------------------------------------------------

    def note(self, message: str) -> None:
        if message not in self.lossy:
            self.lossy.append(message)

    def call_id(self, call_id: str | None, slot: int, prefix: str) -> str:
        """The call's id, or a stable one derived from the message id and slot."""
        if call_id:
            return call_id
        digest = hashlib.sha256(f"{self.message_id}:{slot}".encode()).hexdigest()
        return f"{prefix}{digest[:24]}"

    def wire_reason(self, finished: StreamFinished, mapping: dict[str, str]) -> str:
        """The format's stop reason. ``tool_calls`` exactly when a call was emitted
        (F17: also when the upstream said ``stop``); an upstream's own value is kept
        when this format has it and it means the same."""
        reason: FinishReason = finished.finish_reason
        if reason in ("stop", "tool_calls"):
            reason = "tool_calls" if self.calls_emitted else "stop"
        raw = finished.raw_finish_reason
        if raw is not None and raw in self.native_reasons.get(reason, frozenset()):
            return raw
        return mapping[reason]

    # -- the dispatcher ---------------------------------------------------------------

    @property
    def _streaming(self) -> bool:
        return self.arguments == "stream" and self.streams_arguments

    def _dispatch(self, event: Event, out: list[str]) -> None:
        if isinstance(event, StreamError):
            self._last_error = event.message
            return
        open_slot = self._open_call
        if open_slot is not None and not (
            isinstance(event, ArgumentsDelta | CallFinished) and _slot(event) == open_slot
        ):
            self._queue.append(event)  # one block at a time
            return
        if isinstance(event, TextDelta):
            if event.text:
                out.extend(self._text(event.text))
        elif isinstance(event, ReasoningDelta):
            if event.text:
                out.extend(self._reasoning(event.text))
            if event.signature:
                out.extend(self._signature(event.signature))
        elif isinstance(event, ReasoningSignature):
            out.extend(self._opaque(event))
        elif isinstance(event, CallStarted):
            if self._streaming:
                self._open_call = event.slot
                out.extend(self._call_start(event.slot, event.id, event.name))
        elif isinstance(event, ArgumentsDelta):
            if self._streaming and event.slot == open_slot and event.text:
                out.extend(self._call_args(event.slot, event.text))
        elif isinstance(event, CallFinished):
            call = event.call
            if self._streaming and call.slot == open_slot:
                self._open_call = None
                if not deliverable(call):  # its start is out already: it ends unfinished
                    self.calls_held_back += 1
                    self.calls_left_unfinished += 1
                    self.note(
                        f"a truncated call to {call.name!r} was streamed before it was "
                        "cut off; it was left unfinished"
                    )
                    out.extend(self._call_end(call))
                else:
                    if call.status == "repaired" or call.name != (call.name_as_sent or call.name):
                        self.note(
                            "arguments were streamed as sent; the client did not get "
                            "toolwire's repairs (use arguments='final')"
                        )
                    self.calls_emitted += 1
                    out.extend(self._call_end(call))
                pending, self._queue = self._queue, []
                for queued in pending:
                    self._dispatch(queued, out)
            elif not deliverable(call):
                self.calls_held_back += 1
                self.note(held_back_note(call))
            elif self._whole_call_fits(call):
                self.calls_emitted += 1
                out.extend(self._whole_call(call))
        elif isinstance(event, StreamFinished):
            self.finished = True
            event = self._turn_end(event)
            if event.finish_reason == "error":
                out.extend(self._fail(self._last_error or "the upstream stream failed"))
            else:
                out.extend(self._finish(event))

    def _turn_end(self, finished: StreamFinished) -> StreamFinished:
        """The finish the client gets. Calls delivered (and none left half-sent): the
        turn ends for them, ``tool_calls``, even when the output was then cut (a call
        cut after them is held back and noted; the client runs the ones it got).
        Otherwise a held-back call makes it ``length`` (``toolwire.cutoff``)."""
        if (
            self.calls_emitted
            and not self.calls_left_unfinished
            and finished.finish_reason in ("stop", "tool_calls", "length")
        ):
            if finished.finish_reason == "tool_calls":
                return finished
            return dataclasses.replace(finished, finish_reason="tool_calls", raw_finish_reason=None)
        if self.calls_held_back:
            return cut_finish(finished)
        return finished

    def _whole_call_fits(self, call: ToolCall) -> bool:
        """A format whose arguments are objects (``streams_arguments`` False) cannot
        express a call whose arguments could not be read: it is left out, and noted."""
        if self.streams_arguments or call.arguments is not None:
            return True
        self.note(
            f"an unreadable call to {call.name!r} was left out: "
            f"{self.format_title} arguments are objects"
        )
        return False

    def _whole_call(self, call: ToolCall) -> list[str]:
        out = self._call_start(call.slot, call.id, call.name)
        text = arguments_text(call)
        if text:
            out.extend(self._call_args(call.slot, text))
        out.extend(self._call_end(call))
        return out

    # -- per format -------------------------------------------------------------------

    @abstractmethod
    def _preamble(self) -> list[str]: ...

    @abstractmethod
    def _text(self, text: str) -> list[str]: ...

    @abstractmethod
    def _reasoning(self, text: str) -> list[str]: ...

    def _signature(self, signature: str) -> list[str]:
        """An Anthropic thinking block's signature; only Anthropic's format has a place
        for it."""
        self.note("thinking signatures were dropped (only Anthropic's format carries them)")
        return []

    def _opaque(self, event: ReasoningSignature) -> list[str]:
        """What the server wants back verbatim on the next turn (an Anthropic
        ``redacted_thinking`` block, a Gemini thought signature). Formats with no place
        for it drop it, and say so: a client that cannot send it back may find its
        next turn refused."""
        if event.kind == "redacted":
            self.note(_NO_REDACTED)
        else:
            self.note("Gemini thought signatures were dropped (this format has no place for them)")
        return []

    def _unsigned(self) -> None:
        """Signatures whose calls did not go out (held back, left out) were dropped
        with them: say so."""
        if self._signatures:
            self.note("Gemini thought signatures of calls not delivered were dropped")

    def _call_start(self, slot: int, call_id: str | None, name: str) -> list[str]:
        raise NotImplementedError  # pragma: no cover - formats that stream arguments

    def _call_args(self, slot: int, text: str) -> list[str]:
        raise NotImplementedError  # pragma: no cover

    def _call_end(self, call: ToolCall) -> list[str]:
        raise NotImplementedError  # pragma: no cover

    @abstractmethod
    def _finish(self, finished: StreamFinished) -> list[str]: ...

    @abstractmethod
    def _fail(self, message: str) -> list[str]: ...


def _slot(event: ArgumentsDelta | CallFinished) -> int:
    return event.slot if isinstance(event, ArgumentsDelta) else event.call.slot


def usage_or_empty(usage: Usage | None) -> Usage:
    return usage if usage is not None else Usage()

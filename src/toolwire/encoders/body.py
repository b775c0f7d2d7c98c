"""What every whole-body encoder shares: a turn's events → one non-streaming response.

A body encoder is a stream encoder whose only chunk is the body, written when the turn
finishes: what a server answers a request with ``stream: false``. It takes the same
events and keeps the same policies: calls go out as finished (repaired arguments,
normalized names), a call a format cannot express is left out and noted in ``lossy``,
and without a StreamFinished the turn failed: the body is the format's error object
and ``status_code`` is 500 (a gateway answers with that HTTP status).

The wire formats' own modules define one each, beside their stream encoders.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, Literal

from toolwire.encoders.base import StreamEncoder
from toolwire.events import StreamFinished, ToolCall
from toolwire.jsontext import dumps

PartKind = Literal["text", "reasoning", "call", "redacted", "signature"]


@dataclass(slots=True)
class Part:
    """One piece of the turn, in order: text, reasoning (its deltas), a call, an
    Anthropic ``redacted_thinking`` block or a Gemini text part's thought signature
    (its data, in ``texts``)."""

    kind: PartKind
    texts: list[str] = field(default_factory=list)
    call: ToolCall | None = None
    signature: str = ""  # of a reasoning part: its Anthropic signature, which ends it

    @property
    def text(self) -> str:
        return "".join(self.texts)


class WholeBodyEncoder(StreamEncoder):
    """Collects the turn as ``parts``; ``_body`` and ``_error_body`` build the JSON."""

    media_type = "application/json"

    def __init__(self, **kwargs: Any) -> None:
        kwargs["arguments"] = "final"  # a body has nothing to stream
        super().__init__(**kwargs)
        self.status_code = 200
        self.parts: list[Part] = []

    def text_of(self, kind: PartKind) -> str:
        """All the text of one kind, joined."""
        return "".join(part.text for part in self.parts if part.kind == kind)

    def calls(self) -> list[ToolCall]:
        return [part.call for part in self.parts if part.call is not None]

    def _add(self, kind: PartKind, text: str) -> list[str]:
        if not self.parts or self.parts[-1].kind != kind or self.parts[-1].signature:
            self.parts.append(Part(kind))
        self.parts[-1].texts.append(text)
        return []

    def _preamble(self) -> list[str]:
        return []

    def _text(self, text: str) -> list[str]:
        return self._add("text", text)

    def _reasoning(self, text: str) -> list[str]:
        return self._add("reasoning", text)

    def _whole_call(self, call: ToolCall) -> list[str]:
        self.parts.append(Part("call", call=call))
        return []

    def _finish(self, finished: StreamFinished) -> list[str]:
        return [dumps(self._body(finished))]

    def _fail(self, message: str) -> list[str]:
        self.status_code = 500
        return [dumps(self._error_body(message))]

    @abstractmethod
    def _body(self, finished: StreamFinished) -> dict[str, Any]: ...

    @abstractmethod
    def _error_body(self, message: str) -> dict[str, Any]: ...

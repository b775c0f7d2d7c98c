"""Canonical events → Ollama ``/api/chat`` streaming (newline-delimited JSON).

One object per line: ``message`` with ``content``, ``thinking`` or ``tool_calls``
(each call whole, arguments as an object, with ``id`` and ``function.index``), then
a last object with ``"done": true``, ``done_reason`` and the token counts. A failed
stream ends with an ``{"error": ...}`` line.

Not expressible, recorded in ``lossy``: a truncated or unreadable call (left out,
as for Gemini) and a content-filter stop (Ollama only knows ``stop`` and
``length``).

``OllamaBodyEncoder``: the one object of a non-streaming ``/api/chat`` reply.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from toolwire.encoders.base import StreamEncoder, usage_or_empty
from toolwire.encoders.body import WholeBodyEncoder
from toolwire.events import StreamFinished, ToolCall
from toolwire.jsontext import dumps

_REASONS = {"tool_calls": "stop", "stop": "stop", "length": "length", "content_filter": "stop"}


class OllamaEncoder(StreamEncoder):
    format_name = "ollama"
    media_type = "application/x-ndjson"
    streams_arguments: ClassVar[bool] = False
    format_title = "Ollama"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        stamp = datetime.fromtimestamp(self.created, UTC)
        self.created_at = stamp.isoformat().replace("+00:00", "Z")
        self._tool_index = 0

    def _line(self, message: dict[str, Any], **extra: Any) -> str:
        body = {
            "model": self.model,
            "created_at": self.created_at,
            "message": {"role": "assistant", "content": "", **message},
            "done": False,
            **extra,
        }
        return dumps(body) + "\n"

    def _preamble(self) -> list[str]:
        return []

    def _text(self, text: str) -> list[str]:
        return [self._line({"content": text})]

    def _reasoning(self, text: str) -> list[str]:
        return [self._line({"thinking": text})]

    def _tool_call(self, call: ToolCall) -> dict[str, Any]:
        fn = {"index": self._tool_index, "name": call.name, "arguments": call.arguments}
        self._tool_index += 1
        entry: dict[str, Any] = {"function": fn}
        if call.id:
            entry["id"] = call.id
        return entry

    def _whole_call(self, call: ToolCall) -> list[str]:
        return [self._line({"tool_calls": [self._tool_call(call)]})]

    def _done(self, finished: StreamFinished) -> dict[str, Any]:
        """The last object's fields: ``done``, its reason and the token counts."""
        if finished.finish_reason == "content_filter":
            self.note(
                "a content-filter stop is sent as done_reason 'stop' (Ollama has no such reason)"
            )
        usage = usage_or_empty(finished.usage)
        extra: dict[str, Any] = {"done": True, "done_reason": self.wire_reason(finished, _REASONS)}
        if usage.input_tokens is not None:
            extra["prompt_eval_count"] = usage.input_tokens
        if usage.output_tokens is not None:
            extra["eval_count"] = usage.output_tokens
        return extra

    def _finish(self, finished: StreamFinished) -> list[str]:
        return [self._line({}, **self._done(finished))]

    def _fail(self, message: str) -> list[str]:
        return [dumps({"error": message}) + "\n"]


class OllamaBodyEncoder(WholeBodyEncoder, OllamaEncoder):
    """The ``/api/chat`` reply: one message with the text, the thinking and the calls
    (arguments as objects), and the ``done`` fields."""

    def _body(self, finished: StreamFinished) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.text_of("text")}
        thinking = self.text_of("reasoning")
        if thinking:
            message["thinking"] = thinking
        calls = [self._tool_call(call) for call in self.calls()]
        if calls:
            message["tool_calls"] = calls
        return {
            "model": self.model,
            "created_at": self.created_at,
            "message": message,
            **self._done(finished),
        }

    def _error_body(self, message: str) -> dict[str, Any]:
        return {"error": message}

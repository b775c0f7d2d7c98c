"""Canonical events → Anthropic Messages SSE.

``message_start``, then content blocks one at a time (``content_block_start`` /
``_delta`` / ``_stop``: ``text``, ``thinking``, ``tool_use`` with
``input_json_delta``), then ``message_delta`` (stop reason, cumulative usage) and
``message_stop``. Every message has its ``event:`` line (clients ignore data
without one) and there is never a ``[DONE]``. A failed stream ends with
``event: error``.

Thinking blocks carry the upstream's signature (``signature_delta``) when an
Anthropic upstream signed them, unchanged; otherwise ``signature`` is empty (and
noted): only Anthropic can sign, and a made-up signature would be rejected. An
Anthropic upstream's ``redacted_thinking`` blocks go out whole, in their place (as
Anthropic sends them: all in ``content_block_start``): the client must send them
back unchanged with a tool-use turn.

A truncated tool call is held back (``toolwire.cutoff``) and the stop reason is
``max_tokens`` (``tool_use`` when calls went out before it). With
``arguments="stream"`` its block may already be open when the cut shows: it stays
open (no ``content_block_stop``), for it never finished, and the stop reason is
``max_tokens``.

``AnthropicBodyEncoder``: the ``message`` object of a non-streaming request. Its
``tool_use`` inputs are objects, so a call without final arguments is left out (and
noted), as for Gemini.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolwire.encoders.base import StreamEncoder, sse, usage_or_empty
from toolwire.encoders.body import Part, WholeBodyEncoder
from toolwire.events import ReasoningSignature, StreamFinished, ToolCall, Usage

_REASONS = {
    "tool_calls": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_NO_SIGNATURE = "thinking blocks carry no signature (the upstream signed none)"


def anthropic_usage_dict(usage: Usage) -> dict[str, Any]:
    """The usage of ``message_delta``: output tokens, and what else is known."""
    out: dict[str, Any] = {"output_tokens": usage.output_tokens or 0}
    if usage.input_tokens is not None:
        out["input_tokens"] = usage.input_tokens
    if usage.cache_read_tokens is not None:
        out["cache_read_input_tokens"] = usage.cache_read_tokens
    if usage.cache_write_tokens is not None:
        out["cache_creation_input_tokens"] = usage.cache_write_tokens
    return out


def _redacted_block(data: str) -> dict[str, Any]:
    return {"type": "redacted_thinking", "data": data}


class AnthropicEncoder(StreamEncoder):
    format_name = "anthropic"
    native_reasons: ClassVar[dict[str, frozenset[str]]] = {
        "stop": frozenset({"end_turn", "stop_sequence", "pause_turn"}),
        "length": frozenset({"max_tokens", "model_context_window_exceeded"}),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._block: str | None = None  # type of the open block
        self._index = -1  # index of the last block started
        self._signed = False  # the open thinking block got its signature

    def _event(self, name: str, data: dict[str, Any]) -> str:
        return sse({"type": name, **data}, event=name)

    def _preamble(self) -> list[str]:
        usage: dict[str, Any] = {"input_tokens": self.input_tokens or 0, "output_tokens": 0}
        message: dict[str, Any] = {
            "id": f"msg_{self.message_id}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        return [self._event("message_start", {"message": message})]

    def _close_block(self) -> list[str]:
        if self._block is None:
            return []
        if self._block == "thinking" and not self._signed:
            self.note(_NO_SIGNATURE)
        self._block = None
        return [self._event("content_block_stop", {"index": self._index})]

    def _open_block(self, kind: str, block: dict[str, Any]) -> list[str]:
        out = self._close_block()
        self._index += 1
        self._block = kind
        out.append(
            self._event("content_block_start", {"index": self._index, "content_block": block})
        )
        return out

    def _delta(self, delta: dict[str, Any]) -> str:
        return self._event("content_block_delta", {"index": self._index, "delta": delta})

    def _text(self, text: str) -> list[str]:
        out = (
            [] if self._block == "text" else self._open_block("text", {"type": "text", "text": ""})
        )
        out.append(self._delta({"type": "text_delta", "text": text}))
        return out

    def _open_thinking(self) -> list[str]:
        out = self._open_block("thinking", {"type": "thinking", "thinking": "", "signature": ""})
        self._signed = False
        return out

    def _reasoning(self, text: str) -> list[str]:
        out = []
        if self._block != "thinking" or self._signed:  # a signature ended the last one
            out = self._open_thinking()
        out.append(self._delta({"type": "thinking_delta", "thinking": text}))
        return out

    def _signature(self, signature: str) -> list[str]:
        """The upstream's signature, unchanged: Anthropic checks it when the client
        sends the block back."""
        out = [] if self._block == "thinking" and not self._signed else self._open_thinking()
        out.append(self._delta({"type": "signature_delta", "signature": signature}))
        self._signed = True
        return out

    def _opaque(self, event: ReasoningSignature) -> list[str]:
        if event.kind != "redacted":
            return super()._opaque(event)
        out = self._open_block("redacted_thinking", _redacted_block(event.value))
        out.extend(self._close_block())
        return out

    def _call_start(self, slot: int, call_id: str | None, name: str) -> list[str]:
        block = {
            "type": "tool_use",
            "id": self.call_id(call_id, slot, "toolu_"),
            "name": name,
            "input": {},
        }
        return self._open_block("tool_use", block)

    def _call_args(self, slot: int, text: str) -> list[str]:
        return [self._delta({"type": "input_json_delta", "partial_json": text})]

    def _call_end(self, call: ToolCall) -> list[str]:
        if call.status == "truncated":
            self._block = None  # left open on purpose: it never finished
            return []
        return self._close_block()

    def _finish(self, finished: StreamFinished) -> list[str]:
        out = self._close_block()
        wire_usage = anthropic_usage_dict(usage_or_empty(finished.usage))
        delta = {"stop_reason": self.wire_reason(finished, _REASONS), "stop_sequence": None}
        out.append(self._event("message_delta", {"delta": delta, "usage": wire_usage}))
        out.append(self._event("message_stop", {}))
        return out

    def _fail(self, message: str) -> list[str]:
        return [self._event("error", {"error": {"type": "api_error", "message": message}})]


class AnthropicBodyEncoder(WholeBodyEncoder, AnthropicEncoder):
    """The ``message`` object: ``thinking``, ``text`` and ``tool_use`` blocks in the
    order they came, the stop reason and the usage."""

    streams_arguments: ClassVar[bool] = False  # a tool_use input is an object
    format_title = "Anthropic message"

    def _signature(self, signature: str) -> list[str]:
        last = self.parts[-1] if self.parts else None
        if last is None or last.kind != "reasoning" or last.signature:
            last = Part("reasoning")
            self.parts.append(last)
        last.signature = signature
        return []

    def _opaque(self, event: ReasoningSignature) -> list[str]:
        if event.kind != "redacted":
            return super()._opaque(event)
        self.parts.append(Part("redacted", [event.value]))
        return []

    def _body(self, finished: StreamFinished) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for part in self.parts:
            if part.call is not None:
                call = part.call
                tool_id = self.call_id(call.id, call.slot, "toolu_")
                content.append(
                    {"type": "tool_use", "id": tool_id, "name": call.name, "input": call.arguments}
                )
            elif part.kind == "text":
                content.append({"type": "text", "text": part.text})
            elif part.kind == "redacted":
                content.append(_redacted_block(part.text))
            else:
                if not part.signature:
                    self.note(_NO_SIGNATURE)
                block = {"type": "thinking", "thinking": part.text, "signature": part.signature}
                content.append(block)
        usage = usage_or_empty(finished.usage)
        return {
            "id": f"msg_{self.message_id}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": self.wire_reason(finished, _REASONS),
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage.input_tokens or self.input_tokens or 0,
                **anthropic_usage_dict(usage),
            },
        }

    def _error_body(self, message: str) -> dict[str, Any]:
        return {"type": "error", "error": {"type": "api_error", "message": message}}

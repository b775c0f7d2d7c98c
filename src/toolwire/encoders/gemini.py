"""Canonical events → Google Gemini ``streamGenerateContent`` chunks.

Server-Sent Events (``alt=sse``, the default) or the JSON-array framing
(``array=True``). Text and thoughts (``"thought": true``) go out as they arrive; each
function call goes out whole, its arguments as an object, with its id. The last
chunk has the ``finishReason`` and ``usageMetadata``. Gemini has no "tool calls"
finish reason: calls end with ``STOP``. A Gemini upstream's thought signatures go back
where Gemini puts them: a call's on its ``functionCall`` part, a text part's on a part
of its own (``{"text": "", "thoughtSignature": …}``, as Gemini streams them).

Not expressible, hence left out and recorded in ``lossy``: a truncated call or one
whose arguments could not be read (Gemini arguments are objects; sending ``{}``
would invite the client to run the tool with nothing).

``GeminiBodyEncoder``: the ``generateContent`` response of a non-streaming request,
all parts in one candidate. (``gemini-array`` is already one JSON document.)
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolwire.encoders.base import LATE_SIGNATURE, StreamEncoder, sse, usage_or_empty
from toolwire.encoders.body import Part, WholeBodyEncoder
from toolwire.events import ReasoningSignature, StreamFinished, ToolCall, Usage
from toolwire.jsontext import dumps

_REASONS = {
    "tool_calls": "STOP",
    "stop": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}


def function_call_part(call: ToolCall, signature: str | None = None) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": call.name, "args": call.arguments}
    if call.id:
        fn["id"] = call.id
    if signature is None:
        return {"functionCall": fn}
    return {"functionCall": fn, "thoughtSignature": signature}


def _signature_part(signature: str) -> dict[str, Any]:
    return {"text": "", "thoughtSignature": signature}


def gemini_error(message: str) -> dict[str, Any]:
    return {"error": {"code": 500, "message": message, "status": "INTERNAL"}}


def usage_metadata(usage: Usage) -> dict[str, Any]:
    """Usage → ``usageMetadata`` (empty when nothing is known). Gemini counts thoughts
    apart from the candidates' tokens."""
    meta: dict[str, Any] = {}
    if usage.input_tokens is not None:
        meta["promptTokenCount"] = usage.input_tokens
    if usage.output_tokens is not None:
        thoughts = usage.reasoning_tokens or 0
        meta["candidatesTokenCount"] = max(usage.output_tokens - thoughts, 0)
        if usage.reasoning_tokens is not None:
            meta["thoughtsTokenCount"] = usage.reasoning_tokens
    if usage.cache_read_tokens is not None:
        meta["cachedContentTokenCount"] = usage.cache_read_tokens
    if meta:
        meta["totalTokenCount"] = (usage.input_tokens or 0) + (usage.output_tokens or 0)
    return meta


class GeminiEncoder(StreamEncoder):
    format_name = "gemini"
    streams_arguments: ClassVar[bool] = False
    format_title = "Gemini"
    native_reasons: ClassVar[dict[str, frozenset[str]]] = {
        "content_filter": frozenset(
            {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
        ),
    }

    def __init__(self, *, array: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.array = array
        if array:
            self.media_type = "application/json"
        self._chunks = 0
        self._call_count = 0
        self._sent: set[int] = set()  # slots of the calls streamed out

    def _emit(self, chunk: dict[str, Any]) -> str:
        chunk.setdefault("modelVersion", self.model)
        chunk.setdefault("responseId", self.message_id)
        self._chunks += 1
        if not self.array:
            return sse(chunk)
        body = dumps(chunk)
        return ("[" if self._chunks == 1 else ",\r\n") + body

    def _parts(self, parts: list[dict[str, Any]], **candidate: Any) -> str:
        return self._emit(
            {
                "candidates": [
                    {"content": {"parts": parts, "role": "model"}, "index": 0, **candidate}
                ]
            }
        )

    def _preamble(self) -> list[str]:
        return []

    def _text(self, text: str) -> list[str]:
        return [self._parts([{"text": text}])]

    def _reasoning(self, text: str) -> list[str]:
        return [self._parts([{"text": text, "thought": True}])]

    def _opaque(self, event: ReasoningSignature) -> list[str]:
        if event.kind != "thought_signature":
            return super()._opaque(event)
        if event.slot is None:  # a text part's
            return [self._parts([_signature_part(event.value)])]
        if event.slot in self._sent:
            self.note(LATE_SIGNATURE)
        else:
            self._signatures[event.slot] = event.value  # it goes out on its call
        return []

    def _whole_call(self, call: ToolCall) -> list[str]:
        self._sent.add(call.slot)
        return [self._parts([function_call_part(call, self._signatures.pop(call.slot, None))])]

    def _finish(self, finished: StreamFinished) -> list[str]:
        self._unsigned()
        meta = usage_metadata(usage_or_empty(finished.usage))
        chunk: dict[str, Any] = {
            "candidates": [
                {
                    "content": {"parts": [{"text": ""}], "role": "model"},
                    "finishReason": self.wire_reason(finished, _REASONS),
                    "index": 0,
                }
            ]
        }
        if meta:
            chunk["usageMetadata"] = meta
        out = [self._emit(chunk)]
        if self.array:
            out.append("]")
        return out

    def _fail(self, message: str) -> list[str]:
        out = [self._emit(gemini_error(message))]
        if self.array:
            out.append("]")
        return out


class GeminiBodyEncoder(WholeBodyEncoder, GeminiEncoder):
    """The ``generateContent`` response: one candidate with every part in order
    (thoughts marked ``thought``, each function call whole), its finish reason and
    ``usageMetadata``."""

    def _opaque(self, event: ReasoningSignature) -> list[str]:
        if event.kind == "thought_signature" and event.slot is None:
            self.parts.append(Part("signature", [event.value]))  # a text part's
            return []
        return super()._opaque(event)

    def _body(self, finished: StreamFinished) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for part in self.parts:
            if part.call is not None:
                signature = self._signatures.pop(part.call.slot, None)
                parts.append(function_call_part(part.call, signature))
            elif part.kind == "signature":
                parts.append(_signature_part(part.text))
            elif part.kind == "text":
                parts.append({"text": part.text})
            else:
                parts.append({"text": part.text, "thought": True})
        self._unsigned()
        candidate = {
            "content": {"parts": parts, "role": "model"},
            "finishReason": self.wire_reason(finished, _REASONS),
            "index": 0,
        }
        body: dict[str, Any] = {"candidates": [candidate]}
        meta = usage_metadata(usage_or_empty(finished.usage))
        if meta:
            body["usageMetadata"] = meta
        body["modelVersion"] = self.model
        body["responseId"] = self.message_id
        return body

    def _error_body(self, message: str) -> dict[str, Any]:
        return gemini_error(message)

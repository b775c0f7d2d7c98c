"""Google Gemini ``streamGenerateContent`` → assembler.

Two framings, told apart by the first byte: Server-Sent Events (``alt=sse``) or a
JSON array streamed element by element (the default); a plain JSON object (the
non-streaming ``generateContent`` response) reads like a one-element array.

Gemini sends each function call whole, its arguments as an object, possibly several
per candidate and usually without an id; toolwire gives each a stable id derived
from the response id and the call's position, so the same stream always yields the
same ids. Gemini has no "tool calls" finish reason (it says ``STOP``); the assembler
reports ``tool_calls`` whenever calls were made (F17).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.assemble import CallAssembler
from toolwire.events import Usage
from toolwire.providers.base import JsonStreamDecoder, token_count
from toolwire.sse import SSEDecoder

# finishReason values that end a turn because of content policy; the assembler's
# table knows the common ones, these are the rest.
_FILTER_REASONS = frozenset(
    {"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "LANGUAGE"}
)
_ERROR_REASONS = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"})


def gemini_usage(meta: dict[str, Any]) -> Usage:
    """``usageMetadata`` → Usage. Gemini counts thoughts apart from the candidates;
    toolwire's output tokens include reasoning, as OpenAI's do."""
    candidates = token_count(meta.get("candidatesTokenCount"))
    thoughts = token_count(meta.get("thoughtsTokenCount"))
    output = None
    if candidates is not None or thoughts is not None:
        output = (candidates or 0) + (thoughts or 0)
    return Usage(
        input_tokens=token_count(meta.get("promptTokenCount")),
        output_tokens=output,
        cache_read_tokens=token_count(meta.get("cachedContentTokenCount")),
        reasoning_tokens=thoughts,
    )


class GeminiDecoder(JsonStreamDecoder):
    format_name = "gemini"
    stream_title = "Gemini"
    chunk_noun = "chunks"

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._mode: str | None = None  # "sse" or "json", chosen by the first byte
        self._head = b""
        self._sse = SSEDecoder()
        self._response_id = ""

    def feed(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        if self._mode is None:
            self._head += data
            first = self._head.lstrip()[:1]
            if not first:
                return
            self._mode = "json" if first in (b"[", b"{") else "sse"
            data, self._head = self._head, b""
        if self._mode == "sse":
            for message in self._sse.feed(data):
                self._on_text(message.data)
        else:
            self.feed_objects(data)

    def close(self) -> None:
        if self._mode == "sse":
            for message in self._sse.close():
                self._on_text(message.data)
        elif self._mode == "json":
            whole = self.close_objects()  # False: it ended inside an object
            if whole and self._json.array_closed and not self.finished:
                self.finished = True  # the array's "]" is this framing's end marker

    def _on_text(self, data: str) -> None:
        if not data or data == "[DONE]":
            return
        chunk = self.load_json(data)
        if isinstance(chunk, dict):
            self.dispatch(chunk, data)

    def on_chunk(self, chunk: dict[str, Any], raw: str) -> None:
        sink = self.sink
        error = chunk.get("error")
        if error is not None:
            detail = error.get("message") if isinstance(error, dict) else error
            sink.error(f"the upstream sent an error: {detail}", raw)
            sink.set_finish_reason("error")
            self.finished = True
            return
        if not self._response_id and isinstance(chunk.get("responseId"), str):
            self._response_id = chunk["responseId"]
        candidates = chunk.get("candidates")
        reason: str | None = None
        if candidates is not None and not isinstance(candidates, list):
            self.wrong_type("candidates", candidates, "an array", raw)
        if isinstance(candidates, list):
            for candidate in candidates:
                if not isinstance(candidate, dict) or candidate.get("index", 0) != 0:
                    continue  # toolwire follows the first candidate
                content = candidate.get("content")
                parts = content.get("parts") if isinstance(content, dict) else None
                if parts is not None and not isinstance(parts, list):
                    self.wrong_type("candidates[0].content.parts", parts, "an array", raw)
                elif parts is not None:
                    for i, part in enumerate(parts):
                        if isinstance(part, dict):
                            self.on_part(part, i, chunk, raw)
                value = candidate.get("finishReason")
                if isinstance(value, str) and value != "FINISH_REASON_UNSPECIFIED":
                    reason = value
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            sink.set_usage(gemini_usage(usage))
        feedback = chunk.get("promptFeedback")
        if isinstance(feedback, dict) and isinstance(feedback.get("blockReason"), str):
            sink.error(f"the prompt was blocked: {feedback['blockReason']}", raw)
            reason = reason or "SAFETY"
        if reason is not None:
            if reason in _ERROR_REASONS:
                sink.error(f"Gemini ended the turn with {reason}", raw)
            elif reason in _FILTER_REASONS:
                reason = "SAFETY"
            sink.set_finish_reason(reason)
            self.finished = True

    def on_part(self, part: dict[str, Any], i: int, chunk: dict[str, Any], raw: str) -> None:
        """The ``i``-th part of the first candidate of ``chunk`` (read from ``raw``)."""
        text = part.get("text")
        if type(text) is not str:
            text = self.string_field(part, "text", f"candidates[0].content.parts[{i}]", raw)
        if text:
            if part.get("thought") is True:
                self.sink.reasoning(text)
            else:
                self.text(text)
        call = part.get("functionCall")
        call_id = None
        if isinstance(call, dict):
            call_id = self.on_function_call(call, chunk, raw)
        elif call is not None:
            path = f"candidates[0].content.parts[{i}].functionCall"
            self.wrong_type(path, call, "an object", raw)
        signature = part.get("thoughtSignature")
        if isinstance(signature, str):  # Gemini 3 refuses a call sent back without it
            # (of a text part, or a call not read, when call_id is None; a call's goes
            # on the call the id was just given to, before its CallStarted)
            self.sink.signature("thought_signature", signature, call_id)

    def on_function_call(self, call: dict[str, Any], chunk: dict[str, Any], raw: str) -> str | None:
        sink = self.sink
        if "partialArgs" in call or call.get("willContinue"):
            # Vertex's streamed arguments (jsonPath fragments) are not read yet: say so
            # rather than present a half-built call.
            sink.error(
                "Gemini streamed function-call arguments (partialArgs) are not supported", raw
            )
            return None
        seed = self._response_id or "gemini"
        return self.whole_call(call.get("id"), call.get("name"), call.get("args"), seed, chunk, raw)

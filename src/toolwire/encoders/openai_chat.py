"""Canonical events → OpenAI Chat Completions chunks (``chat.completion.chunk``).

``data: {chunk}`` messages: a first chunk with the role, content / reasoning /
tool-call deltas, a chunk with ``finish_reason``, the usage chunk (``choices: []``,
as with ``stream_options.include_usage``) and ``data: [DONE]``. A failed stream ends
with an ``error`` object and no ``[DONE]``.

A call's Gemini thought signature goes out on the call, where Gemini's OpenAI-compatible
API puts it (``extra_content.google.thought_signature``): a client that sends the call
back with it lets Gemini 3 take the next turn (toolwire's own requests read it there).

``OpenAIChatBodyEncoder``: the ``chat.completion`` object of a non-streaming request.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolwire.encoders.base import (
    LATE_SIGNATURE,
    StreamEncoder,
    arguments_text,
    sse,
    usage_or_empty,
)
from toolwire.encoders.body import WholeBodyEncoder
from toolwire.events import ReasoningSignature, StreamFinished, ToolCall, Usage
from toolwire.jsontext import dumps

_REASONS = {
    "tool_calls": "tool_calls",
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
}


def openai_usage_dict(usage: Usage) -> dict[str, Any]:
    prompt = usage.input_tokens or 0
    completion = usage.output_tokens or 0
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if usage.cache_read_tokens is not None:
        out["prompt_tokens_details"] = {"cached_tokens": usage.cache_read_tokens}
    if usage.reasoning_tokens is not None:
        out["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    return out


class OpenAIChatEncoder(StreamEncoder):
    format_name = "openai-chat"
    native_reasons: ClassVar[dict[str, frozenset[str]]] = {
        "tool_calls": frozenset({"function_call"})
    }

    def __init__(
        self,
        *,
        include_usage: bool = True,
        reasoning_field: str = "reasoning_content",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.include_usage = include_usage
        self.reasoning_field = reasoning_field  # de-facto field; vLLM also reads "reasoning"
        self._indexes: dict[int, int] = {}  # slot → tool_calls index (0, 1, … in order)
        self._text_ends: tuple[str, str] | None = None  # a text chunk around its string

    @property
    def chunk_id(self) -> str:
        return f"chatcmpl-{self.message_id}"

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> str:
        return sse(
            {
                "id": self.chunk_id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }
        )

    def _preamble(self) -> list[str]:
        return [self._chunk({"role": "assistant", "content": ""})]

    def _text(self, text: str) -> list[str]:
        # the hot path of a text stream: the chunk's fixed bytes are made once, and
        # each delta only writes its string between them (the same bytes _chunk makes)
        if self._text_ends is None:
            marker = "\u0000toolwire-text\u0000"
            # (the content is the chunk's last string: a model named so cannot confuse it)
            head, _, tail = self._chunk({"content": marker}).rpartition(dumps(marker))
            self._text_ends = (head, tail)
        head, tail = self._text_ends
        return [head + dumps(text) + tail]

    def _reasoning(self, text: str) -> list[str]:
        return [self._chunk({self.reasoning_field: text})]

    def _opaque(self, event: ReasoningSignature) -> list[str]:
        if event.kind != "thought_signature" or event.slot is None:
            return super()._opaque(event)
        if event.slot in self._indexes:  # its call's header went out already
            self.note(LATE_SIGNATURE)
        else:
            self._signatures[event.slot] = event.value  # it goes out on its call
        return []

    def _signed(self, call: dict[str, Any], slot: int) -> dict[str, Any]:
        """A call entry with its Gemini thought signature, if it has one."""
        signature = self._signatures.pop(slot, None)
        if signature is not None:
            call["extra_content"] = {"google": {"thought_signature": signature}}
        return call

    def _call_start(self, slot: int, call_id: str | None, name: str) -> list[str]:
        index = self._indexes.setdefault(slot, len(self._indexes))
        header = {
            "index": index,
            "id": self.call_id(call_id, slot, "call_"),
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        return [self._chunk({"tool_calls": [self._signed(header, slot)]})]

    def _call_args(self, slot: int, text: str) -> list[str]:
        index = self._indexes.setdefault(slot, len(self._indexes))
        return [self._chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})]

    def _call_end(self, call: ToolCall) -> list[str]:
        return []  # the chat format has no per-call end marker

    def _finish(self, finished: StreamFinished) -> list[str]:
        self._unsigned()
        out = [self._chunk({}, self.wire_reason(finished, _REASONS))]
        if self.include_usage:
            usage = usage_or_empty(finished.usage)
            out.append(
                sse(
                    {
                        "id": self.chunk_id,
                        "object": "chat.completion.chunk",
                        "created": self.created,
                        "model": self.model,
                        "choices": [],
                        "usage": openai_usage_dict(usage),
                    }
                )
            )
        out.append("data: [DONE]\n\n")
        return out

    def _fail(self, message: str) -> list[str]:
        return [sse({"error": {"message": message, "type": "upstream_error", "code": None}})]


class OpenAIChatBodyEncoder(WholeBodyEncoder, OpenAIChatEncoder):
    """The ``chat.completion`` object: one choice whose message holds the text
    (``content``, null when there is none), the reasoning (``reasoning_field``) and
    the calls (``tool_calls``, arguments as JSON text). Usage is always there."""

    def _body(self, finished: StreamFinished) -> dict[str, Any]:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": self.text_of("text") or None,
            "refusal": None,
        }
        reasoning = self.text_of("reasoning")
        if reasoning:
            message[self.reasoning_field] = reasoning
        calls = [
            self._signed(
                {
                    "id": self.call_id(call.id, call.slot, "call_"),
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments_text(call)},
                },
                call.slot,
            )
            for call in self.calls()
        ]
        self._unsigned()
        if calls:
            message["tool_calls"] = calls
        choice = {
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": self.wire_reason(finished, _REASONS),
        }
        return {
            "id": self.chunk_id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [choice],
            "usage": openai_usage_dict(usage_or_empty(finished.usage)),
        }

    def _error_body(self, message: str) -> dict[str, Any]:
        return {
            "error": {"message": message, "type": "upstream_error", "param": None, "code": None}
        }

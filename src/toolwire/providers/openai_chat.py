"""OpenAI Chat Completions streaming chunks (``chat.completion.chunk``) → assembler.

Also reads the non-streaming ``message`` shape, the legacy ``function_call`` delta and
the ``reasoning_content`` / ``reasoning`` fields that open-model servers add.
"""

from __future__ import annotations

from typing import Any

import orjson

from toolwire.events import Usage
from toolwire.providers.base import SSEWireDecoder, token_count
from toolwire.sse import SSEMessage


def openai_usage(usage: dict[str, Any]) -> Usage:
    details = usage.get("prompt_tokens_details") or {}
    out_details = usage.get("completion_tokens_details") or {}
    return Usage(
        input_tokens=token_count(usage.get("prompt_tokens")),
        output_tokens=token_count(usage.get("completion_tokens")),
        cache_read_tokens=(
            token_count(details.get("cached_tokens")) if isinstance(details, dict) else None
        ),
        reasoning_tokens=(
            token_count(out_details.get("reasoning_tokens"))
            if isinstance(out_details, dict)
            else None
        ),
    )


# the first choice: index 0, or no index at all (some servers omit or null it)
_FIRST_CHOICE = (0, None)


class OpenAIChatDecoder(SSEWireDecoder):
    format_name = "openai-chat"

    def feed(self, data: bytes | str) -> None:
        # The loop and the fast path below are inlined on purpose: an argument-only
        # chunk is the bulk of every tool-call stream, and each extra call per chunk is
        # a visible share of the cost next to orjson itself.
        fast = self.sink.fast_arguments
        loads = orjson.loads
        for message in self._sse.feed(data):
            raw = message.data
            if raw[:1] != "{":
                self.dispatch(message)  # [DONE], or not JSON: the general path decides
                continue
            try:
                chunk = loads(raw)
            except orjson.JSONDecodeError:
                self.dispatch(message)  # broken JSON, for the repair ladder
                continue
            try:
                choices = chunk["choices"]
                if len(choices) == 1 and chunk.get("usage") is None and "error" not in chunk:
                    choice = choices[0]
                    delta = choice["delta"]
                    if (
                        len(delta) == 1
                        and choice["finish_reason"] is None
                        and choice.get("index") in _FIRST_CHOICE
                    ):
                        (tc,) = delta["tool_calls"]
                        index = tc["index"]
                        function = tc["function"]
                        if len(tc) == 2 and len(function) == 1 and type(index) is int:
                            args = function["arguments"]
                            if type(args) is str and fast(index, args):
                                continue
            except Exception:
                pass  # not the common shape: the general path below decides
            if type(chunk) is not dict:
                self.sink.error("openai-chat message is not a JSON object", raw)
                continue
            try:
                self.on_chunk(chunk, raw)
            except Exception as exc:  # an unexpected shape must not end the stream
                self.sink.error(f"could not interpret openai-chat message: {exc!r}", raw)

    def on_message(self, message: SSEMessage) -> None:
        data = message.data
        if not data:
            return
        if data == "[DONE]":
            self.finished = True
            return
        chunk = self.load_json(data)
        if chunk is None:
            return
        self.on_chunk(chunk, data)

    def on_chunk(self, chunk: dict[str, Any], raw: str) -> None:
        sink = self.sink
        error = chunk.get("error")
        if error is not None:
            detail = error.get("message") if isinstance(error, dict) else error
            sink.error(f"the upstream sent an error: {detail}", raw)
            return
        choices = chunk.get("choices")
        if isinstance(choices, list):
            for choice in choices:
                if not isinstance(choice, dict):
                    continue
                if choice.get("index") not in _FIRST_CHOICE:
                    continue  # toolwire follows the first choice (n=1)
                delta = choice.get("delta")
                if delta is None:
                    delta = choice.get("message")
                if isinstance(delta, dict):
                    self.on_delta(delta)
                reason = choice.get("finish_reason")
                if reason:
                    sink.set_finish_reason(str(reason))
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            sink.set_usage(openai_usage(usage))

    def on_delta(self, delta: dict[str, Any]) -> None:
        sink = self.sink
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str):
            sink.reasoning(reasoning)
        content = delta.get("content")
        if isinstance(content, str):
            if content:
                self.text(content)
        elif isinstance(content, list):  # content parts
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    self.text(part["text"])
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self.text(refusal)
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for tc in tool_calls:
                if not isinstance(tc, dict):
                    continue
                fn = tc.get("function")
                if not isinstance(fn, dict):
                    fn = {}
                index = tc.get("index")
                sink.tool(
                    index if isinstance(index, int) else None,
                    tc.get("id") if isinstance(tc.get("id"), str) else None,
                    fn.get("name") if isinstance(fn.get("name"), str) else None,
                    fn.get("arguments"),
                )
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):
            sink.tool(0, None, legacy.get("name"), legacy.get("arguments"))

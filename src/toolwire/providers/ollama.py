"""Ollama native streaming (``/api/chat``, also ``/api/generate``) → assembler.

Newline-delimited JSON objects. Tool calls arrive whole, arguments as an object; ids
are present only on recent servers, so a missing one is replaced by a stable id.
The last object has ``"done": true`` with ``done_reason`` and the token counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.assemble import CallAssembler
from toolwire.events import Usage
from toolwire.providers.base import JsonStreamDecoder, token_count


class OllamaDecoder(JsonStreamDecoder):
    format_name = "ollama"
    stream_title = "Ollama"

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._seed: str | None = None

    def feed(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        self.feed_objects(data)

    def close(self) -> None:
        self.close_objects()

    def on_chunk(self, chunk: dict[str, Any], raw: str) -> None:
        sink = self.sink
        if self._seed is None:
            self._seed = f"{chunk.get('model', '')}:{chunk.get('created_at', '')}"
        error = chunk.get("error")
        if error is not None:
            sink.error(f"the upstream sent an error: {error}", raw)
            sink.set_finish_reason("error")
            self.finished = True
            return
        message = chunk.get("message")
        if isinstance(message, dict):
            self.on_message(message, chunk, raw)
        elif message is not None:
            self.wrong_type("message", message, "an object", raw)
        # /api/generate puts the text at the top level
        if "thinking" in chunk:
            sink.reasoning(self.string_field(chunk, "thinking", "", raw))
        if "response" in chunk:
            self.text(self.string_field(chunk, "response", "", raw))
        if chunk.get("done") is True:
            prompt = token_count(chunk.get("prompt_eval_count"))
            output = token_count(chunk.get("eval_count"))
            if prompt is not None or output is not None:
                sink.set_usage(Usage(input_tokens=prompt, output_tokens=output))
            reason = chunk.get("done_reason")
            sink.set_finish_reason(reason if isinstance(reason, str) and reason else "stop")
            self.finished = True

    def on_message(self, message: dict[str, Any], chunk: dict[str, Any], raw: str) -> None:
        """``chunk``'s ``message`` (``chunk`` read from ``raw``)."""
        if "thinking" in message:
            self.sink.reasoning(self.string_field(message, "thinking", "message", raw))
        content = message.get("content")
        if type(content) is not str:
            content = self.string_field(message, "content", "message", raw)
        if content:
            self.text(content)
        tool_calls = message.get("tool_calls")
        if not isinstance(tool_calls, list):
            if tool_calls is not None:
                self.wrong_type("message.tool_calls", tool_calls, "an array", raw)
            return
        for i, tc in enumerate(tool_calls):
            if not isinstance(tc, dict):
                self.wrong_type(f"message.tool_calls[{i}]", tc, "an object", raw)
                continue
            fn = tc.get("function")
            if not isinstance(fn, dict):
                if fn is not None:
                    self.wrong_type(f"message.tool_calls[{i}].function", fn, "an object", raw)
                fn = {}
            seed = self._seed or "ollama"
            self.whole_call(tc.get("id"), fn.get("name"), fn.get("arguments"), seed, chunk, raw)

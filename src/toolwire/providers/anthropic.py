"""Anthropic Messages streaming events → assembler."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.events import Usage
from toolwire.providers.base import SSEWireDecoder
from toolwire.providers.envelope import Role
from toolwire.sse import SSEMessage

_TOOL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")


def anthropic_usage(usage: dict[str, Any], previous: Usage | None = None) -> Usage:
    """Anthropic reports input tokens at message_start and output tokens (cumulative)
    at message_delta; merge what each says."""
    prev = previous or Usage()
    new = [usage.get(key) for key in _USAGE_KEYS]
    old = (
        prev.input_tokens,
        prev.output_tokens,
        prev.cache_read_tokens,
        prev.cache_write_tokens,
    )
    # a count the message leaves out (or sends as something else) keeps the last one
    merged = [n if isinstance(n, int) else o for n, o in zip(new, old, strict=True)]
    return Usage(
        input_tokens=merged[0],
        output_tokens=merged[1],
        cache_read_tokens=merged[2],
        cache_write_tokens=merged[3],
    )


# the wire's names of Usage's first four counts, in their order
_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


# how each delta's string is read from a parsed event (for envelope learning)
def _delta_reader(key: str) -> Callable[[Any], Any]:
    def read(event: Any) -> Any:
        return event["delta"][key]

    return read


_READ_DELTA = {key: _delta_reader(key) for key in ("text", "partial_json", "thinking")}


class AnthropicDecoder(SSEWireDecoder):
    format_name = "anthropic"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._usage: Usage | None = None
        self._tool_blocks: set[int] = set()

    def _delta(self, delta: dict[str, Any], key: str, role: Role, slot: int, raw: str) -> str:
        """A delta's string; a message read without repair also teaches its envelope."""
        value = delta.get(key)
        if type(value) is not str:
            return self.string_field(delta, key, "delta", raw)  # "", reported if not null
        if not self.repaired and (role is not Role.ARGUMENTS or slot >= 0):
            self.learn(key, value, role, slot, _READ_DELTA[key])
        return value

    def on_message(self, message: SSEMessage) -> None:
        if not message.data:
            return
        event = self.load_json(message.data)
        if event is None:
            return
        self.on_event(event.get("type") or message.event, event, message.data)

    reads_json = True

    def on_json(self, value: dict[str, Any], event: bytes | None, data: bytes) -> None:
        kind = value.get("type")
        if not kind and event is not None:
            kind = event.decode("utf-8", "replace")
        if type(kind) is str:  # ``on_event``, inlined: this is every message's way
            handler = _HANDLERS.get(kind)
            if handler is not None:
                handler(self, value, data.decode())

    def on_value(self, value: dict[str, Any]) -> None:
        kind = value.get("type")
        self.on_event(kind if isinstance(kind, str) else None, value, "")

    def on_event(self, kind: Any, event: dict[str, Any], raw: str) -> None:
        """One event of the stream (``raw``: its text, kept in error events)."""
        if type(kind) is str:
            handler = _HANDLERS.get(kind)
            if handler is not None:
                handler(self, event, raw)

    def _content_block_delta(self, event: dict[str, Any], raw: str) -> None:
        delta = event.get("delta") or {}
        dtype = delta.get("type")
        if dtype == "text_delta":
            self.text(self._delta(delta, "text", Role.TEXT, -1, raw))
        elif dtype == "input_json_delta":
            index = _index(event)
            slot = index if index is not None else -1
            text = self._delta(delta, "partial_json", Role.ARGUMENTS, slot, raw)
            self.sink.tool(index, None, None, text)
        elif dtype == "thinking_delta":
            self.sink.reasoning(self._delta(delta, "thinking", Role.REASONING, -1, raw))
        # signature_delta and citations carry nothing toolwire reports

    def _content_block_start(self, event: dict[str, Any], raw: str) -> None:
        index = _index(event)
        block = event.get("content_block") or {}
        btype = block.get("type")
        if btype in _TOOL_BLOCKS:
            if isinstance(index, int):
                self._tool_blocks.add(index)
            initial = block.get("input")
            self.sink.tool(
                index,
                block.get("id"),
                block.get("name"),
                initial if isinstance(initial, dict) and initial else None,
            )
        elif btype == "text":
            self.text(self.string_field(block, "text", "content_block", raw))
        elif btype == "thinking":
            self.sink.reasoning(self.string_field(block, "thinking", "content_block", raw))

    def _content_block_stop(self, event: dict[str, Any], raw: str) -> None:
        index = _index(event)
        if index in self._tool_blocks:
            self.sink.close_call(index=index, wait_for_finish=True)

    def _message_start(self, event: dict[str, Any], raw: str) -> None:
        usage = (event.get("message") or {}).get("usage")
        if isinstance(usage, dict):
            self._usage = anthropic_usage(usage, self._usage)
            self.sink.set_usage(self._usage)

    def _message_delta(self, event: dict[str, Any], raw: str) -> None:
        usage = event.get("usage")
        if isinstance(usage, dict):
            self._usage = anthropic_usage(usage, self._usage)
            self.sink.set_usage(self._usage)
        reason = (event.get("delta") or {}).get("stop_reason")
        if reason:
            self.sink.set_finish_reason(str(reason))

    def _message_stop(self, event: dict[str, Any], raw: str) -> None:
        self.finished = True

    def _error(self, event: dict[str, Any], raw: str) -> None:
        err = event.get("error") or {}
        detail = err.get("message", err) if isinstance(err, dict) else err
        self.sink.error(f"the upstream sent an error: {detail}", raw)
        self.sink.set_finish_reason("error")  # the turn failed; it did not "stop"
        self.finished = True


def _index(event: dict[str, Any]) -> int | None:
    index = event.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else None


# one lookup finds what an event's type means (pings and unknown types mean nothing)
_HANDLERS: dict[str, Callable[[AnthropicDecoder, dict[str, Any], str], None]] = {
    "content_block_delta": AnthropicDecoder._content_block_delta,
    "content_block_start": AnthropicDecoder._content_block_start,
    "content_block_stop": AnthropicDecoder._content_block_stop,
    "message_start": AnthropicDecoder._message_start,
    "message_delta": AnthropicDecoder._message_delta,
    "message_stop": AnthropicDecoder._message_stop,
    "error": AnthropicDecoder._error,
}

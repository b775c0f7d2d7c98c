"""Non-streaming response bodies, read as the stream that would have carried them (F34).

A ``chat.completion`` object, an Anthropic ``message`` or a Responses ``response`` is
buffered whole and, at the end of input, handed piece by piece to the same methods of
its wire's stream decoder that the stream's messages reach. Its calls therefore go
through the same assembler and finisher: repairs, coercion and cut-offs (a ``length``
finish closes the last call as truncated, F1) come out as they would from the stream.
Gemini ``generateContent`` and Ollama bodies need none of this: their stream decoders
read a whole object like one chunk. A stream's messages saved as JSON objects (JSON
lines of SDK stream events) are read as that stream.

``json_wire`` tells the five wires apart by the shape of a JSON object: a whole body,
or the first chunk of a JSON-framed stream (Gemini's array, Ollama's lines).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import orjson

from toolwire.invalid_utf8 import mark_invalid_utf8
from toolwire.providers.anthropic import AnthropicDecoder
from toolwire.providers.base import SSEWireDecoder, WireDecoder
from toolwire.providers.jsonstream import DONE, JsonObjectSplitter
from toolwire.providers.openai_chat import OpenAIChatDecoder
from toolwire.providers.openai_responses import OpenAIResponsesDecoder
from toolwire.sse import SSEMessage


def json_wire(value: dict[str, Any]) -> str | None:
    """The wire format a JSON object belongs to, from its top-level shape; None if it
    is none of them (model text that happens to be JSON)."""
    error = value.get("error")
    if value.get("type") == "error" and isinstance(error, dict):
        return "anthropic"
    if "choices" in value or str(value.get("object", "")).startswith("chat.completion"):
        return "openai-chat"
    if value.get("type") == "message" and isinstance(value.get("content"), list):
        return "anthropic"
    if value.get("object") == "response" or (
        isinstance(value.get("output"), list) and "status" in value
    ):
        return "openai-responses"
    if any(key in value for key in ("candidates", "promptFeedback", "usageMetadata")):
        return "gemini"
    if isinstance(value.get("done"), bool) and ("message" in value or "response" in value):
        return "ollama"
    if isinstance(error, str):
        return "ollama"  # Ollama's errors are bare strings
    if isinstance(error, dict):
        # Gemini's error has a status name; OpenAI's (Chat and Responses alike) a type
        return "gemini" if "status" in error else "openai-chat"
    return None


def _whole_body(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a whole response (a ``chat.completion``, an Anthropic
    ``message``, a Responses ``response``), not one message of a stream."""
    if value.get("object") in ("chat.completion", "response") or value.get("type") == "message":
        return True
    choices = value.get("choices")
    return isinstance(choices, list) and any(
        isinstance(choice, dict) and "message" in choice for choice in choices
    )


class WholeBody(WireDecoder):
    """A mixin for a stream decoder: take the input as one JSON body, read at the end.

    Nothing is read before the end: a body is not valid JSON until its last byte.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._body: list[bytes] = []

    def feed(self, data: bytes | str) -> None:
        self._body.append(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)

    def close(self) -> None:
        data = b"".join(self._body)
        self._body = []
        # bytes that are not UTF-8 are replaced and named on the call that held one
        # (F29), as the stream's messages would be
        data, marker = mark_invalid_utf8(data)
        with self.marked_bytes(marker):
            self._read(data)

    def _read(self, data: bytes) -> None:
        try:
            body = orjson.loads(data)  # (one body, read once: the common case)
        except orjson.JSONDecodeError:
            body = None
        if isinstance(body, dict):
            raw = data.decode()
        elif self._read_messages(data):
            return  # the stream decoder says whether the stream finished
        else:
            raw = data.decode("utf-8", "replace")
            body = self.load_json(raw, "response body")
        if body is None:
            self.sink.set_finish_reason("error")  # the error event says why
        else:
            # (the stream's methods get the body's pieces: an object among them is
            # found in the body, and read again from its text where orjson made a
            # float of an integer beyond 64 bits, see ``exact_arguments``)
            self._whole = (body, raw)
            try:
                self.read_body(body, raw)
            except Exception as exc:  # a body of an unexpected shape: say so, never raise
                self.sink.error(
                    f"could not interpret {self.format_name} response body: {exc!r}", raw
                )
                self.sink.set_finish_reason("error")
            finally:
                self._whole = None
        self.finished = True  # the whole body was there: nothing was dropped

    def _read_messages(self, data: bytes) -> bool:
        """Read ``data`` as a stream's messages saved as JSON objects (JSON lines of SDK
        stream events, a common way to keep a stream, or a JSON array of them) through
        the stream decoder, if it holds more than one object. False: it is no such
        input (one body, damaged or cut off, or no JSON)."""
        splitter = JsonObjectSplitter(done_lines=True)
        objects = splitter.feed(data)
        rest = splitter.close()
        if len(objects) < 2 and b"\n" not in rest:
            return False
        pieces = list(splitter.in_order(objects))
        values = _read_objects(objects)
        if values is None:
            return False  # several whole answers: never merged into one
        damaged = [raw for raw in objects if raw not in values]
        if (b"\n" in rest or any(b"\n" in raw for raw in damaged)) and _json_lines(data):
            # JSON lines with a damaged line, which took the lines after it in until
            # its braces balanced (or to the end). Read line by line, the damaged one
            # is one unreadable message and the others read as they were saved
            lined = _by_line(data)
            if lined is not None:
                lined_values = _read_objects(lined[1])
                if lined_values is None:
                    return False
                # (at least two that read: else no JSON lines, a damaged body written
                # over lines, say)
                if sum(raw in lined_values for raw in lined[1]) >= 2:
                    pieces, objects = lined
                    values = lined_values
                    rest = b""
        if len(objects) < 2:
            return False
        for raw, junk in pieces:
            if junk:
                if raw != DONE:
                    self.unexpected_text(raw, f"{self.format_name} messages")
                elif isinstance(self, SSEWireDecoder):
                    # the stream's end marker, saved with its messages: read as the
                    # stream's decoder reads the data line (Chat's end, F1)
                    self.on_message(SSEMessage(DONE.decode()))
                continue
            value = values.get(raw)
            text: bytes | str = raw  # what ``value`` was read from
            if value is None:  # (``load_json`` reports what it cannot read as an object)
                text = raw.decode("utf-8", "replace")
                value = self.load_json(text)
            if value is not None:
                self._whole = (value, text)  # (as for a body, in ``_read``)
                try:
                    self.feed_value(value)
                finally:
                    self._whole = None
        self.ended_inside_object(rest, f"{self.format_name} messages")
        return True

    @abstractmethod
    def read_body(self, body: dict[str, Any], raw: str) -> None:
        """Hand the body to the stream decoder's methods, as its stream would."""

    def upstream_error(self, error: Any, raw: str) -> None:
        detail = error.get("message", error) if isinstance(error, dict) else error
        self.sink.error(f"the upstream sent an error: {detail}", raw)
        self.sink.set_finish_reason("error")


def _read_objects(objects: list[bytes]) -> dict[bytes, Any] | None:
    """Each object orjson reads, by its bytes (each read once; the others are read
    leniently by the caller, their repairs reported); None if any is a whole body."""
    values: dict[bytes, Any] = {}
    for raw in objects:
        try:
            values[raw] = value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict) and _whole_body(value):
            return None
    return values


def _json_lines(data: bytes) -> bool:
    """Is ``data`` JSON lines: each non-blank line an object (or more) or ``[DONE]``?"""
    lines = (line.strip() for line in data.split(b"\n"))
    return all(line[:1] == b"{" or line == DONE for line in lines if line)


def _by_line(data: bytes) -> tuple[list[tuple[bytes, bool]], list[bytes]] | None:
    """``data``'s objects and junk runs as ``JsonObjectSplitter.in_order`` gives them,
    each line split on its own: an object a line leaves open (a damaged message)
    is among the objects, for the caller to report as unreadable. None where a line
    holds junk: then it is no JSON lines."""
    pieces: list[tuple[bytes, bool]] = []
    objects: list[bytes] = []
    for line in data.split(b"\n"):
        splitter = JsonObjectSplitter(done_lines=True)
        found = splitter.feed(line + b"\n")
        rest = splitter.close()
        for raw, junk in splitter.in_order(found):
            if junk and raw != DONE:
                return None
            pieces.append((raw, junk))
        objects.extend(found)
        if rest.strip():
            pieces.append((rest, False))
            objects.append(rest)
    return pieces, objects


def _as_delta(message: dict[str, Any]) -> dict[str, Any]:
    """A ``chat.completion`` message as the one delta a stream would have carried.

    Its calls get their positions as indexes (a body needs none, some servers write 0
    for every call, and a call without an id would be routed by guesswork). The legacy
    ``function_call`` beside ``tool_calls`` repeats the first of them (servers write
    both for old clients): it is dropped there, and read as the call only when it
    stands alone.
    """
    delta = dict(message)
    calls = delta.get("tool_calls")
    if isinstance(calls, list) and calls:
        delta.pop("function_call", None)
        delta["tool_calls"] = [
            {**call, "index": position} if isinstance(call, dict) else call
            for position, call in enumerate(calls)
        ]
    return delta


class OpenAIChatBodyDecoder(WholeBody, OpenAIChatDecoder):
    """A ``chat.completion`` object: each choice's ``message`` is read as its delta."""

    def read_body(self, body: dict[str, Any], raw: str) -> None:
        if body.get("error") is not None:
            self.upstream_error(body["error"], raw)
            return
        choices = body.get("choices")
        chunk: dict[str, Any] = {"usage": body.get("usage")}
        if isinstance(choices, list):
            chunk["choices"] = [
                {**choice, "delta": _as_delta(choice["message"])}
                if isinstance(choice, dict) and isinstance(choice.get("message"), dict)
                else choice
                for choice in choices
            ]
        self.on_chunk(chunk, raw)


class AnthropicBodyDecoder(WholeBody, AnthropicDecoder):
    """An Anthropic ``message``: its blocks, each started and stopped whole, then its
    stop reason, as the stream's events would bring them."""

    def read_body(self, body: dict[str, Any], raw: str) -> None:
        if body.get("type") == "error":
            self.on_event("error", body, raw)
            return
        self.on_event("message_start", {"message": body}, raw)
        content = body.get("content")
        for index, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                continue
            tool_input = block.get("input")
            self.on_event("content_block_start", {"index": index, "content_block": block}, raw)
            if (
                tool_input is not None
                and not isinstance(tool_input, dict)
                and (index in self._tool_blocks)
            ):
                # a proxy's JSON text (or other value) where the object belongs: read
                # it as the stream's input_json_delta would be, never dropped
                self.sink.tool(index, None, None, tool_input)
            self.on_event("content_block_stop", {"index": index}, raw)
        self.on_event("message_delta", {"delta": {"stop_reason": body.get("stop_reason")}}, raw)
        self.on_event("message_stop", {}, raw)


# a Responses status → the stream's terminal event for it
_TERMINALS = {
    "completed": "response.completed",
    "incomplete": "response.incomplete",
    "failed": "response.failed",
    "cancelled": "response.failed",
}


class OpenAIResponsesBodyDecoder(WholeBody, OpenAIResponsesDecoder):
    """A Responses ``response`` object: each output item as its ``output_item.done``
    event, then the terminal event its status names."""

    def read_body(self, body: dict[str, Any], raw: str) -> None:
        if body.get("object") != "response" and body.get("error") is not None:
            self.upstream_error(body["error"], raw)  # an HTTP error body, not a response
            return
        output = body.get("output")
        for index, item in enumerate(output if isinstance(output, list) else []):
            self.on_item({"output_index": index, "item": item}, raw, done=True)
        status = body.get("status")
        terminal = _TERMINALS.get(status) if isinstance(status, str) else None
        if terminal is None:
            self.sink.error(f"the response has not finished (status {status!r})", raw)
            self.sink.set_finish_reason("error")
            return
        self.on_terminal(terminal, body, raw)


# wire format → its body decoder
BODY_DECODERS: dict[str, type[WireDecoder]] = {
    "openai-chat": OpenAIChatBodyDecoder,
    "anthropic": AnthropicBodyDecoder,
    "openai-responses": OpenAIResponsesBodyDecoder,
}

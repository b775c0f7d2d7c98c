"""Anthropic Messages streaming events → assembler."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.events import Usage
from toolwire.providers.base import Raw, SSEWireDecoder, raw_text
from toolwire.providers.envelope import ARGUMENTS, REASONING, TEXT, Envelope, Role
from toolwire.sse import SSEMessage

_TOOL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")


Counts = tuple[int | None, int | None, int | None, int | None]
_NO_COUNTS: Counts = (None, None, None, None)


def merged_counts(usage: dict[str, Any], previous: Counts = _NO_COUNTS) -> Counts:
    """Anthropic reports input tokens at message_start and output tokens (cumulative)
    at message_delta; merge what each says: a count the message leaves out (or sends
    as something else) keeps the last one. (Input, output, cache read, cache write.)"""
    inputs = usage.get("input_tokens")
    outputs = usage.get("output_tokens")
    cache_read = usage.get("cache_read_input_tokens")
    cache_write = usage.get("cache_creation_input_tokens")
    # ``type(...) is int``: JSON true/false are Python bools, an int subclass, not counts
    return (
        inputs if type(inputs) is int else previous[0],
        outputs if type(outputs) is int else previous[1],
        cache_read if type(cache_read) is int else previous[2],
        cache_write if type(cache_write) is int else previous[3],
    )


# how each delta's string is read from a parsed event (for envelope learning)
def _delta_reader(key: str) -> Callable[[Any], Any]:
    def read(event: Any) -> Any:
        return event["delta"][key]

    return read


_READ_DELTA = {key: _delta_reader(key) for key in ("text", "partial_json", "thinking")}


# The envelope (``providers.envelope``) of each block's deltas as the API sends them,
# known before any is read: a block's start puts the one of its kind and index in
# place, where learning it would cost more than reading a short block's deltas the
# slow way. A delta read by it costs 7.5 K instructions, not 17 K (text) or 20-22 K
# (arguments); a block that misses it ~1-2 K more; the real captures 23-68 K less
# a stream (callgrind, bench_short_streams.py). Blocks sent otherwise (spaced JSON,
# an index past 7) are read the slow way or learned, as before; the blocks' padding
# is read as a learned envelope reads it.
def _delta_envelope(index: int, delta: str, key: str, role: Role) -> Envelope:
    prefix = (
        f'event: content_block_delta\ndata: {{"type":"content_block_delta","index":{index},'
        f'"delta":{{"type":"{delta}","{key}":"'
    )
    return Envelope(prefix.encode(), b'"}}', role, index if role is ARGUMENTS else -1)


_KNOWN_INDEXES = range(8)  # (a message seldom has more blocks; later ones learn)
_TEXT_AT = tuple(_delta_envelope(i, "text_delta", "text", TEXT) for i in _KNOWN_INDEXES)
_ARGUMENTS_AT = tuple(
    _delta_envelope(i, "input_json_delta", "partial_json", ARGUMENTS) for i in _KNOWN_INDEXES
)
_THINKING_AT = tuple(
    _delta_envelope(i, "thinking_delta", "thinking", REASONING) for i in _KNOWN_INDEXES
)
# by the type of the block whose deltas they read
_DELTA_ENVELOPES = {
    "text": _TEXT_AT,
    "thinking": _THINKING_AT,
    **dict.fromkeys(_TOOL_BLOCKS, _ARGUMENTS_AT),
}


class AnthropicDecoder(SSEWireDecoder):
    format_name = "anthropic"

    # Per-stream state, as class-level defaults that each stream replaces when it
    # changes them (no ``__init__``: a short stream pays for every call it makes).
    # The usage counts so far: the Usage is built when message_delta brings the last
    # of them, or at the end if it never came; once a stream, not once each message
    # (a frozen Usage costs ~8,500 instructions, callgrind)
    _counts: Counts = _NO_COUNTS
    _counts_handed = True
    _tool_blocks: frozenset[int] = frozenset()  # the indexes of tool-use blocks
    # most messages' first block is text at index 0, and its start is taken by a
    # compare (``idle_blocks``), which puts no envelope in place: that one is there
    _envelope: Envelope | None = _TEXT_AT[0]
    # until the stream shows it is not written as the API writes it (its first
    # message, or a delta read the slow way): the known envelopes would only miss
    _known_form = True

    def close(self) -> None:
        SSEWireDecoder.close(self)  # (not ``super()``: ~1,000 instructions less)
        if not self._counts_handed:  # message_delta has usually handed it
            self._hand_usage()

    def _hand_usage(self) -> None:
        """The counts not handed yet (callers check ``_counts_handed``)."""
        self._counts_handed = True
        self.sink.set_usage(Usage(*self._counts))

    def on_message(self, message: SSEMessage) -> None:
        if not message.data:
            return
        event = self.load_json(message.data)
        if event is None:
            return
        self.on_event(event.get("type") or message.event, event, message.data)

    reads_json = True
    # Anthropic's delta messages are small: reading one the slow way costs about half
    # of learning its envelope. Learning at once pays from 4-8 deltas; the
    # real captures (2-5 deltas of a role) were cheapest never learning. Waiting for
    # 5 costs a stream of 16 deltas a fifth more than learning at once, of 64 a
    # twelfth (bench_short_streams.py --break-even)
    learn_after = 5
    # the terminal message, and messages that pass on nothing, as the API sends them:
    # taken by a compare, not read (~6-7 K instructions each of a short stream, the
    # empty text block's start ~12 K, callgrind); any other form of them (padded,
    # spaced, another index) is read and handled as before
    end_block = b'event: message_stop\ndata: {"type":"message_stop"}'
    idle_blocks = (
        b'event: ping\ndata: {"type": "ping"}',
        # the start of an empty text block at index 0, most messages' first block (its
        # handler passes on a block's starting text, and this one has none)
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        b'"content_block":{"type":"text","text":""}}',
    )
    # the API pads its messages (all but the ping, in the cut-off capture): the two
    # above, padded, are taken by their heads once the stream's first message is padded
    padded_heads = (end_block[:-1], idle_blocks[1][:-1])

    def on_json(self, value: dict[str, Any], event: bytes | None, data: bytes) -> None:
        kind = value.get("type")
        if not kind and event is not None:
            kind = event.decode("utf-8", "replace")
        if type(kind) is str:  # ``on_event``, inlined: this is every message's way
            handler = _HANDLERS.get(kind)
            if handler is not None:
                handler(self, value, data)  # its text is decoded only for an error event

    def on_value(self, value: dict[str, Any]) -> None:
        kind = value.get("type")
        self.on_event(kind if isinstance(kind, str) else None, value, "")

    def on_event(self, kind: Any, event: dict[str, Any], raw: Raw) -> None:
        """One event of the stream (``raw``: its text, kept in error events)."""
        if type(kind) is str:
            handler = _HANDLERS.get(kind)
            if handler is not None:
                handler(self, event, raw)

    def _content_block_delta(self, event: dict[str, Any], raw: Raw) -> None:
        delta = event.get("delta") or {}
        dtype = delta.get("type")
        index: int | None = None
        if dtype == "text_delta":
            key, role = "text", TEXT
        elif dtype == "input_json_delta":
            key, role = "partial_json", ARGUMENTS
            index = event.get("index")
            if type(index) is not int:  # (a bool is not an index either)
                index = None
        elif dtype == "thinking_delta":
            key, role = "thinking", REASONING
        elif dtype == "signature_delta":  # passed on: a client sends it back unchanged
            signature = delta.get("signature")
            if type(signature) is str:
                self.sink.reasoning_signature(signature)
            return
        else:
            return  # citations carry nothing toolwire reports
        if self._known_form:
            # a delta of a kind with a known envelope read the slow way: not written as
            # the API writes it, or at an index with none. Stop trying them (each miss
            # ~1.2 K instructions, callgrind); none was learned before (learning starts
            # here). (A thinking block's closing signature, or a citation, has none)
            self._known_form = False
            self._envelope = None
        value = delta.get(key)
        learning = self.learning
        if type(value) is not str:
            # "", reported if not null (and argument text not read: its call is marked)
            if role is ARGUMENTS:
                value = self.argument_text(delta, key, "delta", raw, index)
            else:
                value = self.string_field(delta, key, "delta", raw)
        elif learning[role]:
            learning[role] -= 1
        elif not self.repaired:
            # a message read without repair teaches its envelope (arguments: of a call
            # at an index)
            slot = -1 if index is None else index
            if role is not ARGUMENTS or slot >= 0:
                self.learn(key, value, role, slot, _READ_DELTA[key])
        if role is TEXT:
            self.text(value)
        elif role is ARGUMENTS:
            if index is None or not self.sink.fast_arguments(index, value):
                self.sink.tool(index, None, None, value)
        else:
            self.sink.reasoning(value)

    def _content_block_start(self, event: dict[str, Any], raw: Raw) -> None:
        block = event.get("content_block") or {}
        btype = block.get("type")
        index = event.get("index")
        if type(index) is not int:  # (a bool is not an index)
            index = None
        elif self._known_form and index in _KNOWN_INDEXES and type(btype) is str:
            # (``type(btype)``: a list is no key)
            envelopes = _DELTA_ENVELOPES.get(btype)  # (a block of a kind with deltas)
            if envelopes is not None:
                self._envelope = envelopes[index]
        if btype == "text":  # (most blocks: tried first)
            text = block.get("text")
            if type(text) is not str:
                text = self.string_field(block, "text", "content_block", raw)
            if text:  # (a block starts empty: nothing to pass on, a call less)
                self.text(text)
        elif btype in _TOOL_BLOCKS:
            if index is not None:
                self._tool_blocks = self._tool_blocks | {index}
            initial = block.get("input")
            unreadable = ""
            if isinstance(initial, dict) and initial:  # (a whole message's, F34)
                initial, unreadable = self.exact_arguments(initial, event, raw)
            else:
                initial = None
            self.sink.tool(
                index, block.get("id"), block.get("name"), initial, unreadable=unreadable
            )
        elif btype == "thinking":
            self.sink.reasoning(self.string_field(block, "thinking", "content_block", raw))
            signature = block.get("signature")  # a whole message's block has it here
            if type(signature) is str:
                self.sink.reasoning_signature(signature)
        elif btype == "redacted_thinking":
            data = self.string_field(block, "data", "content_block", raw)
            self.sink.signature("redacted", data)

    def _content_block_stop(self, event: dict[str, Any], raw: Raw) -> None:
        # no more deltas in the envelope put in place at the block's start (the API
        # sends one block at a time): the blocks after it do not try it (~1.2 K
        # instructions each, callgrind)
        self._envelope = None
        index = event.get("index")
        if type(index) is int and index in self._tool_blocks:
            self.sink.close_call(index=index, wait_for_finish=True)

    def _message_start(self, event: dict[str, Any], raw: Raw) -> None:
        if self._known_form:
            if type(raw) is str or raw[:23] != b'{"type":"message_start"':
                # not the API's compact JSON (a proxy's spaced JSON; a message the slow
                # way reads, whose text is a str): the known envelopes would only miss
                self._known_form = False
                self._envelope = None
            else:
                # a space before its last brace (read, it is an object): the API pads
                # its messages, and the others are padded too. (Set either way: read
                # on the stream, not its class, ``_blocks`` takes ~200 instructions
                # less a block, callgrind.)
                self._pads = raw[-2] == 32
        usage = (event.get("message") or {}).get("usage")
        if isinstance(usage, dict):
            self._counts = merged_counts(usage, self._counts)
            self._counts_handed = False

    def _message_delta(self, event: dict[str, Any], raw: Raw) -> None:
        usage = event.get("usage")
        if isinstance(usage, dict):
            self._counts = merged_counts(usage, self._counts)
            self._counts_handed = False
        if not self._counts_handed:  # (``_hand_usage``, inlined: a call less a stream)
            self._counts_handed = True
            self.sink.set_usage(Usage(*self._counts))
        reason = (event.get("delta") or {}).get("stop_reason")
        if reason:
            self.sink.set_finish_reason(str(reason))

    def _message_stop(self, event: dict[str, Any], raw: Raw) -> None:
        self.finished = True

    def _error(self, event: dict[str, Any], raw: Raw) -> None:
        err = event.get("error") or {}
        detail = err.get("message", err) if isinstance(err, dict) else err
        self.sink.error(f"the upstream sent an error: {detail}", raw_text(raw))
        self.sink.set_finish_reason("error")  # the turn failed; it did not "stop"
        self.finished = True


# one lookup finds what an event's type means (pings and unknown types mean nothing)
_HANDLERS: dict[str, Callable[[AnthropicDecoder, dict[str, Any], Raw], None]] = {
    "content_block_delta": AnthropicDecoder._content_block_delta,
    "content_block_start": AnthropicDecoder._content_block_start,
    "content_block_stop": AnthropicDecoder._content_block_stop,
    "message_start": AnthropicDecoder._message_start,
    "message_delta": AnthropicDecoder._message_delta,
    "message_stop": AnthropicDecoder._message_stop,
    "error": AnthropicDecoder._error,
}
AnthropicDecoder.type_handlers = _HANDLERS  # (``on_json``'s table, for ``_blocks``)

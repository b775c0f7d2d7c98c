"""The short-stream fast paths read exactly as the general paths do.

- The common block (one ``data:`` line of a JSON object, after an ``event:`` line or
  not) is read from its bytes and handed to the type's handler (``_blocks``); the
  general path reads every block as an SSE message (``_read``: SSE fields, JSON with
  the repair ladder, ``on_message``). Any stream, cut anywhere, gives the same events.
- ``auto`` reads the common first block at once (``detect.common_first_wire``) and
  any other head line by line: a stream of one wire is recognised as that wire, as
  ``detect_format`` names it for the whole head, and reads as under its own name.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import astuple
from typing import Any
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st
from weather import WEATHER_CITY_OPTIONAL as WEATHER

from toolwire.assemble import CallAssembler
from toolwire.events import Event, Usage
from toolwire.parser import StreamParser
from toolwire.providers import base, detect_format
from toolwire.providers.anthropic import AnthropicDecoder
from toolwire.providers.base import token_count
from toolwire.providers.openai_chat import openai_usage


def framed(event: str | None, data: str) -> bytes:
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {data}".encode("utf-8", "surrogatepass")


def message(value: dict[str, Any], event: str | None = "") -> bytes:
    """A message as the wire frames it: its type on the ``event:`` line (``""``), no
    event line (None), or another one."""
    return framed(value.get("type") if event == "" else event, json.dumps(value))


TEXT_DELTA = {
    "type": "content_block_delta",
    "index": 0,
    "delta": {"type": "text_delta", "text": "a"},
}
START = message({"type": "message_start", "message": {"usage": {"input_tokens": 3}}})
STOP = message({"type": "message_stop"})  # (spaced, as json.dumps writes it)
STOP_AS_SENT = b'event: message_stop\ndata: {"type":"message_stop"}'
EMPTY_TEXT_AS_SENT = (
    b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    b'"content_block":{"type":"text","text":""}}'
)
# the first message as the API sends it, padded or not (a padded one has the padded
# terminal and idle blocks taken by their heads: ``padded_heads``)
START_AS_SENT = b'event: message_start\ndata: {"type":"message_start","message":{}}'
STARTS = st.sampled_from([START, START_AS_SENT, START_AS_SENT[:-1] + b"    }"])


def padded(block: bytes, before: bytes, after: bytes = b"") -> bytes:
    """``block`` with ``before`` in front of its last brace and ``after`` behind it."""
    return block[:-1] + before + b"}" + after


# messages of every shape the decoder meets: the common ones, odd ones (wrong types,
# no type but an event line, unknown types), and ones only the general path can read
# (Python-style JSON for the repair ladder, a lone surrogate escape, not UTF-8,
# multi-line data, comments, id/retry fields, a JSON value that is no object)
def block_start(index: Any, block: dict[str, Any]) -> bytes:
    return message({"type": "content_block_start", "index": index, "content_block": block})


def delta(index: Any, value: Any) -> bytes:
    return message({"type": "content_block_delta", "index": index, "delta": value})


def args_delta(index: Any, piece: str) -> bytes:
    return delta(index, {"type": "input_json_delta", "partial_json": piece})


def tool_block(index: Any, call_id: str) -> bytes:
    return block_start(
        index, {"type": "tool_use", "id": call_id, "name": "get_weather", "input": {}}
    )


MESSAGES = st.sampled_from(
    [
        message({"type": "ping"}),
        message({"type": "ping"}, None),
        b'event: ping\ndata: {"type":"ping"}',
        *(block_start(0, {"type": "text", "text": text}) for text in ("", "Hi", 5)),
        *(EMPTY_TEXT_AS_SENT.replace(b'"index":0', b'"index":' + i) for i in (b"0", b"1")),
        EMPTY_TEXT_AS_SENT.replace(b'""', b'"Hi"'),
        block_start(0, {"type": "text"}),
        *(delta(0, {"type": "text_delta", "text": text}) for text in ("a", None, [])),
        message(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "é"},
            },
            None,
        ),
        delta(0, "text"),
        message({"type": "content_block_delta", "index": 0}),
        tool_block(1, "t1"),
        tool_block(True, "t2"),
        *(args_delta(1, piece) for piece in ("", '{"city": "O', 'slo"}')),
        args_delta(True, "x"),
        *(message({"type": "content_block_stop", "index": index}) for index in (1, 0, True)),
        delta(2, {"type": "thinking_delta", "thinking": "hm"}),
        delta(2, {"type": "signature_delta", "signature": "s"}),
        message(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 9},
            }
        ),
        message({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
        message({"type": "unknown_kind", "x": 1}),
        message({"type": ""}, "ping"),
        message({"type": ""}, "message_stop"),
        message({"type": None}, "content_block_stop"),
        message({"type": 7}, "message_stop"),
        message({"index": 0, "delta": {"type": "text_delta", "text": "b"}}, "content_block_delta"),
        message({"type": ["content_block_stop"], "index": 1}),
        # Python-style JSON, a lone surrogate escape, bytes that are not UTF-8
        framed("content_block_delta", str(TEXT_DELTA).replace("'a'", "'py'")),
        framed("content_block_delta", json.dumps(TEXT_DELTA).replace('"a"', '"\\ud800"')),
        message(TEXT_DELTA).replace(b'"a"', b'"\xff"'),
        # data over two lines, a line that is no field, another field before them
        message(TEXT_DELTA, None).replace(b'"delta"', b'\ndata: "delta"'),
        message(TEXT_DELTA).replace(b'"delta"', b'\n"delta"'),
        b"id: 4\n" + message(TEXT_DELTA),
        b": keep-alive",
        b"retry: 100",
        b"data: [1, 2]",
        b"data: {not json",
        b"event: message_stop",
        STOP,
        STOP_AS_SENT,
        STOP_AS_SENT.replace(b'"}', b'" }'),  # padded, as the API pads some
        # the terminal and idle blocks padded (as the API pads them), and near misses
        *(
            padded(b, pad, after)
            for b in (STOP_AS_SENT, EMPTY_TEXT_AS_SENT)
            for pad, after in ((b"  ", b""), (b" \t ", b"  "), (b"", b"\t"), (b" ", b"\n"))
        ),
        padded(STOP_AS_SENT, b" }"),  # a brace too many
        padded(STOP_AS_SENT, b" x"),
        padded(EMPTY_TEXT_AS_SENT[:-1], b" ", b" }"),  # spaces between the two braces
        padded(EMPTY_TEXT_AS_SENT.replace(b'""', b'"Hi"'), b"   "),
        padded(EMPTY_TEXT_AS_SENT.replace(b'"index":0', b'"index":1'), b"   "),
        padded(message({"type": "content_block_stop", "index": 0}, ""), b"  "),
    ]
)


# argument deltas at every kind of index: the open call, a closed one, none yet
ARGUMENT_DELTAS = st.sampled_from(
    [args_delta(i, piece) for i in (1, 5) for piece in ("", '{"city": "O', 'slo"}', " {}")]
)


@contextmanager
def general_path() -> Iterator[None]:
    """Every block read as an SSE message: no common-block reading, no handler table,
    no terminal or idle block taken by its bytes."""
    with (
        mock.patch.object(AnthropicDecoder, "reads_json", False),
        mock.patch.object(AnthropicDecoder, "end_block", None),
        mock.patch.object(AnthropicDecoder, "idle_blocks", ()),
        mock.patch.object(AnthropicDecoder, "padded_heads", (b"", b"")),
    ):
        yield


def parse(data: bytes, cuts: list[int], fmt: str) -> tuple[list[Event], StreamParser]:
    """The events of ``data`` fed in the pieces ``cuts`` makes, and the parser."""
    parser = StreamParser(fmt, [WEATHER])
    bounds = [0, *sorted({c for c in cuts if c <= len(data)}), len(data)]
    events = [e for a, b in itertools.pairwise(bounds) for e in parser.feed(data[a:b])]
    return [*events, *parser.close()], parser


@settings(max_examples=400, deadline=None)
@given(
    STARTS,
    st.lists(MESSAGES, max_size=14),
    st.lists(st.integers(0, 3000), max_size=8),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
)
@example(START, [], [], "\n", False)
@example(START, [message({"type": ""}, "message_stop")], [], "\n", False)
@example(
    padded(START_AS_SENT, b" "),
    [padded(EMPTY_TEXT_AS_SENT, b"  "), padded(STOP_AS_SENT, b" \t", b" ")],
    [],
    "\n",
    False,
)
def test_the_common_block_reads_as_the_general_path_reads(
    start: bytes,
    messages: list[bytes],
    cuts: list[int],
    eol: str,
    blank_at_end: bool,
) -> None:
    blocks = [start, *messages]
    data = b"\n\n".join(blocks) + (b"\n\n" if blank_at_end else b"")
    if eol != "\n":
        data = data.replace(b"\n", eol.encode())
    fast, _ = parse(data, cuts, "anthropic")
    with general_path():
        general, _ = parse(data, cuts, "anthropic")
    assert fast == general


# the pieces of blocks for the common block's two readers
_BLOCK_ATOMS = [b"event: ", b"event:", b"data: ", b"data: {", b"data:{", b"{", b"x", b"\n", b"\r"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_BLOCK_ATOMS) | st.binary(max_size=3), max_size=12))
@example([b"event: ", b"x", b"\n", b"data: {", b"x"])
@example([b"data: {", b"x"])
@example([b"event: ", b"x", b"\n", b"data: {", b"\n"])
@example([b"event: ", b"\n", b"data: {"])
@example([b"event: ", b"x"])
def test_a_long_block_is_matched_as_the_pattern_matches_it(atoms: list[bytes]) -> None:
    """``_long_common_block`` (searches for a line end, for blocks of 4 KB and more)
    finds what ``_common_block`` (a pattern) finds, in any block: the event name and
    the data line, or nothing."""
    block = b"".join(atoms)
    found = base._common_block(block)
    assert base._long_common_block(block) == (found if found is None else found.group(0, 1, 2))
    # the same with a long value in the block's last line
    longer = block + b"y" * 5000
    found = base._common_block(longer)
    assert base._long_common_block(longer) == (found if found is None else found.group(0, 1, 2))


def test_a_padded_stream_takes_its_padded_terminal_and_idle_blocks_by_their_bytes() -> None:
    """The API's padded first message says the stream pads: its empty text block's
    start and its terminal message, padded, are taken by a compare, not read."""
    read: list[bytes] = []
    real = base._common_block

    def common_block(block: bytes) -> Any:
        read.append(block)
        return real(block)

    start = padded(START_AS_SENT, b"  ")
    blocks = [start, padded(EMPTY_TEXT_AS_SENT, b"   "), padded(STOP_AS_SENT, b" ")]
    with mock.patch.object(base, "_common_block", common_block):
        parser = StreamParser("anthropic")
        events = parser.feed(b"\n\n".join(blocks)) + parser.close()
    assert read == [start]
    decoder = parser._decoder
    assert isinstance(decoder, AnthropicDecoder) and decoder._pads and decoder.finished
    with general_path():
        assert parse(b"\n\n".join(blocks), [], "anthropic")[0] == events


def openai_chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(chunk).encode()


STREAMS = {
    "anthropic": [
        START,
        message(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
        ),
        message(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Hi"},
            }
        ),
        message({"type": "content_block_stop", "index": 0}),
        message(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 2},
            }
        ),
        STOP,
    ],
    "openai-chat": [
        openai_chunk({"role": "assistant", "content": "Hi"}),
        openai_chunk({}, "stop"),
        b"data: [DONE]",
    ],
}

# what may come before a stream's first message: SSE that carries no data
LEADS = st.lists(
    st.sampled_from([b": keep-alive", b": " + b"x" * 120, b"retry: 3000", b"id: 1"]), max_size=5
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(STREAMS)),
    LEADS,
    st.integers(0, 300),
    st.lists(st.integers(0, 2000), max_size=6),
    st.booleans(),
)
def test_auto_finds_the_wire_the_whole_head_names(
    wire: str, leads: list[bytes], padding: int, cuts: list[int], crlf: bool
) -> None:
    first, *rest = STREAMS[wire]
    if padding and first.startswith(b"data: {"):
        # a long first message: its markers may lie beyond the first look
        first = first.replace(b"data: {", b'data: {"pad": "' + b"p" * padding + b'", ', 1)
    data = b"\n\n".join([*leads, first, *rest]) + b"\n\n"
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    events, parser = parse(data, cuts, "auto")
    assert parser.format == wire == detect_format(data.decode())
    named, _ = parse(data, cuts, wire)
    assert events == named


@contextmanager
def no_fast_arguments() -> Iterator[None]:
    """Every argument delta takes the assembler's full path (``tool``)."""
    with mock.patch.object(CallAssembler, "fast_arguments", lambda *args: False):
        yield


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(MESSAGES, ARGUMENT_DELTAS), max_size=14), st.lists(st.integers(0, 3000)))
@example([args_delta(1, "")], [])
@example([tool_block(1, "t1"), args_delta(1, ""), args_delta(1, '{"city": "O')], [])
def test_argument_deltas_read_as_the_full_path_reads(
    messages: list[bytes], cuts: list[int]
) -> None:
    data = b"\n\n".join([START, *messages])
    fast, _ = parse(data, cuts, "anthropic")
    with no_fast_arguments():
        general, _ = parse(data, cuts, "anthropic")
    assert fast == general


class Count(int):
    """An int subclass, as an SDK could hand over a count."""


COUNTS = st.one_of(
    st.none(),
    st.integers(-5, 10**20),
    st.booleans(),
    st.floats(allow_nan=False),
    st.text(max_size=2),
    st.builds(Count, st.integers(0, 100)),
    st.just({"cached_tokens": 1}),
)
USAGES = st.dictionaries(
    st.sampled_from(["prompt_tokens", "completion_tokens", "total_tokens"]), COUNTS
).flatmap(
    lambda counts: st.builds(
        lambda details, more: {
            **counts,
            **({} if details is None else {"prompt_tokens_details": details}),
            **({} if more is None else {"completion_tokens_details": more}),
        },
        st.one_of(st.none(), COUNTS, st.dictionaries(st.just("cached_tokens"), COUNTS)),
        st.one_of(st.none(), COUNTS, st.dictionaries(st.just("reasoning_tokens"), COUNTS)),
    )
)


@settings(max_examples=300, deadline=None)
@given(USAGES)
@example({"prompt_tokens": True, "completion_tokens": Count(3)})
def test_openai_usage_takes_the_counts_token_count_takes(usage: dict[str, Any]) -> None:
    """``openai_usage`` reads a plain int or None without ``token_count``'s call: the
    same counts as reading every one through it."""
    details = usage.get("prompt_tokens_details")
    more = usage.get("completion_tokens_details")
    expected = Usage(
        token_count(usage.get("prompt_tokens")),
        token_count(usage.get("completion_tokens")),
        token_count(details.get("cached_tokens")) if isinstance(details, dict) else None,
        None,
        token_count(more.get("reasoning_tokens")) if isinstance(more, dict) else None,
    )
    found = openai_usage(usage)
    assert found == expected
    # the same objects, not only equal ones (a bool is never a count; a subclass kept)
    assert [type(v) for v in astuple(found)] == [type(v) for v in astuple(expected)]

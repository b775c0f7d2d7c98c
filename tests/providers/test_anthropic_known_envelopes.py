"""Anthropic's delta envelopes known in advance (``providers.anthropic``: each block's
start puts the envelope of its deltas in place, the text block at index 0 has its
envelope from the start) read every stream exactly as the slow way reads it: the same
calls (arguments, raw text, statuses, repairs), text, reasoning, usage, errors and
finish, however the stream is split. Only argument deltas read in one ``feed`` may come
out as fewer events, as with learned envelopes."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st
from weather import WEATHER_CITY_OPTIONAL as WEATHER

from toolwire.events import ArgumentsDelta, Event, ReasoningDelta, StreamResult, TextDelta
from toolwire.parser import StreamParser
from toolwire.providers import anthropic
from toolwire.providers.anthropic import AnthropicDecoder
from toolwire.providers.base import SSEWireDecoder

CAPTURES = Path(anthropic.__file__).resolve().parents[1] / "data" / "demo" / "real" / "anthropic"
REAL = ["basic_response.sse", "tool_use_response.sse", "incomplete_partial_json_response.sse"]


@contextmanager
def slow_way() -> Iterator[None]:
    """No envelope known in advance, none learned: every block read the slow way."""
    unknown = (None,) * len(anthropic._KNOWN_INDEXES)
    with (
        mock.patch.object(AnthropicDecoder, "_envelope", None),
        mock.patch.object(anthropic, "_TEXT_AT", unknown),
        mock.patch.object(anthropic, "_ARGUMENTS_AT", unknown),
        mock.patch.object(anthropic, "_THINKING_AT", unknown),
        mock.patch.object(SSEWireDecoder, "learn", lambda *args, **kwargs: None),
    ):
        yield


def parse(data: bytes, cuts: list[int]) -> tuple[list[Event], StreamParser]:
    parser = StreamParser("anthropic", [WEATHER])
    bounds = [0, *sorted({c for c in cuts if c <= len(data)}), len(data)]
    events = [e for a, b in itertools.pairwise(bounds) for e in parser.feed(data[a:b])]
    return [*events, *parser.close()], parser


def reading(events: list[Event]) -> tuple[list[Event], dict[int, str]]:
    """Every event but the argument deltas, in order, with text (and reasoning) deltas
    that follow each other as one (an envelope hands on the text of one feed as one
    delta), and each slot's argument text."""
    args: dict[int, str] = {}
    others: list[Event] = []
    for e in events:
        if isinstance(e, ArgumentsDelta):
            args[e.slot] = args.get(e.slot, "") + e.text
        elif others and isinstance(e, TextDelta) and isinstance(last := others[-1], TextDelta):
            others[-1] = TextDelta(last.text + e.text)
        elif (
            others
            and isinstance(e, ReasoningDelta)
            and isinstance(last := others[-1], ReasoningDelta)
            and not last.signature
        ):
            others[-1] = ReasoningDelta(last.text + e.text, e.signature)
        else:
            others.append(e)
    return others, args


def assert_read_as_the_slow_way(data: bytes, cuts: list[int]) -> list[Event]:
    fast, _ = parse(data, cuts)
    with slow_way():
        slow, _ = parse(data, cuts)
    assert reading(fast) == reading(slow)
    return fast


def compact(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def frame(value: dict[str, Any], padding: int = 0) -> bytes:
    """A message as the API frames it: compact JSON, padded before its last brace."""
    data = compact(value)
    if padding:
        data = data[:-1] + " " * padding + "}"
    return f"event: {value['type']}\ndata: {data}".encode("utf-8", "surrogatepass")


# delta strings that hit every decision: escapes, quotes, the envelope's own suffix,
# non-ASCII, a lone surrogate, values that open or repeat what came (F3, F7), empty
PIECES = st.sampled_from(
    [
        "",
        "Hi",
        " there",
        '{"city": "',
        "Os",
        "lo",
        '"}',
        '"}}',
        "{",
        '{"city": "Os',
        '\\"',
        "\\",
        "é世🌍",
        "\n\t",
        "\ud800",
        " {}",
    ]
)

DELTA_KINDS = {
    "text": ("text_delta", "text"),
    "tool_use": ("input_json_delta", "partial_json"),
    "thinking": ("thinking_delta", "thinking"),
}


def block_start(kind: str, index: int) -> dict[str, Any]:
    block: dict[str, Any] = {"type": kind}
    if kind == "text":
        block["text"] = ""
    elif kind == "thinking":
        block["thinking"] = ""
    else:
        block.update(id=f"toolu_{index}", name="get_weather", input={})
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(kind: str, index: int, piece: str) -> dict[str, Any]:
    dtype, key = DELTA_KINDS[kind]
    return {"type": "content_block_delta", "index": index, "delta": {"type": dtype, key: piece}}


# one step of a stream: a block of a kind opened at an index (or the next one), a
# delta of a kind at an index (the open block's, or another), or another message
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("start"), st.sampled_from(list(DELTA_KINDS)), st.integers(-1, 9)),
        st.tuples(
            st.just("delta"), st.sampled_from([*DELTA_KINDS, None]), st.integers(-1, 9), PIECES
        ),
        st.tuples(st.just("stop"), st.integers(-1, 9)),
        st.tuples(
            st.just("raw"),
            st.sampled_from(
                [
                    b'event: ping\ndata: {"type": "ping"}',
                    b'event: content_block_delta\ndata: {"type":"content_block_delta",'
                    b'"index":0,"delta":{"type":"text_delta","text":"\xff"}}',
                    b'event: content_block_delta\ndata: {"type":"content_block_delta",'
                    b'"index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}',
                    b'event: content_block_delta\ndata: {"type":"content_block_delta",'
                    b'"index":1,"delta":{"type":"input_json_delta","partial_json":5}}',
                    b'event: content_block_delta\ndata: {"type":"content_block_delta",'
                    b'"index":1,"delta":{"type":"input_json_delta","partial_json":"a"}} x',
                    b'event: content_block_delta\ndata: {"type":"content_block_delta",'
                    b'"index":0,"delta":{"type":"text_delta","text":"a"}}\nid: 3',
                    b'event: content_block_delta\ndata: {"type":"content_block_delta",'
                    b'"index":0,"delta":{"type":"text_delta","text":\'py\'}}',
                    b'event: content_block_delta\ndata: {"type":"content_block_delta",'
                    b'"index":2,"delta":{"type":"signature_delta","signature":"s"}}',
                    b'event: content_block_delta\ndata: {"type": "content_block_delta", '
                    b'"index": 1, "delta": {"type": "input_json_delta", "partial_json": "x"}}',
                    b'event: error\ndata: {"type":"error","error":{"message":"busy"}}',
                    b'event: message_start\ndata: {"type": "message_start", "message": {}}',
                ]
            ),
        ),
    ),
    max_size=24,
)


def stream(
    steps: list[tuple[Any, ...]],
    paddings: list[int],
    reason: str,
    whole: bool,
    spaced_start: bool = False,
) -> bytes:
    """The stream of ``steps`` as the API writes it; ``spaced_start``: its first
    message as a proxy may write it (spaced JSON: not the API's form)."""
    messages: list[bytes] = []
    pad = itertools.cycle(paddings or [0])
    opened = -1  # the last block opened
    kind = "text"

    def add(value: dict[str, Any]) -> None:
        messages.append(frame(value, next(pad)))

    start = {"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}
    if spaced_start:
        messages.append(f"event: message_start\ndata: {json.dumps(start)}".encode())
    else:
        add(start)
    for step in steps:
        if step[0] == "start":
            kind, index = step[1], step[2]
            opened = opened + 1 if index < 0 else index
            add(block_start(kind, opened))
        elif step[0] == "delta":
            index = opened if step[2] < 0 else step[2]
            add(delta(step[1] or kind, index, step[3]))
        elif step[0] == "stop":
            add({"type": "content_block_stop", "index": opened if step[1] < 0 else step[1]})
        else:
            messages.append(step[1])
    if whole:
        add(
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason},
                "usage": {"output_tokens": 9},
            }
        )
        add({"type": "message_stop"})
    return b"\n\n".join(messages) + b"\n\n"


TOOL_CALL = [
    ("start", "text", -1),
    ("delta", None, -1, "Hi"),
    ("stop", -1),
    ("start", "tool_use", -1),
    ("delta", None, -1, ""),
    ("delta", None, -1, '{"city": "'),
    ("delta", None, -1, "Os"),
    ("delta", None, -1, "lo"),
    ("delta", None, -1, '"}'),
    ("stop", -1),
]


@settings(max_examples=400, deadline=None)
@given(
    STEPS,
    st.lists(st.integers(0, 4), max_size=3),
    st.sampled_from(["tool_use", "end_turn", "max_tokens"]),
    st.booleans(),
    st.lists(st.integers(0, 4000), max_size=8),
    st.booleans(),
)
@example(TOOL_CALL, [], "tool_use", True, [], False)
@example(TOOL_CALL, [3, 0, 7], "max_tokens", True, [], False)
@example(TOOL_CALL[:-2], [], "max_tokens", False, [1, 200, 201], False)
@example(TOOL_CALL, [], "tool_use", True, [], True)
def test_known_envelopes_read_as_the_slow_way(
    steps: list[tuple[Any, ...]],
    paddings: list[int],
    reason: str,
    whole: bool,
    cuts: list[int],
    spaced_start: bool,
) -> None:
    assert_read_as_the_slow_way(stream(steps, paddings, reason, whole, spaced_start), cuts)


def test_the_real_captures_read_as_the_slow_way_in_any_split() -> None:
    for name in REAL:
        data = (CAPTURES / name).read_bytes()
        for size in (1, 7, 64, len(data)):
            assert_read_as_the_slow_way(data, list(range(size, len(data), size)))


def test_the_deltas_are_read_by_the_known_envelopes() -> None:
    """The envelopes are used: a capture's text and argument deltas take them."""
    parser = StreamParser("anthropic", [WEATHER])
    data = stream(TOOL_CALL, [], "tool_use", True)
    events = parser.feed(data) + parser.close()
    decoder = parser._decoder
    assert isinstance(decoder, AnthropicDecoder)
    assert decoder._hits == 6  # one text delta, five argument deltas
    assert decoder._learned == 0
    # the argument deltas of one feed: one event
    assert [e.text for e in events if isinstance(e, ArgumentsDelta)] == ['{"city": "Oslo"}']


def test_a_block_of_no_known_type_starts_nothing() -> None:
    """A block whose type is another JSON value (unhashable ones too) is skipped, as
    before envelopes were put in place by type."""
    for btype in ([1], {"a": 1}, 5, None, "image"):
        start = {"type": "content_block_start", "index": 0, "content_block": {"type": btype}}
        data = stream([("raw", frame(start))], [], "end_turn", True)
        events = assert_read_as_the_slow_way(data, [])
        result = StreamResult.collect(events)
        assert result.errors == [] and result.calls == [] and result.text == ""


def test_a_stream_not_in_the_api_form_stops_trying_the_known_envelopes() -> None:
    """A spaced first message, or a delta the known envelope missed, takes it away and
    puts none in place at later blocks' starts (each would only miss)."""
    spaced = {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": "{}"},
    }
    for data in (
        stream(TOOL_CALL, [], "tool_use", True, spaced_start=True),
        stream(
            [*TOOL_CALL[:4], ("raw", f"event: x\ndata: {json.dumps(spaced)}".encode())],
            [],
            "tool_use",
            True,
        ),
    ):
        parser = StreamParser("anthropic", [WEATHER])
        parser.feed(data)
        parser.close()
        decoder = parser._decoder
        assert isinstance(decoder, AnthropicDecoder)
        assert not decoder._known_form
        assert decoder._envelope is None
        assert_read_as_the_slow_way(data, [])


def test_a_thinking_blocks_signature_keeps_the_known_envelopes() -> None:
    """The API closes every thinking block with a ``signature_delta`` (and may send
    citations in a text block): deltas of no known envelope, read the slow way, that
    say nothing about the stream's form (review 10: they turned the envelopes off)."""
    signature = delta("thinking", 0, "")
    signature["delta"] = {"type": "signature_delta", "signature": "c2ln"}
    steps = [
        ("start", "thinking", -1),
        ("delta", None, -1, "Let me think"),
        ("raw", frame(signature)),
        ("stop", -1),
        *TOOL_CALL,
    ]
    data = stream(steps, [], "tool_use", True)
    parser = StreamParser("anthropic", [WEATHER])
    parser.feed(data)
    parser.close()
    decoder = parser._decoder
    assert isinstance(decoder, AnthropicDecoder)
    assert decoder._known_form
    assert decoder._hits == 7  # the thinking delta, the text delta, five argument deltas
    assert_read_as_the_slow_way(data, [])

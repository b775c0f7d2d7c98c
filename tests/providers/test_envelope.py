"""Envelopes: blocks recognised by their bytes read exactly as the slow way reads them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from weather import WEATHER_CITY_OPTIONAL as WEATHER

from toolwire.events import ArgumentsDelta, Event, ReasoningDelta, StreamResult, TextDelta
from toolwire.parser import StreamParser
from toolwire.providers import base
from toolwire.providers.anthropic import AnthropicDecoder
from toolwire.providers.base import SSEWireDecoder
from toolwire.providers.envelope import (
    Envelope,
    Role,
    learn_envelope,
    obfuscation_end,
    padded_token,
)
from toolwire.providers.openai_chat import OpenAIChatDecoder


def openai_block(args: str, created: int = 1) -> bytes:
    chunk = {
        "id": "c",
        "created": created,
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": 0, "function": {"arguments": args}}]},
                "finish_reason": None,
            }
        ],
    }
    return b"data: " + json.dumps(chunk).encode()


def read_arguments(chunk: Any) -> Any:
    return chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]


def learn(block: bytes, value: str) -> Envelope | None:
    return learn_envelope(block, "arguments", value, Role.ARGUMENTS, 0, read_arguments)


def learned(block: bytes, value: str) -> Envelope:
    envelope = learn(block, value)
    assert envelope is not None
    return envelope


def reference_learn(block: bytes, value: str) -> tuple[bytes, bytes] | None:
    """What ``learn`` must find, the plain way: the block's lines one by one, the
    string's end by walking its characters, and the probe read every time. The ends
    around the string, or None."""
    *head, line = block.split(b"\n")
    if not line.startswith(b"data:"):
        return None
    if any(h.startswith((b"data", b"id", b"retry")) for h in head):
        return None  # another data line, or a line that sets state
    token = b'"arguments"'
    if block.count(token) != 1 or line.count(token) != 1:
        return None
    after = line.index(token) + len(token)
    colon = line[after:].lstrip(b" \t")
    if not colon.startswith(b":"):
        return None
    rest = colon[1:].lstrip(b" \t")
    if not rest.startswith(b'"'):
        return None
    start = len(line) - len(rest)  # the opening quote, in the line
    i = start + 1
    while i < len(line) and line[i : i + 1] != b'"':
        i += 2 if line[i : i + 1] == b"\\" else 1
    if i >= len(line) - 1:
        return None  # no closing quote, or nothing after it
    try:
        if json.loads(line[start : i + 1]) != value:
            return None
    except ValueError:
        return None
    data = line[5:].removeprefix(b" ")
    cut = len(line) - len(data)
    probed = data[: start - cut] + json.dumps("\x00probe").encode() + data[i + 1 - cut :]
    try:
        if read_arguments(json.loads(probed)) != "\x00probe":
            return None
    except Exception:
        return None
    offset = len(block) - len(line)
    return block[: offset + start + 1], block[offset + i :]


def unpadded(suffix: bytes) -> bytes:
    """An envelope keeps its suffix without the spaces around a final brace."""
    return Envelope(b'"', suffix, Role.TEXT, 0).suffix


def test_an_envelope_reads_any_string_in_the_same_bytes() -> None:
    envelope = learned(openai_block('{"ci'), '{"ci')
    for value in ['ty": ', "", '\\"', "é世\n\t", "\\", '"}', "🌍", "a" * 5000]:
        assert envelope.read(openai_block(value)) == value


def test_an_envelope_rejects_other_bytes() -> None:
    envelope = learned(openai_block("x"), "x")
    assert envelope.read(openai_block("x", created=2)) is None  # another envelope
    # the same ends around something that is not one string token
    block = openai_block("x")
    start = block.index(b'"x"')
    assert envelope.read(block[:start] + b'"a", "b": "c"' + block[start + 3 :]) is None
    assert envelope.read(block[:start] + b'"a\\"' + block[start + 3 :]) is None
    assert envelope.read(block[:start] + b'"\xff"' + block[start + 3 :]) is None  # not UTF-8
    assert envelope.read(envelope.prefix[:-1] + envelope.suffix[1:]) is None  # ends overlap


def test_nothing_is_learned_from_an_ambiguous_block() -> None:
    block = openai_block("a")
    twice = block[:-2] + b', "x": {"arguments": "a"}}'
    assert learn(twice, "a") is None
    assert learn(b'event: "arguments": "a"\ndata: {"y": 1}', "a") is None
    assert learn(b'data: {"z": 1,\ndata: "arguments": "a"}', "a") is None
    assert learn(block, "b") is None
    assert learn(b'data: {"arguments": "a"', "a") is None  # nothing after the string
    assert learn(b"id: 7\n" + block, "a") is None
    assert learn(b"event: x\n" + block, "a") is not None
    # the key the parser read is written with an escape; the bytes found are a decoy
    escaped = block.replace(b'"arguments"', b'"argum\\u0065nts"')[:-2]
    assert learn(escaped + b', "x": {"arguments": "a"}}', "a") is None


EXTRA_KEYS = st.sampled_from(["arguments", "x", 'a"b', "a\\b", "é", "argumentsx"])
EXTRA_VALUES = st.one_of(
    st.text(alphabet='ab"\\é\n', max_size=6),
    st.integers(),
    st.dictionaries(EXTRA_KEYS, st.text(alphabet='a"\\', max_size=3), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet='ab{}"\\é\n', max_size=8),
    st.dictionaries(EXTRA_KEYS, EXTRA_VALUES, max_size=3),
    st.dictionaries(EXTRA_KEYS, EXTRA_VALUES, max_size=3),
    st.booleans(),
    st.integers(0, 3),
    st.sampled_from([b"", b"event: x\n", b"id: 1\n", b"event: x\nretry: 5\n"]),
    st.sampled_from(["", "top", "nested"]),
    st.booleans(),
)
def test_learning_without_the_probe_learns_what_the_probe_would(
    args: str,
    top: dict[str, Any],
    function: dict[str, Any],
    ascii_only: bool,
    escape_at: int,
    head: bytes,
    decoy: str,
    top_last: bool,
) -> None:
    """Data with no backslash outside the string found skips the probe: it must learn
    exactly what the probe would, and never from a decoy member (before the member
    read or after it)."""
    if decoy == "top":
        top = {**top, "arguments": args}  # the same value under the same key elsewhere
    elif decoy == "nested":
        top = {**top, "x": {"arguments": args}}
    choices = [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {**function}}]}}]
    chunk: dict[str, Any] = {"choices": choices, **top} if top_last else {**top, "choices": choices}
    chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = args
    data = json.dumps(chunk, ensure_ascii=ascii_only).encode()
    keys = [i for i in range(len(data)) if data.startswith(b'"arguments"', i)]
    if escape_at < len(keys):  # one key written with an escape: the same key to JSON
        i = keys[escape_at]
        data = data[:i] + b'"argum\\u0065nts"' + data[i + 11 :]
    block = head + b"data: " + data
    try:
        value = read_arguments(json.loads(data))
    except (KeyError, TypeError):
        return  # the decoder would not have read this value there
    found = learn(block, value)
    probed = reference_learn(block, value)  # the probe read every time
    assert (found is None) == (probed is None)
    if found is not None and probed is not None:
        assert (found.prefix, found.suffix) == (probed[0], unpadded(probed[1]))
        assert found.read(block) == value


@contextmanager
def no_envelopes() -> Iterator[None]:
    with mock.patch.object(SSEWireDecoder, "learn", lambda *args, **kwargs: None):
        yield


@contextmanager
def learning_at_once() -> Iterator[None]:
    """Every decoder learns envelopes from its first delta (a wire may wait for more)."""
    with mock.patch.object(AnthropicDecoder, "learn_after", 0):
        yield


@contextmanager
def runs_checked_at_once() -> Iterator[None]:
    """Every run of argument deltas read by an envelope is checked as it is handed on
    (``SSEWireDecoder._hand_run``), whatever the call's text so far (only past 4096
    characters otherwise)."""
    with mock.patch.object(base, "_BATCH_ROOM", -2):
        yield


def parse(data: bytes, cuts: list[int], fmt: str) -> tuple[StreamResult, list[Event]]:
    parser = StreamParser(fmt, [WEATHER])
    events: list[Event] = []
    start = 0
    for cut in [*sorted({c for c in cuts if c <= len(data)}), len(data)]:
        events.extend(parser.feed(data[start:cut]))
        start = cut
    events.extend(parser.close())
    return StreamResult.collect(events), events


def streamed_text(events: list[Event]) -> tuple[dict[int, str], str, str, int]:
    """What the delta events say, joined: envelopes may hand text over in fewer events;
    and how many argument deltas say nothing (an empty delta read is none)."""
    args: dict[int, str] = {}
    empty = 0
    for e in events:
        if isinstance(e, ArgumentsDelta):
            args[e.slot] = args.get(e.slot, "") + e.text
            empty += not e.text
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    return args, text, reasoning, empty


# delta strings chosen to hit every decision: values that open ({, [) or repeat what
# came so far (snapshots), escapes, quotes, non-ASCII, empty
PIECES = st.sampled_from(
    [
        '{"city": "',
        "Os",
        "lo",
        '"}',
        "{",
        "[",
        ' {"city": "B"}',
        "\n[",
        "\u00a0{",
        '\\"',
        "\\\\",
        "é",
        "\n",
        "",
        " ",
        '{"city": "Os',
    ]
)


def openai_stream(steps: list[tuple[int, str, int]]) -> bytes:
    out = []
    header = {"index": 0, "id": "c0", "type": "function", "function": {"name": "get_weather"}}
    first = {"role": "assistant", "tool_calls": [header]}
    out.append({"choices": [{"index": 0, "delta": first, "finish_reason": None}]})
    for kind, piece, created in steps:
        if kind == 0:
            delta: dict[str, Any] = {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
        elif kind == 1:
            delta = {"tool_calls": [{"index": 1, "id": "c1", "function": {"name": "get_weather"}}]}
        elif kind == 2:
            delta = {"tool_calls": [{"index": 1, "function": {"arguments": piece}}]}
        elif kind == 3:
            delta = {"content": piece}
        else:
            delta = {"reasoning_content": piece}
        chunk = {
            "created": created,
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
        out.append(chunk)
    out.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in out) + "data: [DONE]\n\n").encode()


def anthropic_stream(steps: list[tuple[int, str, int]]) -> bytes:
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {"usage": {}}}]
    block = -1
    open_kind = None
    for kind, piece, _ in steps:
        want = "tool_use" if kind in (0, 1, 2) else "text" if kind == 3 else "thinking"
        if open_kind != want or kind == 1:
            if block >= 0:
                events.append({"type": "content_block_stop", "index": block})
            block += 1
            open_kind = want
            start: dict[str, Any] = {"type": want}
            if want == "tool_use":
                start.update(id=f"t{block}", name="get_weather", input={})
            events.append({"type": "content_block_start", "index": block, "content_block": start})
        if want == "tool_use":
            delta = {"type": "input_json_delta", "partial_json": piece}
        elif want == "text":
            delta = {"type": "text_delta", "text": piece}
        else:
            delta = {"type": "thinking_delta", "thinking": piece}
        events.append({"type": "content_block_delta", "index": block, "delta": delta})
    if block >= 0:
        events.append({"type": "content_block_stop", "index": block})
    events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}})
    events.append({"type": "message_stop"})
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


STEPS = st.lists(
    st.tuples(st.sampled_from([0, 0, 0, 0, 1, 2, 3, 4]), PIECES, st.sampled_from([1, 1, 1, 1, 2])),
    max_size=40,
)


def assert_envelopes_change_nothing(
    steps: list[tuple[int, str, int]],
    cuts: list[int],
    anthropic: bool,
    spaces: tuple[int, ...] | list[int] = (),
    obfuscations: list[bytes] | None = None,
) -> None:
    """The stream of ``steps`` (its messages padded by ``spaces`` if any, and given
    ``obfuscations`` as OpenAI's API gives its own), cut at ``cuts``, reads the same
    with and without envelopes."""
    fmt, data = (
        ("anthropic", anthropic_stream(steps))
        if anthropic
        else ("openai-chat", openai_stream(steps))
    )
    if spaces:
        data = pad(data, spaces)
    if obfuscations:
        data = obfuscate(data, obfuscations)
    with no_envelopes():
        slow, slow_events = parse(data, cuts, fmt)
    with learning_at_once():
        fast, fast_events = parse(data, cuts, fmt)
    assert fast.to_dict() == slow.to_dict()
    assert streamed_text(fast_events) == streamed_text(slow_events)
    with learning_at_once(), runs_checked_at_once():
        fast, fast_events = parse(data, cuts, fmt)
    assert fast.to_dict() == slow.to_dict()
    assert streamed_text(fast_events) == streamed_text(slow_events)
    later, later_events = parse(data, cuts, fmt)  # learning as late as the wire waits
    assert later.to_dict() == slow.to_dict()
    assert streamed_text(later_events) == streamed_text(slow_events)


# a second value opened after a whole one (F3), and a snapshot repeating the text (F7)
SECOND_VALUE = [(0, '{"city": "', 1), (0, "Os", 1), (0, '"}', 1), (0, "{", 1), (0, "}", 1)]
SPACED_VALUE = [(0, '{"city": "Oslo"}', 1), (0, ' {"city":"B"}', 1)]
SNAPSHOT = [(0, "{", 1), (0, '"city": "', 1), (0, "lo", 1), (0, '{"city": "lo', 1), (0, '"}', 1)]


@settings(max_examples=300, deadline=None)
@given(STEPS, st.lists(st.integers(0, 6000), max_size=12), st.booleans())
@example(SECOND_VALUE, [], False)
@example(SECOND_VALUE, [], True)
@example(SPACED_VALUE, [], False)
@example(SPACED_VALUE, [], True)
@example(SNAPSHOT, [], False)
@example(SNAPSHOT, [], True)
def test_envelopes_change_nothing_but_the_grouping_of_deltas(
    steps: list[tuple[int, str, int]], cuts: list[int], anthropic: bool
) -> None:
    assert_envelopes_change_nothing(steps, cuts, anthropic)


def test_envelopes_are_used_and_coalesce_argument_deltas() -> None:
    steps = [(0, '{"city": "', 1)] + [(0, "Os", 1), (0, "lo", 1)] * 50 + [(0, '"}', 1)]
    data = openai_stream(steps)
    parser = StreamParser("openai-chat", [WEATHER])
    events = parser.feed(data) + parser.close()
    deltas = [e for e in events if isinstance(e, ArgumentsDelta)]
    assert len(deltas) < 5  # one per run of recognised blocks, not one per block
    decoder = parser._decoder
    assert isinstance(decoder, SSEWireDecoder)
    blocks = len(steps) + 3  # the header, the steps, the finish and [DONE]
    assert blocks - decoder._hits < 10  # nearly every block was recognised by its bytes
    assert StreamResult.collect(events).calls[0].arguments == {"city": "Oslo" * 50}


def test_a_server_that_changes_every_message_stops_the_learning() -> None:
    steps = [(0, '{"city": "', 1)] + [(0, "x", created) for created in range(100, 300)]
    parser = StreamParser("openai-chat", [WEATHER])
    parser.feed(openai_stream([*steps, (0, '"}', 1)]))
    decoder = parser._decoder
    assert isinstance(decoder, SSEWireDecoder)
    assert decoder._learned <= 6


def test_text_read_by_envelope_reaches_a_text_format_extractor_the_same() -> None:
    body = (
        'Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo \\"x\\""}}'
        '\n</tool_call> then <tool_call>{"name":"get_weather","arguments":{"city":"B"}}</tool_call>'
    )
    for size in (1, 3, 5):
        pieces = [body[i : i + size] for i in range(0, len(body), size)]
        chunks = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        results = []
        for learning in (nullcontext(), no_envelopes()):
            parser = StreamParser("openai-chat", [WEATHER], text_format="hermes")
            with learning:
                events = parser.feed(data.encode()) + parser.close()
            results.append(StreamResult.collect(events).to_dict())
            if isinstance(learning, nullcontext):
                assert isinstance(parser._decoder, SSEWireDecoder)
                assert parser._decoder._hits > len(pieces) // 2
        assert results[0] == results[1]
        calls = results[0]["calls"]
        assert [c["arguments"] for c in calls] == [{"city": 'Oslo "x"'}, {"city": "B"}]


def pad(data: bytes, spaces: tuple[int, ...] | list[int]) -> bytes:
    """Each data line padded as Anthropic's API pads it: spaces before the object's
    last brace (a varying number per message), and some after it."""
    lines = data.split(b"\n")
    n = 0
    for i, line in enumerate(lines):
        if line.startswith(b"data: {") and line.endswith(b"}"):
            before, after = spaces[n % len(spaces)], spaces[(n + 1) % len(spaces)] % 3
            lines[i] = line[:-1] + b" " * before + b"}" + b"\t " * after
            n += 1
    return b"\n".join(lines)


def test_a_padded_envelope_reads_blocks_padded_otherwise() -> None:
    envelope = learned(openai_block("x")[:-1] + b"       }", "x")
    assert envelope.read(openai_block("Oslo")) == "Oslo"
    assert envelope.read(openai_block("Oslo")[:-1] + b" }") == "Oslo"
    assert envelope.read(openai_block("Oslo") + b"  \t") == "Oslo"
    assert envelope.read(openai_block('"}  ')[:-1] + b"   }") == '"}  '
    block = openai_block("x")
    assert envelope.read(block[:-2] + b" }}") is None  # spaces elsewhere: other bytes
    assert envelope.read(block[:-1] + b"  ") is None  # no last brace
    assert envelope.read(envelope.prefix + b"  }") is None  # the ends overlap


def stripped_token(block: bytes, start: int, core: bytes) -> bytes:
    """``padded_token`` as it was first written: the spaces and the last brace stripped
    off the end, then the core looked for where the closing quote must be."""
    end = block.rstrip(b" \t")
    if end[-1:] != b"}":
        return b""
    end = end[:-1].rstrip(b" \t")
    quote = len(end) - len(core)
    if not core or quote <= start or not end.endswith(core):
        return b""
    return block[start : quote + 1]


# what may follow a delta string: a suffix as the envelopes keep one, then bytes that
# make the end padded, spaced elsewhere, cut, doubled or not an end at all
PAD_BYTES = st.lists(st.sampled_from([b" ", b"\t", b"}", b'"', b"]", b"x", b"\n"]), max_size=6)
SUFFIXES = st.sampled_from([b'"}}', b'"}', b'"}]}', b'","index":0}', b'"}  ', b'" }}', b'"', b'"]'])


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b'"', b"}", b" ", b"\t", b"\\", b'"}', b"]"]), max_size=6),
    SUFFIXES,
    PAD_BYTES,
    PAD_BYTES,
    st.booleans(),
)
@example([b"Os"], b'"}}', [b" ", b" "], [], True)
@example([], b'"}}', [], [b" "], False)
def test_padded_token_finds_what_stripping_finds(
    body: list[bytes], suffix: bytes, between: list[bytes], after: list[bytes], brace: bool
) -> None:
    """One search (``padded_token``) finds the string token where stripping the end
    finds it, or nothing where that finds nothing, for the cores envelopes keep."""
    prefix = b'data: {"delta":{"text":"'
    core = Envelope(prefix, suffix, Role.TEXT, -1).core
    tail = b"".join(between) + (b"}" if brace else b"") + b"".join(after)
    for block in (prefix + b"".join(body) + core + tail, prefix + b"".join(body) + tail):
        start = len(prefix) - 1
        assert padded_token(block, start, core) == stripped_token(block, start, core)


@settings(max_examples=200, deadline=None)
@given(
    STEPS,
    st.lists(st.integers(0, 6000), max_size=12),
    st.booleans(),
    st.lists(st.integers(0, 9), min_size=1, max_size=5),
)
def test_padded_envelopes_change_nothing_but_the_grouping_of_deltas(
    steps: list[tuple[int, str, int]], cuts: list[int], anthropic: bool, spaces: list[int]
) -> None:
    assert_envelopes_change_nothing(steps, cuts, anthropic, spaces)


def test_text_read_by_envelope_at_the_end_of_a_read_is_counted() -> None:
    """Text deltas read by the envelope that end a read count as read (what bounds
    the learning, ``SSEWireDecoder.learn``), as those read before another block do."""
    data = openai_stream([(3, "Hi", 1)] * 20)
    end = data.rindex(b'"Hi"')
    end = data.index(b"\n\n", end) + 2
    parser = StreamParser("openai-chat", [WEATHER])
    parser.feed(data[:end])
    decoder = parser._decoder
    assert isinstance(decoder, SSEWireDecoder)
    assert decoder._hits >= 20 - 1 - OpenAIChatDecoder.learn_after
    hits = decoder._hits
    parser.feed(data[end:])
    parser.close()
    assert decoder._hits == hits


@pytest.mark.parametrize("space", [b"\n", b"\r", b"\r\n", b" \n", b" ", b"\t"])
@pytest.mark.parametrize(
    ("fmt", "kind", "key"),
    [
        ("anthropic", 3, b'"text": '),
        ("anthropic", 0, b'"partial_json": '),
        ("openai-chat", 3, b'"content": '),
        ("openai-chat", 0, b'"arguments": '),
    ],
)
def test_a_block_whose_string_opens_after_white_space_reads_as_the_slow_way(
    fmt: str, kind: int, key: bytes, space: bytes
) -> None:
    """A block that is an envelope's bytes but for white space before its string's
    opening quote: orjson would read the token all the same, but a line end there ends
    the block's data line, so the plain reading finds the message cut off (and the
    call open at it truncated); spaces and tabs read as the value either way. Read by
    an envelope, it must give what the plain reading gives (review 18 #1)."""
    piece = "Os" if kind == 0 else "Hi"
    steps = [(kind, piece, 1)] * 12
    stream = anthropic_stream if fmt == "anthropic" else openai_stream
    data = stream([*steps, (kind, "odd", 1), *steps])
    odd = key + b'"odd"'
    assert data.count(odd) == 1
    data = data.replace(odd, key + space + b'"odd"')
    with no_envelopes():
        slow, slow_events = parse(data, [], fmt)
    fast, fast_events = parse(data, [], fmt)
    assert fast.to_dict() == slow.to_dict()
    assert streamed_text(fast_events) == streamed_text(slow_events)
    if kind == 3:  # (the text goes on where the value reads, else is cut off there)
        assert ("odd" in slow.text) == (space in (b" ", b"\t"))


def test_padded_anthropic_blocks_are_read_by_one_envelope() -> None:
    steps = [(0, '{"city": "', 1)] + [(0, "Os", 1), (0, "lo", 1)] * 20 + [(0, '"}', 1)]
    parser = StreamParser("anthropic", [WEATHER])
    events = parser.feed(pad(anthropic_stream(steps), [7, 1, 0, 12, 3])) + parser.close()
    decoder = parser._decoder
    assert isinstance(decoder, SSEWireDecoder)
    assert decoder._learned == 1
    assert decoder._hits >= len(steps) - 3 - AnthropicDecoder.learn_after
    assert StreamResult.collect(events).calls[0].arguments == {"city": "Oslo" * 20}


HEADS = st.lists(
    st.sampled_from([b"event: x", b"id: 1", b"retry: 5", b": note", b"data: {}", b"datax", b"ide"]),
    max_size=2,
)


# how the data is written: (ensure_ascii, separators); compact and not ASCII-only is
# how orjson writes a delta, which ``learn`` finds without its match
WRITINGS = st.sampled_from([(True, None), (True, (",", ":")), (False, (",", ":"))])


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet='ab{}"\\é\n\ud800/', max_size=8),
    st.dictionaries(EXTRA_KEYS, EXTRA_VALUES, max_size=3),
    HEADS,
    st.sampled_from([b"data: ", b"data:", b"data:  "]),
    st.sampled_from([b"", b"  ", b"\n", b"\nid: 2", b" \t"]),
    st.one_of(st.none(), st.integers(0, 400)),
    st.sampled_from([False, False, True]),
    WRITINGS,
)
@example("a\\é", {}, [], b"data: ", b"", None, False, (False, (",", ":")))
@example("a\ud800", {}, [], b"data: ", b"", None, False, (True, (",", ":")))
def test_learning_finds_what_the_plain_reading_finds(
    args: str,
    top: dict[str, Any],
    head: list[bytes],
    field: bytes,
    tail: bytes,
    cut: int | None,
    wrong: bool,
    writing: tuple[bool, tuple[str, str] | None],
) -> None:
    """``learn`` (a few searches on the whole block) learns an envelope exactly where
    the line-by-line reading of the block does, with the same ends: whether the
    string is written as orjson writes it or otherwise (escaped non-ASCII, a lone
    surrogate orjson cannot write, spaces around the colon)."""
    chunk: dict[str, Any] = {
        **top,
        "choices": [{"index": 0, "delta": {"tool_calls": [{"function": {"arguments": args}}]}}],
    }
    ascii_only, separators = writing
    written = json.dumps(chunk, ensure_ascii=ascii_only, separators=separators)
    block = b"".join(h + b"\n" for h in head) + field + written.encode(errors="surrogatepass")
    block += tail
    if cut is not None:
        block = block[:cut]
    data = [line[5:].removeprefix(b" ") for line in block.split(b"\n") if line[:5] == b"data:"]
    try:  # the decoder learns only from a block whose data it read strictly
        json.loads(b"\n".join(data))
    except ValueError:
        return
    value = args + "x" if wrong else args
    found = learn(block, value)
    expected = reference_learn(block, value)
    if expected is None or "\ud800" in value:
        # (orjson reads no lone surrogate: an envelope could never read one, and
        # none is learned from a string that holds one)
        assert found is None
    else:
        assert found is not None
        prefix, suffix = expected
        assert (found.prefix, found.suffix) == (prefix, unpadded(suffix))
        assert found.read(block) == value


@contextmanager
def general_path_only() -> Iterator[None]:
    """OpenAI chunks read by ``on_chunk``'s general path only: no lone-delta path in
    ``on_json`` (and so no envelopes)."""

    def general(self: OpenAIChatDecoder, value: dict[str, Any], event: Any, data: Any) -> bool:
        self.on_chunk(value, data)
        return False

    with mock.patch.object(OpenAIChatDecoder, "on_json", general):
        yield


# chunks around every test the lone-delta path makes: one field or two, a finish
# reason, usage, an error member (null or not), a second choice, another index, a
# message instead of a delta, values of other types
DELTA_FIELDS = st.sampled_from(
    [
        {"content": "Os"},
        {"content": ""},
        {"content": None},
        {"content": 5},
        {"content": [{"type": "text", "text": "lo"}]},
        {"reasoning_content": "hm"},
        {"reasoning": "hm"},
        {"refusal": "no"},
        {"role": "assistant"},
        {"role": None},
        {"refusal": None},
        {"function_call": None},
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": "Oslo"}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": {"city": "B"}}}]},
        {"tool_calls": [{"index": 1, "id": "c1", "function": {"name": "get_weather"}}]},
        {
            "tool_calls": [
                {
                    "index": 2,
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 2, "id": 7, "function": {"name": "get_weather"}}]},
        {"tool_calls": [{"index": 2, "id": "c2", "function": {"name": ["x"]}}]},
        {"tool_calls": [{"index": 2, "id": "c2", "function": {"name": "f", "arguments": 5}}]},
        {"tool_calls": [{"index": 2, "function": {"name": "f", "arguments": {"city": "B"}}}]},
        {"tool_calls": [{"index": True, "id": "c3", "function": {"name": "get_weather"}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": None}}]},
        {"tool_calls": [{"index": 0, "id": "c0", "function": {}}]},
        {"tool_calls": [{"index": 3, "id": "c3", "function": {"arguments": "{}"}}]},
        {
            "tool_calls": [
                {
                    "index": 4,
                    "id": "c4",
                    "function": {"name": "get_weather", "arguments": "{}"},
                    "extra_content": {"google": {"thought_signature": "sig"}},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "id": "c0", "function": None}]},
        {"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": "x"}, "type": "function"}]},
        {"tool_calls": [{"index": "0", "function": {"arguments": "x"}}]},
        {"tool_calls": "x"},
        {"function_call": {"name": "get_weather", "arguments": "{}"}},
    ]
)
CHOICES = st.builds(
    lambda fields, reason, index, key: {
        "index": index,
        key: {k: v for f in fields for k, v in f.items()},
        "finish_reason": reason,
    },
    st.one_of(st.lists(DELTA_FIELDS, min_size=1, max_size=1), st.lists(DELTA_FIELDS, max_size=4)),
    st.sampled_from([None, None, None, "stop", "tool_calls", ""]),
    st.sampled_from([0, 0, 0, None, 1]),
    st.sampled_from(["delta", "delta", "delta", "message"]),
)
CHUNKS = st.builds(
    lambda choices, extra: {"id": "c", "choices": choices, **extra},
    st.one_of(st.lists(CHOICES, min_size=1, max_size=1), st.lists(CHOICES, max_size=2)),
    st.sampled_from(
        [
            {},
            {},
            {},
            {"usage": {"prompt_tokens": 3}},
            {"usage": None},
            {"error": None},
            {"error": {"message": "overloaded"}},
        ]
    ),
)
HEADER = {
    "choices": [
        {
            "index": 0,
            "delta": {
                "role": "assistant",
                "tool_calls": [
                    {"index": 0, "id": "c0", "function": {"name": "get_weather", "arguments": ""}}
                ],
            },
        }
    ]
}


def read_all(chunks: list[dict[str, Any]], sdk: bool) -> tuple[dict[str, Any], Any]:
    parser = StreamParser("openai-chat", [WEATHER])
    if sdk:
        events = [e for c in chunks for e in parser.feed_object(c)] + parser.close()
    else:
        data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        events = parser.feed(data.encode()) + parser.close()
    # every event but the deltas, in order (envelopes may group deltas otherwise)
    others = [e for e in events if not isinstance(e, ArgumentsDelta | TextDelta | ReasoningDelta)]
    return StreamResult.collect(events).to_dict(), (streamed_text(events), others)


def lone_call(call: dict[str, Any]) -> list[dict[str, Any]]:
    """A chunk whose delta is one tool call and nothing else."""
    return [{"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}]


@settings(max_examples=400, deadline=None)
@given(st.lists(CHUNKS, max_size=12), st.booleans())
@example(lone_call({"index": 2, "id": "c2", "function": {"name": "f", "arguments": 5}}), False)
@example(lone_call({"index": 2, "id": "c2", "function": {"name": "f", "arguments": {}}}), True)
@example(lone_call({"index": 2, "id": 7, "function": {"name": "get_weather"}}), False)
@example(lone_call({"index": 2, "id": "c2", "function": {"name": ["x"]}}), False)
@example(lone_call({"index": 3, "id": "c3", "function": {"arguments": "{}"}}), False)
@example(
    lone_call(
        {
            "index": 4,
            "id": "c4",
            "function": {"name": "get_weather"},
            "extra_content": {"google": {"thought_signature": "sig"}},
        }
    ),
    False,
)
@example(
    [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "index": 1,
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": ""},
                            }
                        ],
                        "refusal": None,
                    },
                    "logprobs": None,
                    "finish_reason": None,
                }
            ]
        }
    ],
    False,
)
def test_the_lone_delta_path_reads_what_the_general_path_reads(
    chunks: list[dict[str, Any]], sdk: bool
) -> None:
    """A chunk the lone-delta path takes (``_lone``, then envelopes; ``_first_chunk``
    for OpenAI's first chunk: its role and nulls, alone or beside a call's header) reads as
    ``on_chunk``'s general path reads it, and one it refuses goes there unchanged."""
    chunks = [HEADER, *chunks]
    with general_path_only():
        expected = read_all(chunks, sdk)
    assert read_all(chunks, sdk) == expected


def obfuscate(data: bytes, values: list[bytes]) -> bytes:
    """Each data line given a last member as OpenAI's API gives it, its string taken
    from ``values`` in turn (the API's are letters and digits; others here too)."""
    lines = data.split(b"\n")
    n = 0
    for i, line in enumerate(lines):
        if line.startswith(b"data: {") and line.endswith(b"}"):
            value = values[n % len(values)]
            lines[i] = line[:-1] + b',"obfuscation":' + value + b"}"
            n += 1
    return b"\n".join(lines)


# the obfuscation member's string as OpenAI writes it (plain: any length, empty too)
# and as it must not be taken by an envelope (an escape, a quote, not a string)
OBFUSCATIONS = st.lists(
    st.sampled_from(
        [
            *(b'"Xk3"', b'""', b'"a"', b'"9fQ0ZbT1wLm2"', b'"\xc3\xa9"'),
            # not plain: an escape, a quote, not a string, raw control characters
            *(b'"a\\"b"', b'"\\u0041"', b"7", b'"}"', b'"x\ny"', b'"x\ry"', b'"\t"'),
            b'"x\nid: 7\n"',
            b'"\x00"',
        ]
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(STEPS, st.lists(st.integers(0, 6000), max_size=12), OBFUSCATIONS)
@example(SECOND_VALUE, [], [b'"Xk3"', b'""'])
@example(SNAPSHOT, [], [b'"a\\"b"', b'"Xk3"'])
def test_obfuscated_envelopes_change_nothing_but_the_grouping_of_deltas(
    steps: list[tuple[int, str, int]], cuts: list[int], obfuscations: list[bytes]
) -> None:
    """OpenAI's API ends every message in a member of random characters: read by
    envelopes, the stream gives what it gives read the slow way, in any split."""
    assert_envelopes_change_nothing(steps, cuts, False, obfuscations=obfuscations)


def test_an_envelope_learned_from_an_obfuscated_block_reads_any_obfuscation() -> None:
    block = openai_block("x")[:-1] + b',"obfuscation":"rb7T"}'
    envelope = learned(block, "x")
    assert b"obfuscation" not in envelope.suffix + envelope.core
    for end in (b',"obfuscation":"Q"}', b',"obfuscation":""}', b"}"):
        assert envelope.read(openai_block("Oslo")[:-1] + end) == "Oslo"
    assert envelope.read(openai_block('"},"obfuscation":"')[:-1] + b',"obfuscation":"a"}') == (
        '"},"obfuscation":"'
    )
    block = openai_block("Oslo")[:-1]
    for other in (
        b',"obfuscation":"a\\"b"}',  # an escape: not a plain string
        b',"obfuscation":7}',
        b',"obfuscation": "a"}',  # spaced otherwise than OpenAI writes it
        b',"obfuscation":"a"} }',
        b',"obfuscation":"a","x":1}',  # not the last member
        b',"x":"a"}',
        b',"obfuscation":"x\ny"}',  # raw control characters: JSON takes none
        b',"obfuscation":"\t"}',
        b',"obfuscation":"\x00"}',
    ):
        assert envelope.read(block + other) is None, other


def test_an_obfuscated_openai_stream_is_read_by_envelopes() -> None:
    steps = [(0, '{"city": "', 1)] + [(0, "Os", 1), (0, "lo", 1)] * 20 + [(0, '"}', 1)]
    steps += [(3, "Hello", 1)] * 20
    values = [b'"Xk3"', b'""', b'"9fQ0ZbT1wLm2"', b'"a"']
    parser = StreamParser("openai-chat", [WEATHER])
    events = parser.feed(obfuscate(openai_stream(steps), values)) + parser.close()
    decoder = parser._decoder
    assert isinstance(decoder, SSEWireDecoder)
    assert decoder._learned <= 3  # the arguments', the text's
    assert decoder._hits >= len(steps) - 4
    result = StreamResult.collect(events)
    assert result.calls[0].arguments == {"city": "Oslo" * 20}
    assert result.text == "Hello" * 20


def unobfuscated_token(block: bytes, start: int, core: bytes) -> bytes:
    """``stripped_token`` of the block without an obfuscation member at its end (a
    plain string: no quote or backslash in it), as a reference for ``padded_token``."""
    head, found, value = block.rpartition(b',"obfuscation":"')
    if found and value.endswith(b'"}') and b'"' not in value[:-2] and b"\\" not in value:
        block = head + b"}"
    return stripped_token(block, start, core)


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.sampled_from([b"a", b'"', b"}", b",", b"\\", b'"}', b'","obfuscation":"']), max_size=6
    ),
    SUFFIXES,
    st.lists(st.sampled_from([b"x", b"", b'"', b"\\", b"}", b",", b" "]), max_size=4),
    st.sampled_from([b'"}', b'"} ', b'" }', b"}", b'"}}', b""]),
    st.booleans(),
)
def test_padded_token_finds_an_obfuscated_end_where_removing_the_member_finds_it(
    body: list[bytes], suffix: bytes, value: list[bytes], end: bytes, obfuscated: bool
) -> None:
    """What ``padded_token`` finds in front of OpenAI's obfuscation member, where it
    reads as one string token (what an envelope takes), is what the reference finds in
    the block without the member; and where the member is plain and last, what stands
    before the core is one string token, and the core does not come again before the
    end (a core as short as ``"}`` may, in the member: then the block is read the slow
    way), it is found. An envelope learned from an obfuscated block (``obfuscated``)
    looks for the member first: it finds the string whatever its core."""
    prefix = b'data: {"delta":{"text":"'
    core = Envelope(prefix, suffix, Role.TEXT, -1).core
    tail = b',"obfuscation":"' + b"".join(value) + end
    block = prefix + b"".join(body) + core + tail
    start = len(prefix) - 1
    found = padded_token(block, start, core, obfuscated)
    expected = unobfuscated_token(block, start, core)
    if one_string(found):
        assert found == expected
    if (
        one_string(expected)
        and obfuscation_end(tail)
        and (obfuscated or (core + tail).find(core, 1) < 0)
    ):
        assert found == expected


def one_string(token: bytes) -> bool:
    try:
        return isinstance(orjson.loads(token), str)
    except orjson.JSONDecodeError:
        return False


# -- Responses: a sequence number that differs in every event ---------------------------

# how an event's sequence number is written: as the API writes it (an integer), and as
# an envelope must not read past it (a leading zero, a sign, a fraction, an exponent,
# a space, a string, null: the slow way reads or reports each as it does)
# (None: the event's position, as the API numbers them)
NUMBERS = st.lists(
    st.sampled_from(
        [
            *(None, None, None, None, b"0", b"7", b"99999999999999999999999"),
            *(b"07", b"-1", b"1.5", b"1e2", b" 3", b'"4"', b"null", b"00", b""),
        ]
    ),
    min_size=1,
    max_size=6,
)


def responses_stream(
    steps: list[tuple[int, str, int]],
    numbers: list[bytes | None],
    compact: bool,
    event_lines: bool,
) -> bytes:
    """``steps`` as Responses events (0: arguments of the first call, 1: a second call
    starts, 2: its arguments, 3: text, 4: reasoning), each with its ``sequence_number``
    written as ``numbers`` gives it in turn (None: the event's position)."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "r", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "function_call", "id": "fc0", "call_id": "c0", "name": "get_weather"},
        },
    ]
    for kind, piece, _ in steps:
        if kind in (0, 2):
            index = kind // 2
            events.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": f"fc{index}",
                    "output_index": index,
                    "delta": piece,
                }
            )
        elif kind == 1:
            item = {"type": "function_call", "id": "fc1", "call_id": "c1", "name": "get_weather"}
            events.append({"type": "response.output_item.added", "output_index": 1, "item": item})
        else:
            kind_name = "output_text" if kind == 3 else "reasoning_text"
            delta = {"item_id": "m", "output_index": 2, "content_index": 0, "delta": piece}
            events.append({"type": f"response.{kind_name}.delta", **delta, "logprobs": []})
    events.append({"type": "response.completed", "response": {"status": "completed"}})
    separators = (",", ":") if compact else (", ", ": ")
    out = []
    for n, event in enumerate(events):
        written = numbers[n % len(numbers)]
        number = str(n).encode() if written is None else written
        kind = json.dumps(event.pop("type"))
        rest = json.dumps(event, separators=separators, ensure_ascii=False)
        data = f'{{"type"{separators[1]}{kind}{separators[0]}"sequence_number"{separators[1]}'
        line = data.encode() + number + (separators[0].encode() + rest[1:].encode())
        head = f"event: {json.loads(kind)}\n".encode() if event_lines else b""
        out.append(head + b"data: " + line + b"\n\n")
    return b"".join(out)


# ways a stream's events may be framed besides one blank line after each (every few
# events): a keep-alive comment between, a second blank line, an event without its
# ``event:`` line, CRLF line ends
FRAMINGS = ["plain", "comment", "blank", "unnamed", "crlf"]


def framed(data: bytes, framing: str) -> bytes:
    blocks = data.split(b"\n\n")
    for i in range(2, len(blocks) - 1, 3):
        if framing == "comment":
            blocks[i] += b"\n\n: keep-alive"
        elif framing == "blank":
            blocks[i] += b"\n"
        elif framing == "unnamed":
            blocks[i] = blocks[i][blocks[i].find(b"\n") + 1 :]
        elif framing == "crlf":
            blocks[i] = blocks[i].replace(b"\n", b"\r\n") + b"\r"
    return b"\n\n".join(blocks)


def assert_responses_envelopes_change_nothing(
    data: bytes,
    cuts: list[int],
    obfuscations: list[bytes] | None = None,
    damaged: int = 0,
    framing: str = "plain",
) -> None:
    """``data`` (given ``obfuscations`` as OpenAI's API gives them; every ``damaged``-th
    data line without the quote that closes its delta; framed as ``framing`` says)
    reads the same with and without envelopes."""
    if obfuscations:
        data = obfuscate(data, obfuscations)
    if damaged:
        lines = data.split(b"\n")
        for i in range(damaged, len(lines), damaged):
            lines[i] = lines[i].replace(b'","obfuscation"', b',"obfuscation"')
        data = b"\n".join(lines)
    data = framed(data, framing)
    with no_envelopes():
        slow, slow_events = parse(data, cuts, "openai-responses")
    fast, fast_events = parse(data, cuts, "openai-responses")
    assert fast.to_dict() == slow.to_dict()
    assert streamed_text(fast_events) == streamed_text(slow_events)
    with runs_checked_at_once():
        fast, fast_events = parse(data, cuts, "openai-responses")
    assert fast.to_dict() == slow.to_dict()
    assert streamed_text(fast_events) == streamed_text(slow_events)


RESPONSES_STEPS = [(0, '{"city": "', 1)] + [(0, "Os", 1), (3, "Hi", 1)] * 10 + [(0, '"}', 1)]
# empty argument deltas, each its own run where the stream is cut at every block
EMPTY_DELTAS = [(0, '{"city": "', 1), (0, "Os", 1), (0, "", 1), (0, "", 1), (0, "lo", 1)]
EMPTY_DELTAS.append((0, '"}', 1))


@settings(max_examples=300, deadline=None)
@given(
    STEPS,
    NUMBERS,
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(0, 8000), max_size=12),
    st.one_of(st.none(), OBFUSCATIONS),
    st.sampled_from([0, 0, 3, 7]),
    st.sampled_from(FRAMINGS),
)
@example(RESPONSES_STEPS, [None], True, True, [], None, 0, "plain")
@example(RESPONSES_STEPS, [None, b"07"], True, True, [], [b'"Xk3"'], 0, "plain")
@example(RESPONSES_STEPS, [None, b""], True, True, [], [b'"Xk3"'], 0, "plain")
@example(RESPONSES_STEPS, [None, b"1.5", b"-1"], True, False, [], [b'"a\\"b"', b'""'], 0, "plain")
@example(RESPONSES_STEPS, [None], True, True, [], [b'"Xk3"'], 7, "plain")
@example(EMPTY_DELTAS, [None], True, True, list(range(0, 4000, 7)), [b'"Xk3"'], 0, "plain")
@example(RESPONSES_STEPS, [None], True, True, list(range(9, 4000, 301)), [b'"k"'], 0, "comment")
@example(RESPONSES_STEPS, [None], True, True, list(range(9, 4000, 301)), [b'"k"'], 0, "blank")
@example(RESPONSES_STEPS, [None], True, True, list(range(9, 4000, 301)), [b'"k"'], 0, "unnamed")
@example(RESPONSES_STEPS, [None], True, True, list(range(9, 4000, 301)), [b'"k"'], 0, "crlf")
@example(RESPONSES_STEPS, [None], True, True, list(range(9, 4000, 301)), [b'"k"'], 5, "blank")
def test_responses_envelopes_change_nothing_but_the_grouping_of_deltas(
    steps: list[tuple[int, str, int]],
    numbers: list[bytes | None],
    compact: bool,
    event_lines: bool,
    cuts: list[int],
    obfuscations: list[bytes] | None,
    damaged: int,
    framing: str,
) -> None:
    """Responses events, read by envelopes that let the sequence number differ, give
    what they give read the slow way, in any split: with the number as the API writes
    it or otherwise, with and without OpenAI's obfuscation member and event lines,
    with deltas whose closing quote is lost, and framed in other ways (``FRAMINGS``:
    the envelope's pieces are cut at a blank line and ``event:``, ``feed_parts``)."""
    data = responses_stream(steps, numbers, compact, event_lines)
    assert_responses_envelopes_change_nothing(data, cuts, obfuscations, damaged, framing)


# runs of deltas of one kind (arguments, text, reasoning): each kind's envelope reads
# its run (one kind after another, the decoder learns the next one's envelope)
RUNS = st.lists(
    st.tuples(st.sampled_from([0, 0, 3, 4]), st.lists(PIECES, min_size=1, max_size=30)),
    min_size=1,
    max_size=4,
).map(lambda runs: [(kind, piece, 1) for kind, pieces in runs for piece in pieces])


@settings(max_examples=150, deadline=None)
@given(
    RUNS,
    st.sampled_from([[None], [None], [None, b"07"], [None, b"1.5"]]),
    # (mostly as the API writes them: other values leave the deltas to the slow way)
    st.just([b'"Xk3"', b'""', b'"9fQ0ZbT1wLm2"']) | st.just([b'"a"']) | OBFUSCATIONS,
    st.sampled_from([1, 5, 64, 230, 1000, 4096]),
    st.sampled_from([0, 0, 3]),
    st.sampled_from(FRAMINGS),
    st.booleans(),
    st.sampled_from([0, 0, 40, 20_000]),
)
@example(RESPONSES_STEPS * 3, [None], [b'"Xk3"', b'""'], 230, 0, "comment", True, 0)
@example(RESPONSES_STEPS * 3, [None], [b'"Xk3"', b'"a\\"b"'], 230, 0, "blank", True, 0)
@example(RESPONSES_STEPS * 3, [None], [b'"Xk3"'], 4096, 0, "plain", False, 20_000)
@example(RESPONSES_STEPS * 3, [None], [b'"Xk3"'], 64, 0, "unnamed", True, 40)
def test_responses_pieces_cut_at_event_lines_read_as_the_slow_way(
    steps: list[tuple[int, str, int]],
    numbers: list[bytes | None],
    obfuscations: list[bytes],
    size: int,
    damaged: int,
    framing: str,
    small_reads: bool,
    long_delta: int,
) -> None:
    """Responses events in the API's shape (named, compact, numbered, obfuscated), fed
    in pieces of one size: once an envelope is learned, its pieces are cut at a blank
    line and ``event: response.`` (``SSEDecoder.feed_parts``) and read by
    ``_numbered_run``; what they give is what the slow way gives. (``small_reads``:
    reads of any size are cut, not only those of ``_FEW_BLOCKS`` bytes or more;
    ``long_delta``: a delta that long in the middle, a part longer than ``_LONG_PART``
    where it is 20,000.)"""
    from toolwire import sse

    middle = [(0, "x" * long_delta, 1)] if long_delta else []
    steps = [(0, '{"city": "', 1), *steps[: len(steps) // 2], *middle, *steps[len(steps) // 2 :]]
    data = responses_stream(steps, numbers, True, True)
    cuts = list(range(size, len(data) + size, size))
    with mock.patch.object(sse, "_FEW_BLOCKS", 0) if small_reads else nullcontext():
        assert_responses_envelopes_change_nothing(data, cuts, obfuscations, damaged, framing)


def test_a_read_of_deltas_with_other_blocks_between_is_read_in_one_pass() -> None:
    """A read whose parts the envelope does not take (a keep-alive after each delta)
    goes to ``_blocks`` once, not once per part: the work stays linear in the read
    (review 19 #1: each part's run copied the rest of the list, a 8.8 MB read took 9 s)."""
    steps = [(0, '{"city": "', 1)] + [(0, "Os", 1)] * 400 + [(0, '"}', 1)]
    data = obfuscate(responses_stream(steps, [None], True, True), [b'"Xk3"'])
    blocks = data.split(b"\n\n")
    head = b"\n\n".join(blocks[:6]) + b"\n\n"
    rest = b"".join(b + b"\n\n: keep-alive\n\n" for b in blocks[6:] if b)
    calls: list[int] = []
    real = SSEWireDecoder._blocks

    def counted(self: SSEWireDecoder, read: list[bytes]) -> None:
        calls.append(len(read))
        real(self, read)

    parser = StreamParser("openai-responses", [WEATHER])
    events = parser.feed(head)
    with mock.patch.object(SSEWireDecoder, "_blocks", counted):
        events += parser.feed(rest) + parser.close()
    assert len(calls) <= 2 and sum(calls) >= 790, calls
    with no_envelopes():
        slow, _ = parse(head + rest, [len(head)], "openai-responses")
    assert StreamResult.collect(events).to_dict() == slow.to_dict()


def test_responses_deltas_are_read_by_envelopes() -> None:
    """In the API's shape (compact, obfuscated, numbered), nearly every delta event of a
    long stream is read by its envelope, learned once for each kind of delta."""
    steps = [(0, '{"city": "', 1)] + [(0, "Os", 1)] * 100 + [(0, '"}', 1)] + [(3, "Hi", 1)] * 100
    data = obfuscate(responses_stream(steps, [None], True, True), [b'"Xk3"', b'"9fQ0Zb"', b'""'])
    parser = StreamParser("openai-responses", [WEATHER])
    events = parser.feed(data) + parser.close()
    decoder = parser._decoder
    assert isinstance(decoder, SSEWireDecoder)
    assert decoder._learned == 2
    assert decoder._hits >= len(steps) - 4
    result = StreamResult.collect(events)
    assert result.calls[0].arguments == {"city": "Os" * 100}
    assert result.text == "Hi" * 100


def responses_events(*events: str) -> bytes:
    return b"".join(b"data: " + event.encode() + b"\n\n" for event in events)


def assert_read_as_the_slow_way(data: bytes) -> list[Event]:
    with no_envelopes():
        slow, slow_events = parse(data, [], "openai-responses")
    fast, fast_events = parse(data, [], "openai-responses")
    assert fast.to_dict() == slow.to_dict()
    assert streamed_text(fast_events) == streamed_text(slow_events)
    return fast_events


def test_an_argument_delta_found_by_its_item_id_alone_learns_no_envelope() -> None:
    """A delta without ``output_index`` belongs to the call its item id names now; an
    item added again at another index moves it there (review 14, F1): an envelope,
    which keeps the slot it learned, must not read such deltas."""
    item = '"item":{"type":"function_call","id":"fc0","call_id":"c%d","name":"get_weather"}'
    delta = '{"type":"response.function_call_arguments.delta","sequence_number":%d,'
    delta += '"item_id":"fc0","delta":"%s"}'
    data = responses_events(
        '{"type":"response.output_item.added","sequence_number":0,"output_index":0,%s}'
        % (item % 0),
        delta % (1, '{\\"city\\":'),
        delta % (2, '\\"Os'),
        '{"type":"response.output_item.added","sequence_number":3,"output_index":1,%s}'
        % (item % 1),
        delta % (4, 'lo\\"}'),
        '{"type":"response.completed","sequence_number":5,"response":{"status":"completed"}}',
    )
    events = assert_read_as_the_slow_way(data)
    args, _, _, _ = streamed_text(events)
    assert args == {0: '{"city":"Os', 1: 'lo"}'}


def test_a_sequence_number_inside_a_value_is_not_let_differ() -> None:
    """Only the message's own ``sequence_number`` may differ in the blocks an envelope
    reads; one nested in a value the decoder reads (the item id of a text delta, which
    decides whether a message item sent whole is read again) may not (review 14, F2)."""
    delta = '{"type":"response.output_text.delta","item_id":{"sequence_number":%d,"k":0},'
    delta += '"output_index":2,"delta":"%s"}'
    whole = "{'sequence_number': 2, 'k': 0}"
    data = responses_events(
        delta % (1, "a"),
        delta % (2, "b"),
        '{"type":"response.output_item.done","output_index":2,"item":{"type":"message",'
        f'"id":"{whole}","content":[{{"type":"output_text","text":"WHOLE"}}]}}}}',
        '{"type":"response.completed","response":{"status":"completed"}}',
    )
    events = assert_read_as_the_slow_way(data)
    assert streamed_text(events)[1] == "ab"


def test_blocks_no_envelope_can_be_learned_from_stop_the_learning() -> None:
    """Each try searches the block: a stream whose blocks never give an envelope (an
    ``id:`` line in each) stops trying after a few (review 14, F3)."""
    event = 'id: %d\ndata: {"type":"response.output_text.delta","sequence_number":%d,'
    event += '"item_id":"m","output_index":0,"content_index":0,"delta":"ab"}\n\n'
    data = "".join(event % (i, i) for i in range(200)).encode()
    tries: list[bytes] = []

    def learning(block: bytes, *args: Any) -> Envelope | None:
        tries.append(block)
        return learn_envelope(block, *args)

    parser = StreamParser("openai-responses", [WEATHER])
    with mock.patch.object(base, "learn_envelope", learning):
        events = parser.feed(data) + parser.close()
    assert len(tries) <= 6
    decoder = parser._decoder
    assert isinstance(decoder, SSEWireDecoder) and decoder._learned == 0
    assert StreamResult.collect(events).text == "ab" * 200

"""OpenAI chunks read from what follows their head read as the whole chunk reads.

A stream learns the head its chunks open with (``_CHUNK_HEAD``: id, object, created,
model, fingerprint, then ``choices`` opening); a later chunk that opens with it is read
from the rest alone (``OpenAIChatDecoder.on_rest``): the finish chunk and the usage
chunk as OpenAI writes them by their bytes, an argument delta as OpenAI writes it by a
pattern that also gives its envelope, any other by parsing ``{"choices":[`` and the
rest. Each must give exactly what the general reading of the whole chunk gives (the
common block: the chunk parsed whole, ``on_json``), in any split: calls, statuses,
repairs, usage, text, errors. With envelopes learned, the two readings may learn
different envelopes, which only group argument deltas otherwise.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from corpus import real_captures
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_envelope import streamed_text
from weather import WEATHER_CITY_OPTIONAL as WEATHER

from toolwire.events import ArgumentsDelta, Event, ReasoningDelta, StreamResult, TextDelta
from toolwire.parser import StreamParser
from toolwire.providers.base import SSEWireDecoder
from toolwire.providers.envelope import Envelope, Role
from toolwire.providers.openai_chat import OpenAIChatDecoder

HEAD = (
    b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1727346182,'
    b'"model":"gpt-4o","system_fingerprint":"fp_1","choices":['
)
# heads the pattern takes, and ones it must not (an escape, non-ASCII, a key that
# toolwire reads, a number JSON has not, white space): those read the general way
HEADS = st.sampled_from(
    [
        HEAD,
        HEAD.replace(b'"system_fingerprint":"fp_1",', b""),
        HEAD.replace(b'"fp_1"', b"null"),
        HEAD.replace(b"1727346182", b"0"),
        HEAD.replace(b'"gpt-4o"', b'"gpt \\"4o\\""'),
        HEAD.replace(b'"gpt-4o"', '"gpt-4ö"'.encode()),
        HEAD.replace(b'"gpt-4o"', b'"\x7f~ !#[]"'),
        HEAD.replace(b'"model"', b'"usage"'),
        HEAD.replace(b"1727346182", b"-1"),
        HEAD.replace(b'"choices":[', b'"choices": ['),
        # OpenAI's API since 2025: the service tier, and a null usage where usage is
        # asked for (a usage that is not null reads the general way)
        HEAD.replace(b'"system_fingerprint"', b'"service_tier":"default","system_fingerprint"'),
        HEAD.replace(b'"choices":[', b'"usage":null,"choices":['),
        HEAD.replace(b'"model":"gpt-4o",', b'"model":"gpt-4o","service_tier":"flex",').replace(
            b'"choices":[', b'"usage":null,"choices":['
        ),
        HEAD.replace(b'"choices":[', b'"usage":{"prompt_tokens":3},"choices":['),
        HEAD.replace(b'"choices":[', b'"usage":0,"choices":['),
        HEAD.replace(b'"system_fingerprint"', b'"service_tier":null,"system_fingerprint"'),
    ]
)

ARGUMENT_TEXTS = st.sampled_from(
    ["", "{", '{"', "city", '":"', "Oslo", '"}', "é", "\n", '\\"', "\u2028", "{\n}", " {}"]
)
ARGUMENT_TOKENS = st.one_of(
    ARGUMENT_TEXTS.map(lambda text: json.dumps(text).encode()),
    ARGUMENT_TEXTS.map(lambda text: json.dumps(text, ensure_ascii=False).encode()),
    st.sampled_from(
        [b'"\\q"', b'"a\tb"', b'"a\nb"', b'"\\ud800"', b'"\xff"', b'"a"b"', b'"a\\\nb"', b"null"]
    ),
)
INDEXES = st.sampled_from([b"0", b"0", b"1", b"2", b"01", b"-1", b"123456789", b"1234567890"])


def argument_rest(index: bytes, token: bytes) -> bytes:
    """An argument delta after the head, as OpenAI writes it."""
    return (
        b'{"index":0,"delta":{"tool_calls":[{"index":'
        + index
        + b',"function":{"arguments":'
        + token
        + b'}}]},"logprobs":null,"finish_reason":null}]}'
    )


def call_start_rest(role: bool, index: bytes, call_id: bytes, name: bytes, refusal: bool) -> bytes:
    """The chunk that starts a call after the head, as OpenAI writes it (the stream's
    first one with the role and null content and refusal)."""
    return (
        b'{"index":0,"delta":{'
        + (b'"role":"assistant","content":null,' if role else b"")
        + b'"tool_calls":[{"index":'
        + index
        + b',"id":'
        + call_id
        + b',"type":"function","function":{"name":'
        + name
        + b',"arguments":""}}]'
        + (b',"refusal":null' if refusal else b"")
        + b'},"logprobs":null,"finish_reason":null}]}'
    )


# ids and names: plain strings (the pattern's), escaped ones and other values (not)
STRINGS = st.sampled_from(
    [b'"c1"', b'"c2"', b'""', b'"a b"', b'"\\u0063"', b'"\\""', b"null", b"7"]
)


def finish_rest(reason: bytes) -> bytes:
    return b'{"index":0,"delta":{},"logprobs":null,"finish_reason":' + reason + b"}]}"


USAGES = st.sampled_from(
    [
        b'{"prompt_tokens":44,"completion_tokens":16,"total_tokens":60,'
        b'"completion_tokens_details":{"reasoning_tokens":0}}',
        b'{"prompt_tokens":1,"prompt_tokens":2}',
        b'{"prompt_tokens":true}',
        b' {"prompt_tokens":3} ',
        b'{"prompt_tokens":3}\n',
        b"null",
        b"[]",
        b"7",
        b'{"prompt_tokens":',
        b'{"prompt_tokens":3},"error":{"message":"x"}',
        b'{"prompt_tokens":3},"usage":null',
        b"{'prompt_tokens': 3}",
        b'{"prompt_tokens":99999999999999999999999}',
    ]
)


def choice(delta: dict[str, Any] | None, reason: Any = None, index: Any = 0) -> dict[str, Any]:
    return {"index": index, "delta": delta, "logprobs": None, "finish_reason": reason}


# what may follow the head: the shapes the fast readings take, each also a little
# off, and chunks only the general reading reads (repairs, errors, duplicate keys,
# more lines)
RESTS = st.one_of(
    st.builds(argument_rest, INDEXES, ARGUMENT_TOKENS),
    st.builds(call_start_rest, st.booleans(), INDEXES, STRINGS, STRINGS, st.booleans()),
    st.builds(
        finish_rest,
        st.sampled_from(
            [
                *(b'"tool_calls"', b'"stop"', b'"length"', b'"content_filter"'),
                *(b'"function_call"', b'"other"', b'""', b"null", b"7"),
                *(b'"tool_calls" ', b'"stop"}]}'),
            ]
        ),
    ),
    USAGES.map(lambda usage: b'],"usage":' + usage + b"}"),
    st.sampled_from(
        [
            json.dumps([choice({"role": "assistant", "content": None})])[1:].encode() + b"}",
            json.dumps([choice({"content": "Hi"})])[1:].encode() + b"}",
            json.dumps([choice({"content": "Hi"}, index=1)])[1:].encode() + b"}",
            json.dumps([choice({"content": 5})])[1:].encode() + b"}",
            json.dumps([choice({"reasoning_content": "hm"})])[1:].encode() + b"}",
            json.dumps([choice({}, "stop"), choice({}, "length", 1)])[1:].encode() + b"}",
            json.dumps(
                [
                    choice(
                        {
                            "tool_calls": [
                                {
                                    "index": 1,
                                    "id": "c1",
                                    "type": "function",
                                    "function": {"name": "get_weather", "arguments": ""},
                                }
                            ]
                        }
                    )
                ]
            )[1:].encode()
            + b"}",
            json.dumps([choice({}, "tool_calls")])[1:].encode() + b',"usage":{"prompt_tokens":3}}',
            json.dumps([choice({}, "stop")])[1:].encode() + b',"error":{"message":"busy"}}',
            json.dumps([choice({}, "stop")])[1:].encode() + b',"error":null}',
            json.dumps([choice({"content": "a"})])[1:].encode() + b',"choices":[]}',
            b'],"choices":[' + json.dumps(choice({"content": "b"})).encode() + b"]}",
            finish_rest(b'"stop"')[:-1] + b',"usage":null}',
            finish_rest(b'"stop"').replace(b"{}", b"{ }"),
            finish_rest(b'"stop"') + b"\n: comment",
            finish_rest(b'"stop"').replace(b",", b",\n", 1),
            finish_rest(b'"stop"').replace(b",", b",\ndata: ", 1),
            argument_rest(b"0", b'"x"').replace(b"}}]}", b"}}\n]}"),
            argument_rest(b"0", b'"x"') + b" ",
            argument_rest(b"0", b'"x"')[:-2],
            b"{'index': 0, 'delta': {'content': 'py'}, 'finish_reason': None}]}",
            # OpenAI's obfuscation member, last (and where it may not be)
            argument_rest(b"0", b'"x"')[:-1] + b',"obfuscation":"Xk3"}',
            finish_rest(b'"stop"')[:-1] + b',"usage":null,"obfuscation":""}',
            json.dumps([choice({"content": "Hi"})])[1:].encode() + b',"obfuscation":"a"}',
            call_start_rest(False, b"1", b'"c1"', b'"f"', False)[:-1] + b',"obfuscation":"q"}',
            b'],"usage":{"prompt_tokens":3},"obfuscation":"zz"}',
            argument_rest(b"0", b'"x"')[:-1] + b',"obfuscation":"a\\"b"}',
            b"]}",
            b"",
            b"not json",
        ]
    ),
)

FIRST = (
    HEAD
    + json.dumps(
        [
            choice(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": ""},
                        }
                    ],
                    "refusal": None,
                }
            )
        ]
    )[1:].encode()
    + b"}"
)


@contextmanager
def general_reading() -> Iterator[None]:
    """No head learned: every chunk read whole (the common block, else ``_read``)."""
    with mock.patch.object(OpenAIChatDecoder, "head_pattern", None):
        yield


@contextmanager
def no_envelopes() -> Iterator[None]:
    with mock.patch.object(SSEWireDecoder, "learn", lambda *args, **kwargs: None):
        yield


def parse(data: bytes, cuts: list[int]) -> list[Event]:
    parser = StreamParser("openai-chat", [WEATHER])
    bounds = [0, *sorted({c for c in cuts if c <= len(data)}), len(data)]
    events = [e for a, b in itertools.pairwise(bounds) for e in parser.feed(data[a:b])]
    return [*events, *parser.close()]


def stream(head: bytes, rests: list[bytes], first: bytes | None) -> bytes:
    """Chunks of ``head`` and each of ``rests``, after ``first`` (None: the first rest)."""
    if first is None:
        first, rests = (head + rests[0], rests[1:]) if rests else (FIRST, rests)
    return b"\n\n".join([first, *(head + rest for rest in rests), b"data: [DONE]", b""])


def ungrouped(events: list[Event]) -> tuple[Any, ...]:
    """The events with each slot's argument text, the text and the reasoning joined:
    envelopes may hand deltas over in fewer events."""
    others = [e for e in events if not isinstance(e, ArgumentsDelta | TextDelta | ReasoningDelta)]
    return streamed_text(events), others, StreamResult.collect(events).to_dict()


FIRSTS = st.one_of(st.just(FIRST), st.none(), HEADS.map(lambda head: head + b"]}"))


@settings(max_examples=500, deadline=None)
@given(HEADS, st.lists(RESTS, max_size=10), FIRSTS, st.lists(st.integers(0, 4000), max_size=6))
@example(HEAD, [finish_rest(b'"tool_calls"')], FIRST, [])
@example(HEAD, [b'],"usage":null}'], FIRST, [])
@example(HEAD, [argument_rest(b"0", b'"\\q"')], FIRST, [])
def test_a_chunk_read_after_its_head_reads_as_the_whole_chunk(
    head: bytes, rests: list[bytes], first: bytes | None, cuts: list[int]
) -> None:
    """Envelopes off: every event, in order, the same."""
    data = stream(head, rests, first)
    with no_envelopes():
        fast = parse(data, cuts)
        with general_reading():
            general = parse(data, cuts)
    assert fast == general


@settings(max_examples=300, deadline=None)
@given(HEADS, st.lists(RESTS, max_size=12), FIRSTS, st.lists(st.integers(0, 4000), max_size=6))
def test_with_envelopes_only_the_grouping_of_deltas_differs(
    head: bytes, rests: list[bytes], first: bytes | None, cuts: list[int]
) -> None:
    data = stream(head, rests, first)
    fast = parse(data, cuts)
    with general_reading():
        general = parse(data, cuts)
    assert ungrouped(fast) == ungrouped(general)


def test_the_real_shapes_take_the_fast_readings() -> None:
    """The capture's chunks: an argument delta, the finish and the usage chunk are
    read after the head (no test above could tell if none were)."""
    taken: list[bytes] = []
    real = OpenAIChatDecoder.on_rest

    def on_rest(self: OpenAIChatDecoder, block: bytes, rest: bytes) -> bool:
        read = real(self, block, rest)
        if read:
            taken.append(rest[:30])
        return read

    rests = [
        call_start_rest(False, b"1", b'"c1"', b'"get_weather"', False),
        argument_rest(b"1", b'"{\\"city\\":\\"Bergen\\"}"'),
        argument_rest(b"0", b'"{\\""'),
        argument_rest(b"0", b'"city\\":\\"Oslo\\"}"'),
        finish_rest(b'"tool_calls"'),
        b'],"usage":{"prompt_tokens":44,"completion_tokens":16}}',
    ]
    with mock.patch.object(OpenAIChatDecoder, "on_rest", on_rest):
        events = parse(stream(HEAD, rests, FIRST), [])
    # the first chunk too (it gave the head); the second delta of the first call is
    # read by the envelope its first one gave
    first = FIRST.removeprefix(HEAD)
    assert taken == [first[:30], *(rest[:30] for i, rest in enumerate(rests) if i != 3)]
    result = StreamResult.collect(events)
    assert [c.status for c in result.calls] == ["complete", "complete"]
    assert [c.arguments for c in result.calls] == [{"city": "Oslo"}, {"city": "Bergen"}]
    assert result.finish_reason == "tool_calls"
    assert result.usage is not None and result.usage.input_tokens == 44


@given(
    st.binary(max_size=6).map(lambda b: b'"' + b),
    st.sampled_from([b"}", b" }", b"\t} ", b"}  ", b"", b"]", b" ", b"x}"]),
)
def test_an_envelope_keeps_an_unpadded_suffix_as_it_is(body: bytes, end: bytes) -> None:
    """``Envelope`` takes a suffix ending in a brace without space before it as it is,
    without the steps that strip padding: the same suffix and core as those give."""
    suffix = body + end
    envelope = Envelope(b'"', suffix, Role.TEXT, 0)
    core = suffix.rstrip(b" \t")
    if core[-1:] == b"}":
        core = core[:-1].rstrip(b" \t")
        expected = (core + b"}", core)
    else:
        expected = (suffix, b"")
    assert (envelope.suffix, envelope.core) == expected
    assert envelope.fields[:3] == (b"", envelope.suffix, envelope.core)


def api_2025(data: bytes, obfuscations: list[bytes]) -> bytes:
    """A capture's chunks as OpenAI's API writes them since 2025: the service tier after
    the model, a null usage before ``choices`` (where usage is asked for) and, last, a
    member of random characters (``obfuscation``, on by default)."""
    lines = data.split(b"\n")
    n = 0
    for i, line in enumerate(lines):
        if line.startswith(b"data: {") and line.endswith(b"}"):
            line = re.sub(rb'("model":"[^"]*",)', rb'\1"service_tier":"default",', line, count=1)
            if b'"usage":{' not in line:
                line = line.replace(b'"choices":[', b'"usage":null,"choices":[', 1)
            value = obfuscations[n % len(obfuscations)]
            lines[i] = line[:-1] + b',"obfuscation":"' + value + b'"}'
            n += 1
    return b"\n".join(lines)


@pytest.mark.parametrize("capture", real_captures("openai"), ids=lambda p: p.stem)
def test_the_2025_api_shape_reads_as_the_capture_and_takes_the_fast_readings(
    capture: Path,
) -> None:
    """The real captures, written as the API writes them now (see ``api_2025``), give
    the same calls, text, usage and finish as they were captured, in any split; and
    their deltas are read by envelopes and after the head, as the captured ones are
    (OpenAI's obfuscation member made every message differ at its end: each was read
    whole, ~3x the floor's time per message)."""
    data = capture.read_bytes()
    shaped = api_2025(data, [b"Xk3", b"", b"9fQ0ZbT1wLm2", b"a"])
    expected = StreamResult.collect(parse(data, [])).to_dict()
    for cuts in ([], [7], list(range(0, len(shaped), 97))):
        assert StreamResult.collect(parse(shaped, cuts)).to_dict() == expected
    reads: dict[str, int] = {}
    real = OpenAIChatDecoder.on_rest
    for name, stream_data in (("captured", data), ("2025", shaped)):
        parser = StreamParser("openai-chat", [WEATHER])
        taken = 0

        def on_rest(self: OpenAIChatDecoder, block: bytes, rest: bytes) -> bool:
            nonlocal taken
            read = real(self, block, rest)
            taken += read
            return read

        with mock.patch.object(OpenAIChatDecoder, "on_rest", on_rest):
            parser.feed(stream_data)
            parser.close()
        decoder = parser._decoder
        assert isinstance(decoder, SSEWireDecoder)
        reads[name] = decoder._hits + taken
    # every chunk the captured stream read fast, the 2025 shape reads fast too, but
    # for the finish and usage chunks, whose bytes the readings compare whole
    assert reads["2025"] >= reads["captured"] - 2, reads

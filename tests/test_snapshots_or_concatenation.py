"""Snapshot detection (F7) never wins over plain concatenation that parses.

Real traffic that looked like cumulative snapshots: llama-cpp-python repeats id, type
and name in every chunk and mirrors each one in a legacy ``function_call``; plain
OpenAI deltas may be whitespace-led (``" "``, ``" {..."``). Each must come out as the
plain concatenation; genuine snapshots keep their F7 handling.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolwire.assemble import CallAssembler
from toolwire.events import ArgumentsDelta, CallFinished, Event, StreamResult, ToolCall
from toolwire.parser import StreamParser, parse_stream
from toolwire.replay.recorded import read_cases
from toolwire.spec import ToolSpec

# recorded from llama-cpp-python (bundled as the demo's first open-model stream)
(LLAMA_CPP_PYTHON,) = [c.data for c in read_cases("servers.jsonl") if c.covers[0] == "F32"]
WEATHER = ToolSpec(
    "get_weather",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city"],
    },
)


def assemble(fragments: list[tuple[Any, ...]], finish: str = "tool_calls") -> list[Event]:
    asm = CallAssembler()
    for fragment in fragments:
        asm.tool(*fragment)
    asm.set_finish_reason(finish)
    asm.end()
    return asm.drain()


def streamed(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ArgumentsDelta))


def test_llama_cpp_python_forced_tool_choice_is_one_complete_call_F7() -> None:
    """The server's exact shape: id, type and name in every chunk, and every chunk
    mirrored in ``delta.function_call``."""
    data = LLAMA_CPP_PYTHON
    result = parse_stream(data, "openai-chat", [WEATHER])
    (call,) = result.calls
    assert call.status == "complete", call
    assert call.arguments == {"city": "Paris", "unit": "celsius"}
    assert call.id == "call__0_get_weather_cmpl-5f1c0e8a-3b7d-4c52-9a2e-6d4b8f0c1a97"
    assert call.name == "get_weather"
    assert call.raw_arguments == '{"city": "Paris", "unit": "celsius"}'
    assert not call.errors and not call.repairs
    assert result.finish_reason == "tool_calls"
    assert not result.errors
    assert parse_stream(data, "auto", [WEATHER]).calls == result.calls


def test_llama_cpp_python_stream_in_any_byte_chunking_F15() -> None:
    data = LLAMA_CPP_PYTHON
    whole = parse_stream(data, "openai-chat", [WEATHER])
    rng = random.Random(7)
    for _ in range(30):
        parser = StreamParser("openai-chat", [WEATHER])
        events: list[Event] = []
        at = 0
        while at < len(data):
            step = rng.randint(1, 200)
            events += parser.feed(data[at : at + step])
            at += step
        events += parser.close()
        assert StreamResult.collect(events).to_dict() == whole.to_dict()
        assert streamed(events) == whole.calls[0].raw_arguments


def test_whitespace_led_plain_deltas_are_not_snapshots_F7() -> None:
    events = assemble(
        [(0, "c", "get_weather", " "), (0, None, None, ' {"city": '), (0, None, None, '"Paris"}')]
    )
    (call,) = StreamResult.collect(events).calls
    assert (call.status, call.arguments, call.repairs, call.errors) == (
        "complete",
        {"city": "Paris"},
        (),
        (),
    )
    assert streamed(events) == call.raw_arguments == '  {"city": "Paris"}'


def test_plain_text_that_repeats_its_start_and_parses_is_the_plain_parse_F7() -> None:
    """Both readings fit every delta here; only the plain one parses."""
    events = assemble(
        [(0, "c", "f", '{"a": ['), (0, None, None, '{"a": ['), (0, None, None, '{"a": [1]}]}]}')]
    )
    (call,) = StreamResult.collect(events).calls
    assert call.status == "complete"
    assert call.arguments == {"a": [{"a": [{"a": [1]}]}]}
    assert streamed(events) == call.raw_arguments


def test_genuine_snapshots_still_keep_only_the_new_suffix_F7() -> None:
    events = assemble(
        [
            (0, "c", "f", '{"a": ['),
            (0, None, None, '{"a": [1'),
            (0, None, None, '{"a": [1, 2]'),
            (0, None, None, '{"a": [1, 2]}'),
        ]
    )
    (call,) = StreamResult.collect(events).calls
    assert call.arguments == {"a": [1, 2]}
    assert call.repairs == ("cumulative_snapshots",)
    assert streamed(events) == call.raw_arguments == '{"a": [1, 2]}'


def test_a_repeated_identical_header_is_never_a_new_call_F8() -> None:
    """Id, type and name repeated with each fragment, with and without the id."""
    for with_id in (True, False):
        fragments = [
            (0, "c" if with_id else None, "f", piece) for piece in ['{"a": ', "{", '"b": 1}', "}"]
        ]
        (call,) = StreamResult.collect(assemble(fragments)).calls
        assert (call.name, call.arguments, call.status) == ("f", {"a": {"b": 1}}, "complete")


# -- the legacy function_call mirror ---------------------------------------------------


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    body = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(body)}\n\n"


def mirrored(name: str, piece: str, call_id: str | None = "call_1") -> dict[str, Any]:
    call: dict[str, Any] = {"index": 0, "type": "function"}
    if call_id is not None:
        call["id"] = call_id
    call["function"] = {"name": name, "arguments": piece}
    return {"function_call": {"name": name, "arguments": piece}, "tool_calls": [call]}


def test_the_function_call_mirror_is_not_a_second_call_nor_appended_twice() -> None:
    pieces = ['{"city"', ': "Oslo"}']
    data = "".join(chunk(mirrored("get_weather", p)) for p in pieces)
    data += chunk({}, "tool_calls") + "data: [DONE]\n\n"
    result = parse_stream(data, "openai-chat", [WEATHER])
    (call,) = result.calls
    assert (call.arguments, call.status, call.raw_arguments) == (
        {"city": "Oslo"},
        "complete",
        '{"city": "Oslo"}',
    )
    assert not result.errors


def test_a_legacy_function_call_alone_is_a_call() -> None:
    data = chunk({"function_call": {"name": "get_weather", "arguments": ""}})
    data += chunk({"function_call": {"arguments": '{"city": '}})
    data += chunk({"function_call": {"arguments": '"Oslo"}'}})
    data += chunk({}, "function_call") + "data: [DONE]\n\n"
    (call,) = parse_stream(data, "openai-chat", [WEATHER]).calls
    assert (call.name, call.arguments, call.status) == ("get_weather", {"city": "Oslo"}, "complete")


def test_a_legacy_function_call_that_is_no_mirror_is_reported() -> None:
    delta = mirrored("get_weather", '{"city": "Oslo"}')
    delta["function_call"] = {"name": "other", "arguments": "{}"}
    data = chunk(delta) + chunk({}, "tool_calls") + "data: [DONE]\n\n"
    result = parse_stream(data, "openai-chat", [WEATHER])
    assert [(c.name, c.status) for c in result.calls] == [("get_weather", "complete")]
    assert any("function_call" in e.message for e in result.errors)


def test_envelopes_never_take_the_mirrored_chunks() -> None:
    """A mirrored chunk names ``arguments`` twice: no envelope is learned from it, so
    the fast path cannot append its text a second time."""
    pieces = ['{"city": "'] + ["Os", "lo"] * 40 + ['"}']
    data = "".join(chunk(mirrored("get_weather", p)) for p in pieces)
    data += chunk({}, "tool_calls") + "data: [DONE]\n\n"
    parser = StreamParser("openai-chat", [WEATHER])
    events = parser.feed(data) + parser.close()
    (call,) = StreamResult.collect(events).calls
    assert call.arguments == {"city": "Oslo" * 40}
    assert call.status == "complete"
    assert streamed(events) == call.raw_arguments


# -- the property ----------------------------------------------------------------------

FINITE = st.floats(allow_nan=False, allow_infinity=False)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | FINITE | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)
ARGS = st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4)
SPACE = st.text(alphabet=" \n\t\r", max_size=4)


@st.composite
def argument_text(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A valid argument object as text: whitespace around it and maybe inside it."""
    args = draw(ARGS)
    indent = draw(st.sampled_from([None, None, 0, 1, 2]))
    body = json.dumps(args, indent=indent, ensure_ascii=draw(st.booleans()))
    return args, draw(SPACE) + body + draw(SPACE)


@st.composite
def deltas(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at random points; runs of whitespace are often cut alone, so
    whitespace-only and whitespace-led deltas are common."""
    cuts = set(draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12)))
    cuts |= {i for i, c in enumerate(text) if c.isspace() and draw(st.integers(0, 3)) == 0}
    points = [0, *sorted(c for c in cuts if 0 < c < len(text)), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


def openai_wire(pieces: list[str], repeat_header: bool, mirror: bool) -> bytes:
    out = []
    for i, piece in enumerate(pieces):
        call: dict[str, Any] = {"index": 0, "function": {"arguments": piece}}
        if i == 0 or repeat_header:
            call = {"index": 0, "id": "call_1", "type": "function"}
            call["function"] = {"name": "f", "arguments": piece}
        delta: dict[str, Any] = {"tool_calls": [call]}
        if mirror:
            delta = {"role": "assistant", "content": None, "function_call": None, **delta}
            delta["function_call"] = {"name": "f", "arguments": piece}
        out.append(chunk(delta))
    out.append(chunk({}, "tool_calls") + "data: [DONE]\n\n")
    return "".join(out).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argument_text(), st.data(), st.booleans(), st.booleans())
def test_valid_arguments_in_any_deltas_come_out_complete_and_equal_F7_F15(
    args_text: tuple[dict[str, Any], str],
    data: st.DataObject,
    repeat_header: bool,
    mirror: bool,
) -> None:
    args, text = args_text
    pieces = data.draw(deltas(text))
    wire = openai_wire(pieces, repeat_header, mirror)
    result = parse_stream(wire, "openai-chat")
    (call,) = result.calls
    assert call.status == "complete", (pieces, call)
    assert call.arguments == args
    assert call.raw_arguments == text
    assert not result.errors
    # any byte chunking of the wire gives the same (F15)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=10)))
    parser = StreamParser("openai-chat")
    events: list[Event] = []
    for a, b in zip([0, *cuts], [*cuts, len(wire)], strict=True):
        events += parser.feed(wire[a:b])
    events += parser.close()
    assert StreamResult.collect(events).to_dict() == result.to_dict()
    assert streamed(events) == text
    assert [e.call for e in events if isinstance(e, CallFinished)] == result.calls


# -- a second value in text with neither id nor name (F3, F15) -------------------------


def anthropic_messages(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
    messages: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": block},
    ]
    for piece in pieces:
        delta = {"type": "input_json_delta", "partial_json": piece}
        messages.append({"type": "content_block_delta", "index": 0, "delta": delta})
    stop = {"tool_calls": "tool_use", "length": "max_tokens"}[finish]
    messages.append({"type": "content_block_stop", "index": 0})
    messages.append({"type": "message_delta", "delta": {"stop_reason": stop}})
    messages.append({"type": "message_stop"})
    return messages


def chat_messages(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    """The call's id and name in its first chunk only, then argument text alone."""
    header = {"index": 0, "id": "call_1", "type": "function"}
    header["function"] = {"name": "f", "arguments": ""}
    calls = [[header]] + [[{"index": 0, "function": {"arguments": p}}] for p in pieces]
    messages = [{"choices": [{"index": 0, "delta": {"tool_calls": c}}]} for c in calls]
    messages.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return messages


def sse(messages: list[dict[str, Any]]) -> bytes:
    """Anthropic's messages with their event lines; OpenAI's with its end marker."""
    if "type" in messages[0]:
        return "".join(f"event: {m['type']}\ndata: {json.dumps(m)}\n\n" for m in messages).encode()
    return ("".join(f"data: {json.dumps(m)}\n\n" for m in messages) + "data: [DONE]\n\n").encode()


WIRES = {"openai-chat": chat_messages, "anthropic": anthropic_messages}


def test_a_second_value_in_a_later_delta_is_not_a_second_call_F3_F15() -> None:
    """The review's case: one delta gave one invalid call, two deltas a complete call
    {"city": "A"} (which an engine would run) and a nameless one. Text with neither id
    nor name is the call's, however it was chunked; the ladder refuses {..}{..}."""
    whole = '{"city":"A"}{"city":"B"}'
    cuts = ([whole], ['{"city":"A"}', '{"city":"B"}'], ['{"city":"A"}', ' {"city":"B"}'])
    for fmt, messages in WIRES.items():
        results = []
        for pieces in cuts:
            results.append(parse_stream(sse(messages(pieces, "tool_calls")), fmt, [WEATHER]))
            # the same messages as an SDK hands them over
            parser = StreamParser(fmt, [WEATHER])
            events = [e for m in messages(pieces, "tool_calls") for e in parser.feed_object(m)]
            results.append(StreamResult.collect(events + parser.close()))
        for result in results:
            (call,) = result.calls
            assert call.status == "invalid"
            assert call.arguments is None
            assert call.raw_arguments.replace(" ", "") == whole
            assert any("several top-level values" in e for e in call.errors), call.errors
        # bytes, then objects, for each cutting (the last one adds a space)
        dicts = [r.to_dict() for r in results]
        assert dicts[0] == dicts[1] == dicts[2] == dicts[3]
        assert dicts[4] == dicts[5]


def test_a_second_value_with_a_name_is_still_a_second_call_F3() -> None:
    """What still opens a call at a used index without an id: a name."""
    events = assemble([(0, None, "f", '{"a": 1}'), (0, None, "f", '{"a": 2}')])
    calls = StreamResult.collect(events).calls
    assert [(c.name, c.arguments, c.status) for c in calls] == [
        ("f", {"a": 1}, "complete"),
        ("f", {"a": 2}, "complete"),
    ]


VALUE = st.one_of(ARGS.map(json.dumps), st.lists(JSON_VALUES, max_size=3).map(json.dumps))


@st.composite
def values_text(draw: st.DrawFn) -> str:
    """One to three JSON values one after another, maybe with whitespace around and
    between them, maybe cut off."""
    values = draw(st.lists(VALUE, min_size=1, max_size=3))
    text = draw(SPACE) + "".join(v + draw(SPACE) for v in values)
    if draw(st.booleans()):
        text = text[: draw(st.integers(1, len(text)))]
    return text


def repeats_all_so_far(pieces: list[str]) -> bool:
    """Some delta after the first repeats all the text before it: it may be read as a
    cumulative snapshot (F7), which only a delta boundary can say."""
    so_far = ""
    for piece in pieces:
        if so_far and piece.startswith(so_far):
            return True
        so_far += piece
    return False


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values_text(),
    st.data(),
    st.sampled_from(sorted(WIRES)),
    st.sampled_from(["tool_calls", "length"]),
)
def test_argument_text_in_any_deltas_gives_what_one_delta_gives_F15(
    text: str, data: st.DataObject, fmt: str, finish: str
) -> None:
    """Argument text with neither id nor name, several values run together included,
    cut into deltas anywhere (no delta repeating all before it, F7): the same calls,
    statuses, repairs and errors as the text in one delta."""
    pieces = data.draw(deltas(text))
    assume(not repeats_all_so_far(pieces))
    messages = WIRES[fmt]
    whole = parse_stream(sse(messages([text], finish)), fmt)
    result = parse_stream(sse(messages(pieces, finish)), fmt)
    assert result.to_dict() == whole.to_dict(), pieces
    (call,) = result.calls
    assert call.raw_arguments == text


# -- a second call without an id whose name comes alone (F3, F8, F15) ------------------


def index_calls(calls: list[dict[str, Any]], finish: str = "tool_calls") -> list[dict[str, Any]]:
    """OpenAI chat chunks of one tool-call fragment each, at index 0, then the finish."""
    messages = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, **c}]}}]} for c in calls
    ]
    messages.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return messages


def read_three_ways(messages: list[dict[str, Any]]) -> list[ToolCall]:
    """The messages as bytes, as bytes fed 7 at a time, and as objects: one result."""
    wire = sse(messages)
    result = parse_stream(wire, "openai-chat")
    whole = result.to_dict()
    parser = StreamParser("openai-chat")
    fed = [e for i in range(0, len(wire), 7) for e in parser.feed(wire[i : i + 7])]
    fed += parser.close()
    parser = StreamParser("openai-chat")
    objects = [e for m in messages for e in parser.feed_object(m)] + parser.close()
    assert StreamResult.collect(fed).to_dict() == whole
    assert StreamResult.collect(objects).to_dict() == whole
    return result.calls


def args(text: str) -> dict[str, Any]:
    return {"function": {"arguments": text}}


FIRST = [{"id": "c1", "function": {"name": "f", "arguments": ""}}, *map(args, '{"a":1}')]


def test_a_second_call_whose_name_comes_alone_is_a_second_call_F3_F15() -> None:
    """A second call at the index, without an id: its name alone then its text
    (OpenAI's chunk shape), or its name with the first text. The same stream cut
    differently, so the same two calls (one gave {"a":1}{"b":2} as one invalid call).
    The first call's text comes a character a delta, so envelopes are learned."""
    name_alone = {"function": {"name": "f", "arguments": ""}}
    cuts = [
        [name_alone, args('{"b":2}')],
        [name_alone, *map(args, '{"b":2}')],
        [{"function": {"name": "f"}}, args('{"b"'), args(":2}")],
        [{"function": {"name": "f", "arguments": '{"b"'}}, args(":2}")],
        [{"function": {"name": "f", "arguments": '{"b":2}'}}],
    ]
    calls = [read_three_ways(index_calls(FIRST + second)) for second in cuts]
    assert all(c == calls[0] for c in calls), calls
    assert [(c.id, c.name, c.arguments, c.status) for c in calls[0]] == [
        ("c1", "f", {"a": 1}, "complete"),
        (None, "f", {"b": 2}, "complete"),
    ]


def test_a_second_call_whose_id_comes_after_its_name_F3_F15() -> None:
    """The name alone, then the id with the text: the call keeps the name."""
    cuts = [
        [{"function": {"name": "f", "arguments": ""}}, {"id": "c2", **args('{"b":2}')}],
        [{"function": {"name": "f", "arguments": '{"b"'}}, {"id": "c2", **args(":2}")}],
    ]
    calls = [read_three_ways(index_calls(FIRST + second)) for second in cuts]
    assert calls[0] == calls[1]
    assert [(c.id, c.name, c.arguments, c.status) for c in calls[0]] == [
        ("c1", "f", {"a": 1}, "complete"),
        ("c2", "f", {"b": 2}, "complete"),
    ]


def test_a_name_repeated_after_the_arguments_is_not_a_call_F8() -> None:
    """A server that repeats the name with every chunk, its last one without text:
    one call, as without the repeat (complete; cut off where the stream was, F33)."""
    calls = {f: read_three_ways(index_calls(FIRST, f)) for f in ("tool_calls", "length")}
    (call,) = calls["tool_calls"]
    assert (call.id, call.name, call.arguments, call.status) == ("c1", "f", {"a": 1}, "complete")
    tails: list[list[dict[str, Any]]] = [
        [{"function": {"name": "f", "arguments": ""}}],
        [{"function": {"name": "f"}}, {"function": {"name": "f", "arguments": ""}}],
        [{"function": {"name": "f", "arguments": ""}}, args("")],
    ]
    for tail in tails:
        for finish in ("tool_calls", "length"):
            assert read_three_ways(index_calls(FIRST + tail, finish)) == calls[finish]
    # the name on every chunk, the first with the id only
    repeated = [{"id": "c1", "function": {"name": "f", "arguments": ""}}]
    repeated += [{"function": {"name": "f", "arguments": p}} for p in '{"a":1}'] + [repeated[0]]
    repeated.append({"function": {"name": "f", "arguments": ""}})
    (call,) = read_three_ways(index_calls(repeated))
    assert (call.name, call.arguments, call.status) == ("f", {"a": 1}, "complete")


def test_text_after_a_repeated_name_that_opens_no_value_is_more_of_the_call_F8() -> None:
    """The name alone in the middle of the text (F8) marks nothing: the text goes on."""
    calls = [
        {"id": "c1", "function": {"name": "f", "arguments": '{"a":'}},
        {"function": {"name": "f", "arguments": ""}},
        args('{"b":1}}'),
    ]
    (call,) = read_three_ways(index_calls(calls))
    assert (call.arguments, call.status) == ({"a": {"b": 1}}, "complete")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ARGS.map(json.dumps), ARGS.map(json.dumps), st.data(), st.booleans())
def test_two_calls_at_one_index_in_any_deltas_F3_F15(
    first: str, second: str, data: st.DataObject, name_alone: bool
) -> None:
    """Two calls at index 0, the second without an id, each cut into deltas anywhere,
    the second's name alone or with its first text: what the whole texts give."""
    assume(not second.startswith(first))  # else the second may repeat the first (F7)
    pieces = [data.draw(deltas(first)), data.draw(deltas(second))]
    assume(not any(map(repeats_all_so_far, pieces)))
    header = {"id": "c1", "function": {"name": "f", "arguments": ""}}
    if name_alone:
        seconds = [{"function": {"name": "f", "arguments": ""}}, *map(args, pieces[1])]
    else:
        seconds = [{"function": {"name": "f", "arguments": pieces[1][0]}}]
        seconds += map(args, pieces[1][1:])
    cut = read_three_ways(index_calls([header, *map(args, pieces[0]), *seconds]))
    whole = [header, args(first), {"function": {"name": "f", "arguments": second}}]
    assert cut == read_three_ways(index_calls(whole)), pieces
    assert [(c.raw_arguments, c.status) for c in cut] == [
        (first, "complete"),
        (second, "complete"),
    ]


def test_text_with_the_id_after_a_repeated_name_spends_it_F3() -> None:
    """The name alone, then more text with the call's own id: that text is the call's
    (the same id, F3), and so is a value after it without id or name ({..}{..})."""
    calls = [
        {"id": "c1", "function": {"name": "f", "arguments": '{"a":1}'}},
        {"function": {"name": "f", "arguments": ""}},
        {"id": "c1", **args('{"b":2}')},
        args('{"c":3}'),
    ]
    (call,) = read_three_ways(index_calls(calls))
    assert (call.raw_arguments, call.status) == ('{"a":1}{"b":2}{"c":3}', "invalid")


def test_without_index_the_name_alone_counts_and_a_bare_second_value_does_not_F3() -> None:
    """Fragments without index go to the most recent call (F4): there too the name
    alone then a value is a second call, and a value with neither id nor name is not."""
    first = (None, "c1", "f", '{"a":1}')
    for name_alone in (True, False):
        fragments = [first, (None, None, "f", "")] if name_alone else [first]
        calls = StreamResult.collect(assemble([*fragments, (None, None, None, '{"b":2}')])).calls
        if name_alone:
            assert [(c.name, c.arguments, c.status) for c in calls] == [
                ("f", {"a": 1}, "complete"),
                ("f", {"b": 2}, "complete"),
            ]
        else:
            (call,) = calls
            assert (call.raw_arguments, call.status) == ('{"a":1}{"b":2}', "invalid")

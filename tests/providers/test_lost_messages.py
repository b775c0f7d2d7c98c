"""A wire message that cannot be read at all (cut short by a proxy, damaged in a saved
file) may have held argument text of any call still open when it came: such a call is
never ``complete`` (G3: never a silent ``{}``), and the loss is named on the call as
well as in the stream's errors. Calls closed before the loss, and calls that start
after it, are judged as usual. (Found by review 12: before, a call whose only argument
chunk was unreadable came out ``complete`` with ``{}``.)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.weather import WEATHER_CITY_OPTIONAL
from toolwire.parser import StreamParser, StreamResult, parse_stream

LOST = "a message of the stream could not be read while this call was open"
HEAD = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps(dict(HEAD, choices=[{"index": 0, "delta": delta, "finish_reason": finish}]))


def header(index: int, call_id: str) -> str:
    function = {"name": "get_weather", "arguments": ""}
    return chunk(
        {"tool_calls": [{"index": index, "id": call_id, "type": "function", "function": function}]}
    )


def arguments(index: int, text: str) -> str:
    return chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})


def sse(lines: list[str]) -> bytes:
    return "".join(f"data: {line}\n\n" for line in lines).encode() + b"data: [DONE]\n\n"


def test_openai_call_whose_only_argument_chunk_was_cut_short_is_not_complete() -> None:
    cut = arguments(0, '{"city":"Paris"}')[:105]  # the chunk ends inside "delta"
    data = sse([header(0, "c1"), cut, chunk({}, "tool_calls")])
    result = parse_stream(data, format="openai-chat", tools=[WEATHER_CITY_OPTIONAL])
    (call,) = result.calls
    assert call.status == "invalid"
    assert any(LOST in error for error in call.errors)
    assert [e.message for e in result.errors] == ["unreadable openai-chat message: cut off"]


def test_a_loss_marks_only_the_calls_open_when_it_came() -> None:
    # call c1 is whole before the loss... but OpenAI never closes a call before the
    # finish chunk, so the loss may belong to it too: both open calls are marked;
    # c3, started after the loss, is judged as usual
    lost = arguments(1, '{"city":"Rome"}')[:100]
    data = sse(
        [
            header(0, "c1"),
            arguments(0, '{"city":"Paris"}'),
            header(1, "c2"),
            lost,
            header(2, "c3"),
            arguments(2, '{"city":"Oslo"}'),
            chunk({}, "tool_calls"),
        ]
    )
    result = parse_stream(data, format="openai-chat", tools=[WEATHER_CITY_OPTIONAL])
    assert [c.status for c in result.calls] == ["invalid", "invalid", "complete"]
    assert result.calls[2].arguments == {"city": "Oslo"}


def anthropic_event(kind: str, body: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(dict(type=kind, **body))}\n\n"


def test_anthropic_call_closed_before_the_loss_stays_complete() -> None:
    def block(index: int, call_id: str, text: str) -> str:
        start = {"type": "tool_use", "id": call_id, "name": "get_weather", "input": {}}
        delta = {"type": "input_json_delta", "partial_json": text}
        return anthropic_event(
            "content_block_start", {"index": index, "content_block": start}
        ) + anthropic_event("content_block_delta", {"index": index, "delta": delta})

    cut = anthropic_event(
        "content_block_delta",
        {"index": 1, "delta": {"type": "input_json_delta", "partial_json": " "}},
    )[:60]
    data = (
        block(0, "toolu_1", '{"city": "Paris"}')
        + anthropic_event("content_block_stop", {"index": 0})
        + block(1, "toolu_2", '{"city": "Rome"}')
        + cut.rstrip("\n")
        + "\n\n"
        + anthropic_event("content_block_stop", {"index": 1})
        + anthropic_event("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {}})
        + anthropic_event("message_stop", {})
    ).encode()
    result = parse_stream(data, format="anthropic", tools=[WEATHER_CITY_OPTIONAL])
    assert [c.status for c in result.calls] == ["complete", "invalid"]
    assert any(LOST in error for error in result.calls[1].errors)
    assert not any(LOST in error for error in result.calls[0].errors)


def test_responses_arguments_delta_that_is_not_text_marks_its_call() -> None:
    def event(body: dict[str, Any]) -> str:
        return f"event: {body['type']}\ndata: {json.dumps(body)}\n\n"

    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    data = (
        event({"type": "response.output_item.added", "output_index": 0, "item": item})
        # an arguments delta whose delta is a number: its text was not read
        + event({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": 5})
        + event({"type": "response.completed", "response": {"status": "completed"}})
    ).encode()
    result = parse_stream(data, format="openai-responses", tools=[WEATHER_CITY_OPTIONAL])
    assert result.calls
    assert all(call.status != "complete" for call in result.calls)


def test_anthropic_partial_json_that_is_not_text_marks_its_call() -> None:
    start = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    data = (
        anthropic_event("content_block_start", {"index": 0, "content_block": start})
        + anthropic_event(
            "content_block_delta",
            {"index": 0, "delta": {"type": "input_json_delta", "partial_json": {"city": 1}}},
        )
        + anthropic_event("content_block_stop", {"index": 0})
        + anthropic_event("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {}})
    ).encode()
    result = parse_stream(data, format="anthropic", tools=[WEATHER_CITY_OPTIONAL])
    (call,) = result.calls
    assert call.status == "invalid"
    assert any("was an object, not text" in error for error in call.errors)


def test_saved_json_lines_with_a_damaged_line_read_as_their_stream() -> None:
    """The damaged line is one unreadable message and the line after it is read on its
    own, as the same messages sent as SSE are (review 12: the objects were split by
    balancing braces only, so the next line went into the damaged object and its
    argument text was lost)."""
    lines = [
        header(0, "c1"),
        arguments(0, '{"city":"Pa')[:105],  # damaged: cut inside "delta"
        arguments(0, 'ris"}'),
        chunk({}, "tool_calls"),
    ]
    saved = parse_stream("\n".join(lines).encode(), format="openai-chat")
    streamed = parse_stream(sse(lines), format="openai-chat")
    assert [(c.status, c.raw_arguments) for c in saved.calls] == [("invalid", 'ris"}')]
    assert saved.calls == streamed.calls
    assert [e.message for e in saved.errors] == [e.message for e in streamed.errors]


@pytest.mark.parametrize("cut", range(1, len(arguments(0, '{"city":"Pa')), 9))
def test_saved_json_lines_cut_anywhere_in_a_line_read_as_their_stream(cut: int) -> None:
    """Wherever the damaged line is cut (its braces left open to the end of the input,
    too), the saved lines give what the same messages sent as SSE give."""
    lines = [
        header(0, "c1"),
        arguments(0, '{"city":"Pa')[:cut],
        arguments(0, 'ris"}'),
        chunk({}, "tool_calls"),
        "[DONE]",
    ]
    saved = parse_stream("\n".join(lines).encode(), format="openai-chat")
    streamed = parse_stream(sse(lines[:-1]), format="openai-chat")
    assert saved.calls == streamed.calls
    assert saved.finish_reason == streamed.finish_reason
    assert [e.message for e in saved.errors] == [e.message for e in streamed.errors]


@pytest.mark.parametrize("layout", ["lines", "one line", "two on a line", "crlf"])
def test_saved_messages_read_whole_in_any_layout(layout: str) -> None:
    """Lines are read one by one only where an object did not read (review 13: reading
    every JSON-lines input by line lost messages saved two to a line)."""
    lines = [
        header(0, "c1"),
        arguments(0, '{"city":'),
        arguments(0, '"Oslo"}'),
        chunk({}, "tool_calls"),
    ]
    data = {
        "lines": "\n".join(lines),
        "one line": "".join(lines),
        "two on a line": "\n".join([lines[0], lines[1] + lines[2], lines[3]]),
        "crlf": "\r\n".join(lines),
    }[layout].encode()
    result = parse_stream(data, format="openai-chat", tools=[WEATHER_CITY_OPTIONAL])
    assert [(c.status, c.arguments) for c in result.calls] == [("complete", {"city": "Oslo"})]
    assert not result.errors


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=1, max_value=150), split=st.integers(min_value=1, max_value=64))
def test_any_cut_of_the_only_argument_chunk_in_any_split(cut: int, split: int) -> None:
    full = arguments(0, '{"city":"Paris"}')
    if cut >= len(full):
        cut = len(full) - 1
    data = sse([header(0, "c1"), full[:cut], chunk({}, "tool_calls")])
    parser = StreamParser(format="openai-chat", tools=[WEATHER_CITY_OPTIONAL])
    events = []
    for at in range(0, len(data), split):
        events.extend(parser.feed(data[at : at + split]))
    events.extend(parser.close())
    result = StreamResult.collect(events)
    (call,) = result.calls
    assert result.errors, "a cut chunk was read as whole"
    assert call.status != "complete"


def test_keep_alive_text_sent_as_data_marks_no_call() -> None:
    """Text a proxy sends as a data line to keep the connection open (OpenRouter's
    ": OPENROUTER PROCESSING" passed on as data, "keep-alive", "ping") never began as
    a message: it is reported, and the call open around it stays whole (review 13)."""
    for keep_alive in (": OPENROUTER PROCESSING", "keep-alive", "ping"):
        data = sse(
            [
                header(0, "c1"),
                arguments(0, '{"city":'),
                keep_alive,
                arguments(0, '"Paris"}'),
                chunk({}, "tool_calls"),
            ]
        )
        result = parse_stream(data, format="openai-chat", tools=[WEATHER_CITY_OPTIONAL])
        assert [(c.status, c.arguments) for c in result.calls] == [
            ("complete", {"city": "Paris"})
        ], keep_alive
        assert len(result.errors) == 1


def test_responses_done_item_copy_of_another_type_marks_no_call() -> None:
    """The done item repeats arguments that came whole in deltas: a copy that is not
    text is reported, but nothing of the call was lost (review 13 #6)."""

    def event(body: dict[str, Any]) -> str:
        return f"event: {body['type']}\ndata: {json.dumps(body)}\n\n"

    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    data = (
        event(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "arguments": ""},
            }
        )
        + event(
            {
                "type": "response.function_call_arguments.delta",
                "output_index": 0,
                "delta": '{"city": "Oslo"}',
            }
        )
        + event(
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {**item, "arguments": {"city": "Oslo"}},
            }
        )
        + event({"type": "response.completed", "response": {"status": "completed"}})
    ).encode()
    result = parse_stream(data, format="openai-responses", tools=[WEATHER_CITY_OPTIONAL])
    assert [(c.status, c.arguments) for c in result.calls] == [("complete", {"city": "Oslo"})]
    assert any("item.arguments is an object" in e.message for e in result.errors)

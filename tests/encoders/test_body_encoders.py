"""Whole-body encoders (F34): the non-streaming response of each wire, validated by the
SDKs' own response models, and read back by toolwire into the same turn."""

from __future__ import annotations

import json
from dataclasses import astuple, replace
from typing import Any

import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletion
from openai.types.responses import Response
from typer.testing import CliRunner
from weather import WEATHER_WITH_DAYS as WEATHER

from toolwire.cli import app
from toolwire.encoders import (
    BODY_ENCODERS,
    convert_stream,
    encode_events,
    encode_response,
    make_encoder,
)
from toolwire.events import Event, StreamError, StreamResult, TextDelta, Usage
from toolwire.parser import StreamParser, parse_stream

FORMATS = sorted(BODY_ENCODERS)


def chat_stream(
    calls: list[tuple[str, str]], finish: str = "tool_calls", text: str = "Checking."
) -> str:
    """An OpenAI chat stream: reasoning, text, the calls, the finish and usage."""
    chunks: list[dict[str, Any]] = [
        {"choices": [{"index": 0, "delta": {"reasoning_content": "Need weather."}}]},
        {"choices": [{"index": 0, "delta": {"content": text}}]},
    ]
    for index, (call_id, arguments) in enumerate(calls):
        function = {"name": "get_weather", "arguments": arguments}
        call = {"index": index, "id": call_id, "type": "function", "function": function}
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    chunks.append({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def events_of(data: str) -> list[Event]:
    parser = StreamParser("openai-chat", [WEATHER])
    return parser.feed(data) + parser.close()


# canonical argument text, as the encoders write it: the turn reads back unchanged
TWO_CALLS = events_of(chat_stream([("call_a", '{"city":"Oslo"}'), ("call_b", '{"city":"Rome"}')]))
CUT = events_of(chat_stream([("call_a", '{"city":"Os')], finish="length"))
TEXT_ONLY = events_of(chat_stream([], finish="stop", text="Sunny."))


def body(events: list[Event], fmt: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(encode_response(events, fmt, message_id="m1", created=1))
    return value


def read_back(events: list[Event], fmt: str) -> StreamResult:
    return parse_stream(encode_response(events, fmt, message_id="m1"), fmt, [WEATHER])


def same_turn(a: StreamResult, b: StreamResult) -> bool:
    """Equal, token counts included; other usage details only where both know them (the
    Responses API's are required fields: unknown ones are written, and read, as 0)."""
    ua, ub = a.usage or Usage(), b.usage or Usage()
    both_known = [
        (x, y) for x, y in zip(astuple(ua), astuple(ub), strict=True) if None not in (x, y)
    ]
    return (
        replace(a, usage=None) == replace(b, usage=None)
        and (ua.input_tokens, ua.output_tokens) == (ub.input_tokens, ub.output_tokens)
        and all(x == y or 0 in (x, y) for x, y in both_known)
    )


# -- the SDKs' own models accept what is written ---------------------------------------


def test_f34_openai_chat_completion_validates_with_the_sdk() -> None:
    completion = ChatCompletion.model_validate(body(TWO_CALLS, "openai-chat"))
    assert completion.object == "chat.completion"
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Checking."
    assert choice.message.tool_calls is not None
    assert [
        (c.id, c.function.name, json.loads(c.function.arguments))
        for c in choice.message.tool_calls
        if c.type == "function"
    ] == [
        ("call_a", "get_weather", {"city": "Oslo"}),
        ("call_b", "get_weather", {"city": "Rome"}),
    ]
    assert getattr(choice.message, "reasoning_content", None) == "Need weather."
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (10, 5)
    cut = ChatCompletion.model_validate(body(CUT, "openai-chat")).choices[0]
    assert cut.finish_reason == "length"
    assert cut.message.tool_calls is None  # G1: a cut-off call is held back
    plain = ChatCompletion.model_validate(body(TEXT_ONLY, "openai-chat")).choices[0]
    assert (plain.finish_reason, plain.message.content, plain.message.tool_calls) == (
        "stop",
        "Sunny.",
        None,
    )


def test_f34_anthropic_message_validates_with_the_sdk() -> None:
    message = Message.model_validate(body(TWO_CALLS, "anthropic"))
    assert [block.type for block in message.content] == ["thinking", "text", "tool_use", "tool_use"]
    tool_uses = [b for b in message.content if b.type == "tool_use"]
    assert [(b.id, b.name, b.input) for b in tool_uses] == [
        ("call_a", "get_weather", {"city": "Oslo"}),
        ("call_b", "get_weather", {"city": "Rome"}),
    ]
    assert message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (10, 5)
    assert Message.model_validate(body(TEXT_ONLY, "anthropic")).stop_reason == "end_turn"


def test_f34_responses_object_validates_with_the_sdk() -> None:
    response = Response.model_validate(body(TWO_CALLS, "openai-responses"))
    assert response.status == "completed"
    assert [item.type for item in response.output] == [
        "reasoning",
        "message",
        "function_call",
        "function_call",
    ]
    assert response.output_text == "Checking."
    calls = [item for item in response.output if item.type == "function_call"]
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("call_a", "get_weather", '{"city":"Oslo"}'),
        ("call_b", "get_weather", '{"city":"Rome"}'),
    ]
    cut = Response.model_validate(body(CUT, "openai-responses"))
    assert cut.status == "incomplete"
    assert cut.incomplete_details is not None
    assert cut.incomplete_details.reason == "max_output_tokens"
    assert [item.type for item in cut.output if item.type == "function_call"] == []  # G1


def test_f34_a_failed_turn_is_the_formats_error_with_status_500() -> None:
    events: list[Event] = [TextDelta("Hel"), StreamError("the upstream went away")]
    for fmt in FORMATS:
        encoder = make_encoder(fmt, whole=True)
        output = "".join(encoder.encode(events))
        assert encoder.status_code == 500 and encoder.media_type == "application/json"
        result = parse_stream(output, fmt)
        assert result.finish_reason == "error", fmt
        assert "the upstream went away" in result.errors[0].message, fmt
    failed = Response.model_validate(json.loads(encode_response(events, "openai-responses")))
    assert failed.status == "failed" and failed.error is not None


# -- decode(encode(turn)) is the turn ---------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_f34_every_body_reads_back_as_the_same_turn(fmt: str) -> None:
    for turn in (TWO_CALLS, TEXT_ONLY):
        assert same_turn(read_back(turn, fmt), StreamResult.collect(turn)), fmt
    # under auto too, and from a parse result as well as from events
    result = StreamResult.collect(TWO_CALLS)
    auto = parse_stream(encode_response(result, fmt), "auto", [WEATHER])
    assert [(c.id, c.name, c.arguments) for c in auto.calls] == [
        (c.id, c.name, c.arguments) for c in result.calls
    ]
    assert (auto.text, auto.reasoning, auto.finish_reason) == (
        result.text,
        result.reasoning,
        result.finish_reason,
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_f34_f1_g1_a_cut_off_call_in_a_body(fmt: str) -> None:
    encoder = make_encoder(fmt, whole=True, message_id="m1")
    output = "".join(encoder.encode(CUT))
    back = parse_stream(output, fmt, [WEATHER])
    assert back.finish_reason == "length"
    assert back.calls == []  # G1: never delivered as a call; held back, and said
    assert any("held back" in note for note in encoder.lossy)


def test_f34_bodies_come_whole_at_the_end_and_streams_are_unchanged() -> None:
    encoder = make_encoder("anthropic", whole=True)
    assert encoder.start() == [] and encoder.feed(TEXT_ONLY[0]) == []
    assert encode_events(TEXT_ONLY, "anthropic").startswith("event: message_start")
    same = {"message_id": "m1", "created": 1}
    assert encode_events(TEXT_ONLY, "gemini-array", whole=True, **same) == encode_events(
        TEXT_ONLY, "gemini-array", **same
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_f34_convert_a_stream_into_a_body(fmt: str) -> None:
    conversion = convert_stream(
        chat_stream([("call_a", '{"city": "Oslo", "days": "2"}')]),
        "openai-chat",
        fmt,
        [WEATHER],
        whole=True,
    )
    value = json.loads(conversion.output)
    assert isinstance(value, dict)
    back = parse_stream(conversion.output, "auto", [WEATHER])
    # the body carries the repaired arguments
    assert [c.arguments for c in back.calls] == [{"city": "Oslo", "days": 2}]


def test_cli_convert_whole_writes_one_json_body() -> None:
    runner = CliRunner()
    stream = chat_stream([("call_a", '{"city":"Oslo"}')])
    result = runner.invoke(app, ["convert", "--to", "anthropic", "--whole", "-"], input=stream)
    assert result.exit_code == 0, result.output
    message = Message.model_validate(json.loads(result.stdout))
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use"]
    assert "no signature" in result.stderr  # what the format could not express


def test_chat_text_chunks_from_the_template_are_what_the_chunk_writer_makes() -> None:
    """The chat encoder writes text deltas from a cached template (the gateway's hot
    path); its bytes must be exactly those of the general chunk writer."""
    from toolwire.encoders.openai_chat import OpenAIChatEncoder

    encoder = OpenAIChatEncoder(model='we"ird \u0000toolwire-text\u0000 model')
    for text in ("plain", 'quote " and \\ backslash', "emoji 🙂 \u2028", "\ud800 lone", ""):
        assert encoder._text(text) == [encoder._chunk({"content": text})]

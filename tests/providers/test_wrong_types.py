"""Issue 11: wrong-typed fields and lone surrogates in wire messages give error events
or faithful values, never an exception (decoders) or a raise (encoders)."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from weather import WEATHER_CITY_OPTIONAL as WEATHER

from toolwire.encoders import ENCODERS, convert_stream, encode_events
from toolwire.events import StreamResult
from toolwire.parser import StreamParser, parse_stream
from toolwire.providers.anthropic import AnthropicDecoder

WRONG = [5, True, [1], {"a": 1}, 1.5]


def messages_of(result: StreamResult) -> list[str]:
    return [e.message for e in result.errors]


def sse(event: dict[str, Any]) -> str:
    return f"data: {json.dumps(event)}\n\n"


@pytest.mark.parametrize("value", WRONG)
def test_a_responses_text_delta_of_another_type_is_an_error_naming_it(value: object) -> None:
    stream = (
        sse({"type": "response.output_text.delta", "item_id": "m", "delta": "Hi "})
        + sse({"type": "response.output_text.delta", "item_id": "m", "delta": value})
        + sse({"type": "response.output_text.delta", "item_id": "m", "delta": "there"})
        + sse({"type": "response.completed", "response": {"status": "completed"}})
    )
    result = parse_stream(stream, "openai-responses")  # raised in StreamResult.collect
    assert result.text == "Hi there"
    assert any("field delta is" in m and "not a string" in m for m in messages_of(result))


def chat_chunk(delta: dict[str, Any]) -> str:
    # the bytes vLLM sends: the same envelope around every delta string
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}],
    }
    return sse(chunk)


def anthropic_delta(kind: str, key: str, value: object, index: int = 0) -> str:
    event = {"type": "content_block_delta", "index": index, "delta": {"type": kind, key: value}}
    return f"event: content_block_delta\n{sse(event)}"


def fed_after_learning(fmt: str, head: list[str], wrong: str, tail: list[str]) -> StreamResult:
    """Feed ``head`` (which teaches the decoder an envelope), check that it did, then the
    block with the wrong type and ``tail``."""
    parser = StreamParser(fmt, [WEATHER])
    events = parser.feed("".join(head).encode())
    assert parser._decoder is not None and parser._decoder._envelope is not None  # type: ignore[attr-defined]
    events += parser.feed((wrong + "".join(tail)).encode())
    events += parser.close()
    return StreamResult.collect(events)


@pytest.mark.parametrize("value", WRONG)
def test_fast_path_openai_text_of_another_type_is_an_error(value: object) -> None:
    """A block in the shape of a learned envelope with a non-string delta."""
    head = [chat_chunk({"content": t}) for t in ("Che", "cking ", "the ")]
    tail = [chat_chunk({"content": "weather"}), "data: [DONE]\n\n"]
    result = fed_after_learning("openai-chat", head, chat_chunk({"content": value}), tail)
    assert result.text == "Checking the weather"
    wanted = "field choices[0].delta.content"
    assert any(wanted in m for m in messages_of(result)), messages_of(result)


@pytest.mark.parametrize("value", WRONG)
def test_fast_path_openai_arguments_of_another_type_are_an_error(value: object) -> None:
    start = {"index": 0, "id": "call_1", "function": {"name": "get_weather", "arguments": ""}}
    head = [chat_chunk({"tool_calls": [start]})] + [
        chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
        for piece in ('{"ci', 'ty": ', '"Os')
    ]
    wrong = chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": value}}]})
    result = fed_after_learning("openai-chat", head, wrong, ["data: [DONE]\n\n"])
    if not isinstance(value, dict):  # an object is F10: arguments sent whole
        wanted = "field choices[0].delta.tool_calls[0].function.arguments is"
        assert any(wanted in m for m in messages_of(result)), messages_of(result)
        assert result.calls[0].status != "complete"


@pytest.mark.parametrize(
    ("call", "wanted"),
    [
        (5, "tool_calls[1] is a number, not an object"),
        ({"index": 0, "function": "f"}, "tool_calls[1].function is a string, not an object"),
        ({"index": 0, "function": {"arguments": 5}}, "tool_calls[1].function.arguments is"),
    ],
)
def test_a_tool_call_of_another_type_beside_a_readable_one_is_an_error(
    call: object, wanted: str
) -> None:
    """A chunk of several fields (the general path) whose tool_calls hold a readable
    call and then one of another type: the second is named, the first read."""
    start = {"index": 1, "id": "call_1", "function": {"name": "get_weather", "arguments": "{}"}}
    stream = chat_chunk({"role": "assistant", "tool_calls": [start, call]}) + "data: [DONE]\n\n"
    result = parse_stream(stream, "openai-chat", [WEATHER])
    assert any(wanted in m for m in messages_of(result)), messages_of(result)
    assert result.calls[0].name == "get_weather"


@pytest.mark.parametrize("value", WRONG)
@pytest.mark.parametrize(
    ("kind", "key"), [("text_delta", "text"), ("input_json_delta", "partial_json")]
)
@mock.patch.object(AnthropicDecoder, "learn_after", 0)  # learn from the first delta
def test_fast_path_anthropic_delta_of_another_type_is_an_error(
    kind: str, key: str, value: object
) -> None:
    start = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}
        if key == "partial_json"
        else {"type": "text", "text": ""},
    }
    pieces = ('{"ci', 'ty": "', "Os", 'lo"}') if key == "partial_json" else ("Ch", "eck", "ing")
    head = [sse(start)] + [anthropic_delta(kind, key, p) for p in pieces[:3]]
    tail = [
        anthropic_delta(kind, key, pieces[3]) if key == "partial_json" else "",
        sse({"type": "content_block_stop", "index": 0}),
        sse({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
        sse({"type": "message_stop"}),
    ]
    result = fed_after_learning("anthropic", head, anthropic_delta(kind, key, value), tail)
    assert any(f"field delta.{key} is" in m for m in messages_of(result)), messages_of(result)
    if key == "partial_json":
        assert result.calls[0].arguments == {"city": "Oslo"}
    else:
        assert result.text == "Checking"


# -- lone surrogates --------------------------------------------------------------------

LONE = json.dumps({"city": "Os\ud800lo"})  # {"city": "Os\ud800lo"}: valid JSON syntax


def ollama_stream(arguments: str) -> str:
    call = '{"function": {"name": "get_weather", "arguments": ' + arguments + "}}"
    return (
        '{"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "",'
        f' "tool_calls": [{call}]}}, "done": false}}\n'
        '{"model": "m", "created_at": "t", "message": {"role": "assistant", "content": ""},'
        ' "done": true, "done_reason": "stop"}\n'
    )


def gemini_stream(arguments: str, response_id: str = '"r1"') -> str:
    part = '{"functionCall": {"name": "get_weather", "args": ' + arguments + "}}"
    return (
        '[{"candidates": [{"content": {"role": "model", "parts": [' + part + "]},"
        ' "finishReason": "STOP", "index": 0}], "responseId": ' + response_id + "}]"
    )


@pytest.mark.parametrize(
    ("fmt", "stream"),
    [
        ("ollama", ollama_stream(LONE)),
        ("gemini", gemini_stream(LONE)),
        ("gemini", gemini_stream('{"city": "Oslo"}', response_id='"r\\udc00"')),
    ],
    ids=["ollama-arguments", "gemini-arguments", "gemini-responseId"],
)
def test_lone_surrogates_in_object_arguments_and_ids_never_raise(fmt: str, stream: str) -> None:
    result = parse_stream(stream, fmt, [WEATHER])  # raised before
    (call,) = result.calls
    if "Os\\ud800" in stream:  # the value cannot be sent on as it is: U+FFFD, a named repair
        assert (call.status, call.repairs) == ("repaired", ("lone_surrogate",))
        assert call.arguments == {"city": "Os\ufffdlo"}
    else:
        assert (call.status, call.arguments) == ("complete", {"city": "Oslo"})
    assert call.id  # a stable id, from a response id that UTF-8 cannot encode
    # the raw text holds the surrogate as its escape: it encodes as UTF-8 and reads back
    call.raw_arguments.encode()
    assert json.loads(call.raw_arguments)["city"] in ("Os\ud800lo", "Oslo")


@pytest.mark.parametrize("target", ENCODERS)
def test_encoders_write_lone_surrogates_as_escapes(target: str) -> None:
    """Decoded text that holds a lone surrogate is written with its ``\\u`` escape:
    what the upstream sent, in text that encodes as UTF-8."""
    stream = (
        sse({"choices": [{"index": 0, "delta": {"content": "a\ud800b"}}]})
        + sse(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "call_1",
                                    "function": {"name": "get_weather", "arguments": LONE},
                                }
                            ]
                        },
                        "finish_reason": "tool_calls",
                    }
                ]
            }
        )
        + "data: [DONE]\n\n"
    )
    out = convert_stream(stream, "openai-chat", target, [WEATHER]).output  # raised before
    out.encode()
    assert "\\ud800" in out


def test_encoders_write_arguments_nested_beyond_the_stack() -> None:
    """A complete call whose arguments nest 1020 arrays deep (orjson reads 1024, so
    ``complete``; Python's json writer stops near 1000) is written, not a RecursionError."""
    args = '{"city": "Oslo", "deep": ' + "[" * 1020 + "]" * 1020 + "}"
    call = {"index": 0, "id": "c1", "function": {"name": "get_weather", "arguments": args}}
    choice = {"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": "tool_calls"}
    parser = StreamParser("openai-chat", [WEATHER])
    events = parser.feed(sse({"choices": [choice]}) + "data: [DONE]\n\n") + parser.close()
    assert StreamResult.collect(events).calls[0].status == "complete"
    for target in ENCODERS:
        assert "[" * 1020 in encode_events(events, target)  # raised before

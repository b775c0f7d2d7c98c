"""Non-streaming response bodies of the five wires (F34): decoded into the same events
and calls as their streams, through the same finisher, explicitly and under ``auto``."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from weather import WEATHER_WITH_DAYS as WEATHER

from toolwire.events import CallFinished, Event, StreamResult
from toolwire.parser import StreamParser, parse_stream


def parse(body: Any, fmt: str = "auto", **options: Any) -> StreamResult:
    data = body if isinstance(body, str) else json.dumps(body, indent=2)
    return parse_stream(data, fmt, [WEATHER], **options)


def chunked(data: str, fmt: str, seed: int) -> list[Event]:
    """The events of ``data`` fed in random byte pieces."""
    raw = data.encode()
    rng = random.Random(seed)
    parser = StreamParser(fmt, [WEATHER])
    events: list[Event] = []
    i = 0
    while i < len(raw):
        step = rng.randint(1, 9)
        events.extend(parser.feed(raw[i : i + step]))
        i += step
    events.extend(parser.close())
    return events


def calls(result: StreamResult) -> list[tuple[Any, ...]]:
    return [(c.id, c.name, c.arguments, c.status, c.repairs) for c in result.calls]


def sse(chunks: list[dict[str, Any]], done: bool = True) -> str:
    out = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return out + ("data: [DONE]\n\n" if done else "")


def named_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


# -- OpenAI Chat Completions -----------------------------------------------------------


def chat_completion(
    message: dict[str, Any], finish: str | None = "tool_calls", **extra: Any
) -> dict[str, Any]:
    """A ``chat.completion`` object as api.openai.com sends it."""
    return {
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion",
        "created": 1741569952,
        "model": "gpt-4.1-2025-04-14",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "annotations": [], **message},
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": 82,
            "completion_tokens": 17,
            "total_tokens": 99,
            "prompt_tokens_details": {"cached_tokens": 64, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_2a8e1b2d3c",
        **extra,
    }


def tool_call(call_id: str, arguments: str, name: str = "get_weather") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_f34_openai_chat_completion_with_tool_calls() -> None:
    body = chat_completion(
        {
            "content": None,
            "refusal": None,
            "tool_calls": [
                tool_call("call_a", '{"city": "Oslo"}'),
                tool_call("call_b", '{"city": "Bergen", "days": "3"}'),
            ],
        }
    )
    for fmt in ("auto", "openai-chat"):
        result = parse(body, fmt)
        assert calls(result) == [
            ("call_a", "get_weather", {"city": "Oslo"}, "complete", ()),
            (
                "call_b",
                "get_weather",
                {"city": "Bergen", "days": 3},
                "repaired",
                ("coerce:days:string->integer",),
            ),
        ]
        assert (result.text, result.finish_reason, result.errors) == ("", "tool_calls", [])
        assert result.usage is not None
        assert (result.usage.input_tokens, result.usage.output_tokens) == (82, 17)
        assert result.usage.cache_read_tokens == 64


def test_f34_openai_body_gives_the_events_of_its_stream() -> None:
    message = {
        "content": "Checking.",
        "tool_calls": [tool_call("call_a", '{"city": "Oslo"}')],
    }
    stream = sse(
        [
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Checking."}}]},
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, **message["tool_calls"][0]}]},
                    }
                ]
            },
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
    )
    body = json.dumps(chat_completion(message, usage=None))
    assert parse_stream(body, "auto", [WEATHER]) == parse_stream(stream, "auto", [WEATHER])
    assert chunked(body, "openai-chat", 1) == chunked(stream, "openai-chat", 2)


def test_f34_legacy_function_call_beside_tool_calls_is_the_same_call() -> None:
    arguments = '{"city": "Oslo"}'
    body = chat_completion(
        {
            "content": None,
            "tool_calls": [tool_call("call_a", arguments)],
            "function_call": {"name": "get_weather", "arguments": arguments},
        }
    )
    assert calls(parse(body)) == [("call_a", "get_weather", {"city": "Oslo"}, "complete", ())]
    alone = chat_completion(
        {"content": None, "function_call": {"name": "get_weather", "arguments": arguments}},
        finish="function_call",
    )
    result = parse(alone)
    assert [(c.name, c.arguments, c.status) for c in result.calls] == [
        ("get_weather", {"city": "Oslo"}, "complete")
    ]
    assert result.finish_reason == "tool_calls"


def test_f34_f1_openai_body_cut_off_by_length_is_truncated() -> None:
    body = chat_completion(
        {"content": None, "tool_calls": [tool_call("call_a", '{"city": "Os')]}, finish="length"
    )
    result = parse(body)
    assert result.finish_reason == "length"
    [call] = result.calls
    assert (call.status, call.arguments, call.partial_arguments) == (
        "truncated",
        None,
        {"city": "Os"},
    )


def test_f34_openai_calls_without_ids_stay_apart() -> None:
    # a body's calls carry no index (or 0 for each); one whose arguments are cut must
    # not swallow the next
    function = {"name": "get_weather", "arguments": '{"city'}
    body = chat_completion(
        {
            "content": None,
            "tool_calls": [
                {"type": "function", "function": function},
                {"index": 0, "type": "function", "function": {**function, "arguments": "{}"}},
            ],
        }
    )
    result = parse(body)
    assert len(result.calls) == 2
    assert [c.raw_arguments for c in result.calls] == ['{"city', "{}"]


def test_f34_vllm_body_with_reasoning_and_markup_left_in_the_text() -> None:
    body = chat_completion(
        {
            "content": 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": '
            '{"city": "Oslo"}}\n</tool_call>',
            "reasoning_content": "The user wants weather.",
            "tool_calls": [],
        },
        finish="stop",
        model="Qwen/Qwen3-8B",
        prompt_logprobs=None,
        kv_transfer_params=None,
    )
    plain = parse(body, "openai-chat")
    assert plain.reasoning == "The user wants weather."
    assert plain.calls == [] and "<tool_call>" in plain.text
    extracted = parse(body, "openai-chat", text_format="hermes")
    assert [(c.name, c.arguments) for c in extracted.calls] == [("get_weather", {"city": "Oslo"})]
    assert extracted.text == "Sure.\n" and extracted.finish_reason == "tool_calls"


def test_f34_openai_refusal_and_error_bodies() -> None:
    refused = parse(chat_completion({"content": None, "refusal": "I can't help."}, "stop"))
    assert (refused.text, refused.finish_reason) == ("I can't help.", "stop")
    error = {
        "error": {
            "message": "Rate limit reached",
            "type": "rate_limit_exceeded",
            "param": None,
            "code": None,
        }
    }
    for fmt in ("auto", "openai-chat", "openai-responses"):
        result = parse(error, fmt)
        assert result.finish_reason == "error", fmt
        assert [e.message for e in result.errors] == [
            "the upstream sent an error: Rate limit reached"
        ]


# -- Anthropic Messages ----------------------------------------------------------------


def anthropic_message(content: list[dict[str, Any]], stop: str = "tool_use") -> dict[str, Any]:
    """A ``message`` object as api.anthropic.com sends it."""
    return {
        "id": "msg_01Aq9w938a90dw8q",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 472,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 128,
            "output_tokens": 89,
            "service_tier": "standard",
        },
    }


THINKING = {"type": "thinking", "thinking": "Weather tool.", "signature": "EqQBCgIYAhIM"}


def test_f34_anthropic_message_with_thinking_text_and_tool_use() -> None:
    body = anthropic_message(
        [
            THINKING,
            {"type": "text", "text": "I'll check."},
            {
                "type": "tool_use",
                "id": "toolu_01",
                "name": "get_weather",
                "input": {"city": "Oslo", "days": "2"},
            },
        ]
    )
    for fmt in ("auto", "anthropic"):
        result = parse(body, fmt)
        assert calls(result) == [
            (
                "toolu_01",
                "get_weather",
                {"city": "Oslo", "days": 2},
                "repaired",
                ("coerce:days:string->integer",),
            )
        ]
        assert (result.text, result.reasoning) == ("I'll check.", "Weather tool.")
        assert result.finish_reason == "tool_calls" and result.errors == []
        assert result.usage is not None
        assert (result.usage.input_tokens, result.usage.output_tokens) == (472, 89)
        assert result.usage.cache_read_tokens == 128


def test_f34_anthropic_body_gives_the_events_of_its_stream() -> None:
    block = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}
    stream = named_sse(
        [
            {"type": "message_start", "message": {**anthropic_message([]), "stop_reason": None}},
            {"type": "content_block_start", "index": 0, "content_block": THINKING},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": block},
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
            {"type": "message_stop"},
        ]
    )
    body = json.dumps(anthropic_message([THINKING, block]))
    assert chunked(body, "auto", 3) == chunked(stream, "anthropic", 4)


def test_f34_f1_anthropic_max_tokens_cuts_the_tool_input() -> None:
    body = anthropic_message(
        [
            {"type": "text", "text": "Writing it."},
            {"type": "tool_use", "id": "toolu_02", "name": "get_weather", "input": {"city": "Os"}},
        ],
        stop="max_tokens",
    )
    result = parse(body)
    assert result.finish_reason == "length"
    [call] = result.calls
    assert (call.status, call.arguments, call.partial_arguments) == (
        "truncated",
        None,
        {"city": "Os"},
    )


def test_f34_anthropic_input_sent_as_json_text_is_read() -> None:
    body = anthropic_message(
        [{"type": "tool_use", "id": "toolu_03", "name": "get_weather", "input": '{"city": "Oslo"}'}]
    )
    assert calls(parse(body, "anthropic")) == [
        ("toolu_03", "get_weather", {"city": "Oslo"}, "complete", ())
    ]


def test_f34_anthropic_error_body() -> None:
    body = {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
        "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy",
    }
    for fmt in ("auto", "anthropic"):
        result = parse(body, fmt)
        assert result.finish_reason == "error"
        assert [e.message for e in result.errors] == ["the upstream sent an error: Overloaded"]


# -- OpenAI Responses ------------------------------------------------------------------


def response_object(
    output: list[dict[str, Any]], status: str = "completed", **extra: Any
) -> dict[str, Any]:
    """A Responses ``response`` object as api.openai.com sends it."""
    return {
        "id": "resp_67ccd2bed1ec8190b14f964abc054267",
        "object": "response",
        "created_at": 1741476542,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "model": "gpt-5-2025-08-07",
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": 36,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 87,
            "output_tokens_details": {"reasoning_tokens": 64},
            "total_tokens": 123,
        },
        "user": None,
        "metadata": {},
        **extra,
    }


REASONING_ITEM = {
    "id": "rs_68af",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Need the weather."}],
}


def message_item(text: str) -> dict[str, Any]:
    return {
        "id": "msg_68af",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }


def function_call_item(arguments: str, status: str = "completed") -> dict[str, Any]:
    return {
        "id": "fc_68af",
        "type": "function_call",
        "status": status,
        "arguments": arguments,
        "call_id": "call_FkB3",
        "name": "get_weather",
    }


def test_f34_responses_object_with_reasoning_message_and_function_call() -> None:
    body = response_object(
        [REASONING_ITEM, message_item("Checking."), function_call_item('{"city": "Oslo"}')]
    )
    for fmt in ("auto", "openai-responses"):
        result = parse(body, fmt)
        assert calls(result) == [("call_FkB3", "get_weather", {"city": "Oslo"}, "complete", ())]
        assert (result.text, result.reasoning) == ("Checking.", "Need the weather.")
        assert result.finish_reason == "tool_calls" and result.errors == []
        assert result.usage is not None
        assert (result.usage.output_tokens, result.usage.reasoning_tokens) == (87, 64)


def test_f34_f1_responses_incomplete_at_max_output_tokens() -> None:
    body = response_object(
        [REASONING_ITEM, function_call_item('{"city": "Os', status="incomplete")],
        status="incomplete",
        incomplete_details={"reason": "max_output_tokens"},
    )
    result = parse(body)
    assert result.finish_reason == "length"
    [call] = result.calls
    assert (call.status, call.partial_arguments) == ("truncated", {"city": "Os"})


def test_f34_responses_reasoning_text_of_open_models_and_unfinished_statuses() -> None:
    # vLLM and Ollama put gpt-oss's reasoning in the item's content, not a summary
    reasoning = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "Think."}],
    }
    assert parse(response_object([reasoning, message_item("Hi")])).reasoning == "Think."
    failed = parse(response_object([], "failed", error={"code": "server_error", "message": "boom"}))
    assert failed.finish_reason == "error" and "boom" in failed.errors[0].message
    queued = parse(response_object([], "queued"))
    assert queued.finish_reason == "error"
    assert "not finished" in queued.errors[0].message


# -- Gemini and Ollama -------------------------------------------------------------------


def gemini_response(parts: list[dict[str, Any]], finish: str = "STOP") -> dict[str, Any]:
    """A ``generateContent`` response as generativelanguage.googleapis.com sends it."""
    return {
        "candidates": [
            {
                "content": {"parts": parts, "role": "model"},
                "finishReason": finish,
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 50,
            "candidatesTokenCount": 12,
            "totalTokenCount": 90,
            "thoughtsTokenCount": 28,
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "mBhXaOHpB4a0nvgP0q3RiAo",
    }


def test_f34_gemini_generate_content_and_its_json_array() -> None:
    parts = [
        {"text": "Let me look.", "thought": True},
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo", "days": "2"}}},
    ]
    body = gemini_response(parts, finish="MAX_TOKENS")
    for data in (body, [body]):
        for fmt in ("auto", "gemini"):
            result = parse(data, fmt)
            assert [(c.name, c.arguments, c.status) for c in result.calls] == [
                ("get_weather", {"city": "Oslo", "days": 2}, "repaired")
            ]
            assert (result.reasoning, result.finish_reason) == ("Let me look.", "length")
            assert result.usage is not None and result.usage.output_tokens == 40


def test_f34_ollama_chat_body_with_object_arguments() -> None:
    body = {
        "model": "qwen3:8b",
        "created_at": "2025-07-29T18:43:29.196512Z",
        "message": {
            "role": "assistant",
            "content": "",
            "thinking": "Use the tool.",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}],
        },
        "done_reason": "stop",
        "done": True,
        "total_duration": 2393450458,
        "load_duration": 37064625,
        "prompt_eval_count": 171,
        "prompt_eval_duration": 168290542,
        "eval_count": 53,
        "eval_duration": 2187176042,
    }
    for fmt in ("auto", "ollama"):
        result = parse(body, fmt)
        assert [(c.name, c.arguments, c.status) for c in result.calls] == [
            ("get_weather", {"city": "Oslo"}, "complete")
        ]
        assert (result.reasoning, result.finish_reason) == ("Use the tool.", "tool_calls")


# -- every body, any chunking; cut-off bodies ------------------------------------------

BODIES = {
    "openai-chat": chat_completion({"content": None, "tool_calls": [tool_call("c", "{}")]}),
    "anthropic": anthropic_message([{"type": "tool_use", "id": "t", "name": "n", "input": {}}]),
    "openai-responses": response_object([function_call_item("{}")]),
    "gemini": gemini_response([{"functionCall": {"name": "n", "args": {}}}]),
}


@pytest.mark.parametrize("fmt", sorted(BODIES))
def test_f34_bodies_read_the_same_however_they_are_split(fmt: str) -> None:
    data = json.dumps(BODIES[fmt], indent=1)
    whole = parse_stream(data, "auto", [WEATHER])
    assert whole.calls and whole.errors == []
    for seed in range(5):
        for source in ("auto", fmt):
            assert StreamResult.collect(chunked(data, source, seed)) == whole


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic", "openai-responses"])
def test_f34_a_cut_off_body_is_an_error_not_text(fmt: str) -> None:
    data = json.dumps(BODIES[fmt])
    cut = data[: len(data) * 2 // 3]
    for source in ("auto", fmt):
        parser = StreamParser(source)
        events = parser.feed(cut) + parser.close()
        result = StreamResult.collect(events)
        assert parser.format == fmt
        assert result.finish_reason == "error" and result.text == ""
        assert [e.message for e in result.errors] == [f"unreadable {fmt} response body: cut off"]
        assert not [e for e in events if isinstance(e, CallFinished)]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(BODIES)), st.data())
def test_f34_bodies_of_any_shape_never_raise(fmt: str, data: st.DataObject) -> None:
    """Each top-level member of a body, and each member of its first item, replaced by
    any JSON value: the parser answers with a status, never an exception."""
    body = json.loads(json.dumps(BODIES[fmt]))
    key = data.draw(st.sampled_from(sorted(body)))
    body[key] = data.draw(JSON_VALUES)
    for items in ("choices", "content", "output", "candidates"):
        first = body.get(items)
        if isinstance(first, list) and first and isinstance(first[0], dict) and first[0]:
            inner = data.draw(st.sampled_from(sorted(first[0])))
            first[0][inner] = data.draw(JSON_VALUES)
    for source in ("auto", fmt):
        result = parse_stream(json.dumps(body), source, [WEATHER])
        assert result.finish_reason is not None

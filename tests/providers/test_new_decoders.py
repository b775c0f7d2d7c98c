"""Decoders for OpenAI Responses, Gemini (SSE and JSON array) and Ollama NDJSON."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from weather import WEATHER

from toolwire.events import StreamResult
from toolwire.parser import StreamParser, parse_stream
from toolwire.providers import DECODERS, detect_format
from toolwire.providers.jsonstream import JsonObjectSplitter


def sse(event: dict[str, Any], named: bool = True) -> str:
    head = f"event: {event['type']}\n" if named else ""
    return f"{head}data: {json.dumps(event)}\n\n"


def chunked(data: str, fmt: str, seed: int) -> StreamResult:
    """Parse ``data`` fed in random byte pieces (split anywhere, F15/F27)."""
    raw = data.encode()
    rng = random.Random(seed)
    parser = StreamParser(fmt, [WEATHER])
    events = []
    i = 0
    while i < len(raw):
        step = rng.randint(1, 7)
        events.extend(parser.feed(raw[i : i + step]))
        i += step
    events.extend(parser.close())
    return StreamResult.collect(events)


def same(a: StreamResult, b: StreamResult) -> bool:
    return (
        [(c.id, c.name, c.arguments, c.status) for c in a.calls]
        == [(c.id, c.name, c.arguments, c.status) for c in b.calls]
        and a.text == b.text
        and a.reasoning == b.reasoning
        and a.finish_reason == b.finish_reason
        and a.usage == b.usage
    )


# -- OpenAI Responses ------------------------------------------------------------------


def responses_stream(*, terminal: str = "completed", deltas: bool = True) -> str:
    fc = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "delta": "Need weather.",
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": "Checking ",
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": "Oslo ☃.",
        },
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**fc, "arguments": "", "status": "in_progress"},
        },
    ]
    if deltas:
        for piece in ('{"ci', 'ty": "Os', 'lo"}'):
            events.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_1",
                    "output_index": 2,
                    "delta": piece,
                }
            )
    if terminal == "incomplete":
        events.append(
            {
                "type": "response.incomplete",
                "response": {
                    "status": "incomplete",
                    "incomplete_details": {"reason": "max_output_tokens"},
                },
            }
        )
        return "".join(sse(e) for e in events)
    events.append(
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 2,
            "arguments": '{"city": "Oslo"}',
        }
    )
    events.append(
        {
            "type": "response.output_item.done",
            "output_index": 2,
            "item": {**fc, "arguments": '{"city": "Oslo"}', "status": "completed"},
        }
    )
    if terminal == "failed":
        events.append(
            {
                "type": "response.failed",
                "response": {"status": "failed", "error": {"code": "x", "message": "boom"}},
            }
        )
    else:
        usage = {
            "input_tokens": 12,
            "input_tokens_details": {"cached_tokens": 2},
            "output_tokens": 9,
            "output_tokens_details": {"reasoning_tokens": 4},
        }
        events.append(
            {"type": "response.completed", "response": {"status": "completed", "usage": usage}}
        )
    return "".join(sse(e) for e in events)


def test_responses_text_reasoning_call_and_usage() -> None:
    result = parse_stream(responses_stream(), "openai-responses", [WEATHER])
    assert [(c.id, c.name, c.arguments, c.status) for c in result.calls] == [
        ("call_1", "get_weather", {"city": "Oslo"}, "complete")
    ]
    assert result.text == "Checking Oslo ☃."
    assert result.reasoning == "Need weather."
    assert result.finish_reason == "tool_calls"  # F17: "completed" with a call
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (12, 9)
    assert (result.usage.cache_read_tokens, result.usage.reasoning_tokens) == (2, 4)
    assert not result.errors


def test_responses_done_events_alone_carry_the_arguments() -> None:
    # no deltas: the .done text is used once; after deltas it is never appended (F7)
    result = parse_stream(responses_stream(deltas=False), "openai-responses", [WEATHER])
    assert result.calls[0].arguments == {"city": "Oslo"}
    assert result.calls[0].repairs == ()


def test_responses_incomplete_is_length_and_the_call_truncated() -> None:
    result = parse_stream(responses_stream(terminal="incomplete"), "openai-responses", [WEATHER])
    assert result.finish_reason == "length"
    assert result.calls[0].status == "truncated"  # F1
    assert result.calls[0].arguments is None


def test_responses_failed_is_an_error() -> None:
    result = parse_stream(responses_stream(terminal="failed"), "openai-responses", [WEATHER])
    assert result.finish_reason == "error"
    assert any("boom" in e.message for e in result.errors)


def test_responses_content_filter_and_error_event() -> None:
    stream = sse(
        {
            "type": "response.incomplete",
            "response": {"incomplete_details": {"reason": "content_filter"}},
        }
    )
    assert parse_stream(stream, "openai-responses").finish_reason == "content_filter"
    error = sse({"type": "error", "code": "rate_limit", "message": "slow down"})
    result = parse_stream(error, "openai-responses")
    assert result.finish_reason == "error"
    assert "slow down" in result.errors[0].message


def test_responses_without_terminal_event_is_dropped() -> None:
    stream = responses_stream().split("event: response.completed")[0]
    result = parse_stream(stream, "openai-responses", [WEATHER])
    assert result.finish_reason == "error"
    # the turn never ended: the last call is not handed over as final (F1), but what
    # arrived stays visible
    assert result.calls[0].status == "truncated"
    assert result.calls[0].partial_arguments == {"city": "Oslo"}


def test_responses_any_chunking_same_result() -> None:
    data = responses_stream()
    whole = parse_stream(data, "openai-responses", [WEATHER])
    for seed in range(20):
        assert same(chunked(data, "openai-responses", seed), whole)


# -- Gemini ----------------------------------------------------------------------------


def gemini_chunks() -> list[dict[str, Any]]:
    def cand(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0, **extra}],
            "responseId": "resp-9",
        }

    return [
        cand([{"text": "Weighing it.", "thought": True}]),
        cand([{"text": "Looking up Zürich "}]),
        cand([{"text": "and Bern."}]),
        {
            **cand(
                [
                    {"functionCall": {"name": "get_weather", "args": {"city": "Zürich"}}},
                    {"functionCall": {"name": "get_weather", "args": {"city": "Bern"}}},
                ],
                finishReason="STOP",
            ),
            "usageMetadata": {
                "promptTokenCount": 20,
                "candidatesTokenCount": 8,
                "thoughtsTokenCount": 5,
                "totalTokenCount": 33,
            },
        },
    ]


def gemini_sse() -> str:
    return "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in gemini_chunks())


def gemini_array() -> str:
    # the REST framing: a pretty-printed array, elements separated by ",\r\n"
    return "[" + ",\r\n".join(json.dumps(c, indent=2) for c in gemini_chunks()) + "]"


@pytest.mark.parametrize("framing", [gemini_sse, gemini_array])
def test_gemini_text_thoughts_parallel_calls(framing: Any) -> None:
    result = parse_stream(framing(), "gemini", [WEATHER])
    assert [(c.name, c.arguments, c.status) for c in result.calls] == [
        ("get_weather", {"city": "Zürich"}, "complete"),
        ("get_weather", {"city": "Bern"}, "complete"),
    ]
    assert result.text == "Looking up Zürich and Bern."
    assert result.reasoning == "Weighing it."
    assert result.finish_reason == "tool_calls"  # Gemini says STOP (F17)
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (20, 13)
    assert result.usage.reasoning_tokens == 5
    ids = [c.id for c in result.calls]
    assert len(set(ids)) == 2 and all(i and i.startswith("call_") for i in ids)
    # stable: the same stream always gets the same ids
    assert [c.id for c in parse_stream(framing(), "gemini", [WEATHER]).calls] == ids


@pytest.mark.parametrize("framing", [gemini_sse, gemini_array])
def test_gemini_any_chunking_same_result(framing: Any) -> None:
    data = framing()
    whole = parse_stream(data, "gemini", [WEATHER])
    for seed in range(20):
        assert same(chunked(data, "gemini", seed), whole)  # split inside "ü" too (F27)


def test_gemini_keeps_a_sent_id_and_reads_finish_reasons() -> None:
    chunk = {
        "candidates": [
            {
                "content": {"parts": [{"functionCall": {"id": "fc-7", "name": "x", "args": {}}}]},
                "finishReason": "MAX_TOKENS",
            }
        ]
    }
    result = parse_stream(f"data: {json.dumps(chunk)}\n\n", "gemini")
    assert result.calls[0].id == "fc-7"
    assert result.calls[0].arguments == {}  # F2: no args
    assert result.finish_reason == "length"
    for reason, expected in [("SAFETY", "content_filter"), ("RECITATION", "content_filter")]:
        chunk = {"candidates": [{"content": {"parts": [{"text": "a"}]}, "finishReason": reason}]}
        assert parse_stream(json.dumps([chunk]), "gemini").finish_reason == expected


@pytest.mark.parametrize("together", [True, False])
def test_gemini_two_whole_calls_under_one_id_stay_two_calls_F3(together: bool) -> None:
    # each functionCall part is a whole call: a second one under the id of the first
    # (a server that reuses ids) is a second call, never appended to the first
    parts = [
        {"functionCall": {"id": "fc-1", "name": "get_weather", "args": {"city": "Bern"}}},
        {"functionCall": {"id": "fc-1", "name": "get_weather", "args": {"city": "Chur"}}},
    ]
    groups = [parts] if together else [parts[:1], parts[1:]]
    stream = "".join(
        "data: "
        + json.dumps({"candidates": [{"content": {"parts": group, "role": "model"}}]})
        + "\n\n"
        for group in groups
    )
    result = parse_stream(stream, "gemini", [WEATHER])
    assert [(c.name, c.arguments, c.status) for c in result.calls] == [
        ("get_weather", {"city": "Bern"}, "complete"),
        ("get_weather", {"city": "Chur"}, "complete"),
    ]


def test_ollama_two_whole_calls_under_one_id_stay_two_calls_F3() -> None:
    stream = ollama_stream(ids=True).replace('"call_1"', '"call_0"')
    result = parse_stream(stream, "ollama", [WEATHER])
    assert [(c.name, c.arguments, c.status) for c in result.calls] == [
        ("get_weather", {"city": "Toronto"}, "complete"),
        ("get_weather", {"city": "Lyon"}, "complete"),
    ]


def test_gemini_errors_are_reported_not_raised() -> None:
    error = json.dumps(
        [{"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}]
    )
    result = parse_stream(error, "gemini")
    assert result.finish_reason == "error" and "quota" in result.errors[0].message
    blocked = json.dumps([{"promptFeedback": {"blockReason": "SAFETY"}}])
    result = parse_stream(blocked, "gemini")
    assert result.finish_reason == "content_filter" and result.errors
    partial = json.dumps(
        [
            {
                "candidates": [
                    {"content": {"parts": [{"functionCall": {"name": "x", "partialArgs": []}}]}}
                ]
            }
        ]
    )
    assert any("partialArgs" in e.message for e in parse_stream(partial, "gemini").errors)
    malformed = json.dumps(
        [{"candidates": [{"content": {"parts": []}, "finishReason": "MALFORMED_FUNCTION_CALL"}]}]
    )
    assert parse_stream(malformed, "gemini").errors


def test_gemini_array_cut_off_is_a_dropped_stream() -> None:
    data = gemini_array()[:-40]
    result = parse_stream(data, "gemini", [WEATHER])
    assert result.finish_reason == "error"
    assert any("inside a JSON object" in e.message for e in result.errors)


def test_gemini_junk_between_chunks_is_reported() -> None:
    chunk = {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
    result = parse_stream(f"[{json.dumps(chunk)} oops ]", "gemini")
    assert result.text == "hi" and result.finish_reason == "stop"
    assert any("oops" in e.raw for e in result.errors)


@pytest.mark.parametrize(
    ("wire", "data"),
    [
        ("ollama", b'{"done":true,"message":{}}}xyz: \n{"done":true}tail'),
        ("gemini", b'[{"candidates":[]}\n oops,[x]]abc'),
    ],
)
def test_junk_between_objects_is_one_error_a_run_in_any_split(wire: str, data: bytes) -> None:
    """Review 8, finding D: a run of junk cut by a piece's end was one error a piece
    (one a byte, fed byte by byte)."""

    def errors(step: int) -> list[tuple[str, str]]:
        parser = StreamParser(wire)
        events = [e for i in range(0, len(data), step) for e in parser.feed(data[i : i + step])]
        result = StreamResult.collect(events + parser.close())
        return [(e.message, e.raw) for e in result.errors]

    whole = errors(len(data))
    assert sum("unexpected text" in message for message, _ in whole) >= 2
    for step in range(1, 8):
        assert errors(step) == whole, step


# -- Ollama ----------------------------------------------------------------------------


def ollama_stream(done_reason: str = "stop", ids: bool = False) -> str:
    base = {"model": "qwen3", "created_at": "2025-05-27T22:54:57.641643Z"}

    def line(message: dict[str, Any], **extra: Any) -> str:
        body = {**base, "message": {"role": "assistant", "content": "", **message}, "done": False}
        return json.dumps({**body, **extra}) + "\n"

    calls = [
        {"function": {"index": 0, "name": "get_weather", "arguments": {"city": "Toronto"}}},
        {"function": {"index": 1, "name": "get_weather", "arguments": {"city": "Lyon"}}},
    ]
    if ids:
        for i, call in enumerate(calls):
            call["id"] = f"call_{i}"
    return (
        line({"thinking": "Two cities."})
        + line({"content": "On it."})
        + line({"tool_calls": calls})
        + line(
            {},
            done=True,
            done_reason=done_reason,
            prompt_eval_count=30,
            eval_count=11,
            total_duration=1,
        )
    )


def test_ollama_text_thinking_calls_usage() -> None:
    result = parse_stream(ollama_stream(), "ollama", [WEATHER])
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", {"city": "Toronto"}),
        ("get_weather", {"city": "Lyon"}),
    ]
    assert result.text == "On it." and result.reasoning == "Two cities."
    assert result.finish_reason == "tool_calls"  # done_reason "stop" with calls (F17)
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (30, 11)
    ids = [c.id for c in result.calls]
    assert len(set(ids)) == 2
    assert [c.id for c in parse_stream(ollama_stream(), "ollama").calls] == ids


def test_ollama_ids_length_error_generate() -> None:
    assert [c.id for c in parse_stream(ollama_stream(ids=True), "ollama").calls] == [
        "call_0",
        "call_1",
    ]
    assert parse_stream(ollama_stream("length"), "ollama").finish_reason == "length"
    result = parse_stream('{"error": "model not found"}\n', "ollama")
    assert result.finish_reason == "error" and "model not found" in result.errors[0].message
    generate = (
        '{"model":"m","response":"Hel","done":false}\n'
        '{"model":"m","response":"lo","done":true,"done_reason":"stop"}\n'
    )
    result = parse_stream(generate, "ollama")
    assert (result.text, result.finish_reason) == ("Hello", "stop")
    cut = ollama_stream().rsplit("\n", 2)[0] + "\n"
    assert parse_stream(cut, "ollama").finish_reason == "error"  # no done line: dropped


def test_ollama_any_chunking_same_result() -> None:
    data = ollama_stream()
    whole = parse_stream(data, "ollama", [WEATHER])
    for seed in range(20):
        assert same(chunked(data, "ollama", seed), whole)


# -- registry, detection, robustness -----------------------------------------------


def test_formats_are_registered_and_detected() -> None:
    assert {"openai-responses", "gemini", "ollama"} <= set(DECODERS)
    assert detect_format(responses_stream()) == "openai-responses"
    assert detect_format(gemini_sse()) == "gemini"
    assert detect_format(gemini_array()) == "gemini"
    assert detect_format(ollama_stream()) == "ollama"
    for data, fmt in [
        (responses_stream(), "openai-responses"),
        (gemini_array(), "gemini"),
        (ollama_stream(), "ollama"),
    ]:
        parser = StreamParser("auto", [WEATHER])
        events = parser.feed(data)
        events.extend(parser.close())
        assert parser.format == fmt
        assert StreamResult.collect(events).calls


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["openai-responses", "gemini", "ollama"]))
def test_decoders_never_raise_on_garbage(data: bytes, fmt: str) -> None:
    parser = StreamParser(fmt)
    parser.feed(data)
    result = StreamResult.collect(parser.close())
    assert result.finish_reason is not None


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["openai-responses", "gemini", "ollama"]), st.integers(0, 10_000))
def test_decoders_never_raise_on_mangled_streams(fmt: str, seed: int) -> None:
    data = {
        "openai-responses": responses_stream(),
        "gemini": gemini_array(),
        "ollama": ollama_stream(),
    }[fmt]
    rng = random.Random(seed)
    chars = list(data)
    for _ in range(rng.randint(1, 8)):
        chars[rng.randrange(len(chars))] = rng.choice('{}[]":,\\\n x')
    parser = StreamParser(fmt, [WEATHER])
    parser.feed("".join(chars))
    parser.close()


def test_json_object_splitter() -> None:
    splitter = JsonObjectSplitter()
    text = b'[{"a": "x}]\\"{"},\r\n {"b": [1, {"c": 2}]}]'
    out: list[bytes] = []
    for i in range(len(text)):
        out.extend(splitter.feed(text[i : i + 1]))
    assert [json.loads(o) for o in out] == [{"a": 'x}]"{'}, {"b": [1, {"c": 2}]}]
    assert splitter.array_closed and splitter.close() == b""
    ndjson = JsonObjectSplitter()
    assert len(ndjson.feed(b'{"a":1}\n{"b":2}\n{"c"')) == 2
    assert ndjson.close() == b'{"c"'

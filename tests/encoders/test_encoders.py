"""Encoders: the wire shape each format's clients expect, stop reasons, lossy corners."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire.encoders import ENCODERS, encode_events, make_encoder
from toolwire.encoders.base import LATE_SIGNATURE
from toolwire.events import (
    ArgumentsDelta,
    CallFinished,
    CallStarted,
    Event,
    FinishReason,
    ReasoningDelta,
    ReasoningSignature,
    StreamError,
    StreamFinished,
    TextDelta,
    ToolCall,
    Usage,
)
from toolwire.parser import parse_stream


def call(slot: int, args: dict[str, Any] | None, status: str = "complete", **kw: Any) -> ToolCall:
    default = json.dumps(args) if args is not None else '{"city": "Os'
    raw = kw.pop("raw", default)
    return ToolCall(
        id=kw.pop("id", f"call_{slot}"),
        name=kw.pop("name", "get_weather"),
        arguments=args,
        raw_arguments=raw,
        status=status,  # type: ignore[arg-type]
        slot=slot,
        **kw,
    )


def turn(
    reason: FinishReason = "tool_calls", *, raw: str | None = None, calls: int = 1
) -> list[Event]:
    events: list[Event] = [ReasoningDelta("Hmm."), TextDelta("Checking.")]
    for slot in range(calls):
        events += [
            CallStarted(slot, f"call_{slot}", "get_weather"),
            ArgumentsDelta(slot, '{"city": "Oslo"}'),
            CallFinished(call(slot, {"city": "Oslo"})),
        ]
    usage = Usage(input_tokens=10, output_tokens=5, cache_read_tokens=2, reasoning_tokens=1)
    events.append(StreamFinished(reason, usage, raw))
    return events


def sse_messages(text: str) -> list[tuple[str | None, Any]]:
    out = []
    for block in text.strip().split("\n\n"):
        event = None
        data = ""
        for line in block.split("\n"):
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
        out.append((event, data if data == "[DONE]" else json.loads(data)))
    return out


# -- Anthropic ------------------------------------------------------------------------


def test_anthropic_sequence_event_lines_and_no_done() -> None:
    text = encode_events(turn(), "anthropic", message_id="m", input_tokens=7)
    messages = sse_messages(text)
    assert all(event == data["type"] for event, data in messages)  # event: lines always
    assert "[DONE]" not in text
    kinds = [event for event, _ in messages]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert messages[0][1]["message"]["usage"]["input_tokens"] == 7  # the estimate up front
    starts = [d["content_block"] for e, d in messages if e == "content_block_start"]
    assert [b["type"] for b in starts] == ["thinking", "text", "tool_use"]
    assert starts[2] == {"type": "tool_use", "id": "call_0", "name": "get_weather", "input": {}}
    deltas = [d["delta"] for e, d in messages if e == "content_block_delta"]
    assert {"type": "input_json_delta", "partial_json": '{"city":"Oslo"}'} in deltas
    # blocks are sequential: each start is followed by its own stop before the next start
    indexes = [(e, d.get("index")) for e, d in messages if e.startswith("content_block_")]
    opened = None
    for event, index in indexes:
        if event == "content_block_start":
            assert opened is None
            opened = index
        elif event == "content_block_stop":
            assert index == opened
            opened = None
    delta = messages[-2][1]
    assert delta["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert delta["usage"] == {"output_tokens": 5, "input_tokens": 10, "cache_read_input_tokens": 2}


@pytest.mark.parametrize(
    ("reason", "raw", "calls", "expected"),
    [
        ("tool_calls", None, 1, "tool_use"),
        ("stop", "stop", 1, "tool_use"),  # F17: a call was emitted
        ("stop", None, 0, "end_turn"),
        ("stop", "stop_sequence", 0, "stop_sequence"),  # kept: the format has it
        ("length", None, 0, "max_tokens"),
        ("length", None, 1, "tool_use"),  # calls delivered: the client runs them
        ("content_filter", "content_filter", 0, "refusal"),
    ],
)
def test_anthropic_stop_reasons(
    reason: FinishReason, raw: str | None, calls: int, expected: str
) -> None:
    messages = sse_messages(encode_events(turn(reason, raw=raw, calls=calls), "anthropic"))
    assert messages[-2][1]["delta"]["stop_reason"] == expected


def test_anthropic_error_and_dropped_stream() -> None:
    events: list[Event] = [
        TextDelta("a"),
        StreamError("upstream said 500"),
        StreamFinished("error"),
    ]
    messages = sse_messages(encode_events(events, "anthropic"))
    assert messages[-1][0] == "error"
    assert messages[-1][1]["error"]["message"] == "upstream said 500"
    assert "message_stop" not in [e for e, _ in messages]
    # no StreamFinished at all: an error, never a synthetic success
    messages = sse_messages(encode_events([TextDelta("a")], "anthropic"))
    assert messages[-1][0] == "error"


def test_anthropic_redacted_thinking_goes_out_whole_in_its_place() -> None:
    """As Anthropic streams it: the block whole in ``content_block_start``, no delta."""
    events: list[Event] = [
        ReasoningSignature("redacted", "EmwKAhgB"),
        ReasoningDelta("hm"),
        ReasoningDelta("", "sig"),
        TextDelta("ok"),
        StreamFinished("stop"),
    ]
    encoder = make_encoder("anthropic")
    messages = sse_messages("".join(encoder.encode(events)))
    blocks = [m for m in messages if (m[0] or "").startswith("content_block")]
    assert blocks[:2] == [
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "redacted_thinking", "data": "EmwKAhgB"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ]
    starts = [m[1]["content_block"]["type"] for m in blocks if m[0] == "content_block_start"]
    assert starts == ["redacted_thinking", "thinking", "text"]
    assert encoder.lossy == []
    body = json.loads("".join(make_encoder("anthropic", whole=True).encode(events)))
    assert body["content"] == [
        {"type": "redacted_thinking", "data": "EmwKAhgB"},
        {"type": "thinking", "thinking": "hm", "signature": "sig"},
        {"type": "text", "text": "ok"},
    ]


@pytest.mark.parametrize("whole", [False, True])
@pytest.mark.parametrize("fmt", sorted(ENCODERS))
def test_what_a_format_cannot_carry_back_is_noted(fmt: str, whole: bool) -> None:
    """A redacted thinking block or a Gemini thought signature (of a text part) that a
    format has no place for is dropped, and said to be: never silently."""
    events: list[Event] = [
        ReasoningSignature("redacted", "EmwKAhgB"),
        ReasoningSignature("thought_signature", "c2ln"),
        TextDelta("ok"),
        StreamFinished("stop"),
    ]
    encoder = make_encoder(fmt, whole=whole)
    encoder.encode(events)
    redacted = "redacted thinking blocks were dropped (only Anthropic's format carries them)"
    assert (redacted in encoder.lossy) == (fmt != "anthropic")
    dropped = any("Gemini thought signatures" in note for note in encoder.lossy)
    assert dropped == (fmt != "gemini")


@pytest.mark.parametrize("whole", [False, True])
def test_a_chat_call_carries_its_gemini_signature_where_gemini_puts_it(whole: bool) -> None:
    """Gemini's OpenAI-compatible API: ``extra_content.google.thought_signature`` on
    the call (the first of parallel calls has one)."""
    events: list[Event] = [
        ReasoningSignature("thought_signature", "c2ln", "call_0", 0),
        CallFinished(call(0, {"city": "Oslo"})),
        CallFinished(call(1, {"city": "Rome"})),
        StreamFinished("tool_calls"),
    ]
    encoder = make_encoder("openai-chat", whole=whole)
    out = "".join(encoder.encode(events))
    if whole:
        calls = json.loads(out)["choices"][0]["message"]["tool_calls"]
    else:
        chunks = [m[1] for m in sse_messages(out) if m[1] != "[DONE]" and m[1]["choices"]]
        calls = [c for m in chunks for c in m["choices"][0]["delta"].get("tool_calls", [])]
        calls = [c for c in calls if "id" in c]
    extra = [c.get("extra_content") for c in calls]
    assert extra == [{"google": {"thought_signature": "c2ln"}}, None]
    assert encoder.lossy == []


@pytest.mark.parametrize("whole", [False, True])
def test_gemini_thought_signatures_go_back_where_gemini_puts_them(whole: bool) -> None:
    """A call's on its functionCall part, a text part's on a part of its own; the
    signature of a call held back goes with it, and that is noted, as is one that came
    after its call was streamed out."""
    events: list[Event] = [
        TextDelta("ok"),
        ReasoningSignature("thought_signature", "txt"),
        ReasoningSignature("thought_signature", "sig1", "same", 1),
        ReasoningSignature("thought_signature", "sig0", "same", 0),
        CallFinished(call(0, {"city": "Oslo"}, id="same")),
        CallFinished(call(1, {"city": "Rome"}, id="same")),
        ReasoningSignature("thought_signature", "sig2", None, 2),
        CallFinished(call(2, None, "truncated")),
        StreamFinished("tool_calls"),
    ]
    if not whole:
        events.insert(-1, ReasoningSignature("thought_signature", "late", None, 0))
    encoder = make_encoder("gemini", whole=whole)
    out = "".join(encoder.encode(events))
    chunks = [json.loads(out)] if whole else [m[1] for m in sse_messages(out)]
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"] if p != {"text": ""}]
    assert [
        (p.get("text"), p.get("functionCall", {}).get("args"), p["thoughtSignature"])
        for p in parts
        if "thoughtSignature" in p
    ] == [
        ("", None, "txt"),
        (None, {"city": "Oslo"}, "sig0"),
        (None, {"city": "Rome"}, "sig1"),
    ]
    assert "Gemini thought signatures of calls not delivered were dropped" in encoder.lossy
    assert (LATE_SIGNATURE in encoder.lossy) == (not whole)


def test_anthropic_streamed_truncated_call_keeps_its_block_open() -> None:
    truncated = call(0, None, "truncated")
    events: list[Event] = [
        CallStarted(0, "call_0", "get_weather"),
        ArgumentsDelta(0, '{"city": "Os'),
        CallFinished(truncated),
        StreamFinished("length"),
    ]
    text = encode_events(events, "anthropic", arguments="stream")
    messages = sse_messages(text)
    assert "content_block_stop" not in [e for e, _ in messages]
    assert messages[-2][1]["delta"]["stop_reason"] == "max_tokens"
    result = parse_stream(text, "anthropic")
    assert result.calls[0].status == "truncated" and result.finish_reason == "length"


def test_stream_mode_serializes_interleaved_parallel_calls() -> None:
    events: list[Event] = [
        CallStarted(0, "a", "get_weather"),
        ArgumentsDelta(0, '{"city": '),
        CallStarted(1, "b", "get_weather"),
        ArgumentsDelta(1, '{"city": "Bern"}'),
        TextDelta("(between)"),
        ArgumentsDelta(0, '"Oslo"}'),
        CallFinished(call(0, {"city": "Oslo"}, id="a")),
        CallFinished(call(1, {"city": "Bern"}, id="b")),
        StreamFinished("tool_calls"),
    ]
    for fmt in ("anthropic", "openai-responses", "openai-chat"):
        text = encode_events(events, fmt, arguments="stream")
        result = parse_stream(text, fmt)
        assert [(c.id, c.arguments) for c in result.calls] == [
            ("a", {"city": "Oslo"}),
            ("b", {"city": "Bern"}),
        ], fmt
        assert result.text == "(between)"


def test_stream_mode_reports_that_repairs_did_not_reach_the_client() -> None:
    repaired = call(0, {"city": "Oslo"}, "repaired", raw="{'city': 'Oslo'}")
    events: list[Event] = [
        CallStarted(0, "a", "get_weather"),
        ArgumentsDelta(0, "{'city': 'Oslo'}"),
        CallFinished(repaired),
        StreamFinished("tool_calls"),
    ]
    encoder = make_encoder("anthropic", arguments="stream")
    encoder.encode(events)
    assert any("repairs" in note for note in encoder.lossy)
    final = make_encoder("anthropic")
    text = "".join(final.encode(events))
    assert '{\\"city\\":\\"Oslo\\"}' in text  # final mode sends the repaired JSON
    assert not final.lossy


# -- OpenAI Chat ----------------------------------------------------------------------


def test_openai_chat_chunks_usage_and_done() -> None:
    text = encode_events(turn(calls=2), "openai-chat", message_id="x", created=5)
    messages = sse_messages(text)
    assert all(event is None for event, _ in messages)
    assert messages[-1][1] == "[DONE]"
    usage_chunk = messages[-2][1]
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"] == {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
        "prompt_tokens_details": {"cached_tokens": 2},
        "completion_tokens_details": {"reasoning_tokens": 1},
    }
    assert messages[-3][1]["choices"][0]["finish_reason"] == "tool_calls"
    assert messages[0][1]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    headers = [
        tc
        for _, d in messages[:-1]
        for ch in d["choices"]
        for tc in ch["delta"].get("tool_calls", [])
        if "id" in tc
    ]
    assert [(h["index"], h["id"]) for h in headers] == [(0, "call_0"), (1, "call_1")]
    assert {d["id"] for _, d in messages[:-1]} == {"chatcmpl-x"}


@pytest.mark.parametrize(
    ("reason", "calls", "expected"),
    [
        ("stop", 1, "tool_calls"),
        ("stop", 0, "stop"),
        ("length", 0, "length"),
        ("length", 1, "tool_calls"),  # calls delivered: the client runs them
        ("content_filter", 0, "content_filter"),
    ],
)
def test_openai_chat_finish_reasons(reason: FinishReason, calls: int, expected: str) -> None:
    messages = sse_messages(encode_events(turn(reason, calls=calls), "openai-chat"))
    assert messages[-3][1]["choices"][0]["finish_reason"] == expected


def test_openai_chat_error_has_no_done() -> None:
    text = encode_events([StreamError("bad gateway"), StreamFinished("error")], "openai-chat")
    assert "[DONE]" not in text and "bad gateway" in text
    assert parse_stream(text, "openai-chat").finish_reason == "error"


# -- OpenAI Responses -----------------------------------------------------------------


def test_responses_events_and_terminals() -> None:
    messages = sse_messages(encode_events(turn(), "openai-responses"))
    kinds = [e for e, _ in messages]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert [d["sequence_number"] for _, d in messages] == list(range(len(messages)))
    final = messages[-1][1]["response"]
    assert [i["type"] for i in final["output"]] == ["reasoning", "message", "function_call"]
    assert final["output"][2]["arguments"] == '{"city":"Oslo"}'
    assert final["usage"]["input_tokens_details"] == {"cached_tokens": 2, "cache_write_tokens": 0}
    incomplete = sse_messages(encode_events(turn("length", calls=0), "openai-responses"))[-1]
    assert incomplete[0] == "response.incomplete"
    assert incomplete[1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    failed = sse_messages(encode_events([StreamFinished("error")], "openai-responses"))[-1]
    assert failed[0] == "response.failed"


# -- Gemini and Ollama: calls as objects ----------------------------------------------


@pytest.mark.parametrize("fmt", ["gemini", "gemini-array", "ollama"])
def test_object_formats_leave_out_truncated_calls_and_say_so(fmt: str) -> None:
    events: list[Event] = [
        TextDelta("a"),
        CallFinished(call(0, {"city": "Oslo"})),
        CallFinished(call(1, None, "truncated")),
        StreamFinished("length"),
    ]
    encoder = make_encoder(fmt)
    text = "".join(encoder.encode(events))
    assert any("truncated call" in note for note in encoder.lossy)
    result = parse_stream(text, "gemini" if fmt.startswith("gemini") else fmt)
    assert [c.arguments for c in result.calls] == [{"city": "Oslo"}]
    assert result.finish_reason == "tool_calls"  # the client runs the call it got


def test_gemini_framings_and_reasons() -> None:
    text = encode_events(turn(), "gemini")
    chunks = [d for _, d in sse_messages(text)]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"  # Gemini has no tool reason
    assert chunks[-1]["usageMetadata"] == {
        "promptTokenCount": 10,
        "candidatesTokenCount": 4,
        "thoughtsTokenCount": 1,
        "cachedContentTokenCount": 2,
        "totalTokenCount": 15,
    }
    assert {"text": "Hmm.", "thought": True} in chunks[0]["candidates"][0]["content"]["parts"]
    array = encode_events(turn(), "gemini-array")
    assert json.loads(array)[-1]["candidates"][0]["finishReason"] == "STOP"
    assert make_encoder("gemini-array").media_type == "application/json"
    safety = sse_messages(
        encode_events(turn("content_filter", raw="RECITATION", calls=0), "gemini")
    )
    assert safety[-1][1]["candidates"][0]["finishReason"] == "RECITATION"


def test_ollama_lines_and_content_filter_note() -> None:
    encoder = make_encoder("ollama", created=0)
    lines = [json.loads(x) for x in "".join(encoder.encode(turn())).splitlines()]
    assert lines[-1]["done"] is True and lines[-1]["done_reason"] == "stop"
    assert (lines[-1]["prompt_eval_count"], lines[-1]["eval_count"]) == (10, 5)
    assert lines[0]["created_at"] == "1970-01-01T00:00:00Z"
    calls = [tc for x in lines for tc in x["message"].get("tool_calls", [])]
    assert calls == [
        {
            "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Oslo"}},
            "id": "call_0",
        }
    ]
    filtered = make_encoder("ollama")
    filtered.encode(turn("content_filter", calls=0))
    assert any("content-filter" in note for note in filtered.lossy)


@pytest.mark.parametrize("fmt", sorted(ENCODERS))
def test_every_encoder_is_per_stream_and_idempotent_at_the_end(fmt: str) -> None:
    encoder = make_encoder(fmt)
    first = encoder.encode(turn())
    assert encoder.close() == [] and encoder.feed(TextDelta("late")) == []
    assert make_encoder(fmt).encode(turn()) != [] and first

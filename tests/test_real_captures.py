"""Real captured streams give their calls, checked against a naive independent reading."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus import REAL, real_captures

from toolwire.parser import StreamParser, parse_stream

OPENAI = real_captures("openai")
ANTHROPIC = real_captures("anthropic")


def naive_openai(text: str) -> list[tuple[str, Any]]:
    """Whole-stream reading: json.loads every data line, join arguments per index."""
    calls: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for line in text.splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        for choice in chunk["choices"]:
            for tc in (choice.get("delta") or {}).get("tool_calls") or []:
                fn = tc.get("function") or {}
                if fn.get("name"):
                    names[tc["index"]] = fn["name"]
                calls.setdefault(tc["index"], []).append(fn.get("arguments") or "")
    return [(names[i], json.loads("".join(calls[i]))) for i in sorted(calls)]


@pytest.mark.parametrize("path", OPENAI, ids=[p.name for p in OPENAI])
def test_real_openai_capture(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = parse_stream(text, "openai-chat")
    assert [(c.name, c.arguments) for c in result.calls] == naive_openai(text)
    assert all(c.status == "complete" and c.id for c in result.calls)
    assert result.finish_reason == "tool_calls"
    assert not result.errors
    # auto-detection finds the same
    assert parse_stream(text, "auto").calls == result.calls


def test_real_openai_parallel_capture_has_two_calls() -> None:
    counts = [len(parse_stream(p.read_bytes(), "openai-chat").calls) for p in OPENAI]
    assert sorted(counts) == [1, 1, 1, 2]


def test_real_anthropic_tool_use() -> None:
    result = parse_stream((REAL / "anthropic/tool_use_response.sse").read_bytes(), "auto")
    assert [(c.name, c.arguments, c.status) for c in result.calls] == [
        ("get_weather", {"location": "Paris"}, "complete")
    ]
    assert result.calls[0].id and result.calls[0].id.startswith("toolu_")
    assert result.finish_reason == "tool_calls"
    assert result.usage is not None and result.usage.output_tokens


def test_real_anthropic_cut_off_at_max_tokens_is_truncated_F1() -> None:
    data = (REAL / "anthropic/incomplete_partial_json_response.sse").read_bytes()
    result = parse_stream(data, "anthropic")
    (call,) = result.calls
    assert call.name == "make_file"
    assert call.status == "truncated"
    assert call.arguments is None
    assert result.finish_reason == "length"
    assert result.text.startswith("I'll create a comprehensive tax guide")


def test_real_anthropic_text_only() -> None:
    result = parse_stream((REAL / "anthropic/basic_response.sse").read_bytes(), "anthropic")
    assert result.calls == []
    assert result.text == "Hello there!"
    assert result.finish_reason == "stop"


@pytest.mark.parametrize("path", [*OPENAI, *ANTHROPIC], ids=lambda p: p.name)
def test_real_capture_split_inside_every_byte(path: Path) -> None:
    data = path.read_bytes()
    whole = parse_stream(data, "auto")
    parser = StreamParser("auto")
    events = []
    for i in range(len(data)):
        events.extend(parser.feed(data[i : i + 1]))
    events.extend(parser.close())
    calls = [e.call for e in events if type(e).__name__ == "CallFinished"]
    assert calls == whole.calls

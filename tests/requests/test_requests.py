"""Anthropic Messages request ⇄ OpenAI Chat Completions request."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire.providers.requests import anthropic_to_openai, openai_to_anthropic

TOOL_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
PNG = "iVBORw0KGgo="


def anthropic_request(**extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-x",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Weather in both?"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                    },
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "two calls", "signature": "sig"},
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "get_weather",
                        "input": {"city": "Oslo"},
                    },
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "get_weather",
                        "input": {"city": "Bern"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Both done?"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "sunny"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "rain"}],
                    },
                    {"type": "tool_result", "tool_use_id": "t1", "content": "again"},
                ],
            },
        ],
        "tools": [
            {"name": "get_weather", "description": "Weather", "input_schema": TOOL_SCHEMA},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "stop_sequences": ["END"],
        "temperature": 0.2,
        "top_p": 0.9,
        "top_k": 40,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "metadata": {"user_id": "u-1"},
        "stream": True,
        **extra,
    }


def test_anthropic_to_openai_full_request() -> None:
    out = anthropic_to_openai(anthropic_request())
    req = out.request
    msgs = req["messages"]
    assert msgs[0] == {"role": "system", "content": "Be brief."}
    assert msgs[1]["content"] == [
        {"type": "text", "text": "Weather in both?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    ]
    assistant = msgs[2]
    assert assistant["content"] == "Checking."
    # a tool-call turn's thinking goes back as reasoning_content (DeepSeek requires it)
    assert assistant["reasoning_content"] == "two calls"
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == [
        '{"city":"Oslo"}',
        '{"city":"Bern"}',
    ]  # always JSON strings
    # results: one per id, in the calls' order, before the user's own text
    assert msgs[3:] == [
        {"role": "tool", "tool_call_id": "t1", "content": "rain"},
        {"role": "tool", "tool_call_id": "t2", "content": "sunny"},
        {"role": "user", "content": "Both done?"},
    ]
    assert req["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather",
                "parameters": TOOL_SCHEMA,
            },
        }
    ]
    assert req["tool_choice"] == "required" and req["parallel_tool_calls"] is False
    assert req["stop"] == ["END"] and req["max_tokens"] == 1024
    assert (req["temperature"], req["top_p"], req["user"]) == (0.2, 0.9, "u-1")
    assert req["reasoning_effort"] == "low"
    assert req["stream_options"] == {"include_usage": True}
    lossy = " | ".join(out.lossy)
    for reported in (
        "cache_control",
        "server tool 'web_search_20250305'",
        "repeated tool_result for 't1'",
        "thinking signatures were dropped",
        "top_k",
        "budget_tokens=2048",
    ):
        assert reported in lossy
    assert out.names is None
    assert (
        anthropic_to_openai(anthropic_request(), max_tokens_field="max_completion_tokens").request[
            "max_completion_tokens"
        ]
        == 1024
    )


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "auto"}, "auto"),
        ({"type": "any"}, "required"),
        ({"type": "none"}, "none"),
        (
            {"type": "tool", "name": "get_weather"},
            {"type": "function", "function": {"name": "get_weather"}},
        ),
    ],
)
def test_tool_choice_both_ways(choice: dict[str, Any], expected: Any) -> None:
    body = anthropic_request(tool_choice=choice)
    openai_body = anthropic_to_openai(body).request
    assert openai_body["tool_choice"] == expected
    back = openai_to_anthropic(openai_body).request
    assert back["tool_choice"] == choice


def test_error_results_documents_and_long_names() -> None:
    long = "mcp__server__" + "x" * 100
    body = {
        "max_tokens": 10,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {
                            "type": "base64",
                            "media_type": "application/pdf",
                            "data": "JVBE",
                        },
                    },
                    {"type": "document", "source": {"type": "file", "file_id": "f1"}},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": long, "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t",
                        "is_error": True,
                        "content": [
                            {"type": "text", "text": "no such file"},
                            {"type": "image", "source": {"type": "url", "url": "http://x/i.png"}},
                        ],
                    }
                ],
            },
        ],
        "tools": [{"name": long, "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "tool", "name": long},
    }
    out = anthropic_to_openai(body)
    msgs = out.request["messages"]
    assert msgs[0]["content"][0]["type"] == "file"
    wire = msgs[1]["tool_calls"][0]["function"]["name"]
    assert len(wire) <= 64 and out.names is not None and out.names.original(wire) == long
    assert out.request["tools"][0]["function"]["name"] == wire
    assert out.request["tool_choice"]["function"]["name"] == wire
    assert msgs[2] == {"role": "tool", "tool_call_id": "t", "content": "Error: no such file"}
    assert msgs[3]["content"] == [{"type": "image_url", "image_url": {"url": "http://x/i.png"}}]
    lossy = " | ".join(out.lossy)
    assert "is_error" in lossy and "images in tool results" in lossy and "document" in lossy


def test_openai_to_anthropic_full_request() -> None:
    body = {
        "model": "gpt-x",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look:"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://x/y.jpg", "detail": "high"},
                    },
                    {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": "{'city': 'Bern'}"},
                    },
                    {"id": "c3", "type": "function", "function": {"name": "now", "arguments": ""}},
                ],
            },
            {"role": "tool", "tool_call_id": "c2", "content": "sunny"},
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "rain"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "dup"},
            {"role": "tool", "tool_call_id": "c3", "content": "12:00"},
            {"role": "developer", "content": "Late rule."},
            {"role": "user", "content": "Thanks"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "get_weather", "parameters": TOOL_SCHEMA, "strict": True},
            }
        ],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "parallel_tool_calls": False,
        "stop": "END",
        "max_completion_tokens": 500,
        "temperature": 1.5,
        "stream": True,
        "stream_options": {"include_usage": True},
        "user": "u-2",
        "seed": 7,
        "n": 1,
    }
    out = openai_to_anthropic(body)
    req = out.request
    assert req["system"] == "Be brief.\n\nLate rule."
    user, assistant, results = req["messages"]
    assert user["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }
    assert user["content"][2] == {
        "type": "image",
        "source": {"type": "url", "url": "https://x/y.jpg"},
    }
    assert [b["input"] for b in assistant["content"]] == [{"city": "Oslo"}, {"city": "Bern"}, {}]
    assert [(b["type"], b.get("tool_use_id")) for b in results["content"]] == [
        ("tool_result", "c1"),
        ("tool_result", "c2"),
        ("tool_result", "c3"),
        ("text", None),
    ]  # results first, in call order, one per id; then the user's text in the same turn
    assert results["content"][0]["content"] == "rain"
    assert req["tools"] == [{"name": "get_weather", "input_schema": TOOL_SCHEMA, "strict": True}]
    assert req["tool_choice"] == {
        "type": "tool",
        "name": "get_weather",
        "disable_parallel_tool_use": True,
    }
    assert req["stop_sequences"] == ["END"] and req["max_tokens"] == 500
    assert req["temperature"] == 1 and req["metadata"] == {"user_id": "u-2"}
    assert req["stream"] is True and "stream_options" not in req
    lossy = " | ".join(out.lossy)
    for reported in (
        "input_audio",
        "image detail",
        "repaired",
        "repeated tool result for 'c1'",
        "system message after the first turn",
        "temperature 1.5 was clamped",
        "seed",
        "n was dropped",
    ):
        assert reported in lossy


def test_openai_defaults_and_reasoning() -> None:
    out = openai_to_anthropic(
        {
            "messages": [{"role": "user", "content": "hi"}],
            "reasoning_effort": "high",
            "temperature": 0.3,
        },
        default_max_tokens=2000,
    )
    req = out.request
    assert req["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert req["max_tokens"] > 16384 and "temperature" not in req
    assert any("temperature was dropped" in n for n in out.lossy)
    none = openai_to_anthropic({"messages": [], "reasoning_effort": "none"}).request
    assert none["thinking"] == {"type": "disabled"} and none["max_tokens"] == 4096


def test_unreadable_arguments_are_reported_not_silent() -> None:
    body = {
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": '{"cmd": "ls'}}],
            },
        ]
    }
    out = openai_to_anthropic(body)
    assert out.request["messages"][0]["content"][0]["input"] == {}
    assert any("unreadable arguments of call 'c'" in n for n in out.lossy)


def test_round_trip_anthropic_openai_anthropic_keeps_the_conversation() -> None:
    original = anthropic_request()
    there = anthropic_to_openai(original).request
    back = openai_to_anthropic(there).request
    assert back["system"] == "Be brief."
    calls = [b for b in back["messages"][1]["content"] if b["type"] == "tool_use"]
    assert [(c["id"], c["input"]) for c in calls] == [
        ("t1", {"city": "Oslo"}),
        ("t2", {"city": "Bern"}),
    ]
    results = back["messages"][2]["content"]
    assert [r.get("tool_use_id") for r in results] == ["t1", "t2", None]
    assert back["tools"][0]["input_schema"] == TOOL_SCHEMA
    assert back["stop_sequences"] == ["END"]
    # budget 2048 → effort "low" → budget 2048 again; max_tokens must exceed it (reported)
    assert back["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert back["max_tokens"] == 1024 + 2048
    assert json.dumps(back["tool_choice"]) == json.dumps(
        {"type": "any", "disable_parallel_tool_use": True}
    )

"""Reasoning in the history, translated for an OpenAI Chat upstream: a tool-call
turn's reasoning goes back as ``reasoning_content`` (DeepSeek requires it); the rest
is dropped and reported."""

from __future__ import annotations

from typing import Any

from toolwire.providers.native_requests import openai_to_gemini, openai_to_ollama
from toolwire.providers.requests import anthropic_to_openai, openai_to_anthropic
from toolwire.providers.responses_request import responses_to_openai

CALL: dict[str, Any] = {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}


def assistant_turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["role"] == "assistant"]


def test_thinking_of_a_call_turn_goes_back_and_of_a_finished_turn_is_dropped() -> None:
    body = {
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "greet", "signature": ""},
                    {"type": "text", "text": "Hello."},
                ],
            },
            {"role": "user", "content": "call f"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "call ", "signature": ""},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "thinking", "thinking": "f", "signature": ""},
                    CALL,
                ],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
        ],
    }
    out = anthropic_to_openai(body)
    finished, call_turn = assistant_turns(out.request["messages"])
    assert "reasoning_content" not in finished
    assert call_turn["reasoning_content"] == "call f"
    lossy = " | ".join(out.lossy)
    assert "reasoning of assistant turns without tool calls was dropped" in lossy
    assert "redacted thinking blocks were dropped" in lossy
    assert "signatures" not in lossy  # none was set, none was dropped


def test_responses_reasoning_items_join_the_calls_that_follow() -> None:
    body = {
        "input": [
            {"role": "user", "content": "go"},
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}]},
            {"type": "message", "role": "assistant", "content": "Sure."},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "ignored summary"}],
                "content": [{"type": "reasoning_text", "text": "raw thought"}],
                "encrypted_content": "gAAAA",
            },
            {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c2", "output": "ok"},
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "done"}]},
            {"type": "message", "role": "assistant", "content": "Finished."},
            {"role": "user", "content": "thanks"},
        ]
    }
    out = responses_to_openai(body)
    turns = assistant_turns(out.request["messages"])
    assert [t.get("reasoning_content") for t in turns] == ["plan", "raw thought", None]
    assert turns[0]["content"] == "Sure." and turns[0]["tool_calls"][0]["id"] == "c1"
    lossy = " | ".join(out.lossy)
    assert "encrypted reasoning was dropped" in lossy
    assert "reasoning of assistant turns without tool calls was dropped" in lossy


def chat_call_turn(**fields: Any) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    return {
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "Calling.", "tool_calls": [call], **fields},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ]
    }


def test_chat_thinking_blocks_go_to_anthropic_verbatim_and_first() -> None:
    blocks = [
        {"type": "thinking", "thinking": "Need f.", "signature": "sig"},
        {"type": "redacted_thinking", "data": "opaque"},
    ]
    out = openai_to_anthropic(chat_call_turn(thinking_blocks=blocks, reasoning_content="x"))
    turn = assistant_turns(out.request["messages"])[0]["content"]
    assert turn[:2] == blocks
    assert [b["type"] for b in turn[2:]] == ["text", "tool_use"]
    assert not any("reasoning" in note for note in out.lossy)
    bare = openai_to_anthropic(chat_call_turn(reasoning_content="x"))
    assert [b["type"] for b in assistant_turns(bare.request["messages"])[0]["content"]] == [
        "text",
        "tool_use",
    ]
    assert any("reasoning in the history was dropped" in note for note in bare.lossy)


def test_a_chat_requests_thinking_object_goes_to_anthropic_as_given() -> None:
    thinking = {"type": "enabled", "budget_tokens": 3000}
    out = openai_to_anthropic(
        {**chat_call_turn(), "thinking": thinking, "max_tokens": 1000, "temperature": 0.2}
    )
    assert out.request["thinking"] == thinking
    assert out.request["max_tokens"] > 3000 and "temperature" not in out.request
    assert not any("thinking was dropped" in note for note in out.lossy)


def test_gemini_gets_a_calls_thought_signature_and_ollama_the_reasoning() -> None:
    body = chat_call_turn(reasoning_content="Need f.")
    body["messages"][1]["tool_calls"][0]["extra_content"] = {
        "google": {"thought_signature": "sigG"}
    }
    gemini = openai_to_gemini(body).request
    [part] = [p for c in gemini["contents"] for p in c["parts"] if "functionCall" in p]
    assert part["thoughtSignature"] == "sigG"
    ollama = openai_to_ollama(body).request
    assert assistant_turns(ollama["messages"])[0]["thinking"] == "Need f."

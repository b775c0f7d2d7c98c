"""Upstreams in their own APIs (Gemini, Ollama, OpenAI Responses) behind the gateway,
with the real SDK clients of every front, streamed and not: the requests go out in the
upstream's shape, the recorded answers come back repaired in the client's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from gateway.native_scripts import GEMINI_CALL, NATIVE_SCRIPTS
from gateway.serving import KEY, GatewayServer
from upstream import WEATHER_SCHEMA, ScriptedUpstream

from toolwire.gateway import GatewayConfig
from toolwire.gateway.config import ModelRoute

pytestmark = pytest.mark.gateway

UPSTREAMS = {"gemini": "gemini-call", "ollama": "ollama-call", "openai-responses": "responses-call"}
EXPECTED = {
    "gemini": {"city": "Oslo", "days": 3},
    "ollama": {"city": "Oslo", "days": 3},
    "openai-responses": {"city": "Lima", "days": 2},
}
QUESTION = "Weather in Oslo for 3 days?"


@pytest.fixture(scope="module")
def native() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream(NATIVE_SCRIPTS) as server:
        yield server


@pytest.fixture(scope="module")
def gateway(native: ScriptedUpstream) -> Iterator[GatewayServer]:
    formats = [*UPSTREAMS.items(), ("openai-responses", "responses-cut")]
    routes = tuple(
        ModelRoute(
            name=fmt if script != "responses-cut" else script,
            upstream_url=native.url,
            upstream_format=fmt,
            model=script,
        )
        for fmt, script in formats
    )
    with GatewayServer(GatewayConfig(api_keys=(KEY,), routes=routes)) as server:
        yield server


def chat_call(gateway: GatewayServer, model: str, stream: bool) -> tuple[list[Any], str | None]:
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)
    tools: Any = [
        {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
    ]
    messages: Any = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": QUESTION},
    ]
    if not stream:
        choice = client.chat.completions.create(
            model=model, messages=messages, tools=tools
        ).choices[0]
        calls = [
            json.loads(c.function.arguments)
            for c in choice.message.tool_calls or []
            if c.type == "function"
        ]
        return calls, choice.finish_reason
    texts: dict[int, str] = {}
    finish = None
    for chunk in client.chat.completions.create(
        model=model, messages=messages, tools=tools, stream=True
    ):
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                if delta.function and delta.function.arguments:
                    texts[delta.index] = texts.get(delta.index, "") + delta.function.arguments
            finish = choice.finish_reason or finish
    return [json.loads(texts[i]) for i in sorted(texts)], finish


def messages_call(gateway: GatewayServer, model: str, stream: bool) -> tuple[list[Any], str | None]:
    client = anthropic.Anthropic(base_url=gateway.url, api_key=KEY, max_retries=0)
    request: dict[str, Any] = {
        "model": model,
        "max_tokens": 500,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": QUESTION}],
        "tools": [{"name": "get_weather", "input_schema": WEATHER_SCHEMA}],
    }
    if stream:
        with client.messages.stream(**request) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(**request)
    calls = [block.input for block in message.content if block.type == "tool_use"]
    return calls, message.stop_reason


def responses_call(
    gateway: GatewayServer, model: str, stream: bool
) -> tuple[list[Any], str | None]:
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)
    tools: Any = [{"type": "function", "name": "get_weather", "parameters": WEATHER_SCHEMA}]
    request: dict[str, Any] = {
        "model": model,
        "instructions": "Be brief.",
        "input": QUESTION,
        "tools": tools,
    }
    if stream:
        terminal = ("response.completed", "response.incomplete", "response.failed")
        found = [e for e in client.responses.create(**request, stream=True) if e.type in terminal]
        response = found[-1].response  # type: ignore[union-attr]
    else:
        response = client.responses.create(**request)
    calls = [json.loads(item.arguments) for item in response.output if item.type == "function_call"]
    return calls, response.status


ASK = {"openai-chat": chat_call, "anthropic": messages_call, "openai-responses": responses_call}
TOOL_STOP = {"openai-chat": "tool_calls", "anthropic": "tool_use", "openai-responses": "completed"}
CUT_STOP = {"openai-chat": "length", "anthropic": "max_tokens", "openai-responses": "incomplete"}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("front", list(ASK))
@pytest.mark.parametrize("upstream_format", list(UPSTREAMS))
def test_every_client_through_every_native_upstream(
    gateway: GatewayServer, native: ScriptedUpstream, upstream_format: str, front: str, stream: bool
) -> None:
    before = len(native.requests)
    calls, stop = ASK[front](gateway, upstream_format, stream)
    assert calls == [EXPECTED[upstream_format]]
    assert stop == TOOL_STOP[front]
    sent = native.requests[before:]
    assert len(sent) == 1
    path, body = sent[0].path, sent[0].body
    if upstream_format == "gemini":
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        assert path == f"/v1/models/gemini-call:{method}"
        assert "model" not in body and "stream" not in body
        assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
        assert body["contents"] == [{"role": "user", "parts": [{"text": QUESTION}]}]
        declaration = body["tools"][0]["functionDeclarations"][0]
        assert declaration["name"] == "get_weather"
        assert declaration["parameters"]["properties"]["days"]["type"].lower() == "integer"
    elif upstream_format == "ollama":
        assert path == "/v1/api/chat"
        assert body["stream"] is stream  # Ollama streams unless told not to
        assert body["messages"][0] == {"role": "system", "content": "Be brief."}
        assert body["tools"][0]["function"]["parameters"] == WEATHER_SCHEMA
    else:
        assert path == "/v1/responses"
        assert body["stream"] is True if stream else "stream" not in body
        assert body["instructions"] == "Be brief."
        if front != "openai-responses":  # (a Responses client's request passes as sent)
            assert body["store"] is False
        assert body["tools"][0]["name"] == "get_weather"


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("front", list(ASK))
def test_g1_a_call_cut_by_a_responses_upstream_is_held_back(
    gateway: GatewayServer, front: str, stream: bool
) -> None:
    calls, stop = ASK[front](gateway, "responses-cut", stream)
    assert calls == []
    assert stop == CUT_STOP[front]


@pytest.mark.parametrize("upstream_format", list(UPSTREAMS))
def test_a_tool_round_trip_reaches_each_upstream_in_its_own_shape(
    gateway: GatewayServer, native: ScriptedUpstream, upstream_format: str
) -> None:
    """An Anthropic client's second turn: its tool_use and tool_result go upstream as
    a functionCall / functionResponse pair (Gemini), an assistant tool call and a tool
    message (Ollama), or function_call / function_call_output items (Responses)."""
    client = anthropic.Anthropic(base_url=gateway.url, api_key=KEY, max_retries=0)
    first = client.messages.create(
        model=upstream_format,
        max_tokens=500,
        messages=[{"role": "user", "content": QUESTION}],
        tools=[{"name": "get_weather", "input_schema": WEATHER_SCHEMA}],
    )
    use = next(block for block in first.content if block.type == "tool_use")
    before = len(native.requests)
    client.messages.create(
        model=upstream_format,
        max_tokens=500,
        messages=[
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": [block.model_dump() for block in first.content]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "Sunny"}],
            },
        ],
        tools=[{"name": "get_weather", "input_schema": WEATHER_SCHEMA}],
    )
    body = native.requests[before].body
    if upstream_format == "gemini":
        model_turn, result_turn = body["contents"][1], body["contents"][2]
        call = next(p["functionCall"] for p in model_turn["parts"] if "functionCall" in p)
        assert (model_turn["role"], call["name"], call["args"]) == (
            "model",
            "get_weather",
            EXPECTED["gemini"],
        )
        response = result_turn["parts"][0]["functionResponse"]
        assert (response["name"], response["response"], response["id"]) == (
            "get_weather",
            {"result": "Sunny"},
            call["id"],
        )
    elif upstream_format == "ollama":
        assistant, result = body["messages"][1], body["messages"][2]
        assert assistant["tool_calls"] == [
            {"function": {"name": "get_weather", "arguments": EXPECTED["ollama"]}}
        ]
        assert result == {"role": "tool", "content": "Sunny", "tool_name": "get_weather"}
    else:
        kinds = [item.get("type", "message") for item in body["input"]]
        assert kinds == ["message", "function_call", "function_call_output"]
        call, output = body["input"][1], body["input"][2]
        assert json.loads(call["arguments"]) == EXPECTED["openai-responses"]
        assert output == {
            "type": "function_call_output",
            "call_id": call["call_id"],
            "output": "Sunny",
        }
        assert call["call_id"] == "call_Lq2"  # the upstream's own id, restored


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_a_chat_client_gets_a_gemini_calls_signature_and_sends_it_back(
    gateway: GatewayServer, native: ScriptedUpstream, stream: bool
) -> None:
    """Gemini 3 refuses a call sent back without its ``thoughtSignature``: a Chat client
    gets it on the call as Gemini's OpenAI-compatible API gives it
    (``extra_content.google.thought_signature``) and it goes back on the call's part."""
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)
    tools: Any = [
        {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
    ]
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    if stream:
        calls: list[dict[str, Any]] = []
        for chunk in client.chat.completions.create(
            model="gemini", messages=messages, tools=tools, stream=True
        ):
            for choice in chunk.choices:
                for delta in choice.delta.tool_calls or []:
                    assert delta.function is not None
                    if delta.id:  # (the gateway sends a call whole: id, name, arguments)
                        call = {"id": delta.id, "type": "function", **(delta.model_extra or {})}
                        call["function"] = {"name": delta.function.name, "arguments": ""}
                        calls.append(call)
                    calls[-1]["function"]["arguments"] += delta.function.arguments or ""
    else:
        message = client.chat.completions.create(model="gemini", messages=messages, tools=tools)
        calls = [
            c.model_dump(exclude_none=True) for c in message.choices[0].message.tool_calls or []
        ]
    [call] = calls
    signature = GEMINI_CALL["thoughtSignature"]
    assert call["extra_content"] == {"google": {"thought_signature": signature}}
    before = len(native.requests)
    messages += [
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": call["id"], "content": "Sunny"},
    ]
    client.chat.completions.create(model="gemini", messages=messages, tools=tools)
    model_turn = native.requests[before].body["contents"][1]
    parts = [p for p in model_turn["parts"] if "functionCall" in p]
    assert [p.get("thoughtSignature") for p in parts] == [signature]

"""Reasoning passed back to an OpenAI-compatible upstream (DeepSeek's rule): a client
that returns a tool-call turn's reasoning, as Anthropic thinking blocks, Responses
reasoning items or Chat ``reasoning_content``, has it reach the upstream as the
assistant message's ``reasoning_content``. The scripted upstream here answers the
second turn as DeepSeek does: 400 when the tool-call turn comes back without it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from gateway.serving import KEY, GatewayServer
from upstream import WEATHER_SCHEMA, Script, ScriptedUpstream, chat_chunk, text_stream, usage_chunk

from toolwire.gateway import GatewayConfig
from toolwire.replay import DONE

pytestmark = pytest.mark.gateway

THOUGHT = "The user wants Oslo's weather; call get_weather."
FIRST_TURN = [
    chat_chunk({"role": "assistant", "content": None, "reasoning_content": ""}),
    chat_chunk({"reasoning_content": "The user wants Oslo's weather; "}),
    chat_chunk({"reasoning_content": "call get_weather."}),
    chat_chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_ds1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ]
        }
    ),
    chat_chunk({}, "tool_calls"),
    usage_chunk(30, 12),
    DONE,
]


def deepseek(body: Any) -> Script:
    """Turn one: reasoning and a call. Later turns: 400 unless every assistant turn
    with tool calls carries its reasoning_content, as DeepSeek checks."""
    messages = body.get("messages") or []
    if not any(m.get("role") == "tool" for m in messages):
        return Script(FIRST_TURN)
    for message in messages:
        bare = message.get("tool_calls") and not message.get("reasoning_content")
        if message.get("role") == "assistant" and bare:
            return Script([], always_fail=(400, None))
    return Script(text_stream(["Rain in Oslo."]))


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream({"deepseek": deepseek}) as server:
        yield server


@pytest.fixture(scope="module")
def gateway(upstream: ScriptedUpstream) -> Iterator[GatewayServer]:
    with GatewayServer(GatewayConfig(upstream_url=upstream.url, api_keys=(KEY,))) as server:
        yield server


def last_assistant_sent(upstream: ScriptedUpstream) -> dict[str, Any]:
    """The assistant tool-call turn of the latest request the upstream received."""
    messages = upstream.requests[-1].body["messages"]
    return next(m for m in reversed(messages) if m["role"] == "assistant")


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_anthropic_thinking_goes_back_as_reasoning_content(
    gateway: GatewayServer, upstream: ScriptedUpstream, stream: bool
) -> None:
    client = anthropic.Anthropic(base_url=gateway.url, api_key=KEY, max_retries=0)
    tools: Any = [{"name": "get_weather", "input_schema": WEATHER_SCHEMA}]
    messages: list[Any] = [{"role": "user", "content": "Weather in Oslo?"}]
    request: dict[str, Any] = {"model": "deepseek", "max_tokens": 500, "tools": tools}
    if stream:
        with client.messages.stream(messages=messages, **request) as events:
            first = events.get_final_message()
    else:
        first = client.messages.create(messages=messages, **request)
    thinking = [b for b in first.content if b.type == "thinking"]
    assert [b.thinking for b in thinking] == [THOUGHT]
    call = next(b for b in first.content if b.type == "tool_use")
    messages += [
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "rain"}],
        },
    ]
    second = client.messages.create(messages=messages, **request)
    assert second.content[0].type == "text" and second.content[0].text == "Rain in Oslo."
    sent = last_assistant_sent(upstream)
    assert sent["reasoning_content"] == THOUGHT
    assert sent["tool_calls"][0]["id"] == "call_ds1"  # the upstream's own id, restored


def test_responses_reasoning_items_go_back_as_reasoning_content(
    gateway: GatewayServer, upstream: ScriptedUpstream
) -> None:
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)
    tools: Any = [{"type": "function", "name": "get_weather", "parameters": WEATHER_SCHEMA}]
    items: list[Any] = [{"role": "user", "content": "Weather in Oslo?"}]
    first = client.responses.create(model="deepseek", input=items, tools=tools, store=False)
    kinds = [item.type for item in first.output]
    assert kinds == ["reasoning", "function_call"]
    call = first.output[1]
    assert call.type == "function_call"
    items += [item.model_dump(exclude_none=True) for item in first.output]
    items.append({"type": "function_call_output", "call_id": call.call_id, "output": "rain"})
    second = client.responses.create(model="deepseek", input=items, tools=tools, store=False)
    assert second.output_text == "Rain in Oslo."
    assert last_assistant_sent(upstream)["reasoning_content"] == THOUGHT


def test_chat_reasoning_content_passes_through(
    gateway: GatewayServer, upstream: ScriptedUpstream
) -> None:
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)
    tools: Any = [
        {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
    ]
    messages: list[Any] = [{"role": "user", "content": "Weather in Oslo?"}]
    first = client.chat.completions.create(model="deepseek", messages=messages, tools=tools)
    message = first.choices[0].message
    reasoning = (message.model_extra or {}).get("reasoning_content")
    assert reasoning == THOUGHT
    calls = message.tool_calls or []
    assert len(calls) == 1
    messages += [
        message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": calls[0].id, "content": "rain"},
    ]
    second = client.chat.completions.create(model="deepseek", messages=messages, tools=tools)
    assert second.choices[0].message.content == "Rain in Oslo."
    assert last_assistant_sent(upstream)["reasoning_content"] == THOUGHT


def test_without_the_reasoning_the_upstream_refuses(gateway: GatewayServer) -> None:
    """The check above can fail: a tool-call turn sent back bare gets DeepSeek's 400."""
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)
    call = {
        "id": "call_x",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    }
    messages: Any = [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_x", "content": "rain"},
    ]
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="deepseek", messages=messages)

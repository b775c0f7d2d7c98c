"""The gateway with real clients (the ``openai`` and ``anthropic`` SDKs) in front of the
scripted upstream: every recorded stream, streamed and not."""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
import httpx
import openai
import pytest
from gateway.serving import KEY, GatewayServer
from upstream import WEATHER_SCHEMA, ScriptedUpstream

from toolwire.audit import MemorySink
from toolwire.gateway import ERRORS_KEY, UNREADABLE_KEY

pytestmark = pytest.mark.gateway

OPENAI_TOOLS: list[Any] = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
]
ANTHROPIC_TOOLS: list[Any] = [{"name": "get_weather", "input_schema": WEATHER_SCHEMA}]

# script → the call the client must get (None: no call, the output was cut)
EXPECTED: dict[str, dict[str, Any] | None] = {
    "f32-llama-cpp": {"city": "Paris", "unit": "celsius"},  # F32
    "python-dict": {"city": "Lima", "days": 2},
    "f34-body": {"city": "Oslo", "days": 3},  # F34
    "f35-fenced": {"city": "Rome"},  # F35
    "f33-cut-off": None,  # F33
}


def openai_client(gateway: GatewayServer, key: str = KEY) -> openai.OpenAI:
    return openai.OpenAI(base_url=gateway.url + "/v1", api_key=key, max_retries=0)


def anthropic_client(gateway: GatewayServer, key: str = KEY) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=gateway.url, api_key=key, max_retries=0)


def ask_openai(gateway: GatewayServer, model: str, stream: bool) -> tuple[list[Any], str | None]:
    """(calls as (name, arguments text), finish_reason) as the OpenAI SDK got them."""
    client = openai_client(gateway)
    messages: list[Any] = [{"role": "user", "content": "weather?"}]
    if not stream:
        done = client.chat.completions.create(model=model, messages=messages, tools=OPENAI_TOOLS)
        choice = done.choices[0]
        calls = [
            (c.function.name, c.function.arguments)
            for c in choice.message.tool_calls or []
            if c.type == "function"
        ]
        return calls, choice.finish_reason
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    finish = None
    for chunk in client.chat.completions.create(
        model=model, messages=messages, tools=OPENAI_TOOLS, stream=True
    ):
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                if delta.function and delta.function.name:
                    names[delta.index] = delta.function.name
                if delta.function and delta.function.arguments:
                    args[delta.index] = args.get(delta.index, "") + delta.function.arguments
            finish = choice.finish_reason or finish
    return [(names[i], args.get(i, "")) for i in sorted(names)], finish


def ask_anthropic(gateway: GatewayServer, model: str, stream: bool) -> anthropic.types.Message:
    client = anthropic_client(gateway)
    request: dict[str, Any] = {
        "model": model,
        "max_tokens": 1000,
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": ANTHROPIC_TOOLS,
    }
    if not stream:
        return client.messages.create(**request)
    with client.messages.stream(**request) as events:
        return events.get_final_message()


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("model", list(EXPECTED))
def test_openai_client_gets_the_repaired_call_or_none(
    gateway: GatewayServer, model: str, stream: bool
) -> None:
    calls, finish = ask_openai(gateway, model, stream)
    expected = EXPECTED[model]
    if expected is None:  # F33: cut off: no call, and the finish reason says so
        assert calls == []
        assert finish == "length"
    else:
        assert [(name, json.loads(text)) for name, text in calls] == [("get_weather", expected)]
        assert finish == "tool_calls"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("model", list(EXPECTED))
def test_anthropic_client_gets_the_repaired_call_or_none(
    gateway: GatewayServer, model: str, stream: bool
) -> None:
    message = ask_anthropic(gateway, model, stream)
    uses = [block for block in message.content if block.type == "tool_use"]
    expected = EXPECTED[model]
    if expected is None:
        assert uses == []
        assert message.stop_reason == "max_tokens"
    else:
        assert [(u.name, u.input) for u in uses] == [("get_weather", expected)]
        assert message.stop_reason == "tool_use"
    if model in ("python-dict", "f33-cut-off"):
        assert message.usage.output_tokens == 12  # the upstream's own count


def test_text_streams_through(gateway: GatewayServer) -> None:
    message = ask_anthropic(gateway, "text", stream=True)
    assert [b.text for b in message.content if b.type == "text"] == ["Hello, world."]
    assert message.stop_reason == "end_turn"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_unreadable_arguments_reach_an_anthropic_client_named_never_as_empty(
    gateway: GatewayServer, stream: bool
) -> None:
    message = ask_anthropic(gateway, "unreadable", stream)
    (use,) = [block for block in message.content if block.type == "tool_use"]
    assert isinstance(use.input, dict)
    assert use.input[UNREADABLE_KEY] == "<<<not json>>>"
    assert use.input[ERRORS_KEY]
    assert message.stop_reason == "tool_use"


def test_unreadable_arguments_reach_an_openai_client_as_sent(gateway: GatewayServer) -> None:
    calls, finish = ask_openai(gateway, "unreadable", stream=True)
    assert calls == [("get_weather", "<<<not json>>>")]
    assert finish == "tool_calls"


def test_every_call_leaves_an_audit_record(gateway: GatewayServer, sink: MemorySink) -> None:
    before = len(sink.records)
    ask_anthropic(gateway, "python-dict", stream=True)
    ask_openai(gateway, "f33-cut-off", stream=False)
    deadline = time.monotonic() + 5
    wanted = ("python-dict", "f33-cut-off")
    while time.monotonic() < deadline:  # written when each request ends, off the loop
        mine = [r for r in sink.records[before:] if r.extra["model"] in wanted]
        if len(mine) == 2:
            break
        time.sleep(0.02)
    repaired, cut = sorted(mine, key=lambda r: wanted.index(r.extra["model"]))
    assert (repaired.status, repaired.tool_name) == ("ok", "get_weather")
    assert "python_literal" in repaired.repairs
    assert repaired.extra["model"] == "python-dict"
    assert repaired.extra["delivered"] is True
    assert (cut.status, cut.extra["call_status"], cut.extra["delivered"]) == (
        "truncated",
        "truncated",
        False,
    )


def test_upstream_drop_mid_stream_ends_with_an_error_and_no_call(
    gateway: GatewayServer, sink: MemorySink
) -> None:
    client = openai_client(gateway)
    seen_calls = []
    with pytest.raises(openai.APIError):
        for chunk in client.chat.completions.create(
            model="drop",
            messages=[{"role": "user", "content": "x"}],
            tools=OPENAI_TOOLS,
            stream=True,
        ):
            seen_calls += [d for c in chunk.choices for d in c.delta.tool_calls or []]
    assert seen_calls == []
    with pytest.raises(anthropic.APIStatusError):
        ask_anthropic(gateway, "drop", stream=True)
    # the audit says what happened: the call in flight was cut by the drop
    for record in [r for r in sink.records if r.extra["model"] == "drop"][-2:]:
        assert (record.status, record.extra["delivered"]) == ("truncated", False)
        assert "closed the connection early" in record.extra["upstream_error"]
    # a drop with no call in flight leaves a failed turn (task id: the request id)
    before = set(sink.tasks)
    with pytest.raises(openai.APIError):
        for _ in client.chat.completions.create(
            model="drop-text", messages=[{"role": "user", "content": "x"}], stream=True
        ):
            pass
    deadline = time.monotonic() + 2  # the audit is written once the stream has ended
    while set(sink.tasks) == before and time.monotonic() < deadline:
        time.sleep(0.01)
    (failed,) = [sink.tasks[t] for t in set(sink.tasks) - before]
    assert failed.status == "failed" and failed.ended_at is not None


def test_wrong_key_is_401_in_each_clients_format(gateway: GatewayServer) -> None:
    with pytest.raises(openai.AuthenticationError):
        openai_client(gateway, "wrong").chat.completions.create(
            model="text", messages=[{"role": "user", "content": "x"}]
        )
    with pytest.raises(anthropic.AuthenticationError) as caught:
        anthropic_client(gateway, "wrong").messages.create(
            model="text", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        )
    assert caught.value.body["error"]["type"] == "authentication_error"  # type: ignore[index]


def test_upstream_failures_are_502_and_504(gateway: GatewayServer) -> None:
    with pytest.raises(anthropic.APIStatusError) as caught:
        ask_anthropic(gateway, "server-error", stream=True)
    assert caught.value.status_code == 502
    with pytest.raises(openai.APIStatusError) as slow:
        ask_openai(gateway, "slow-first-byte", stream=False)
    assert slow.value.status_code == 504


def test_rate_limit_is_retried_before_the_first_byte(gateway: GatewayServer) -> None:
    message = ask_anthropic(gateway, "rate-limited", stream=True)
    assert message.content[0].type == "text"


def test_bad_bodies_are_400_and_413(gateway: GatewayServer) -> None:
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
    bad = httpx.post(gateway.url + "/v1/messages", content=b"{nope", headers=headers)
    assert bad.status_code == 400
    assert bad.json()["error"]["type"] == "invalid_request_error"
    big = {"model": "text", "messages": [{"role": "user", "content": "x" * 300_000}]}
    large = httpx.post(gateway.url + "/v1/chat/completions", json=big, headers=headers)
    assert large.status_code == 413
    assert "error" in large.json()


def test_client_disconnect_closes_the_upstream_request_within_a_second(
    gateway: GatewayServer, upstream: ScriptedUpstream
) -> None:
    body = {"model": "slow-stream", "stream": True, "messages": [{"role": "user", "content": "x"}]}
    before = len(upstream.disconnects)
    with httpx.stream(
        "POST", gateway.url + "/v1/chat/completions", json=body, headers={"x-api-key": KEY}
    ) as response:
        lines = response.iter_lines()
        for _ in range(4):
            next(lines)
        left = time.monotonic()
    deadline = left + 1.0
    while len(upstream.disconnects) == before and time.monotonic() < deadline + 1:
        time.sleep(0.01)
    assert len(upstream.disconnects) > before
    assert upstream.disconnects[-1] - left < 1.0


def test_count_tokens_models_and_health(gateway: GatewayServer) -> None:
    counted = anthropic_client(gateway).messages.count_tokens(
        model="text",
        messages=[{"role": "user", "content": "What is the weather in Paris today?"}],
        tools=ANTHROPIC_TOOLS,
    )
    assert 10 < counted.input_tokens < 200
    assert httpx.head(gateway.url + "/").status_code == 200
    # Claude Code's preconnect (HEAD $ANTHROPIC_BASE_URL/api/hello), no key sent
    hello = httpx.head(gateway.url + "/api/hello")
    assert hello.status_code == 200 and hello.content == b""
    assert httpx.get(gateway.url + "/api/hello").json() == {"status": "ok"}
    assert httpx.get(gateway.url + "/healthz").json() == {"status": "ok"}
    models = httpx.get(gateway.url + "/v1/models", headers={"x-api-key": KEY})
    assert models.json()["object"] == "list"
    # one upstream serving any name: its own list (the scripted upstream's scripts)
    listed = [m["id"] for m in models.json()["data"]]
    assert "python-dict" in listed and "f33-cut-off" in listed
    # the SDKs read it
    assert "python-dict" in [m.id for m in openai_client(gateway).models.list()]
    assert "python-dict" in [m.id for m in anthropic_client(gateway).models.list()]

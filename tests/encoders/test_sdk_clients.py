"""The official SDKs, streaming, accept our encoded streams and find the same calls.

A small Starlette app on a loopback port serves each corpus stream re-encoded for
the endpoint the SDK calls (``/v1/chat/completions``, ``/v1/responses``,
``/v1/messages``); the SDKs' own stream helpers accumulate the result.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
import uvicorn
from corpus import real_captures, stream_cases
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from toolwire.encoders import convert_stream
from toolwire.parser import parse_stream

ENDPOINTS = {
    "chat/completions": "openai-chat",
    "responses": "openai-responses",
    "messages": "anthropic",
}


def sdk_cases() -> list[dict[str, Any]]:
    chosen = {
        "basic-single",
        "F6-parallel-at-zero",
        "parallel-interleaved",
        "text-then-call",
        "F12-python-dict",
        "F18-functions-prefix",
        "anthropic-tool-use",
    }
    out = [c for c in stream_cases() if c["id"] in chosen]
    for path in real_captures():
        if "incomplete" in path.name:
            continue  # cut off at max_tokens: no calls to compare
        fmt = "anthropic" if path.parent.name == "anthropic" else "openai-chat"
        out.append({"id": path.name, "format": fmt, "tools": [], "input": path.read_text()})
    return out


CASES = sdk_cases()
CURRENT: dict[str, Any] = {}


async def serve(request: Request) -> Response:
    target = ENDPOINTS[request.path_params["endpoint"]]
    case = CURRENT["case"]
    converted = convert_stream(case["input"], case["format"], target, case["tools"])
    return Response(converted.output, media_type="text/event-stream")


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    app = Starlette(routes=[Route("/v1/{endpoint:path}", serve, methods=["POST"])])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(5)


def ours(case: dict[str, Any]) -> list[tuple[str, Any]]:
    result = parse_stream(case["input"], case["format"], case["tools"])
    return [(c.name, c.arguments) for c in result.calls]


def tool_schemas(case: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": t["name"], "parameters": t["parameters"]} for t in case["tools"]]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_openai_chat_sdk(base_url: str, case: dict[str, Any]) -> None:
    CURRENT["case"] = case
    client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="x", max_retries=0)
    tools: Any = [{"type": "function", "function": t} for t in tool_schemas(case)] or openai.omit
    with client.chat.completions.stream(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools
    ) as stream:
        for _ in stream:
            pass
        completion = stream.get_final_completion()
    message = completion.choices[0].message
    calls = [(t.function.name, json.loads(t.function.arguments)) for t in message.tool_calls or []]
    assert calls == ours(case)
    expected = parse_stream(case["input"], case["format"], case["tools"])
    assert (message.content or "") == expected.text
    assert completion.choices[0].finish_reason == expected.finish_reason


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_openai_responses_sdk(base_url: str, case: dict[str, Any]) -> None:
    CURRENT["case"] = case
    client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="x", max_retries=0)
    tools: Any = [{"type": "function", "strict": False, **t} for t in tool_schemas(case)]
    with client.responses.stream(model="m", input="hi", tools=tools or openai.omit) as stream:
        for _ in stream:
            pass
        response = stream.get_final_response()
    calls = [
        (o.name, json.loads(o.arguments)) for o in response.output if o.type == "function_call"
    ]
    assert calls == ours(case)
    assert response.output_text == parse_stream(case["input"], case["format"], case["tools"]).text


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_anthropic_sdk(base_url: str, case: dict[str, Any]) -> None:
    CURRENT["case"] = case
    client = anthropic.Anthropic(base_url=base_url, api_key="x", max_retries=0)
    tools: Any = [
        {"name": t["name"], "input_schema": t["parameters"]} for t in tool_schemas(case)
    ] or anthropic.omit
    with client.messages.stream(
        model="m", max_tokens=100, messages=[{"role": "user", "content": "hi"}], tools=tools
    ) as stream:
        for _ in stream:
            pass
        message = stream.get_final_message()
    calls = [(b.name, b.input) for b in message.content if b.type == "tool_use"]
    assert calls == ours(case)
    expected = parse_stream(case["input"], case["format"], case["tools"])
    text = "".join(b.text for b in message.content if b.type == "text")
    assert text == expected.text
    assert message.stop_reason == ("tool_use" if expected.calls else "end_turn")


def test_anthropic_sdk_sees_an_error_event(base_url: str) -> None:
    CURRENT["case"] = {
        "format": "openai-chat",
        "tools": [],
        "input": 'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n',
    }  # no finish, no [DONE]: a dropped upstream
    client = anthropic.Anthropic(base_url=base_url, api_key="x", max_retries=0)
    with (
        pytest.raises(anthropic.APIStatusError),
        client.messages.stream(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        for _ in stream:
            pass

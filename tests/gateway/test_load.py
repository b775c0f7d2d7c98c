"""Load: 200 concurrent streams through one gateway, half OpenAI and half Anthropic
clients, each answered by its own upstream stream (text with multi-byte characters,
then a Python-dict call to repair). Every text delta and every call of every stream is
checked against what its own upstream stream held: nothing lost, nothing crossed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from toolwire.audit import MemorySink
from toolwire.gateway import GatewayConfig
from toolwire.gateway.background import BackgroundGateway
from toolwire.replay import ReplayServer, Script, chat_chunk, text_stream

pytestmark = [pytest.mark.gateway, pytest.mark.anyio]

STREAMS = 200
PIECES = 30
RECORD = {
    "type": "object",
    "properties": {"tag": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["tag", "n"],
}


def tag_of(number: int) -> str:
    return f"stream-{number:03d}"


def expected_text(tag: str) -> str:
    return "".join(_pieces(tag))


def _pieces(tag: str) -> list[str]:
    return [f"{tag}·{i:02d} é✓ " for i in range(PIECES)]


def answer(body: Any) -> Script:
    """The stream for one request: its tag is the user's message."""
    tag = body["messages"][-1]["content"]
    number = int(tag.rsplit("-", 1)[1])
    text = text_stream(_pieces(tag))[:-3]  # without its finish, usage and DONE
    fragments = ["{'tag': ", f"'{tag}', ", "'n': ", f"'{number}'", ",}"]
    call = {"index": 0, "id": f"call_{number}", "type": "function"}
    chunks = [
        *text,
        chat_chunk({"tool_calls": [{**call, "function": {"name": "record", "arguments": ""}}]}),
        *(
            chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": f}}]})
            for f in fragments
        ),
        chat_chunk({}, "tool_calls"),
        b"data: [DONE]\n\n",
    ]
    return Script(chunks, chunk_delay=0.02)  # about a second a stream: they overlap


@pytest.fixture(scope="module")
def sink() -> MemorySink:
    return MemorySink()


@pytest.fixture(scope="module")
def gateway(sink: MemorySink) -> Iterator[BackgroundGateway]:
    with ReplayServer({"load": answer}) as upstream:
        config = GatewayConfig(upstream_url=upstream.url, audit=sink)
        with BackgroundGateway(config) as server:
            yield server


def sse_data(body: bytes) -> list[dict[str, Any]]:
    """Every JSON ``data:`` payload of an SSE body, in order."""
    out = []
    for line in body.decode("utf-8").splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            out.append(json.loads(line[6:]))
    return out


def read_openai(events: list[dict[str, Any]]) -> tuple[str, list[tuple[str, Any]], Any]:
    text, names, args, finish = "", {}, {}, None
    for event in events:
        for choice in event.get("choices", []):
            delta = choice.get("delta", {})
            text += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                if call.get("function", {}).get("name"):
                    names[call["index"]] = call["function"]["name"]
                args[call["index"]] = args.get(call["index"], "") + (
                    call.get("function", {}).get("arguments") or ""
                )
            finish = choice.get("finish_reason") or finish
    calls = [(names[i], json.loads(args[i])) for i in sorted(names)]
    return text, calls, finish


def read_anthropic(events: list[dict[str, Any]]) -> tuple[str, list[tuple[str, Any]], Any]:
    text, calls, finish = "", [], None
    partial: dict[int, list[str]] = {}
    for event in events:
        kind = event["type"]
        if kind == "content_block_start" and event["content_block"]["type"] == "tool_use":
            calls.append((event["content_block"]["name"], event["index"]))
            partial[event["index"]] = []
        elif kind == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                text += delta["text"]
            elif delta["type"] == "input_json_delta":
                partial[event["index"]].append(delta["partial_json"])
        elif kind == "message_delta":
            finish = event["delta"].get("stop_reason")
    return text, [(name, json.loads("".join(partial[i]))) for name, i in calls], finish


async def test_200_concurrent_streams_arrive_whole_and_uncrossed(
    gateway: BackgroundGateway, sink: MemorySink
) -> None:
    results: dict[int, tuple[str, bytes]] = {}
    open_now = peak = 0
    limits = httpx.Limits(max_connections=STREAMS, max_keepalive_connections=STREAMS)
    timeout = httpx.Timeout(60.0)

    async def one(http: httpx.AsyncClient, number: int) -> None:
        nonlocal open_now, peak
        front = "anthropic" if number % 2 else "openai-chat"
        path = "/v1/messages" if front == "anthropic" else "/v1/chat/completions"
        body: dict[str, Any] = {
            "model": "load",
            "stream": True,
            "max_tokens": 1000,
            "messages": [{"role": "user", "content": tag_of(number)}],
        }
        if front == "anthropic":
            body["tools"] = [{"name": "record", "input_schema": RECORD}]
        else:
            body["tools"] = [
                {"type": "function", "function": {"name": "record", "parameters": RECORD}}
            ]
        async with http.stream("POST", gateway.url + path, json=body) as response:
            assert response.status_code == 200
            open_now += 1
            peak = max(peak, open_now)
            data = b"".join([chunk async for chunk in response.aiter_raw()])
            open_now -= 1
        results[number] = (front, data)

    started = time.monotonic()
    async with (
        httpx.AsyncClient(limits=limits, timeout=timeout) as http,
        anyio.create_task_group() as group,
    ):
        for number in range(STREAMS):
            group.start_soon(one, http, number)
    took = time.monotonic() - started

    assert sorted(results) == list(range(STREAMS))
    for number, (front, data) in results.items():
        events = sse_data(data)
        read = read_anthropic if front == "anthropic" else read_openai
        text, calls, finish = read(events)
        tag = tag_of(number)
        assert text == expected_text(tag), (number, text[:200])
        assert calls == [("record", {"tag": tag, "n": number})], number
        assert finish == ("tool_use" if front == "anthropic" else "tool_calls")
    assert peak >= STREAMS // 2, f"only {peak} streams were open at once"
    # and one audit record a call, each naming its own call's repair
    with anyio.fail_after(10):
        while len(sink.records) < STREAMS:
            await anyio.sleep(0.02)
    upstream_ids = sorted(r.extra["upstream_call_id"] for r in sink.records)
    assert upstream_ids == sorted(f"call_{n}" for n in range(STREAMS))
    assert len({r.call_id for r in sink.records}) == STREAMS  # the clients' ids, unique
    assert all("python_literal" in r.repairs for r in sink.records)
    assert took < 60, took

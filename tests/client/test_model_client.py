"""The upstream client against the scripted upstream: requests, retries, faults."""

from __future__ import annotations

import asyncio
import gzip
import time
from collections.abc import Iterator

import pytest
from upstream import ScriptedUpstream

from toolwire.client import ClientTimeouts, ModelClient, RetryPolicy, UpstreamError
from toolwire.parser import parse_stream

pytestmark = pytest.mark.anyio

FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02)


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as server:
        yield server


async def read_all(client: ModelClient, body: dict[str, object], source: str) -> bytes:
    response = await client.open(client.prepare(body, source))
    try:
        return b"".join([chunk async for chunk in response.iter_bytes()])
    finally:
        await response.aclose()


async def test_streams_raw_bytes_with_the_key_and_usage_option(upstream: ScriptedUpstream) -> None:
    client = ModelClient("openai-chat", upstream.url, api_key="sk-upstream", retry=FAST)
    body = {"model": "f32-llama-cpp", "messages": [{"role": "user", "content": "hi"}]}
    data = await read_all(client, {**body, "stream": True}, "openai-chat")
    await client.aclose()
    assert parse_stream(data, "openai-chat").calls[0].name == "get_weather"
    sent = upstream.requests[-1]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-upstream"
    assert sent.body["stream"] is True
    assert sent.body["stream_options"] == {"include_usage": True}


async def test_translates_an_anthropic_request_and_maps_the_model(
    upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", "sk-from-env")
    client = ModelClient("openai-chat", upstream.url, model="text", api_key_env="SCRIPTED_KEY")
    body = {
        "model": "claude-opus-4-8",
        "max_tokens": 100,
        "system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hi"}],
    }
    data = await read_all(client, body, "anthropic")
    await client.aclose()
    assert b"Hello" in data
    sent = upstream.requests[-1].body
    assert sent["model"] == "text"
    assert sent["messages"][0] == {"role": "system", "content": "be brief"}
    assert sent["stream"] is False
    assert upstream.requests[-1].headers["authorization"] == "Bearer sk-from-env"
    assert "sk-from-env" not in repr(client)


async def test_429_is_retried_after_the_retry_after_it_names(upstream: ScriptedUpstream) -> None:
    client = ModelClient("openai-chat", upstream.url, retry=FAST)
    started = time.monotonic()
    data = await read_all(client, {"model": "rate-limited", "stream": True}, "openai-chat")
    await client.aclose()
    assert b"Hello" in data
    assert time.monotonic() - started >= 0.2  # the scripted Retry-After: 0.2
    assert upstream.tries["rate-limited"] == 2


async def test_5xx_is_retried_then_reported_with_its_status(upstream: ScriptedUpstream) -> None:
    client = ModelClient("openai-chat", upstream.url, retry=FAST)
    before = upstream.tries.get("server-error", 0)
    with pytest.raises(UpstreamError) as caught:
        await read_all(client, {"model": "server-error"}, "openai-chat")
    await client.aclose()
    assert (caught.value.kind, caught.value.status) == ("status", 500)
    assert "scripted 500" in caught.value.message
    assert upstream.tries["server-error"] - before == 3


async def test_4xx_is_not_retried(upstream: ScriptedUpstream) -> None:
    client = ModelClient("openai-chat", upstream.url, retry=FAST)
    with pytest.raises(UpstreamError) as caught:
        await read_all(client, {"model": "bad-request"}, "openai-chat")
    await client.aclose()
    assert caught.value.status == 400
    assert upstream.tries["bad-request"] == 1


async def test_connect_errors_are_retried_then_reported() -> None:
    client = ModelClient("openai-chat", "http://127.0.0.1:9/v1", retry=FAST)
    with pytest.raises(UpstreamError) as caught:
        await read_all(client, {"model": "x"}, "openai-chat")
    await client.aclose()
    assert caught.value.kind == "connect"


async def test_slow_first_byte_is_a_timeout(upstream: ScriptedUpstream) -> None:
    client = ModelClient("openai-chat", upstream.url, retry=FAST, timeouts=ClientTimeouts(read=0.3))
    with pytest.raises(UpstreamError) as caught:
        await read_all(client, {"model": "slow-first-byte", "stream": True}, "openai-chat")
    await client.aclose()
    assert caught.value.kind == "timeout"


async def test_a_drop_mid_stream_is_reported_not_taken_for_the_end(
    upstream: ScriptedUpstream,
) -> None:
    client = ModelClient("openai-chat", upstream.url, retry=FAST)
    response = await client.open(client.prepare({"model": "drop", "stream": True}, "openai-chat"))
    received = []
    with pytest.raises(UpstreamError) as caught:
        async for chunk in response.iter_bytes():
            received.append(chunk)
    await response.aclose()
    await client.aclose()
    assert caught.value.kind == "dropped"
    assert received  # the chunks before the drop arrived


def test_unsupported_wire_is_refused_up_front() -> None:
    with pytest.raises(ValueError, match="no upstream client"):
        ModelClient("grpc", "http://127.0.0.1:1/v1")


async def test_a_content_coded_answer_is_read_decoded() -> None:
    """The client reads an uncoded body raw (fewer layers per chunk); a gzip-coded one
    must still come out decoded."""
    body = b'data: {"choices": []}\n\n' * 50 + b"data: [DONE]\n\n"

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.lower().split(b"\r\n")
            if line.startswith(b"content-length:")
        )
        await reader.readexactly(length)
        coded = gzip.compress(body)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\n"
            + f"content-length: {len(coded)}\r\n\r\n".encode()
            + coded
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
    try:
        assert await read_all(client, {"model": "m", "stream": True}, "openai-chat") == body
    finally:
        await client.aclose()
        server.close()
        await server.wait_closed()

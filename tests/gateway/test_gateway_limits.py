"""Per-key limits: requests in flight and requests per minute, per gateway key; over a
limit the client gets 429 in its own format with ``Retry-After`` (the SDKs raise their
own ``RateLimitError``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import anyio
import httpx
import openai
import pytest
from gateway.serving import KEY, GatewayServer
from starlette.applications import Starlette
from typer.testing import CliRunner
from upstream import ScriptedUpstream

from toolwire.cli import app
from toolwire.gateway import GatewayConfig
from toolwire.gateway.config import ConfigError, load_config
from toolwire.gateway.limits import KeyLimits, LocalLimiter, key_id

pytestmark = pytest.mark.gateway

OTHER_KEY = "gw-other-key"
MESSAGES: list[Any] = [{"role": "user", "content": "x"}]


# -- the per-process limiter ------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_local_limiter_counts_requests_in_flight_per_key() -> None:
    async def run() -> None:
        limiter = LocalLimiter(KeyLimits(max_streams=2))
        assert await limiter.acquire("a") is None
        assert await limiter.acquire("a") is None
        refused = await limiter.acquire("a")
        assert refused is not None and "in flight" in refused.reason
        assert refused.retry_after_header == "1"
        assert await limiter.acquire("b") is None  # another key has its own count
        await limiter.release("a")
        assert await limiter.acquire("a") is None
        for _ in range(2):
            await limiter.release("a")
        await limiter.release("b")
        assert limiter._in_flight == {}  # idle keys are forgotten

    anyio.run(run)


def test_local_limiter_requests_per_minute_slide_and_say_when() -> None:
    async def run() -> None:
        clock = Clock()
        limiter = LocalLimiter(KeyLimits(requests_per_minute=2), clock=clock)
        assert await limiter.acquire("a") is None
        await limiter.release("a")
        clock.now += 20
        assert await limiter.acquire("a") is None
        await limiter.release("a")
        clock.now += 10
        refused = await limiter.acquire("a")
        assert refused is not None and "per minute" in refused.reason
        assert refused.retry_after == pytest.approx(30.0)  # the first leaves the window
        assert refused.retry_after_header == "30"
        clock.now += 30
        assert await limiter.acquire("a") is None  # refusals did not count

    anyio.run(run)


def test_local_limiter_tokens_per_minute_charge_the_estimate_then_the_usage() -> None:
    async def run() -> None:
        clock = Clock()
        limiter = LocalLimiter(KeyLimits(tokens_per_minute=100), clock=clock)
        assert await limiter.acquire("a", tokens=30) is None
        assert await limiter.acquire("a", tokens=30) is None  # 60 charged: under 100
        await limiter.release("a", tokens=70)  # it used 70, not 30: 100 charged now
        refused = await limiter.acquire("a", tokens=1)
        assert refused is not None and refused.limit == "tokens_per_minute"
        await limiter.release("a")  # no usage reported: its estimate stands
        clock.now += 61
        assert await limiter.acquire("a", tokens=1) is None

    anyio.run(run)


def test_tokens_per_minute_through_the_gateway_count_the_reported_usage(
    upstream: ScriptedUpstream,
) -> None:
    # each "python-dict" answer reports 40 input and 12 output tokens: 52 a request
    config = GatewayConfig(upstream_url=upstream.url, limits=KeyLimits(tokens_per_minute=100))
    with GatewayServer(config) as server:
        url = server.url + "/v1/chat/completions"
        body = {"model": "python-dict", "messages": MESSAGES, "stream": True}
        assert [httpx.post(url, json=body).status_code for _ in range(2)] == [200, 200]
        refused = httpx.post(url, json=body)
        assert refused.status_code == 429
        assert "100 per minute" in refused.json()["error"]["message"]


def test_key_ids_are_digests_not_the_keys() -> None:
    assert KEY not in key_id(KEY) and key_id(KEY) != key_id(OTHER_KEY)
    with pytest.raises(ValueError):
        KeyLimits(max_streams=0)


# -- through the gateway ----------------------------------------------------------------


@pytest.fixture(scope="module")
def limited(upstream: ScriptedUpstream) -> Iterator[GatewayServer]:
    config = GatewayConfig(
        upstream_url=upstream.url,
        api_keys=(KEY, OTHER_KEY),
        limits=KeyLimits(max_streams=1),
    )
    with GatewayServer(config) as server:
        yield server


def test_a_second_stream_of_the_same_key_is_429_in_each_clients_format(
    limited: GatewayServer,
) -> None:
    first = anthropic.Anthropic(base_url=limited.url, api_key=KEY, max_retries=0)
    with first.messages.stream(model="slow-stream", max_tokens=100, messages=MESSAGES) as held:
        next(iter(held.text_stream))  # the stream is open and holds the key's one slot
        with pytest.raises(anthropic.RateLimitError) as refused:
            first.messages.create(model="text", max_tokens=100, messages=MESSAGES)
        assert refused.value.response.headers["retry-after"] == "1"
        assert refused.value.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]
        chat = openai.OpenAI(base_url=limited.url + "/v1", api_key=KEY, max_retries=0)
        with pytest.raises(openai.RateLimitError) as refused_chat:
            chat.chat.completions.create(model="text", messages=MESSAGES)
        assert refused_chat.value.response.headers["retry-after"] == "1"
        with pytest.raises(openai.RateLimitError):
            chat.responses.create(model="text", input="x")
        # another key is not held back by this one
        other = openai.OpenAI(base_url=limited.url + "/v1", api_key=OTHER_KEY, max_retries=0)
        done = other.chat.completions.create(model="text", messages=MESSAGES)
        assert done.choices[0].message.content == "Hello, world."
    # the client closed the stream: the gateway sees it go within a second (G9), and
    # its slot is free again (streamed and whole requests alike)
    deadline = time.monotonic() + 2
    while True:
        try:
            assert first.messages.create(model="text", max_tokens=100, messages=MESSAGES).content
            break
        except anthropic.RateLimitError:
            assert time.monotonic() < deadline, "the closed stream still holds its slot"
            time.sleep(0.05)
    assert first.messages.create(model="text", max_tokens=100, messages=MESSAGES).content


def test_a_failed_request_frees_its_slot(limited: GatewayServer) -> None:
    client = openai.OpenAI(base_url=limited.url + "/v1", api_key=KEY, max_retries=0)
    for _ in range(3):
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model="bad-request", messages=MESSAGES)
    assert client.chat.completions.create(model="text", messages=MESSAGES).choices


def test_requests_per_minute_through_the_gateway(upstream: ScriptedUpstream) -> None:
    config = GatewayConfig(upstream_url=upstream.url, limits=KeyLimits(requests_per_minute=2))
    with GatewayServer(config) as server:
        url = server.url + "/v1/chat/completions"
        body = {"model": "text", "messages": MESSAGES}
        assert [httpx.post(url, json=body).status_code for _ in range(2)] == [200, 200]
        refused = httpx.post(url, json=body)
        assert refused.status_code == 429
        assert 50 <= int(refused.headers["retry-after"]) <= 60
        assert refused.json()["error"]["type"] == "rate_limit_exceeded"
        assert "per minute" in refused.json()["error"]["message"]


# -- settings ---------------------------------------------------------------------------


def test_limits_from_the_config_file_and_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "toolwire.toml"
    path.write_text(
        "[gateway]\nmax_streams_per_key = 4\nrequests_per_minute_per_key = 90\n"
        "tokens_per_minute_per_key = 5000\nredis = 'redis://127.0.0.1:6379/0'\n"
        "stream_lease_seconds = 3\n"
        "[models.a]\nupstream = 'http://127.0.0.1:1/v1'\n"
    )
    loaded = load_config(path).config
    assert loaded.limits == KeyLimits(4, 90, 5000)
    assert (loaded.redis_url, loaded.stream_lease_seconds) == ("redis://127.0.0.1:6379/0", 3.0)
    seen: list[GatewayConfig] = []
    monkeypatch.setattr(
        "toolwire.gateway.create_app", lambda config: seen.append(config) or Starlette()
    )
    monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: None)
    runner = CliRunner()
    args = ["serve", "--config", str(path), "--audit", "none"]
    assert runner.invoke(app, args).exit_code == 0
    assert runner.invoke(app, [*args, "--max-streams-per-key", "2"]).exit_code == 0
    assert [c.limits for c in seen] == [KeyLimits(4, 90, 5000), KeyLimits(2, 90, 5000)]
    assert seen[-1].redis_url == "redis://127.0.0.1:6379/0"
    bad = runner.invoke(app, [*args, "--redis", "http://x"])
    assert bad.exit_code == 2 and "--redis must be a redis:// URL" in bad.output
    bad = runner.invoke(app, [*args, "--max-streams-per-key", "0"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    path.write_text("[gateway]\nmax_streams_per_key = 0\n[models.a]\nupstream = 'http://x/v1'\n")
    with pytest.raises(ConfigError, match="at least 1"):
        load_config(path)

"""Per-key limits shared through a real Redis: two limiters stand for two gateway
processes. Streams hold leases that outlive no process; when Redis is unreachable,
streams and requests per minute fail open (counted per process) and tokens per
minute fails closed."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from toolwire.gateway.limits import KeyLimits
from toolwire.gateway.redis_limits import RedisLimiter

pytestmark = pytest.mark.anyio


async def close(*limiters: RedisLimiter) -> None:
    # bounded: a close that never returned hung a full test run (see the last test)
    with anyio.fail_after(30):
        for limiter in limiters:
            await limiter.aclose()


async def test_concurrent_streams_are_limited_across_processes(redis_url: str) -> None:
    a = RedisLimiter(redis_url, KeyLimits(max_streams=4))
    b = RedisLimiter(redis_url, KeyLimits(max_streams=4))
    try:
        for limiter in (a, b, a, b):
            assert await limiter.acquire("k") is None
        for limiter in (a, b):
            refused = await limiter.acquire("k")
            assert refused is not None and refused.limit == "streams"
            assert "limit 4" in refused.reason
        assert await b.acquire("other") is None  # another key has its own slots
        await a.release("k")
        assert await b.acquire("k") is None  # a's ended stream freed a slot for b
        assert await a.acquire("k") is not None
    finally:
        await close(a, b)


async def test_a_dead_process_s_slots_free_when_their_leases_run_out(redis_url: str) -> None:
    dead = RedisLimiter(redis_url, KeyLimits(max_streams=2), lease_seconds=1.0)
    live = RedisLimiter(redis_url, KeyLimits(max_streams=2), lease_seconds=1.0)
    other = RedisLimiter(redis_url, KeyLimits(max_streams=2), lease_seconds=1.0)
    try:
        assert await dead.acquire("gone") is None
        assert await dead.acquire("gone") is None
        assert await live.acquire("kept") is None
        assert await live.acquire("kept") is None
        # the "dead" process stops renewing and never releases (as after kill -9)
        await dead._stop_renewing()
        await asyncio.sleep(2.5)  # past both leases: only the live one was renewed
        assert await other.acquire("gone") is None
        assert await other.acquire("gone") is None
        refused = await other.acquire("kept")
        assert refused is not None and refused.limit == "streams"
    finally:
        await close(dead, live, other)


async def test_requests_and_tokens_per_minute_are_shared(redis_url: str) -> None:
    limits = KeyLimits(requests_per_minute=3, tokens_per_minute=1000)
    a = RedisLimiter(redis_url, limits)
    b = RedisLimiter(redis_url, limits)
    try:
        for limiter in (a, b, a):
            assert await limiter.acquire("rpm", tokens=10) is None
            await limiter.release("rpm", tokens=20)
        refused = await b.acquire("rpm")
        assert refused is not None and refused.limit == "requests_per_minute"
        assert 55 <= refused.retry_after <= 60
        # tokens: the estimate is charged at admission, the reported usage at the end
        assert await a.acquire("tpm", tokens=600) is None
        assert await b.acquire("tpm", tokens=300) is None  # 900 charged: under 1000
        await b.release("tpm", tokens=500)  # it used more: 1100 charged now
        refused = await a.acquire("tpm", tokens=1)
        assert refused is not None and refused.limit == "tokens_per_minute"
        assert "1000 per minute" in refused.reason
    finally:
        await close(a, b)


async def test_an_unreachable_redis_fails_open_for_streams_and_closed_for_tokens() -> None:
    decisions: list[str] = []
    url = "redis://127.0.0.1:1/0"  # nothing listens there
    streams = RedisLimiter(url, KeyLimits(max_streams=1), on_unreachable=decisions.append)
    tokens = RedisLimiter(
        url, KeyLimits(max_streams=1, tokens_per_minute=100), on_unreachable=decisions.append
    )
    try:
        assert await streams.acquire("k") is None  # open: this process counts
        refused = await streams.acquire("k")  # ... and still enforces the limit itself
        assert refused is not None and refused.limit == "streams"
        await streams.release("k")
        assert await streams.acquire("k") is None
        refused = await tokens.acquire("k", tokens=5)
        assert refused is not None and refused.limit == "store_unreachable"
        assert decisions == ["open", "open", "open", "closed"]
    finally:
        await close(streams, tokens)


@pytest.mark.parametrize("steps", range(8))
async def test_a_close_during_a_renewal_stops_the_renewals(redis_url: str, steps: int) -> None:
    """On Python 3.11, redis-py loses a cancel that arrives in the first loop steps of a
    command (its write is an asyncio.wait_for): a limiter closed then renewed for ever,
    and its aclose waited for ever. Closed 0..7 loop steps into a renewal, it stops."""
    limiter = RedisLimiter(redis_url, KeyLimits(max_streams=1), lease_seconds=0.04)
    renewals = 0
    renewing = asyncio.Event()
    renew = limiter._renew

    async def counted(**kwargs: Any) -> Any:
        nonlocal renewals
        renewals += 1
        renewing.set()
        return await renew(**kwargs)

    limiter._renew = counted  # type: ignore[assignment]
    assert await limiter.acquire("k") is None
    with anyio.fail_after(10):
        await renewing.wait()
    for _ in range(steps):
        await asyncio.sleep(0)
    await close(limiter)
    assert limiter._renewer is not None and limiter._renewer.done()
    after_close = renewals
    await asyncio.sleep(0.1)  # ten renewal periods
    assert renewals == after_close

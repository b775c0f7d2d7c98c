"""Per-key limits shared by every gateway process and replica, kept in Redis.

Each check-and-admit is one Lua script, so processes never race between reading a
count and adding to it; times are Redis's own clock (``TIME``), so replicas whose
clocks differ still agree. Per key (``tw:limit:{key_id}:…``):

- ``streams``: a sorted set of leases (member: a lease id, score: when it expires).
  A lease lasts ``lease_seconds`` and this process renews its live leases every
  quarter of that while their requests run, so a process killed with ``kill -9`` frees its
  slots when their leases run out instead of holding them for ever.
- ``rpm``: a sorted set of admissions in the last 60 seconds.
- ``tpm``: a hash of tokens charged per second, the last 60 seconds summed.

When Redis cannot be reached (a refused connection, ``connect_timeout`` to connect
or ``store_timeout`` per command; then no new try for ``retry_seconds``), each limit
does as follows. The command timeout is long on purpose: a slow Redis (a loaded
machine) delays requests rather than letting each process count for itself.

- concurrent streams and requests per minute fail *open*: they fall back to this
  process's own count (``LocalLimiter``), so each process still enforces the limit
  for itself. They guard the upstream's capacity, which a short overshoot does not
  break, while refusing every request would turn a Redis outage into a gateway outage.
- tokens per minute fails *closed* (429, "limit store unreachable"): it is a spend
  budget, and tokens spent past it cannot be taken back, while a refused client
  retries after ``Retry-After``.

``on_unreachable(decision)`` is told of each request decided without Redis
(``"open"`` or ``"closed"``), for ``/metrics``.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from toolwire.gateway.limits import (
    STREAM_RETRY_AFTER,
    KeyLimits,
    Limiter,
    LocalLimiter,
    Refusal,
)

log = logging.getLogger("toolwire.gateway")

# KEYS: streams, rpm, tpm. ARGV: max_streams, rpm, tpm (0: no limit), lease id,
# lease ms, tokens. Returns {0, 0} (admitted) or {which limit (1..3), retry-after ms}.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max_streams, rpm, tpm = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local lease, lease_ms, tokens = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
if max_streams > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= max_streams then return {1, 1000} end
end
if rpm > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 60000)
  if redis.call('ZCARD', KEYS[2]) >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return {2, tonumber(oldest[2]) + 60000 - now}
  end
end
if tpm > 0 then
  local second = math.floor(now / 1000)
  local fields = redis.call('HGETALL', KEYS[3])
  local used, oldest = 0, second
  for i = 1, #fields, 2 do
    local at = tonumber(fields[i])
    if at <= second - 60 then
      redis.call('HDEL', KEYS[3], fields[i])
    else
      used = used + tonumber(fields[i + 1])
      if at < oldest then oldest = at end
    end
  end
  if used >= tpm then return {3, (oldest + 60) * 1000 - now} end
end
if max_streams > 0 then
  redis.call('ZADD', KEYS[1], now + lease_ms, lease)
  redis.call('PEXPIRE', KEYS[1], lease_ms * 2)
end
if rpm > 0 then
  redis.call('ZADD', KEYS[2], now, lease)
  redis.call('PEXPIRE', KEYS[2], 61000)
end
if tpm > 0 and tokens ~= 0 then
  redis.call('HINCRBY', KEYS[3], math.floor(now / 1000), tokens)
  redis.call('PEXPIRE', KEYS[3], 61000)
end
return {0, 0}
"""

# KEYS: streams sets; ARGV: lease ms, then one lease id per key. Extends live leases.
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease_ms = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + lease_ms, ARGV[i + 1])
  redis.call('PEXPIRE', key, lease_ms * 2)
end
return 0
"""

# KEYS: streams, tpm. ARGV: lease id, tokens to add to this second (may be negative).
_RELEASE = """
redis.call('ZREM', KEYS[1], ARGV[1])
local tokens = tonumber(ARGV[2])
if tokens ~= 0 then
  local t = redis.call('TIME')
  redis.call('HINCRBY', KEYS[2], tonumber(t[1]), tokens)
  redis.call('PEXPIRE', KEYS[2], 61000)
end
return 0
"""

_REASONS = {
    1: ("streams", "too many requests in flight for this key (limit {max_streams})"),
    2: (
        "requests_per_minute",
        "too many requests for this key (limit {requests_per_minute} per minute)",
    ),
    3: ("tokens_per_minute", "too many tokens for this key (limit {tokens_per_minute} per minute)"),
}


class RedisLimiter(Limiter):
    """``KeyLimits`` counted in the Redis at ``url`` (``redis://…``, ``rediss://…``)."""

    def __init__(
        self,
        url: str,
        limits: KeyLimits,
        *,
        lease_seconds: float = 15.0,
        store_timeout: float = 5.0,
        connect_timeout: float = 1.0,
        retry_seconds: float = 1.0,
        on_unreachable: Callable[[str], None] | None = None,
    ) -> None:
        self.limits = limits
        self.lease_ms = max(1, round(lease_seconds * 1000))
        self.retry_seconds = retry_seconds
        self.on_unreachable = on_unreachable
        self.redis: aioredis.Redis = aioredis.Redis.from_url(
            url, socket_timeout=store_timeout, socket_connect_timeout=connect_timeout
        )
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self.local = LocalLimiter(limits)  # the fallback while Redis is away
        # this process's admissions per key, newest last: (lease id or None when the
        # local fallback admitted it, tokens charged)
        self._held: dict[str, list[tuple[str | None, int]]] = {}
        self._down_until = 0.0
        self._renewer: asyncio.Task[None] | None = None
        self._closing = False

    @staticmethod
    def _keys(key_id: str) -> tuple[str, str, str]:
        base = f"tw:limit:{key_id}:"
        return base + "streams", base + "rpm", base + "tpm"

    def _store_failed(self, exc: Exception) -> None:
        if time.monotonic() >= self._down_until:
            log.warning("limit store unreachable, deciding per process: %s", exc)
        self._down_until = time.monotonic() + self.retry_seconds

    async def acquire(self, key_id: str, tokens: int = 0) -> Refusal | None:
        limits = self.limits
        if time.monotonic() >= self._down_until:
            lease = uuid.uuid4().hex
            try:
                which, retry_ms = await self._acquire(
                    keys=self._keys(key_id),
                    args=[
                        limits.max_streams or 0,
                        limits.requests_per_minute or 0,
                        limits.tokens_per_minute or 0,
                        lease,
                        self.lease_ms,
                        tokens,
                    ],
                )
            except (RedisError, OSError) as exc:
                self._store_failed(exc)
            else:
                if which:
                    limit, reason = _REASONS[int(which)]
                    retry = STREAM_RETRY_AFTER if which == 1 else max(int(retry_ms), 0) / 1000
                    return Refusal(reason.format(**_limit_values(limits)), retry, limit)
                self._held.setdefault(key_id, []).append((lease, tokens))
                self._start_renewing()
                return None
        # Redis is away: tokens per minute fails closed, the other limits fail open
        if limits.tokens_per_minute is not None:
            self._unreachable("closed")
            return Refusal(
                "limit store unreachable; try again shortly",
                self.retry_seconds,
                "store_unreachable",
            )
        self._unreachable("open")
        refusal = await self.local.acquire(key_id, tokens)
        if refusal is None:
            self._held.setdefault(key_id, []).append((None, tokens))
        return refusal

    def _unreachable(self, decision: str) -> None:
        if self.on_unreachable is not None:
            self.on_unreachable(decision)

    async def release(self, key_id: str, tokens: int | None = None) -> None:
        held = self._held.get(key_id)
        if not held:
            return
        lease, charged = held.pop()
        if not held:
            del self._held[key_id]
        if lease is None:
            await self.local.release(key_id, tokens)
            return
        correction = 0 if tokens is None or not self.limits.tokens_per_minute else tokens - charged
        streams, _, tpm = self._keys(key_id)
        try:
            await self._release(keys=[streams, tpm], args=[lease, correction])
        except (RedisError, OSError) as exc:
            self._store_failed(exc)  # the lease runs out by itself

    def _start_renewing(self) -> None:
        if self._closing or self.limits.max_streams is None:
            return
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.get_running_loop().create_task(self._renew_leases())

    async def _renew_leases(self) -> None:
        """Keep this process's leases alive while their requests run, until closed."""
        while not self._closing:
            await asyncio.sleep(self.lease_ms / 4000)
            live = [
                (self._keys(key_id)[0], lease)
                for key_id, held in self._held.items()
                for lease, _ in held
                if lease is not None
            ]
            if not live:
                continue
            try:
                await self._renew(
                    keys=[key for key, _ in live],
                    args=[self.lease_ms, *(lease for _, lease in live)],
                )
            except (RedisError, OSError) as exc:
                self._store_failed(exc)

    async def _stop_renewing(self) -> None:
        """Stop the renewals (this process's leases then run out by themselves).

        The cancel alone is not enough: on Python 3.11, redis-py's command write is an
        ``asyncio.wait_for``, which loses a cancel that arrives in the first loop steps
        of a command (the command completes instead). The loop renewed for ever then,
        and ``aclose`` waited for it for ever (a test run hung). ``_closing`` ends the
        loop after that command, whose time redis-py's socket timeouts bound."""
        self._closing = True
        if self._renewer is not None:
            self._renewer.cancel()
            # waits for the task to end without raising its CancelledError, while a
            # cancel of the caller itself still propagates
            await asyncio.wait([self._renewer])

    async def aclose(self) -> None:
        await self._stop_renewing()
        await self.redis.aclose()


def _limit_values(limits: KeyLimits) -> dict[str, Any]:
    return {
        "max_streams": limits.max_streams,
        "requests_per_minute": limits.requests_per_minute,
        "tokens_per_minute": limits.tokens_per_minute,
    }

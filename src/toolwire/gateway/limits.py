"""Per-key limits: requests in flight, requests per minute and tokens per minute, for
each gateway key.

``Limiter`` is the interface the gateway uses; ``LocalLimiter`` keeps its counts in
this process (so with ``--workers N`` each worker allows the limit on its own);
``RedisLimiter`` (``toolwire.gateway.redis_limits``) shares them between processes
and replicas. Keys reach a limiter as ``key_id`` (a digest), never as the secret itself.

Tokens per minute: a request is admitted while the tokens charged to its key in the
last 60 seconds are under the limit. Its estimated input tokens are charged when it
is admitted; when it ends, the charge becomes what the upstream reported (input plus
output), when it reported usage.

A refused request gets ``Refusal``: why, and after how many seconds trying again can
succeed (the client's ``Retry-After``).
"""

from __future__ import annotations

import hashlib
import math
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

WINDOW_SECONDS = 60.0
STREAM_RETRY_AFTER = 1.0  # a stream's end cannot be foreseen: try again soon


@dataclass(frozen=True, slots=True)
class KeyLimits:
    """Limits each gateway key gets (None: no limit). ``max_streams``: requests in
    flight at once, streaming or not; ``requests_per_minute``: requests admitted in
    any 60 seconds; ``tokens_per_minute``: tokens charged in any 60 seconds."""

    max_streams: int | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_streams", "requests_per_minute", "tokens_per_minute"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")

    @property
    def any(self) -> bool:
        return (
            self.max_streams is not None
            or self.requests_per_minute is not None
            or self.tokens_per_minute is not None
        )


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request over a limit: the reason in words, seconds until a retry may pass, and
    which limit (``streams``, ``requests_per_minute``, ``tokens_per_minute``, or
    ``store_unreachable`` when the shared store could not decide)."""

    reason: str
    retry_after: float
    limit: str = ""

    @property
    def retry_after_header(self) -> str:
        """``Retry-After`` in whole seconds, rounded up (at least 1)."""
        return str(max(1, math.ceil(self.retry_after)))


def key_id(key: str) -> str:
    """What a limiter knows a key by: a digest, so no limiter store holds a secret."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


class Limiter(ABC):
    """Admits or refuses each request of a key; every admitted request is released."""

    @abstractmethod
    async def acquire(self, key_id: str, tokens: int = 0) -> Refusal | None:
        """Admit a request (None; then ``release`` it when it ends) or refuse it.
        ``tokens``: its estimated input tokens, charged now."""

    @abstractmethod
    async def release(self, key_id: str, tokens: int | None = None) -> None:
        """An admitted request has ended; ``tokens``: what it used, as the upstream
        reported (None: the estimate charged at admission stands)."""

    async def aclose(self) -> None:  # noqa: B027 - most limiters have nothing to stop
        """Stop background work (lease renewal); the gateway calls it on shutdown."""


class LocalLimiter(Limiter):
    """Counts in this process's memory: in-flight requests, a 60-second sliding log of
    admissions per key (at most ``requests_per_minute`` entries each), and a log of
    token charges per key."""

    def __init__(self, limits: KeyLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._in_flight: dict[str, int] = {}
        self._admitted: dict[str, deque[float]] = {}
        self._charged: dict[str, deque[tuple[float, int]]] = {}
        self._charges: dict[str, list[int]] = {}  # estimates of requests in flight

    def _tokens_refusal(self, key_id: str, now: float) -> Refusal | None:
        limit = self.limits.tokens_per_minute
        log = self._charged.get(key_id)
        if limit is None or not log:
            return None
        while log and log[0][0] <= now - WINDOW_SECONDS:
            log.popleft()
        if sum(tokens for _, tokens in log) < limit:
            return None
        return Refusal(
            f"too many tokens for this key (limit {limit} per minute)",
            log[0][0] + WINDOW_SECONDS - now,
            "tokens_per_minute",
        )

    def _charge(self, key_id: str, tokens: int) -> None:
        if self.limits.tokens_per_minute is not None and tokens:
            self._charged.setdefault(key_id, deque()).append((self.clock(), tokens))

    async def acquire(self, key_id: str, tokens: int = 0) -> Refusal | None:
        limits = self.limits
        now = self.clock()
        in_flight = self._in_flight.get(key_id, 0)
        if limits.max_streams is not None and in_flight >= limits.max_streams:
            return Refusal(
                f"too many requests in flight for this key (limit {limits.max_streams})",
                STREAM_RETRY_AFTER,
                "streams",
            )
        if limits.requests_per_minute is not None:
            log = self._admitted.setdefault(key_id, deque())
            while log and log[0] <= now - WINDOW_SECONDS:
                log.popleft()
            if len(log) >= limits.requests_per_minute:
                return Refusal(
                    f"too many requests for this key (limit {limits.requests_per_minute} "
                    "per minute)",
                    log[0] + WINDOW_SECONDS - now,
                    "requests_per_minute",
                )
        tokens_refusal = self._tokens_refusal(key_id, now)
        if tokens_refusal is not None:
            return tokens_refusal
        if limits.requests_per_minute is not None:
            self._admitted[key_id].append(now)
        self._charge(key_id, tokens)
        self._charges.setdefault(key_id, []).append(tokens)
        self._in_flight[key_id] = in_flight + 1
        return None

    async def release(self, key_id: str, tokens: int | None = None) -> None:
        charges = self._charges.get(key_id)
        estimate = charges.pop() if charges else 0
        if charges is not None and not charges:
            del self._charges[key_id]
        if tokens is not None:
            self._charge(key_id, tokens - estimate)
        left = self._in_flight.get(key_id, 0) - 1
        if left > 0:
            self._in_flight[key_id] = left
        else:
            self._in_flight.pop(key_id, None)  # idle keys cost nothing

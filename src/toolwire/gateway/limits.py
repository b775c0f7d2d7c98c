"""Per-key limits: requests in flight and requests per minute, for each gateway key.

``Limiter`` is the interface the gateway uses; ``LocalLimiter`` keeps its counts in
this process (so with ``--workers N`` each worker allows the limit on its own). An
implementation shared between processes (Redis) takes its place without the gateway
changing. Keys reach a limiter as ``key_id`` (a digest), never as the secret itself.

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
    any 60 seconds."""

    max_streams: int | None = None
    requests_per_minute: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_streams", "requests_per_minute"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")

    @property
    def any(self) -> bool:
        return self.max_streams is not None or self.requests_per_minute is not None


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request over a limit: the reason in words, and seconds until a retry may pass."""

    reason: str
    retry_after: float

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
    async def acquire(self, key_id: str) -> Refusal | None:
        """Admit a request (None; then ``release`` it when it ends) or refuse it."""

    @abstractmethod
    async def release(self, key_id: str) -> None:
        """An admitted request has ended."""


class LocalLimiter(Limiter):
    """Counts in this process's memory: in-flight requests and a 60-second sliding
    log of admissions per key (at most ``requests_per_minute`` entries each)."""

    def __init__(self, limits: KeyLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._in_flight: dict[str, int] = {}
        self._admitted: dict[str, deque[float]] = {}

    async def acquire(self, key_id: str) -> Refusal | None:
        limits = self.limits
        in_flight = self._in_flight.get(key_id, 0)
        if limits.max_streams is not None and in_flight >= limits.max_streams:
            return Refusal(
                f"too many requests in flight for this key (limit {limits.max_streams})",
                STREAM_RETRY_AFTER,
            )
        if limits.requests_per_minute is not None:
            now = self.clock()
            log = self._admitted.setdefault(key_id, deque())
            while log and log[0] <= now - WINDOW_SECONDS:
                log.popleft()
            if len(log) >= limits.requests_per_minute:
                return Refusal(
                    f"too many requests for this key (limit {limits.requests_per_minute} "
                    "per minute)",
                    log[0] + WINDOW_SECONDS - now,
                )
            log.append(now)
        self._in_flight[key_id] = in_flight + 1
        return None

    async def release(self, key_id: str) -> None:
        left = self._in_flight.get(key_id, 0) - 1
        if left > 0:
            self._in_flight[key_id] = left
        else:
            self._in_flight.pop(key_id, None)  # idle keys cost nothing

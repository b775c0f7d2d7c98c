"""A CPU-time bound for one extractor run: a hang fails the test instead of stalling
the suite. CPU time rather than wall-clock, so a loaded machine does not fail it."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class TookTooLong(BaseException):  # not Exception: extractors must not swallow it
    pass


@contextmanager
def cpu_bound(seconds: float, what: str) -> Iterator[None]:
    """Fail with ``TookTooLong`` when the block uses more than ``seconds`` of CPU."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TookTooLong(f"{what}: more than {seconds} s of CPU (a hang?)")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)

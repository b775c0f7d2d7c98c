"""The text emitter: batches by size, by time, and a final flush."""

from __future__ import annotations

import pytest

from toolwire.agent import TextEmitter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_flushes_by_size() -> None:
    emitter = TextEmitter(size=10, interval=60.0, clock=Clock())
    assert emitter.feed("abcd") is None
    assert emitter.feed("efgh") is None
    assert emitter.feed("ijkl") == "abcdefghijkl"
    assert emitter.flush() is None


def test_flushes_once_the_interval_has_passed() -> None:
    clock = Clock()
    emitter = TextEmitter(size=1000, interval=0.05, clock=clock)
    assert emitter.feed("a") is None
    clock.now = 0.04
    assert emitter.feed("b") is None
    clock.now = 0.06
    assert emitter.feed("c") == "abc"
    clock.now = 0.08
    assert emitter.feed("d") is None  # 0.02 s since the last batch


def test_the_final_flush_gives_what_is_left() -> None:
    emitter = TextEmitter(size=150, interval=60.0, clock=Clock())
    emitter.feed("tail")
    assert emitter.flush() == "tail"
    assert emitter.flush() is None


def test_due_says_how_long_held_text_may_wait() -> None:
    clock = Clock()
    emitter = TextEmitter(size=1000, interval=0.05, clock=clock)
    assert emitter.due() is None  # nothing held
    clock.now = 0.01
    emitter.feed("a")
    assert emitter.due() == pytest.approx(0.04)
    clock.now = 0.07
    assert emitter.due() == 0.0
    assert emitter.flush() == "a"
    assert emitter.due() is None

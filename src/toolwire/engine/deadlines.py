"""Call deadlines on one timer per engine, instead of one timer per call.

anyio gives every cancel scope that has a deadline a timer of its own: on asyncio a
``TimerHandle`` pushed onto the loop's heap when the scope is entered and cancelled when
it exits. For a call that takes microseconds that timer was a large share of the
engine's cost. Here a call only notes its deadline; one timer, set for the earliest
deadline, cancels the scope of every call past its own and then sets itself for the
next one. A timed-out call ends exactly as with a scope deadline: its scope is
cancelled (``cancelled_caught``), and anyio keeps delivering that cancellation until
the call leaves the scope.

The shared timer is asyncio's ``call_at``; on other anyio backends (trio) the scope
gets its deadline as before. One difference a tool can see: inside a call,
``anyio.current_effective_deadline()`` no longer reports the engine's timeout.
"""

from __future__ import annotations

import asyncio
import math

import anyio


def asyncio_loop() -> asyncio.AbstractEventLoop | None:
    """The loop of the asyncio task running this code; None on another backend."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no asyncio loop in this thread
        return None
    # No asyncio task (e.g. trio hosted by an asyncio loop): not asyncio's scopes.
    return task.get_loop() if task is not None else None


class DeadlineTimer:
    """Cancels cancel scopes whose deadline has passed. Not thread-safe: use it from
    the event loop's thread, as the engine does."""

    def __init__(self) -> None:
        self._due: dict[anyio.CancelScope, float] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._at = math.inf  # when the timer fires; inf while it is not set

    def start(self, scope: anyio.CancelScope, timeout: float) -> None:
        """Cancel ``scope`` ``timeout`` seconds from now, unless ``stop`` comes first.
        Call it inside the scope and call ``stop`` before the scope exits."""
        loop = asyncio_loop()
        if loop is None:
            scope.deadline = anyio.current_time() + timeout
            return
        deadline = loop.time() + timeout
        self._due[scope] = deadline
        # A later deadline than the one the timer is set for waits its turn.
        if deadline < self._at or loop is not self._loop:
            self._set(loop, deadline)

    def stop(self, scope: anyio.CancelScope) -> None:
        self._due.pop(scope, None)

    def _set(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._loop, self._at = loop, when
        self._handle = loop.call_at(when, self._fire)

    def _fire(self) -> None:
        loop = self._loop
        assert loop is not None
        # The loop runs a timer up to its clock resolution early: what the timer was
        # set for is due now.
        now = max(loop.time(), self._at)
        self._handle, self._at = None, math.inf
        following = math.inf
        for scope, deadline in list(self._due.items()):
            if deadline <= now:
                del self._due[scope]
                scope.cancel()
            elif deadline < following:
                following = deadline
        if following < math.inf:
            self._set(loop, following)

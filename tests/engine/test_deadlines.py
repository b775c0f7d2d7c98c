"""Call deadlines on one shared timer: each call still times out on its own deadline."""

from __future__ import annotations

import time

import anyio
import pytest

from toolwire.engine import CallRequest, ToolEngine
from toolwire.engine.deadlines import DeadlineTimer
from toolwire.tools import tool

pytestmark = pytest.mark.anyio


@tool
async def nap(seconds: float) -> str:
    await anyio.sleep(seconds)
    return "rested"


async def test_each_call_times_out_at_its_own_deadline() -> None:
    # The later deadline is set first; the earlier one must still fire on time, and
    # the call that finished in time must not be touched.
    slow = tool(name="slow", timeout=0.4)(nap.fn)
    fast = tool(name="fast", timeout=0.1)(nap.fn)
    engine = ToolEngine([slow, fast, nap], sinks=[], timeout=0.25)
    ended: dict[str, float] = {}
    t0 = time.perf_counter()

    async def run(name: str, seconds: float) -> None:
        result = await engine.call(name, {"seconds": seconds}, id=name)
        ended[name] = time.perf_counter() - t0
        ended[name + ":status"] = ["ok", "timeout"].index(result.status)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "slow", 5)
        await anyio.sleep(0.01)
        tg.start_soon(run, "fast", 5)
        tg.start_soon(run, "nap", 0.05)
    assert ended["nap:status"] == 0 and ended["fast:status"] == 1 and ended["slow:status"] == 1
    assert 0.1 <= ended["fast"] < 0.35
    assert 0.4 <= ended["slow"] < 0.9


async def test_a_timer_that_finds_nothing_due_waits_for_the_next_deadline() -> None:
    engine = ToolEngine([nap], sinks=[], timeout=0.1)
    assert (await engine.call("nap", {"seconds": 0.01})).status == "ok"
    await anyio.sleep(0.05)  # the first call's deadline is still ahead; a second starts
    t0 = time.perf_counter()
    assert (await engine.call("nap", {"seconds": 5})).status == "timeout"
    assert 0.1 <= time.perf_counter() - t0 < 0.5


def test_one_engine_times_out_on_successive_event_loops() -> None:
    engine = ToolEngine([nap], sinks=[], timeout=0.2)

    async def once(seconds: float) -> str:
        return (await engine.call("nap", {"seconds": seconds})).status

    # The first loop ends before the timer it set fires; the second needs its own.
    assert anyio.run(once, 0.01) == "ok"
    t0 = time.perf_counter()
    assert anyio.run(once, 2) == "timeout"
    assert time.perf_counter() - t0 < 1


async def test_cancellation_persists_until_the_call_leaves() -> None:
    # Like a scope deadline, the timeout is not a one-off: a tool that swallows one
    # cancellation is cancelled again at its next checkpoint.
    @tool
    async def stubborn() -> str:
        try:
            await anyio.sleep(5)
        except anyio.get_cancelled_exc_class():
            pass
        await anyio.sleep(5)
        return "finished"

    engine = ToolEngine([stubborn], sinks=[], timeout=0.05)
    t0 = time.perf_counter()
    assert (await engine.call("stubborn")).status == "timeout"
    assert time.perf_counter() - t0 < 1


async def test_a_stopped_scope_is_never_cancelled() -> None:
    timer = DeadlineTimer()
    with anyio.CancelScope() as scope:
        timer.start(scope, 0.01)
        timer.stop(scope)
        await anyio.sleep(0.05)
    assert not scope.cancel_called


async def test_calls_waiting_for_a_slot_start_their_clock_when_they_get_it() -> None:
    engine = ToolEngine([nap], sinks=[], max_concurrency=1, timeout=0.15)
    results = await engine.execute_many([CallRequest("nap", {"seconds": 0.1})] * 3)
    assert [r.status for r in results] == ["ok", "ok", "ok"]

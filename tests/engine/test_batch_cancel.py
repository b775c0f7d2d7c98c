"""``execute_many`` under cancellation and ``decline``: every call handed to the engine
leaves exactly one record, and the caller learns each call's result (``done``)."""

from __future__ import annotations

import anyio
import pytest

from toolwire.audit.sinks import MemorySink
from toolwire.engine import CallRequest, ToolEngine
from toolwire.tools import tool

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def wait(seconds: float) -> str:
    """Wait."""
    await anyio.sleep(seconds)
    return "waited"


def engine() -> tuple[ToolEngine, MemorySink]:
    sink = MemorySink()
    return ToolEngine([add, wait], sinks=[sink]), sink


async def test_a_cancelled_batch_reports_every_call_and_records_each_once() -> None:
    eng, sink = engine()
    done: dict[int, str] = {}
    calls = [CallRequest("add", {"a": 1, "b": 2}, "c1"), CallRequest("wait", {"seconds": 30}, "c2")]
    with anyio.move_on_after(0.3):
        await eng.execute_many(
            calls, extra={"model": "m"}, done=lambda i, r: done.__setitem__(i, r.status)
        )
    assert done == {0: "ok", 1: "cancelled"}
    assert sorted((r.call_id, r.status) for r in sink.records) == [
        ("c1", "ok"),
        ("c2", "cancelled"),
    ]
    assert all(r.extra == {"model": "m"} for r in sink.records)


async def test_a_batch_cancelled_before_its_calls_began_still_records_them() -> None:
    eng, sink = engine()
    done: dict[int, str] = {}
    calls = [CallRequest("add", {"a": 1, "b": 2}, "c1"), CallRequest("wait", {"seconds": 1}, "c2")]
    with anyio.CancelScope() as scope:
        scope.cancel()
        await eng.execute_many(calls, done=lambda i, r: done.__setitem__(i, r.status))
    assert done == {0: "cancelled", 1: "cancelled"}
    assert sorted((r.call_id, r.status) for r in sink.records) == [
        ("c1", "cancelled"),
        ("c2", "cancelled"),
    ]


async def test_a_cancelled_batch_of_one_call_reports_it_and_records_it_once() -> None:
    # a batch of one runs in the caller's task, without a task of its own
    eng, sink = engine()
    done: dict[int, str] = {}
    with anyio.move_on_after(0.2):
        await eng.execute_many(
            [CallRequest("wait", {"seconds": 30}, "c1")],
            done=lambda i, r: done.__setitem__(i, r.status),
        )
    assert done == {0: "cancelled"}
    assert [(r.call_id, r.status) for r in sink.records] == [("c1", "cancelled")]


async def test_an_error_in_done_reaches_the_caller_after_every_call_ended() -> None:
    eng, sink = engine()

    def done(i: int, result: object) -> None:
        if i == 0:
            raise RuntimeError("done failed")

    calls = [
        CallRequest("add", {"a": 1, "b": 2}, "c1"),
        CallRequest("wait", {"seconds": 0.05}, "c2"),
    ]
    with pytest.raises(RuntimeError, match="done failed"):
        await eng.execute_many(calls, done=done)
    assert sorted((r.call_id, r.status) for r in sink.records) == [("c1", "ok"), ("c2", "ok")]


async def test_decline_records_a_call_not_run_under_its_resolved_name() -> None:
    eng, sink = engine()
    result = eng.decline(
        CallRequest("functions.add", {"a": 1, "b": 2}, "c9"),
        "not run: a limit",
        reason="limit",
        turn=3,
        extra={"model": "m"},
    )
    assert (result.status, result.content, result.name) == ("denied", "not run: a limit", "add")
    [record] = sink.records
    assert record.call_id == "c9" and record.tool_name == "add" and record.turn == 3
    assert record.policy_decision == "limit" and record.error_type == "limit"
    assert record.repairs and record.executor is None and record.extra == {"model": "m"}

"""The engine's phases and statuses; every answered call leaves exactly one record."""

from __future__ import annotations

import dataclasses
import threading
import time
from functools import partial
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from toolwire.audit import ExecutionRecord, MemorySink
from toolwire.engine import (
    CallRequest,
    CallState,
    DenyTools,
    PendingApproval,
    Phase,
    RequireApproval,
    ToolEngine,
)
from toolwire.events import ToolCall
from toolwire.tokens import estimate_tokens
from toolwire.tools import ToolHints, tool

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


@tool
async def nap(seconds: float) -> str:
    await anyio.sleep(seconds)
    return "rested"


@tool
def crash(message: str) -> str:
    raise RuntimeError(message)


@tool
def big(n: int) -> str:
    return "word " * n


class Point(BaseModel):
    x: int
    y: int


@tool
def shift(p: Point, dx: int) -> Point:
    return Point(x=p.x + dx, y=p.y)


@tool(hints=ToolHints(destructive=True))
def drop_table(table: str) -> str:
    return f"dropped {table}"


def make(*tools: Any, **kw: Any) -> tuple[ToolEngine, MemorySink]:
    sink = MemorySink()
    tools = tools or (add, nap, crash, big, shift, drop_table)
    return ToolEngine(list(tools), sinks=[sink], **kw), sink


async def test_ok_call_and_record_fields() -> None:
    engine, sink = make(session_id="s1")
    r = await engine.call("add", {"a": 1, "b": 5}, id="c1", task_id="t1", turn=3)
    assert (r.status, r.content, r.value) == ("ok", "6", 6)
    [rec] = sink.records
    assert (rec.call_id, rec.tool_name, rec.session_id, rec.task_id, rec.turn) == (
        "c1",
        "add",
        "s1",
        "t1",
        3,
    )
    assert rec.executor == "thread" and rec.policy_decision == "allow"
    assert rec.arguments is None  # not stored unless enabled
    assert len(rec.arguments_sha256 or "") == 64
    attrs = rec.to_otel_attributes()
    assert attrs["gen_ai.tool.name"] == "add" and attrs["gen_ai.tool.call.id"] == "c1"
    assert attrs["gen_ai.operation.name"] == "execute_tool"


async def test_every_record_field_is_set_whatever_the_status() -> None:
    # The engine fills records in field by field: none may be left out, on any path.
    policies = [DenyTools("crash"), RequireApproval("drop_table")]
    # only the nap times out: a loaded machine may take longer than that for a thread call
    short_nap = tool(timeout=0.05)(nap.fn)
    tools = (add, short_nap, crash, drop_table)
    engine, sink = make(*tools, store_arguments=True, session_id="s", policies=policies)
    results = [
        await engine.call("add", {"a": 1}, task_id="t", turn=2),  # ok
        await engine.call("add", {"a": "x"}),  # invalid_args
        await engine.call("nope", {}),  # invalid_args: unknown tool
        await engine.call("crash", {"message": "m"}),  # denied
        await engine.call("drop_table", {"table": "t"}),  # pending_approval
        await engine.call("nap", {"seconds": 5}),  # timeout
    ]
    results.append(engine.reject(results[4].approval_id or ""))  # denied on review
    with anyio.move_on_after(0.02):
        await engine.call("nap", {"seconds": 5})  # cancelled (its record has no result)
    engine2, sink2 = make(crash)
    results.append(await engine2.call("crash", {"message": "m"}))  # tool_error
    records = [*sink.records, *sink2.records]
    assert {r.status for r in records} == {
        "ok",
        "cancelled",
        "invalid_args",
        "denied",
        "pending_approval",
        "timeout",
        "tool_error",
    }
    assert [r.record for r in results] == [r for r in records if r.status != "cancelled"]
    for rec in records:
        assert type(rec) is ExecutionRecord
        values = {f.name: getattr(rec, f.name) for f in dataclasses.fields(rec)}
        assert ExecutionRecord(**values) == rec
        assert ExecutionRecord.from_dict(rec.to_dict()) == rec


async def test_arguments_hash_is_stable_and_storage_redacts() -> None:
    engine, sink = make(store_arguments=True)
    await engine.call("add", {"a": 1, "b": 2})
    await engine.call("add", '{"b": 2, "a": 1}')
    h1, h2 = (r.arguments_sha256 for r in sink.records)
    assert h1 == h2

    @tool
    def login(user: str, password: str) -> str:
        return "ok"

    engine2, sink2 = make(login, store_arguments=True)
    await engine2.call("login", {"user": "ann", "password": "hunter2"})
    assert sink2.records[0].arguments == '{"user":"ann","password":"[REDACTED]"}'


async def test_name_normalization_is_recorded_as_repair() -> None:
    engine, sink = make()
    r = await engine.call("functions.add", {"a": 1})
    assert r.ok and r.name == "add"
    assert sink.records[0].name_as_sent == "functions.add"
    assert any("functions.add" in x for x in sink.records[0].repairs)


async def test_unknown_tool_is_model_actionable() -> None:
    engine, sink = make()
    r = await engine.call("ad", {"a": 1})
    assert r.status == "invalid_args" and "add" in r.content
    assert r.record.error_type == "unknown_tool" and r.record.tool_origin == ""
    assert len(sink.records) == 1


async def test_invalid_arguments_become_a_result() -> None:
    engine, sink = make()
    r = await engine.call("add", {"b": 1})
    assert r.status == "invalid_args"
    assert "missing required argument" in r.content and "'a'" in r.content
    r2 = await engine.call("add", {"a": 1, "zzz": 2})
    assert r2.status == "invalid_args" and "zzz" in r2.content
    assert [x.validation_errors != () for x in sink.records] == [True, True]


async def test_python_literal_arguments_are_repaired() -> None:
    engine, sink = make()
    r = await engine.call("add", "{'a': 1, 'b': 2}")
    assert r.ok and r.value == 3
    assert sink.records[0].repairs  # the repair is visible


async def test_truncated_call_is_not_executed_f1() -> None:
    ran = []

    @tool
    def write(text: str) -> str:
        ran.append(text)
        return "written"

    engine, sink = make(write)
    call = ToolCall(
        id="c9",
        name="write",
        arguments=None,
        raw_arguments='{"text": "hel',
        status="truncated",
        partial_arguments={"text": "hel"},
    )
    r = await engine.execute(call)
    assert r.status == "invalid_args" and "cut off" in r.content
    assert ran == [] and len(sink.records) == 1


async def test_tool_call_from_the_stream_core_runs() -> None:
    engine, _ = make()
    call = ToolCall(
        id="c1", name="add", arguments={"a": 2}, raw_arguments='{"a": 2}', status="complete"
    )
    assert (await engine.execute(call)).value == 4


async def test_nested_models_are_typed_and_results_normalized() -> None:
    engine, _ = make()
    r = await engine.call("shift", {"p": {"x": 1, "y": 2}, "dx": 3})
    assert r.ok and r.content == '{"x":4,"y":2}'


async def test_exception_becomes_tool_error_not_traceback() -> None:
    engine, sink = make()
    r = await engine.call("crash", {"message": "disk on fire"})
    assert r.status == "tool_error"
    assert r.content == "Error: RuntimeError: disk on fire"
    assert sink.records[0].error_type == "RuntimeError"


async def test_timeout_async_and_sync() -> None:
    @tool
    def block(seconds: float) -> str:
        time.sleep(seconds)
        return "late"

    engine, sink = make(nap, block, timeout=0.1)
    t0 = time.perf_counter()
    r1, r2 = await engine.execute_many(
        [CallRequest("nap", {"seconds": 5}), CallRequest("block", {"seconds": 1})]
    )
    assert (r1.status, r2.status) == ("timeout", "timeout")
    assert time.perf_counter() - t0 < 0.9  # the abandoned thread did not hold us up
    assert sorted(x.status for x in sink.records) == ["timeout", "timeout"]


async def test_per_tool_timeout_overrides_engine() -> None:
    quick = tool(timeout=0.05)(nap.fn)
    engine, _ = make(quick, timeout=10)
    assert (await engine.call("nap", {"seconds": 2})).status == "timeout"


async def test_cancel_by_call_id_and_by_caller() -> None:
    engine, sink = make()
    out = []

    async def run(call_id: str) -> None:
        out.append(await engine.call("nap", {"seconds": 10}, id=call_id))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "x")
        await anyio.sleep(0.05)
        assert engine.cancel("x")
    assert out[0].status == "cancelled"
    assert not engine.cancel("x")  # no longer running

    with anyio.move_on_after(0.05):  # the caller gives up: cancellation propagates
        await engine.call("nap", {"seconds": 10}, id="y")
    assert [r.status for r in sink.records] == ["cancelled", "cancelled"]
    assert [r.call_id for r in sink.records] == ["x", "y"]


async def test_execute_many_keeps_call_order_and_runs_in_parallel() -> None:
    engine, sink = make()
    t0 = time.perf_counter()
    calls = [CallRequest("nap", {"seconds": 0.2 - i * 0.05}, id=str(i)) for i in range(4)]
    results = await engine.execute_many([*calls, CallRequest("add", {"a": 1}, id="4")])
    assert time.perf_counter() - t0 < 0.5
    assert [r.call_id for r in results] == ["0", "1", "2", "3", "4"]
    assert [r.call_id for r in sink.records][-1] != "4" or len(sink.records) == 5
    assert len(sink.records) == 5


async def test_global_and_per_tool_concurrency_limits() -> None:
    lock = threading.Lock()
    running = {"now": 0, "max": 0}

    @tool
    async def track(seconds: float) -> int:
        with lock:
            running["now"] += 1
            running["max"] = max(running["max"], running["now"])
        await anyio.sleep(seconds)
        with lock:
            running["now"] -= 1
        return 0

    engine, _ = make(track, max_concurrency=3)
    await engine.execute_many([CallRequest("track", {"seconds": 0.05})] * 10)
    assert running["max"] == 3

    running["max"] = 0
    engine2, _ = make(track, max_concurrency=10, tool_concurrency={"track": 2})
    await engine2.execute_many([CallRequest("track", {"seconds": 0.05})] * 6)
    assert running["max"] == 2

    running["max"] = 0
    limited = tool(max_concurrency=1)(track.fn)
    engine3, _ = make(limited)
    await engine3.execute_many([CallRequest("track", {"seconds": 0.02})] * 4)
    assert running["max"] == 1


async def test_timeout_does_not_count_time_waiting_for_a_slot() -> None:
    engine, _ = make(nap, max_concurrency=1, timeout=0.3)
    results = await engine.execute_many([CallRequest("nap", {"seconds": 0.2})] * 3)
    assert [r.status for r in results] == ["ok", "ok", "ok"]


async def test_denied_call_is_recorded_with_violation() -> None:
    engine, sink = make(policies=[DenyTools("crash")])
    r = await engine.call("crash", {"message": "x"})
    assert r.status == "denied" and "denied" in r.content
    assert sink.records[0].violations == ("deny_tools: tool 'crash' is denied",)
    assert sink.records[0].policy_decision == "deny"


async def test_destructive_python_tool_waits_for_approval_by_default() -> None:
    engine, sink = make()
    r = await engine.call("drop_table", {"table": "users"})
    assert r.status == "pending_approval" and r.approval_id and not r.is_error
    assert [p.approval_id for p in engine.pending()] == [r.approval_id]
    done = await engine.approve(r.approval_id)
    assert done.ok and done.content == "dropped users"
    assert done.call_id == r.call_id
    with pytest.raises(KeyError):
        await engine.approve(r.approval_id)  # decided already
    assert [x.status for x in sink.records] == ["pending_approval", "ok"]


@pytest.mark.parametrize(
    ("answer", "status", "decision"),
    [(True, "ok", "approved"), (False, "denied", "rejected"), (None, "pending_approval", None)],
)
async def test_an_approver_decides_in_the_call_leaving_one_record(
    answer: bool | None, status: str, decision: str | None
) -> None:
    """Asked while the call waits: approved runs it, declined denies it, no answer leaves
    it waiting; in every case exactly one record, the final one."""
    engine, sink = make()
    asked: list[str] = []

    async def approver(pending: PendingApproval) -> bool | None:
        asked.append(pending.name)
        return answer

    r = await engine.call("drop_table", {"table": "users"}, approver=approver)
    assert asked == ["drop_table"]
    assert r.status == status
    assert [x.status for x in sink.records] == [status]
    assert sink.records[0].policy_decision == (decision or "approval_required")
    assert sink.records[0].approval_id is not None
    assert len(engine.pending()) == (1 if answer is None else 0)
    if answer:
        assert r.content == "dropped users"


async def test_a_call_cancelled_while_its_approver_asks_is_recorded_cancelled() -> None:
    """Cancelled at the question (the chat's Ctrl-C): one record, ``cancelled``, and the
    call is not left listed as waiting."""
    engine, sink = make()
    asking = anyio.Event()

    async def approver(pending: PendingApproval) -> bool | None:
        asking.set()
        await anyio.sleep_forever()
        return None  # pragma: no cover

    async with anyio.create_task_group() as tg:
        tg.start_soon(partial(engine.call, "drop_table", {"table": "users"}, approver=approver))
        await asking.wait()
        tg.cancel_scope.cancel()
    assert [x.status for x in sink.records] == ["cancelled"]
    assert sink.records[0].approval_id is not None  # it was asked
    assert engine.pending() == []


async def test_approval_still_honours_deny_rules() -> None:
    deny = DenyTools()
    engine, sink = make(policies=[RequireApproval("add"), deny])
    r = await engine.call("add", {"a": 1})
    assert r.approval_id
    deny.patterns = ("add",)  # the rules changed while the call waited
    assert (await engine.approve(r.approval_id)).status == "denied"
    assert [x.status for x in sink.records] == ["pending_approval", "denied"]


async def test_result_truncated_to_budget_with_notice() -> None:
    engine, sink = make(result_token_budget=50)
    r = await engine.call("big", {"n": 1000})
    assert r.ok and "[toolwire: result truncated to 50 tokens" in r.content
    rec = sink.records[0]
    assert rec.result_truncated and rec.result_chars == 5000
    assert 50 <= rec.result_tokens < 100
    small = await engine.call("big", {"n": 3})
    assert not small.record.result_truncated
    assert small.record.result_tokens == estimate_tokens("word word word ") > 0


async def test_hooks_see_every_phase_and_add_to_the_record() -> None:
    seen: list[Phase] = []

    def hook(phase: Phase, state: CallState) -> None:
        seen.append(phase)
        if phase == "execute":
            state.extra["note"] = "checked"

    def broken(phase: Phase, state: CallState) -> None:
        raise ValueError("oops")

    engine, sink = make(hooks=[hook, broken])
    r = await engine.call("add", {"a": 1})
    assert r.ok
    assert seen == ["resolve", "validate", "policy", "execute", "record"]
    assert sink.records[0].extra["note"] == "checked"
    assert len(sink.records[0].extra["hook_errors"]) == 5


async def test_sink_failure_does_not_fail_the_call() -> None:
    class Broken(MemorySink):
        def write(self, record: Any) -> None:
            raise OSError("disk full")

    good = MemorySink()
    engine = ToolEngine([add], sinks=[Broken(), good])
    assert (await engine.call("add", {"a": 1})).ok
    assert engine.sink_errors == 1 and len(good.records) == 1


async def test_inline_executor_runs_on_the_loop() -> None:
    where = []

    @tool(executor="inline")
    def here() -> str:
        where.append(threading.current_thread() is threading.main_thread())
        return "x"

    engine, sink = make(here)
    assert (await engine.call("here")).ok and where == [True]
    assert sink.records[0].executor == "inline"


async def test_tasks_usage_and_marks_reach_sinks() -> None:
    from toolwire.events import Usage

    engine, sink = make()
    tid = engine.start_task("t1")
    await engine.call("add", {"a": 1}, task_id=tid)
    engine.add_usage(tid, Usage(input_tokens=100, output_tokens=20))
    engine.finish_task(tid, solved=False)
    engine.start_task(tid)  # a second attempt
    engine.add_usage(tid, Usage(input_tokens=50, output_tokens=5))
    task = engine.finish_task(tid, solved=True)
    assert (task.status, task.attempts, task.reported_tokens) == ("solved", 2, 175)
    assert sink.tasks["t1"] == task

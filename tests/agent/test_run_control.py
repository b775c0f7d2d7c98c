"""A run's limits, its cancellation and its resumption, against the replay server:
what the loop returns, what the audit holds, and what the model receives next."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from toolwire.agent import (
    Agent,
    CallParsed,
    RunFinished,
    TextOut,
    ToolStarted,
    cancelled_reply,
    check_history,
)
from toolwire.audit.sinks import MemorySink
from toolwire.audit.sqlite import SQLiteSink, read_sqlite
from toolwire.cli import app
from toolwire.engine import ToolEngine
from toolwire.replay import Script, chat_chunk, text_stream
from toolwire.tools import tool

from .scripted import calls_answer, client_for, replies, serve

pytestmark = pytest.mark.anyio

SLOW_STARTED = anyio.Event()


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def slow(seconds: float) -> str:
    """Wait, then say so."""
    SLOW_STARTED.set()
    await anyio.sleep(seconds)
    return "waited"


@pytest.fixture(autouse=True)
def _fresh_event() -> None:
    global SLOW_STARTED
    SLOW_STARTED = anyio.Event()


def make_agent(up: Any, sink: MemorySink, **options: Any) -> Agent:
    engine_options = options.pop("engine", {})
    engine = ToolEngine([add, slow], sinks=[sink], **engine_options)
    return Agent(client_for(up), engine, **options)


def one_record_per_call(sink: MemorySink, messages: list[dict[str, Any]]) -> None:
    """G5 and the audit rule: the history's calls and the records match one to one."""
    check_history(messages)
    ids = [c["id"] for m in messages for c in m.get("tool_calls") or []]
    assert sorted(r.call_id or "" for r in sink.records) == sorted(ids)


ADD = ("c1", "add", '{"a": 1, "b": 2}')
ADD2 = ("c2", "add", '{"a": 3, "b": 4}')


async def test_max_tool_calls_declines_the_calls_past_it_and_stops() -> None:
    sink = MemorySink()
    with serve(calls_answer(ADD, ADD2), calls_answer(("c3", *ADD[1:]), ("c4", *ADD2[1:]))) as up:
        result = await make_agent(up, sink, max_tool_calls=3).run("add")
        sent = len(up.requests)
    assert result.stop == "max_tool_calls"
    assert sent == 2  # the model is not asked again once calls were declined
    assert [c.status for c in result.calls] == ["ok", "ok", "ok", "denied"]
    declined = result.calls[-1]
    assert declined.result.record.policy_decision == "limit"
    assert "limit of 3 tool calls" in declined.reply and "not run" in declined.reply
    assert replies(result.messages)[-1] == ("c4", declined.reply)
    one_record_per_call(sink, result.messages)


async def test_max_tool_calls_reached_exactly_lets_the_model_answer() -> None:
    sink = MemorySink()
    with serve(calls_answer(ADD, ADD2), text_stream(["3 and 7."])) as up:
        result = await make_agent(up, sink, max_tool_calls=2).run("add")
    assert result.stop == "done" and result.text == "3 and 7."
    assert [c.status for c in result.calls] == ["ok", "ok"]


@pytest.mark.parametrize(
    ("limit", "budget", "stop"),
    [
        ("max_input_tokens", 40, "max_input_tokens"),
        ("max_output_tokens", 12, "max_output_tokens"),
        ("max_total_tokens", 52, "max_total_tokens"),
        ("max_total_tokens", 53, None),
    ],
)
async def test_a_token_budget_ends_the_run_with_every_call_answered(
    limit: str, budget: int, stop: str | None
) -> None:
    """Each turn reports 40 input and 12 output tokens; a budget reached after a turn
    declines that turn's calls (they would need another model turn) and stops."""
    sink = MemorySink()
    with serve(calls_answer(ADD), text_stream(["3."])) as up:
        result = await make_agent(up, sink, **{limit: budget}).run("add")
        sent = len(up.requests)
    if stop is None:
        assert result.stop == "done" and sent == 2
        assert result.calls[0].status == "ok"
        return
    assert result.stop == stop and sent == 1
    [call] = result.calls
    assert call.status == "denied" and f"budget of {budget}" in call.reply
    assert result.usage.input_tokens == 40 and result.usage.output_tokens == 12
    one_record_per_call(sink, result.messages)


async def test_a_tool_that_times_out_is_told_and_the_run_goes_on() -> None:
    sink = MemorySink()
    with serve(calls_answer(("t1", "slow", '{"seconds": 5}')), text_stream(["Too slow."])) as up:
        agent = make_agent(up, sink, engine={"timeout": 0.2})
        result = await agent.run("wait")
        second = up.requests[1].body
    assert result.stop == "done"
    [call] = result.calls
    assert call.status == "timeout"
    [(call_id, reply)] = replies(second["messages"])
    assert call_id == "t1" and reply == call.result.content and "0.2" in reply
    assert [r.status for r in sink.records] == ["timeout"]


async def test_an_invalid_call_then_its_corrected_retry() -> None:
    """G10: the model gets the validation errors, corrects the call, it runs."""
    sink = MemorySink()
    wrong = calls_answer(("w1", "add", '{"a": "two", "b": 3}'))
    right = calls_answer(("r1", "add", '{"a": 2, "b": 3}'))
    with serve(wrong, right, text_stream(["5."])) as up:
        result = await make_agent(up, sink, invalid_retries=1).run("add")
        bodies = [r.body for r in up.requests]
    assert result.stop == "done" and result.turns == 3
    assert [(c.turn, c.status) for c in result.calls] == [(1, "invalid_args"), (2, "ok")]
    [(_, told)] = replies(bodies[1]["messages"])
    assert "Invalid arguments for add" in told
    assert replies(bodies[2]["messages"]) == [("w1", told), ("r1", "5")]
    assert [r.turn for r in sink.records] == [1, 2]


async def consume_until(
    agent: Agent, stop_at: type, records: int = 0, sink: MemorySink | None = None
) -> list[Any]:
    """Iterate a run in a task and cancel that task once ``stop_at`` was seen, the slow
    tool is running (when ``stop_at`` is ToolStarted) and ``sink`` holds ``records``."""
    seen: list[Any] = []

    async def consume() -> None:
        async for event in agent.stream("go"):
            seen.append(event)

    task = asyncio.ensure_future(consume())
    while not any(isinstance(e, stop_at) for e in seen):
        await asyncio.sleep(0.01)
    if stop_at is ToolStarted:
        await SLOW_STARTED.wait()
    while sink is not None and len(sink.records) < records:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return seen


async def test_cancelling_the_run_mid_tools_records_them_cancelled_and_resumes() -> None:
    """Ctrl-C while two parallel calls run: the fast one's result is kept, the slow one
    is cancelled (one record each); the history resumes after a JSON round trip, and
    the model then sees every call with exactly one reply."""
    sink = MemorySink()
    turn_one = calls_answer(ADD, ("s1", "slow", '{"seconds": 30}'))
    with serve(turn_one, text_stream(["Resumed."])) as up:
        agent = make_agent(up, sink)
        await consume_until(agent, ToolStarted, records=1, sink=sink)  # add has finished
        cancelled = agent.last_result
        assert cancelled is not None and cancelled.stop == "cancelled"
        assert [(c.call.id, c.status) for c in cancelled.calls] == [
            ("c1", "ok"),
            ("s1", "cancelled"),
        ]
        assert replies(cancelled.messages) == [("c1", "3"), ("s1", cancelled_reply("slow", True))]
        assert sorted((r.call_id, r.status) for r in sink.records) == [
            ("c1", "ok"),
            ("s1", "cancelled"),
        ]
        saved = json.loads(json.dumps(cancelled.messages))
        resumed = await agent.run("go on", history=saved, task_id=cancelled.task_id)
        last = up.requests[-1].body["messages"]
    assert resumed.stop == "done" and resumed.text == "Resumed."
    assert last[: len(saved)] == saved  # the history goes back exactly as it was saved
    assert last[len(saved)] == {"role": "user", "content": "go on"}
    check_history(last)
    assert resumed.messages == [*saved, last[-1], {"role": "assistant", "content": "Resumed."}]
    one_record_per_call(sink, resumed.messages)


async def test_cancelling_while_the_model_streams_closes_the_stream() -> None:
    """Cancelled mid-answer: the server sees the client go away, and the text so far
    goes into the history as the model's turn (nothing else is left open)."""
    head = b"".join(text_stream(["Checking the ", "time."])[:3])
    stalled = Script([head, chat_chunk({"content": "x"})], chunk_delay=30.0)
    sink = MemorySink()
    with serve(stalled) as up:
        agent = make_agent(up, sink, text_size=1)
        await consume_until(agent, TextOut)
        for _ in range(100):
            if up.disconnects:
                break
            await asyncio.sleep(0.02)
        gone = len(up.disconnects)
    result = agent.last_result
    assert result is not None and result.stop == "cancelled"
    assert gone == 1
    assert result.messages[-1] == {"role": "assistant", "content": "Checking the time."}
    assert result.calls == [] and sink.records == []
    check_history(result.messages)


async def test_closing_the_stream_early_settles_the_run() -> None:
    """``aclose()`` on the generator (a caller that stops iterating) settles the turn
    as cancellation does: the parsed calls, never run, are recorded and replied to."""
    sink = MemorySink()
    with serve(calls_answer(ADD, ADD2)) as up:
        agent = make_agent(up, sink)
        events = agent.stream("go")
        async for event in events:
            if isinstance(event, CallParsed):
                break
        await events.aclose()
    result = agent.last_result
    assert result is not None and result.stop == "cancelled"
    assert [c.status for c in result.calls] == ["cancelled", "cancelled"]
    assert {c.reply for c in result.calls} == {cancelled_reply("add", False)}
    one_record_per_call(sink, result.messages)


async def test_a_history_with_a_call_left_unanswered_is_refused() -> None:
    with serve(text_stream(["x"])) as up:
        agent = make_agent(up, MemorySink())
        broken = [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
                ],
            },
        ]
        with pytest.raises(ValueError, match="without a reply: c1"):
            await agent.run("more", history=broken)
        with pytest.raises(ValueError, match="a prompt"):
            await agent.run(None)


async def test_resuming_continues_turn_numbers_and_ids_stay_unique() -> None:
    """The server repeats call ids across runs (F32): the resumed run's call gets an
    id of its own, and its turn number goes on from the history's."""
    sink = MemorySink()
    with serve(
        calls_answer(ADD), text_stream(["3."]), calls_answer(ADD), text_stream(["3 again."])
    ) as up:
        agent = make_agent(up, sink)
        first = await agent.run("add")
        second = await agent.run("again", history=first.messages)
    assert second.stop == "done" and second.turns == 2
    assert [c.turn for c in second.calls] == [3]
    ids = [c["id"] for m in second.messages for c in m.get("tool_calls") or []]
    assert ids == ["c1", "c1_t3_0"]
    one_record_per_call(sink, second.messages)


async def test_finished_runs_stop_for_anything_but_a_cancel() -> None:
    """A run that ends on its own yields RunFinished once, and last_result is it."""
    with serve(text_stream(["hi"])) as up:
        agent = make_agent(up, MemorySink())
        events = [e async for e in agent.stream("hi")]
    assert isinstance(events[-1], RunFinished) and events[-1].result is agent.last_result


def test_the_audit_report_shows_tokens_per_solved_task_from_the_runs_usage(
    tmp_path: Path,
) -> None:
    """One task per run, in a real SQLite audit file: each record carries the wire's
    repairs, the turn and that turn's usage; ``toolwire audit report`` gives TPST from
    the usage the server reported (not an estimate)."""
    db = tmp_path / "audit.db"
    python_args = calls_answer(("c1", "add", "{'a': 1, 'b': 2}"))

    async def both() -> tuple[str, str]:
        engine = ToolEngine([add, slow], sinks=[SQLiteSink(db)])
        with serve(python_args, text_stream(["3."])) as up:
            solved = await Agent(client_for(up), engine).run("add", solved=True)
        with serve(text_stream(["no"])) as up:
            agent = Agent(client_for(up), engine)
            unsolved = await agent.run("?", solved=lambda result: "3" in result.text)
        engine.close()
        return solved.task_id, unsolved.task_id

    solved_id, unsolved_id = anyio.run(both)
    records, tasks = read_sqlite(db)
    [record] = records
    assert record.task_id == solved_id and record.turn == 1
    assert record.repairs and record.status == "ok"
    assert record.extra["turn_usage"] == {
        "input_tokens": 40,
        "output_tokens": 12,
        "reasoning_tokens": None,
    }
    assert (tasks[solved_id].status, tasks[unsolved_id].status) == ("solved", "failed")
    assert tasks[solved_id].reported_tokens == 40 + 12 + 20 + 1
    out = CliRunner().invoke(app, ["audit", "report", "--db", str(db), "--json"])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.stdout)["tasks"]
    assert summary["estimated_tasks"] == 0
    assert (summary["solved"], summary["failed"]) == (1, 1)
    assert summary["tokens_per_solved_task"] == 40 + 12 + 20 + 1 + 20 + 1

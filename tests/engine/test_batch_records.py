"""``execute_many`` writes the records of calls that end together in one go
(``BatchSink.write_many``), and a call that ends while others run at once."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest

from toolwire.audit.record import ExecutionRecord
from toolwire.audit.sinks import MemorySink
from toolwire.engine import CallRequest, ToolEngine
from toolwire.tools import tool

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def inc(a: int) -> int:
    """Add one (on the event loop: calls of it end in the pass they start in)."""
    return a + 1


@tool
async def wait(seconds: float) -> str:
    """Wait."""
    await anyio.sleep(seconds)
    return "waited"


class Batches(MemorySink):
    """Keeps records, and the size of each write (1 for ``write``)."""

    def __init__(self, fail_batches: bool = False) -> None:
        super().__init__()
        self.writes: list[int] = []
        self.fail_batches = fail_batches

    def write(self, record: ExecutionRecord) -> None:
        self.writes.append(1)
        super().write(record)

    def write_many(self, records: Sequence[ExecutionRecord]) -> None:
        if self.fail_batches:
            raise OSError("the database is away")
        self.writes.append(len(records))
        self.records.extend(records)


async def test_calls_that_end_together_are_written_in_one_go_before_done_hears() -> None:
    sink = Batches()
    engine = ToolEngine([inc], sinks=[sink])
    heard: list[tuple[int, int]] = []  # (call, records stored when done heard of it)
    calls = [CallRequest("inc", {"a": i}, f"c{i}") for i in range(4)]
    results = await engine.execute_many(
        calls, done=lambda i, r: heard.append((i, len(sink.records)))
    )
    assert [r.content for r in results] == ["1", "2", "3", "4"]
    assert sink.writes == [4]
    assert sorted(heard) == [(0, 4), (1, 4), (2, 4), (3, 4)]


async def test_a_call_that_ends_first_is_written_while_the_others_run() -> None:
    sink = Batches()
    engine = ToolEngine([add, wait], sinks=[sink])
    seen: list[str] = []

    async def watch() -> None:
        while not sink.records:
            await anyio.sleep(0.005)
        seen.extend(r.tool_name for r in sink.records)

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch)
        await engine.execute_many(
            [CallRequest("add", {"a": 1, "b": 2}), CallRequest("wait", {"seconds": 0.3})]
        )
    assert seen == ["add"]
    assert sink.writes == [1, 1]


async def test_a_failed_batch_is_written_record_by_record() -> None:
    sink = Batches(fail_batches=True)
    engine = ToolEngine([inc], sinks=[sink])
    calls = [CallRequest("inc", {"a": i}, f"c{i}") for i in range(3)]
    await engine.execute_many(calls)
    assert sink.writes == [1, 1, 1]
    assert sorted(r.call_id or "" for r in sink.records) == ["c0", "c1", "c2"]
    assert engine.sink_errors == 0


@tool
async def login(user: str, password: str) -> str:
    """Log in."""
    return "in"


async def test_the_batch_extra_is_redacted_with_each_call_s_own_secrets() -> None:
    # redacted once for the batch, except for a call whose arguments hold a secret
    sink = MemorySink()
    engine = ToolEngine([login], sinks=[sink])
    calls = [
        CallRequest("login", {"user": "ann", "password": "hunter2222"}, "c1"),
        CallRequest("login", {"user": "bob", "password": "other-pass"}, "c2"),
    ]
    extra = {"model": "m", "note": "tried hunter2222", "usage": {"input_tokens": 4}}
    await engine.execute_many(calls, extra=extra)
    notes = {r.call_id: dict(r.extra) for r in sink.records}
    assert notes["c1"] == {"model": "m", "note": "tried [REDACTED]", "usage": {"input_tokens": 4}}
    assert notes["c2"] == {"model": "m", "note": "tried hunter2222", "usage": {"input_tokens": 4}}
    assert extra["note"] == "tried hunter2222"  # the caller's own is left as it was

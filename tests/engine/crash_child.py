"""Run a batch with a SQLite sink, print a line as each fast call returns, then hang."""

from __future__ import annotations

import functools
import sys

import anyio

from toolwire.audit import SQLiteSink
from toolwire.engine import ToolEngine
from toolwire.tools import tool


@tool
async def fast(i: int) -> int:
    await anyio.sleep(0.01 * i)
    return i


@tool
async def hang() -> str:
    await anyio.sleep(3600)
    return "never"


async def main(db: str) -> None:
    engine = ToolEngine([fast, hang], sinks=[SQLiteSink(db)], max_concurrency=8)

    async def fast_call(i: int) -> None:
        r = await engine.call("fast", {"i": i}, id=f"fast-{i}", task_id="batch")
        print(f"result {r.call_id}", flush=True)  # the caller has the result

    async with anyio.create_task_group() as tg:
        tg.start_soon(functools.partial(engine.call, "hang", {}, id="hang-0"))
        for i in range(5):
            tg.start_soon(fast_call, i)


anyio.run(main, sys.argv[1])

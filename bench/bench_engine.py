"""Engine overhead per call: a no-op tool through ``ToolEngine`` vs calling it directly.

Run: ``python bench/bench_engine.py [--calls N]``. Reports µs per call and the ratio to
a direct call, without a sink and with the SQLite sink (WAL, synchronous=NORMAL, one
committed transaction per call). Validation (the core's finisher: schema coercion and
jsonschema) is included; so are the default policies and the record with token estimate.
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))

from toolwire.audit import SQLiteSink
from toolwire.engine import ToolEngine
from toolwire.tools import tool

# CPU time of this process (all its threads) by default: on a shared machine, wall time
# also counts the time other processes held the CPU. --wall measures wall time.
CLOCK = time.process_time


async def noop_async(x: int) -> None:
    return None


def noop_sync(x: int) -> None:
    return None


async def timed(fn: Callable[[], Awaitable[object]], calls: int, repeats: int) -> float:
    """Best of ``repeats`` runs of the mean µs per call (the least disturbed by other load
    on the machine, as ``timeit`` recommends)."""
    for _ in range(min(calls, 200)):  # warm caches (validators, tokenizer)
        await fn()
    runs = []
    for _ in range(repeats):
        t0 = CLOCK()
        for _ in range(calls):
            await fn()
        runs.append((CLOCK() - t0) / calls * 1e6)
    return min(runs)


async def main(calls: int, repeats: int) -> list[tuple[str, float, float]]:
    async_tool = tool(noop_async)
    inline_tool = tool(executor="inline")(noop_sync)
    thread_tool = tool(name="noop_thread")(noop_sync)
    tools = [async_tool, inline_tool.rename("noop_inline"), thread_tool]
    args = {"x": 1}
    direct_async = await timed(lambda: noop_async(x=1), calls, repeats)

    async def direct_sync() -> None:
        noop_sync(x=1)

    direct_inline = await timed(direct_sync, calls, repeats)
    rows = [("direct call (async fn)", direct_async, 1.0)]
    with tempfile.TemporaryDirectory() as tmp:
        for label, sinks in (("no sink", []), ("SQLite sink", [SQLiteSink(Path(tmp) / "b.db")])):
            engine = ToolEngine(tools, sinks=sinks)
            for name, base in (("noop_async", direct_async), ("noop_inline", direct_inline)):
                us = await timed(functools.partial(engine.call, name, args), calls, repeats)
                rows.append((f"engine, {name}, {label}", us, us / base))
            call = functools.partial(engine.call, "noop_thread", args)
            us = await timed(call, calls // 4, repeats)
            rows.append((f"engine, noop_thread (thread pool), {label}", us, us / direct_inline))
            engine.close()
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--wall", action="store_true", help="measure wall time, not CPU time")
    opts = parser.parse_args()
    if opts.wall:
        CLOCK = time.perf_counter
    rows = anyio.run(main, opts.calls, opts.repeats)
    direct = rows[0][1]
    print(f"clock: {'wall' if opts.wall else 'process CPU'} time, best of {opts.repeats}")
    print(f"{'case':48} {'µs/call':>9} {'overhead µs':>12} {'ratio':>9}")
    for label, us, ratio in rows:
        print(f"{label:48} {us:9.2f} {us - direct:12.2f} {ratio:9.1f}")

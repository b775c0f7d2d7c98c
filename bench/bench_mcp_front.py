"""Added latency of ``toolwire mcp serve`` per call vs calling the backend directly.

Run: ``python bench/bench_mcp_front.py [--calls N]``. One official MCP client talks to
the in-repo test server directly, another to the front (two backends configured: the
test server and mcp-server-time, audit to SQLite); calls of the test server's ``echo``
alternate between the two. Wall time per round trip; reports p50/p99 of each and of
the added time. Both sides are separate processes on a shared machine, so the
figures include scheduling noise: compare medians from the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).parents[1]
TEST_SERVER = str(ROOT / "tests" / "tools" / "mcp_test_server.py")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(calls: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "mcp.json"
        servers = {
            "test": {"command": sys.executable, "args": [TEST_SERVER, "stdio"]},
            "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
        }
        cfg.write_text(json.dumps({"mcpServers": servers}))
        front_args = ["-m", "toolwire", "mcp", "serve", "--config", str(cfg)]
        front_args += ["--audit", str(Path(tmp) / "audit.db")]
        direct_p = StdioServerParameters(command=sys.executable, args=[TEST_SERVER, "stdio"])
        front_p = StdioServerParameters(command=sys.executable, args=front_args)
        async with Client(stdio_client(direct_p)) as direct, Client(stdio_client(front_p)) as front:
            for c in (direct, front):  # warm up both paths
                for _ in range(20):
                    await c.call_tool("echo", {"text": "hi"})
            times: dict[str, list[float]] = {"direct": [], "front": []}
            for _ in range(calls):
                for name, c in (("direct", direct), ("front", front)):
                    t0 = time.perf_counter()
                    r = await c.call_tool("echo", {"text": "hi"})
                    times[name].append((time.perf_counter() - t0) * 1000)
                    assert not r.is_error
    added = [f - d for f, d in zip(times["front"], times["direct"], strict=True)]
    for name, values in (*times.items(), ("added", added)):
        print(
            f"{name:7s} p50 {statistics.median(values):7.3f} ms   "
            f"p99 {pct(values, 0.99):7.3f} ms   (n={len(values)})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    anyio.run(main, parser.parse_args().calls)

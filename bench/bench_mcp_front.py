"""Added latency of ``toolwire mcp serve`` per call vs calling the backend directly.

Run: ``python bench/bench_mcp_front.py [--calls N] [--fastmcp-python PY] [--base-src DIR]``.
With ``--base-src`` (e.g. ``git archive`` of an older commit's ``src``) the front from
that checkout runs in the same rotation, for before/after figures from one run. One
official MCP client talks to the in-repo test server directly, another to the front
(two backends configured: the test server and mcp-server-time, audit to SQLite); calls
of the test server's ``echo`` alternate between them. With ``--fastmcp-python`` (the
Python of a separate environment with ``fastmcp<3``, which needs ``mcp<2``), a third
client talks to FastMCP's proxy over the same two backends, prefixes off, in the same
run but in a rotation of its own with the direct calls, after toolwire's (its proxy
spends some 27 ms of CPU per call, which on 2 cores lands in whatever is measured
beside it). Wall time per round trip; reports p50/p99 of each and of the added time
(each call against the direct call of the same round). Both sides are separate
processes on a shared machine, so the figures include scheduling noise: compare
medians from the same run. On Linux it also
reports the CPU time each server process spent per call (from ``/proc``), which
scheduling delays do not inflate; ``bench_mcp_front_ir.py`` counts instructions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

ROOT = Path(__file__).parents[1]
TEST_SERVER = str(ROOT / "tests" / "tools" / "mcp_test_server.py")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _server_pids(names: list[str]) -> dict[str, int]:
    """The server process each client started, in start order (Linux; else none)."""
    if not os.path.isdir(f"/proc/{os.getpid()}/task"):
        return {}
    kids = sorted(_children(os.getpid()))
    return dict(zip(names, kids, strict=False)) if len(kids) == len(names) else {}


def write_config(tmp: str) -> Path:
    """The two backends' ``mcpServers`` file: the test server and mcp-server-time."""
    cfg = Path(tmp) / "mcp.json"
    servers = {
        "test": {"command": sys.executable, "args": [TEST_SERVER, "stdio"]},
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
    }
    cfg.write_text(json.dumps({"mcpServers": servers}))
    return cfg


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(calls: int, fastmcp_python: str | None, base_src: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = write_config(tmp)
        front_args = ["-m", "toolwire", "mcp", "serve", "--config", str(cfg)]
        front_args += ["--audit", str(Path(tmp) / "audit.db")]
        paths = {
            "direct": StdioServerParameters(command=sys.executable, args=[TEST_SERVER, "stdio"]),
            "front": StdioServerParameters(command=sys.executable, args=front_args),
        }
        if base_src:  # the same front from another checkout (e.g. before a change)
            env = {**get_default_environment(), "PYTHONPATH": base_src}
            paths["front base"] = StdioServerParameters(
                command=sys.executable, args=front_args, env=env
            )
        if fastmcp_python:
            proxy_args = [str(ROOT / "bench" / "fastmcp_proxy.py"), str(cfg)]
            paths["fastmcp"] = StdioServerParameters(command=fastmcp_python, args=proxy_args)
        # rotations, each alternating its paths with the direct calls
        rotations = [[n for n in paths if n != "fastmcp"]]
        if "fastmcp" in paths:
            rotations.append(["direct", "fastmcp"])
        times: dict[str, list[float]] = {name: [] for name in paths}
        direct_of: dict[str, list[float]] = {}  # the direct calls of each path's rounds
        async with AsyncExitStack() as stack:
            clients = {
                name: await stack.enter_async_context(Client(stdio_client(p)))
                for name, p in paths.items()
            }
            for c in clients.values():  # warm up every path
                for _ in range(20):
                    await c.call_tool("echo", {"text": "hi"})
            pids = _server_pids(list(clients))
            cpu: dict[str, float] = {}
            for rotation in rotations:
                cpu_before = {n: _cpu_seconds(pids[n]) for n in rotation if n in pids}
                direct: list[float] = []
                for _ in range(calls):
                    for name in rotation:
                        t0 = time.perf_counter()
                        r = await clients[name].call_tool("echo", {"text": "hi"})
                        elapsed = (time.perf_counter() - t0) * 1000
                        (direct if name == "direct" else times[name]).append(elapsed)
                        assert not r.is_error
                for name in rotation:
                    if name in pids and name not in cpu:
                        spent = _cpu_seconds(pids[name]) - cpu_before[name]
                        cpu[name] = spent * 1000 / calls
                    if name != "direct":
                        direct_of[name] = direct
                times["direct"] += direct
    rows = dict(times)
    for name in paths:
        if name != "direct":  # each call against the direct call of the same round
            pairs = zip(times[name], direct_of[name], strict=True)
            rows[f"{name} added"] = [t - d for t, d in pairs]
    for name, values in rows.items():
        print(
            f"{name:14s} p50 {statistics.median(values):8.3f} ms   "
            f"p99 {pct(values, 0.99):8.3f} ms   (n={len(values)})"
        )
    for name, ms in cpu.items():  # the front's and the proxy's backends are not counted
        print(f"{name:14s} server process CPU {ms:.3f} ms per call")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument(
        "--fastmcp-python", metavar="PY", help="Python of an environment with fastmcp<3"
    )
    parser.add_argument(
        "--base-src",
        metavar="DIR",
        help="also run the front from this src directory (another checkout) in the rotation",
    )
    args = parser.parse_args()
    anyio.run(main, args.calls, args.fastmcp_python, args.base_src)

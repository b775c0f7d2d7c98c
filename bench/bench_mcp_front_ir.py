"""Instructions per call in the server process, counted by callgrind: the front
(``toolwire mcp serve`` with the test server and mcp-server-time behind it) or the
test server alone, for the same no-op ``echo`` call. Unlike wall time, a count does
not move with the load of a shared machine.

Run: ``python bench/bench_mcp_front_ir.py [--calls N] [--audit none] front|direct``
(needs ``valgrind``). The server runs under callgrind with instrumentation off while
it starts and warms up; it is switched on with ``callgrind_control`` for the measured
calls only. The front's backends are not counted (they are other processes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
from bench_mcp_front import TEST_SERVER, write_config
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client


def _total_ir(out: Path) -> int:
    total = 0
    for dump in out.parent.glob(out.name + "*"):
        for line in dump.read_text().splitlines():
            if line.startswith(("totals:", "summary:")):
                total = max(total, int(line.split()[1]))
    return total


async def main(calls: int, what: str, audit: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = write_config(tmp)
        if what == "front":
            args = ["-m", "toolwire", "mcp", "serve", "--config", str(cfg)]
            args += ["--audit", audit or str(Path(tmp) / "audit.db")]
        else:
            args = [TEST_SERVER, "stdio"]
        out = Path(tmp) / "callgrind.out"
        valgrind = ["--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
        params = StdioServerParameters(
            command="valgrind", args=[*valgrind, sys.executable, *args], env=dict(os.environ)
        )
        with open(os.devnull, "w") as quiet:
            async with Client(stdio_client(params, errlog=quiet)) as client:
                for _ in range(20):
                    await client.call_tool("echo", {"text": "hi"})
                proc = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
                [pid] = proc.read_text().split()
                control = ["callgrind_control"]
                subprocess.run([*control, "-i", "on", pid], check=True, capture_output=True)
                for _ in range(calls):
                    await client.call_tool("echo", {"text": "hi"})
                subprocess.run([*control, "-i", "off", pid], check=True, capture_output=True)
                subprocess.run([*control, "-d", pid], check=True, capture_output=True)
        total = _total_ir(out)
    label = what if what == "direct" else f"front (audit {'none' if audit == 'none' else 'db'})"
    print(f"{label:18s} {total / calls / 1e6:.3f} M instructions per call (n={calls})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["front", "direct"])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--audit", choices=["none"], help="run the front without an audit")
    ns = parser.parse_args()
    anyio.run(main, ns.calls, ns.what, ns.audit)

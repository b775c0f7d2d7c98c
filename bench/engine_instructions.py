"""Instructions per engine call (valgrind callgrind): repeatable where timing is noisy.

    python bench/engine_instructions.py [--calls N]

Runs this script under ``valgrind --tool=callgrind`` twice, making 0 and N no-op calls
(inline tool; without a sink and with the SQLite sink), and reports the difference per
call: start-up and imports cancel out. Skipped with a message where valgrind is missing.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def calls(n: int, sqlite: bool) -> None:
    """The measured part: ``n`` calls of a no-op inline tool through one engine."""
    sys.path.insert(0, str(ROOT / "src"))
    import anyio

    from toolwire.audit import SQLiteSink
    from toolwire.engine import ToolEngine
    from toolwire.tools import tool

    def noop(x: int) -> None:
        return None

    async def main() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            sinks = [SQLiteSink(Path(tmp) / "b.db")] if sqlite else []
            engine = ToolEngine([tool(executor="inline")(noop)], sinks=sinks)
            for _ in range(20):  # warm caches either way, so only the n calls differ
                await engine.call("noop", {"x": 1})
            for _ in range(n):
                await engine.call("noop", {"x": 1})
            engine.close()

    anyio.run(main)


def instructions(n: int, sqlite: bool) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        cmd = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--run",
            str(n),
        ]
        if sqlite:
            cmd.append("--sqlite")
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        m = re.search(r"Collected : (\d+)", done.stderr)
        if m is None:
            raise SystemExit("no instruction count in valgrind's output")
        return int(m.group(1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--run", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--sqlite", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.run is not None:
        calls(opts.run, opts.sqlite)
        raise SystemExit(0)
    if shutil.which("valgrind") is None:
        print("skipped: valgrind is not installed (apt-get install valgrind)")
        raise SystemExit(0)
    for label, sqlite in (("no sink", False), ("SQLite sink", True)):
        per_call = (instructions(opts.calls, sqlite) - instructions(0, sqlite)) / opts.calls
        print(f"engine, noop inline, {label:12} {per_call / 1000:10.1f} k instructions per call")

"""Instructions per agent turn under ``valgrind --tool=callgrind`` (stable on a busy
machine, where CPU time is not): ``python bench/agent_instructions.py`` runs
bench_agent's workload twice under callgrind, with few and with many runs, and
reports the difference per turn (what the startup and the imports cost cancels)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).parent))

TURNS = 5


async def workload(port: int, runs: int) -> None:
    from bench_agent import noop

    from toolwire.agent import Agent
    from toolwire.audit import SQLiteSink
    from toolwire.client import ModelClient, RetryPolicy
    from toolwire.engine import ToolEngine
    from toolwire.tools import tool

    with tempfile.TemporaryDirectory() as tmp:
        engine = ToolEngine([tool(noop)], sinks=[SQLiteSink(Path(tmp) / "a.db")])
        base = f"http://127.0.0.1:{port}/v1"
        client = ModelClient("openai-chat", base, model="m", retry=RetryPolicy(attempts=1))
        agent = Agent(client, engine, max_turns=TURNS + 1)
        for _ in range(runs):
            result = await agent.run("Check the files.")
            assert result.turns == TURNS + 1, result.stop
        await client.aclose()
        engine.close()


def measure(runs: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--runs",
                str(runs),
            ],
            check=True,
            capture_output=True,
        )
        summary = re.search(rb"^summary: (\d+)", out.read_bytes(), re.M)
        assert summary is not None
        return int(summary.group(1))


def main() -> None:
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
        upstream = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).parent / "bench_agent.py"),
                "--serve",
                "--turns",
                str(TURNS),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert upstream.stdout is not None and upstream.stdin is not None
        port = int(upstream.stdout.readline())
        try:
            asyncio.run(workload(port, runs))
        finally:
            upstream.stdin.close()
            upstream.wait(30)
        return
    few, many = 2, 12
    low, high = measure(few), measure(many)
    per_turn = (high - low) / ((many - few) * (TURNS + 1))
    print(f"instructions per agent turn (of {TURNS} with 4 calls + 1 answer): {per_turn:,.0f}")


if __name__ == "__main__":
    main()

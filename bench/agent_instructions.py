"""Instructions per agent turn under ``valgrind --tool=callgrind`` (stable on a busy
machine, where CPU time is not): ``python bench/agent_instructions.py`` runs
bench_agent's workload twice under callgrind, with few and with many runs, and
reports the difference per turn (what the startup and the imports cost cancels).
The parts bench_agent measures beside the turn (the engine's 4 calls, the parser on
the answer, the HTTP exchange) are counted the same way, each in processes of its own,
and what is left of the turn is the loop's own share. ``--parts agent`` counts the
turn alone."""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).parent))

TURNS = 5
PARTS = ("agent", "engine", "parser", "http")


async def workload(port: int, part: str, runs: int) -> None:
    from bench_agent import engine_part, http_part, last_request, noop, parser_part

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
        last = last_request(await agent.run("warm up"), TURNS)
        # a run is TURNS tool turns and the closing answer: the parts as often (the
        # closing answer is parsed as a tool answer, a little more work than it is)
        turns = runs * (TURNS + 1)
        if part == "agent":
            for _ in range(runs):
                result = await agent.run("Check the files.")
                assert result.turns == TURNS + 1, result.stop
        elif part == "engine":
            await engine_part(engine, runs * TURNS)
        elif part == "parser":
            parser_part(engine, "openai-chat", turns)
        else:
            await http_part(client, last, turns)
        await client.aclose()
        engine.close()


def measure(part: str, runs: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--part",
                part,
                "--runs",
                str(runs),
            ],
            check=True,
            capture_output=True,
        )
        summary = re.search(rb"^summary: (\d+)", out.read_bytes(), re.M)
        assert summary is not None
        return int(summary.group(1))


def serve_and_run(part: str, runs: int) -> None:
    bench = str(Path(__file__).parent / "bench_agent.py")
    upstream = subprocess.Popen(
        [sys.executable, bench, "--serve", "--turns", str(TURNS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert upstream.stdout is not None and upstream.stdin is not None
    port = int(upstream.stdout.readline())
    try:
        asyncio.run(workload(port, part, runs))
    finally:
        upstream.stdin.close()
        upstream.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS), help="of " + ",".join(PARTS))
    parser.add_argument("--part", help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.part:
        serve_and_run(opts.part, opts.runs)
        return
    few, many = 1, 6
    per_turn: dict[str, float] = {}
    for part in opts.parts.split(","):
        low, high = measure(part, few), measure(part, many)
        per_turn[part] = (high - low) / ((many - few) * (TURNS + 1))
    print(f"instructions per turn (a run: {TURNS} turns with 4 calls, 1 answer)")
    for part, count in per_turn.items():
        print(f"  {part:8} {count:12,.0f}")
    if len(per_turn) == len(PARTS):
        own = per_turn["agent"] - sum(per_turn[p] for p in PARTS[1:])
        print(f"  {'own':8} {own:12,.0f}  (agent - the parts)")


if __name__ == "__main__":
    main()

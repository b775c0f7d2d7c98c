"""The conversation loop's own overhead per turn and per call, without model or tool time.

Run: ``python bench/bench_agent.py [--rounds N] [--turns T] [--format F]``.

A scripted upstream (``toolwire.replay``, zero delay, in a process of its own so that
its work is not counted) answers T turns, each with 4 parallel calls to a no-op async
tool, then a text answer. ``Agent`` runs them with the SQLite audit sink. A turn is
measured from one ``TurnFinished`` to the next: the previous turn's 4 calls run and
recorded, the history put in the wire and sent, the answer read and parsed. Beside it,
in the same round, the parts on their own: ``engine.execute_many`` of the same 4 calls
(same sink), ``StreamParser`` on the turn's bytes, and the HTTP exchange of the same
request without parsing (``ModelClient.open`` + reading the body). What is left is the
loop's own share. Rounds alternate the agent run and the parts; the report gives
medians over rounds of process CPU time (all threads).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))

from toolwire.agent import Agent, RunResult, TurnFinished
from toolwire.audit import SQLiteSink
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.events import ToolCall
from toolwire.parser import StreamParser
from toolwire.replay import (
    ReplayServer,
    Script,
    WireCall,
    anthropic_answer,
    chat_answer,
    tool_results,
)
from toolwire.tools import tool

CLOCK = time.process_time
CALLS = 4


async def noop(path: str, line: int) -> str:
    """A no-op tool."""
    return "ok"


def call_arguments(i: int) -> str:
    return f'{{"path": "src/module_{i}.py", "line": {10 * i + 1}}}'


def answers(fmt: str, turns: int) -> tuple[Script, Script]:
    """4 parallel calls (a header, then argument fragments, as vLLM streams them), and
    the closing text answer."""
    make = anthropic_answer if fmt == "anthropic" else chat_answer
    calls = [WireCall(f"call_{i}", "noop", call_arguments(i)) for i in range(CALLS)]
    return make(calls=calls, usage=(400, 60)), make("All files are fine.")


def serve(fmt: str, turns: int) -> None:
    """The upstream's process: tool turns until ``turns`` have been answered, then text;
    prints its port, runs until stdin closes."""
    calls, text = answers(fmt, turns)

    def answer(body: Any) -> Script:
        return calls if tool_results(body) < CALLS * turns else text

    with ReplayServer({"m": answer}, default="m") as server:
        server.requests = _Forget()  # keep no log: a long bench would grow it
        print(server.port, flush=True)
        sys.stdin.read()


class _Forget(list[Any]):
    def append(self, item: Any) -> None:
        pass


async def agent_turns(agent: Agent, turns: int) -> float:
    """CPU seconds per turn, TurnFinished to TurnFinished, over one run."""
    marks: list[float] = []
    async for event in agent.stream("Check the files."):
        if isinstance(event, TurnFinished):
            marks.append(CLOCK())
    assert len(marks) == turns + 1, f"{len(marks)} turns, expected {turns + 1}"
    return (marks[-1] - marks[0]) / turns


async def engine_part(engine: ToolEngine, turns: int) -> None:
    """The engine's share of ``turns`` turns: 4 calls through ``execute_many``."""
    calls = [
        ToolCall(f"call_{i}", "noop", {"path": f"src/module_{i}.py", "line": 1}, "", "complete")
        for i in range(CALLS)
    ]
    task = engine.start_task()
    for turn in range(turns):
        await engine.execute_many(calls, task_id=task, turn=turn + 1)


def parser_part(engine: ToolEngine, fmt: str, turns: int) -> None:
    """The parser's share of ``turns`` turns: one answer's bytes, fed as they came."""
    chunks = answers(fmt, turns)[0].chunks
    specs = engine.registry.specs()
    for _ in range(turns):
        parser = StreamParser(fmt, specs)
        for chunk in chunks:
            parser.feed(chunk)
        parser.close()


async def http_part(client: ModelClient, last: dict[str, Any], turns: int) -> None:
    """The HTTP share of ``turns`` turns: the last tool turn's request sent and its
    answer read, without parsing."""
    prepared = client.prepare(last, "openai-chat", stream=True)
    for _ in range(turns):
        response = await client.open(prepared)
        async for _chunk in response.iter_bytes():
            pass
        await response.aclose()


async def parts(
    engine: ToolEngine, client: ModelClient, fmt: str, turns: int, last: dict[str, Any]
) -> tuple[float, float, float]:
    """CPU seconds per turn of the parts of one turn on their own."""
    t0 = CLOCK()
    await engine_part(engine, turns)
    engine_s = (CLOCK() - t0) / turns
    t0 = CLOCK()
    parser_part(engine, fmt, turns)
    parse_s = (CLOCK() - t0) / turns
    t0 = CLOCK()
    await http_part(client, last, turns)
    http_s = (CLOCK() - t0) / turns
    return engine_s, parse_s, http_s


def last_request(result: RunResult, turns: int) -> dict[str, Any]:
    """The request of the last tool turn (answered with calls, as the turns are): the
    history without the last turn's calls, results and the final text."""
    history = result.messages[: -(2 + CALLS)]
    assert tool_results({"messages": history}) == CALLS * (turns - 1)
    return {"model": "m", "messages": history, "stream": True}


async def bench(port: int, fmt: str, rounds: int, turns: int) -> None:
    base = f"http://127.0.0.1:{port}/v1"
    rows: list[tuple[float, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        sink = SQLiteSink(Path(tmp) / "audit.db")
        engine = ToolEngine([tool(noop)], sinks=[sink])
        client = ModelClient(fmt, base, model="m", retry=RetryPolicy(attempts=1))
        agent = Agent(client, engine, max_turns=turns + 1)
        last = last_request(await agent.run("warm up"), turns)
        for _ in range(rounds):
            turn = await agent_turns(agent, turns)
            engine_s, parse_s, http_s = await parts(engine, client, fmt, turns, last)
            rows.append((turn, engine_s, parse_s, http_s, turn - engine_s - parse_s - http_s))
        await client.aclose()
        engine.close()
    medians = [statistics.median(r[i] for r in rows) * 1e3 for i in range(5)]
    labels = [
        f"agent turn ({CALLS} parallel calls, SQLite audit)",
        f"  engine.execute_many, {CALLS} calls",
        "  StreamParser on the answer",
        "  HTTP exchange (ModelClient, no parsing)",
        "  the loop's own (turn - the parts)",
    ]
    print(f"{fmt}, {turns} tool turns per run, {rounds} rounds, process CPU ms (medians)")
    for label, ms in zip(labels, medians, strict=True):
        print(f"{label:48} {ms:7.3f} ms/turn {ms / CALLS * 1e3:8.1f} µs/call")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--format", default="openai-chat", choices=["openai-chat", "anthropic"])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.serve:
        serve(opts.format, opts.turns)
        return
    upstream = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--format", opts.format, "--turns", str(opts.turns)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert upstream.stdout is not None
        port = int(upstream.stdout.readline())
        asyncio.run(bench(port, opts.format, opts.rounds, opts.turns))
    finally:
        assert upstream.stdin is not None
        upstream.stdin.close()
        upstream.wait(10)


if __name__ == "__main__":
    main()

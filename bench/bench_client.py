"""Client CPU per SSE event of reading one upstream stream: ``ModelClient`` (its lean
transport), httpx and httpcore's connection pool, on the same answer.

Run: ``python bench/bench_client.py [--events N] [--rounds R] [--callgrind]``.

A server in its own process (not counted) answers every POST with N Chat Completions
chunks as one HTTP chunk each, as vLLM and llama.cpp send them, written 20 at a time.
Each round reads 10 answers with each client in turn over one kept-alive connection;
the figure is this process's CPU time per event, median over the rounds.
``--callgrind``: instructions instead (``valgrind --tool=callgrind``, repeatable on a
busy machine), counted only while each client reads its 10 answers.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).parent))

import httpcore
import httpx
import orjson
from callgrind import reduce_loops

from toolwire.client import ModelClient, RetryPolicy

ANSWERS = 10


def event(i: int) -> bytes:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": f"token{i} "}}],
    }
    return b"data: " + orjson.dumps(chunk) + b"\n\n"


def serve(events: int) -> None:
    body = [b"%x\r\n%s\r\n" % (len(e), e) for e in map(event, range(events))]

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                break
            length = next(
                int(line.split(b":")[1])
                for line in head.lower().split(b"\r\n")
                if line.startswith(b"content-length:")
            )
            await reader.readexactly(length)
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n"
            )
            for i in range(0, len(body), 20):
                writer.write(b"".join(body[i : i + 20]))
                await writer.drain()
            writer.write(b"0\r\n\r\n")
        writer.close()

    async def main() -> None:
        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        os._exit(0)  # the bench is over: no need to close its connections one by one

    asyncio.run(main())


async def toolwire_reads(base: str) -> Callable[[], Awaitable[int]]:
    client = ModelClient("openai-chat", base, retry=RetryPolicy(attempts=1))
    prepared = client.prepare({"model": "m", "messages": [], "stream": True}, "openai-chat")

    async def read() -> int:
        n = 0
        response = await client.open(prepared)
        async for chunk in response.iter_bytes():
            n += len(chunk)
        await response.aclose()
        return n

    return read


async def httpx_reads(base: str) -> Callable[[], Awaitable[int]]:
    http = httpx.AsyncClient()
    url = httpx.URL(base + "/chat/completions")

    async def read() -> int:
        n = 0
        response = await http.send(http.build_request("POST", url, content=b"{}"), stream=True)
        async for chunk in response.aiter_raw():
            n += len(chunk)
        await response.aclose()
        return n

    return read


async def httpcore_reads(base: str) -> Callable[[], Awaitable[int]]:
    pool = httpcore.AsyncConnectionPool()
    url = base + "/chat/completions"
    headers = [(b"host", b"127.0.0.1"), (b"content-length", b"2")]

    async def read() -> int:
        n = 0
        request = httpcore.Request("POST", url, headers=headers, content=b"{}")
        response = await pool.handle_async_request(request)
        async for chunk in response.aiter_stream():
            n += len(chunk)
        await response.aclose()
        return n

    return read


CLIENTS = {"toolwire": toolwire_reads, "httpx": httpx_reads, "httpcore pool": httpcore_reads}


async def bench(base: str, events: int, rounds: int) -> None:
    readers = {name: await make(base) for name, make in CLIENTS.items()}
    sizes = {name: await read() for name, read in readers.items()}  # warm, and checked
    assert len(set(sizes.values())) == 1, sizes
    per_event: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(rounds):
        for name, read in readers.items():
            started = time.process_time()
            for _ in range(ANSWERS):
                await read()
            per_event[name].append((time.process_time() - started) / (ANSWERS * events))
    print(f"client CPU per SSE event, {events} events per answer, median of {rounds} rounds")
    for name, times in per_event.items():
        print(f"  {name:14} {statistics.median(times) * 1e6:6.2f} µs")


def count(base: str) -> None:
    """Under callgrind: each client's 10 answers in one ``functools.reduce``."""
    loop = asyncio.new_event_loop()
    readers = {name: loop.run_until_complete(make(base)) for name, make in CLIENTS.items()}
    for read in readers.values():
        loop.run_until_complete(read())  # warm: the connection is open, code paths run
    for name, read in readers.items():
        got = functools.reduce(
            lambda total, _: total + loop.run_until_complete(read()), range(ANSWERS), 0
        )
        print(name, got)


def callgrind(events: int) -> None:
    found = reduce_loops([__file__, "--count", "--events", str(events)])
    if found is None:
        raise SystemExit("valgrind is not installed")
    counts, _ = found
    print(f"instructions per SSE event, {events} events per answer (callgrind)")
    for name, instructions in zip(CLIENTS, counts, strict=True):
        print(f"  {name:14} {instructions / (ANSWERS * events):8,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--count", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.serve:
        serve(opts.serve)
        return
    if opts.callgrind:
        callgrind(opts.events)
        return
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(opts.events)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        base = f"http://127.0.0.1:{port}/v1"
        if opts.count:
            count(base)
        else:
            asyncio.run(bench(base, opts.events, opts.rounds))
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(10)


if __name__ == "__main__":
    main()

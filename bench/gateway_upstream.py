"""The scripted OpenAI Chat upstream of ``bench_gateway.py``: a minimal HTTP/1.1 server
on loopback (its own process) that streams ``chat.completion.chunk`` messages as
vLLM does, one message per HTTP chunk, keep-alive.

The case is named in the request body (any gateway passes the user's text on):
``bench:text:N:MS`` streams N content deltas, ``bench:tool:BYTES:MS`` one call whose
arguments (a JSON object of BYTES) come in 16-byte deltas; MS > 0 paces the deltas
that many milliseconds apart, and then every text delta starts with ``@<send time in
ns, CLOCK_MONOTONIC>|`` so that the client can time each chunk. Run:
``python bench/gateway_upstream.py PORT_FILE`` (writes its port there).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time

from toolwire.replay import chat_chunk as chunk

CASE = re.compile(rb"bench:(text|tool):(\d+):(\d+)")
TOOL_DELTA = 16


def text_piece(i: int) -> str:
    return f"w{i} "


def tool_arguments(size: int) -> str:
    """A JSON object of ``size`` bytes (escapes included) for ``write_file``."""
    head, tail = '{"path": "notes.txt", "content": "', '"}'
    unit = 'line of text with \\"quotes\\" and a tab\\t\\n'
    body = (unit * (size // len(unit) + 1))[: size - len(head) - len(tail)]
    body = body.rstrip("\\")  # never end inside an escape
    return head + body + tail


def opening() -> bytes:
    return chunk({"role": "assistant", "content": ""})


def ending(finish: str, completion: int) -> bytes:
    usage = {"prompt_tokens": 20, "completion_tokens": completion, "total_tokens": 20 + completion}
    tail = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "choices": []}
    tail["usage"] = usage
    return chunk({}, finish) + b"data: " + json.dumps(tail).encode() + b"\n\n" + b"data: [DONE]\n\n"


def tool_chunks(size: int) -> list[bytes]:
    arguments = tool_arguments(size)
    header = {"index": 0, "id": "call_bench", "type": "function"}
    out = [
        opening(),
        chunk({"tool_calls": [{**header, "function": {"name": "write_file", "arguments": ""}}]}),
    ]
    for at in range(0, len(arguments), TOOL_DELTA):
        piece = arguments[at : at + TOOL_DELTA]
        out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    return out


_cache: dict[tuple[str, int], list[bytes]] = {}


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
            body = await reader.readexactly(int(length.group(1)) if length else 0)
            found = CASE.search(body)
            if found is None:
                error = b'{"error": {"message": "no bench case in the request"}}'
                writer.write(b"HTTP/1.1 400 Bad\r\ncontent-type: application/json\r\n")
                writer.write(b"content-length: %d\r\n\r\n%s" % (len(error), error))
                continue
            kind, size, pace = found.group(1).decode(), int(found.group(2)), int(found.group(3))
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n"
            )
            await stream(writer, kind, size, pace / 1000)
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def stream(writer: asyncio.StreamWriter, kind: str, size: int, pace: float) -> None:
    def send(data: bytes) -> None:
        writer.write(b"%x\r\n%s\r\n" % (len(data), data))

    if pace:  # stamped at the moment each delta goes out
        send(opening())
        start = time.monotonic()
        for i in range(size):
            await asyncio.sleep(max(0.0, start + (i + 1) * pace - time.monotonic()))
            send(chunk({"content": f"@{time.monotonic_ns():019d}|"}))
            await writer.drain()
    else:
        pieces = _cache.get((kind, size))
        if pieces is None:
            if kind == "text":
                pieces = [opening()] + [chunk({"content": text_piece(i)}) for i in range(size)]
            else:
                pieces = tool_chunks(size)
            _cache[(kind, size)] = pieces
        for i, piece in enumerate(pieces):
            send(piece)
            if i % 64 == 63:
                await writer.drain()
    send(ending("stop" if kind == "text" else "tool_calls", size))
    writer.write(b"0\r\n\r\n")
    await writer.drain()


async def main(port_file: str) -> None:
    server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=1024)
    with open(port_file, "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

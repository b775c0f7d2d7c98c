"""stdin and stdout as pipes on the event loop, for the front's stdio transport.

The SDK's ``stdio_server`` reads and writes every line through a worker thread: three
thread handoffs per call (read the request, write and flush the answer), which on a
loaded machine cost more than everything else the front does for a call. Here the
pipes are read and written by the event loop itself. As the SDK does, fd 0 and fd 1
are pointed away from the wire while serving (to the null device and to stderr), so
that a tool printing something cannot corrupt the protocol, and put back afterwards.

Only for pipes (how an MCP client starts a server) on the asyncio loop; anything
else (a terminal, a file, another event loop) gets the SDK's transport.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

from mcp.server.stdio import stdio_server

LINE_LIMIT = 64 * 1024 * 1024  # one JSON-RPC message per line; results can be large


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _Lines:
    """What ``stdio_server`` reads: an async iterator of text lines."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _Out:
    """What ``stdio_server`` writes to: ``write`` then ``flush``."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


@asynccontextmanager
async def front_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """``(read, write)`` streams for ``Server.run`` over this process's stdin/stdout."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # another event loop (trio)
        loop = None
    if loop is None or not (_is_pipe(0) and _is_pipe(1)):
        async with stdio_server() as streams:
            yield streams
        return
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    transports: list[asyncio.BaseTransport] = []
    try:
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
        )
        transports.append(read_transport)
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0)
        )
        transports.append(write_transport)
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        async with stdio_server(_Lines(reader), _Out(writer)) as streams:  # type: ignore[arg-type]
            yield streams
    finally:
        for transport in transports:
            transport.close()
        with suppress(OSError):
            os.dup2(saved_in, 0)
            os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)

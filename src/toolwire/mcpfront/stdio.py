"""stdin and stdout as pipes on the event loop, for the front's stdio transport.

The SDK's ``stdio_server`` reads and writes every line through a worker thread: three
thread handoffs per call (read the request, write and flush the answer), and then
passes each message through a task of its own on either side (a reader task feeding a
memory stream, a writer task draining one): two more trips through the event loop per
call. On a loaded machine these cost more than everything else the front does for a
call. Here the pipes are read and written by the event loop itself, and the server
reads parsed messages straight from stdin and writes answers straight to stdout. As
the SDK does, fd 0 and fd 1 are pointed away from the wire while serving (to the null
device and to stderr), so that a tool printing something cannot corrupt the protocol,
and put back afterwards.

Only for pipes (how an MCP client starts a server) on the asyncio loop; anything
else (a terminal, a file, another event loop) gets the SDK's transport.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from types import TracebackType
from typing import Any, Self

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

LINE_LIMIT = 64 * 1024 * 1024  # one JSON-RPC message per line; results can be large


def json_line(message: dict[str, Any]) -> bytes:
    """One JSON-RPC message as a line of UTF-8 (a lone surrogate, which UTF-8 cannot
    hold, is written escaped: valid JSON either way)."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class PipeEnd:
    """What the streams over pipes share: closing (the pipes themselves are closed by
    whoever opened them), and use as an async context manager."""

    def __init__(self) -> None:
        self._closed = False

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class PipeIn(PipeEnd):
    """The server's read stream: each line of stdin parsed as a JSON-RPC message when
    the server asks for the next one (a line that is not one is handed on as the
    exception, as the SDK's transport does)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        super().__init__()
        self._reader = reader
        # Takes a line the front answers itself (see ``fast``); False: the SDK's.
        self.take: Callable[[bytes], bool] | None = None

    async def receive(self) -> SessionMessage | Exception:
        if self._closed:
            raise anyio.ClosedResourceError
        line = await self._reader.readline()
        while self.take is not None and line and self.take(line):
            line = await self._reader.readline()
        if not line:
            raise anyio.EndOfStream
        text = line.decode("utf-8", errors="replace")  # as the SDK reads stdin
        try:
            message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except Exception as exc:
            return exc
        return SessionMessage(message)

    def __aiter__(self) -> PipeIn:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class PipeOut(PipeEnd):
    """The server's write stream: each message written to stdout as one line by the
    task that sends it (the pipe keeps them whole and in order)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        super().__init__()
        self._writer = writer

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        await self.write_line(text.encode("utf-8") + b"\n")

    async def write_line(self, data: bytes) -> None:
        """Write one whole message line (the front's own answers use this too)."""
        if self._closed:
            raise anyio.ClosedResourceError
        self._writer.write(data)
        await self._writer.drain()  # returns at once unless the client reads slowly


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
        yield PipeIn(reader), PipeOut(writer)
    finally:
        for transport in transports:
            transport.close()
        with suppress(OSError):
            os.dup2(saved_in, 0)
            os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)

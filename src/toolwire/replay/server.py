"""A replay model server: a real HTTP/1.1 server on loopback that answers each request
with a recorded stream, in the shapes real servers send, with fault modes.

    with ReplayServer({"my-model": Script(chunks)}) as server:
        client = ModelClient("openai-chat", server.url)   # http://127.0.0.1:PORT/v1

The request's ``model`` picks the answer (``default`` names the one for any other
model). An answer is a ``Script``, or a function of the request body that returns one
(``Dialogue`` answers by turn). Streams go out with chunked transfer encoding, one
recorded message per chunk, so a drop (``drop_after``) looks on the wire as it does
from a real server: the connection closes before the last chunk. ``requests`` holds
what arrived; ``disconnects`` the times clients went away while a response was still
being sent. Used by ``toolwire demo`` and by the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson


@dataclass
class Script:
    """One scripted answer. ``fail``: answers given before it, one per request, as
    ``(status, retry_after)``; ``drop_after``: close after this many chunks;
    ``first_byte_delay``: seconds before the response headers; ``body``: the whole
    answer to a request that does not stream (None: the chunks either way);
    ``error_message``: the failures' message, where ``{status}`` is their status and
    ``{key}`` the key the request carried (servers that echo a key they refuse)."""

    chunks: list[bytes]
    content_type: str = "text/event-stream"
    drop_after: int | None = None
    first_byte_delay: float = 0.0
    chunk_delay: float = 0.0
    fail: list[tuple[int, float | None]] = field(default_factory=list)
    always_fail: tuple[int, float | None] | None = None
    body: bytes | None = None
    error_message: str = "scripted {status}"


Answer = Script | Callable[[Any], Script]


@dataclass
class Dialogue:
    """Answers by turn: the number of tool results in the request's history picks the
    script (the first turn has none); the last script answers every later turn. A tool
    result is, by wire: a Chat or Ollama ``tool`` message, an Anthropic ``tool_result``
    block, a Responses ``function_call_output`` item, a Gemini ``functionResponse``
    part."""

    turns: list[Script]

    def __call__(self, body: Any) -> Script:
        return self.turns[min(tool_results(body), len(self.turns) - 1)]


def tool_results(body: Any) -> int:
    """How many tool results a request of any wire carries."""
    if not isinstance(body, dict):
        return 0
    entries = body.get("messages") or body.get("input") or body.get("contents")
    if not isinstance(entries, list):
        return 0
    return sum(_tool_results(m) for m in entries if isinstance(m, dict))


def _tool_results(entry: dict[str, Any]) -> int:
    if entry.get("role") == "tool" or entry.get("type") == "function_call_output":
        return 1
    blocks = entry.get("content")
    if not isinstance(blocks, list):
        blocks = entry.get("parts")  # Gemini
    if not isinstance(blocks, list):
        return 0
    return sum(
        1
        for b in blocks
        if isinstance(b, dict) and (b.get("type") == "tool_result" or "functionResponse" in b)
    )


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: Any


class ReplayServer:
    """The server, on its own event loop in a thread; a context manager."""

    def __init__(self, scripts: Mapping[str, Answer], default: str | None = None) -> None:
        self.scripts = dict(scripts)
        self.default = default
        self.requests: list[Received] = []
        self.disconnects: list[float] = []
        self.tries: dict[str, int] = {}
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._ready = threading.Event()
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the replay server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        current = asyncio.current_task()
        tasks = [t for t in asyncio.all_tasks() if t is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            # a backlog for hundreds of clients connecting at once
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024)
            self.port = self._server.sockets[0].getsockname()[1]
            self._ready.set()

        self._loop.run_until_complete(start())
        self._loop.run_forever()
        self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    def _script(self, path: str, body: Any) -> tuple[str, Script | None]:
        name = str(body.get("model")) if isinstance(body, dict) else ""
        in_path = _GEMINI_MODEL.search(path)  # Gemini names the model in the URL
        if in_path is not None:
            name = in_path.group(1)
        answer = self.scripts.get(name)
        if answer is None and self.default is not None:
            answer = self.scripts.get(self.default)
        if answer is None or isinstance(answer, Script):
            return name, answer
        return name, answer(body)

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        _method, path, _version = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                key, value = line.split(":", 1)
                headers[key.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        try:
            body = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            body = None
        self.requests.append(Received(path, headers, body))
        if _method == "GET" and path.endswith("/models"):  # the scripts, as model names
            names = [{"id": name, "object": "model"} for name in self.scripts]
            await _respond(writer, 200, {"object": "list", "data": names})
            return True
        name, script = self._script(path, body)
        if script is None:
            await _respond(writer, 404, {"error": {"message": f"no script {name!r}"}})
            return True
        tries = self.tries[name] = self.tries.get(name, 0) + 1
        failure = script.always_fail or (
            script.fail[tries - 1] if tries <= len(script.fail) else None
        )
        if failure is not None:
            status, retry_after = failure
            extra = {"retry-after": str(retry_after)} if retry_after is not None else {}
            message = script.error_message.format(status=status, key=_key_sent(headers))
            await _respond(writer, status, {"error": {"message": message}}, extra)
            return True
        await asyncio.sleep(script.first_byte_delay)
        if script.body is not None and not _streaming(path, body):
            await _respond(writer, 200, script.body)
            return True
        if script.content_type == "application/json":
            await _respond(writer, 200, script.chunks[0])
            return True
        return await self._stream(script, reader, writer)

    async def _stream(
        self, script: Script, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        # A whole stream leaves the connection open for the next request, as model
        # servers do; one scripted to drop says it closes, so that no client reuses it.
        close = b"connection: close\r\n" if script.drop_after is not None else b""
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: "
            + script.content_type.encode()
            + b"\r\ntransfer-encoding: chunked\r\n"
            + close
            + b"\r\n"
        )
        gone = asyncio.ensure_future(reader.read(1))  # EOF: the client went away
        try:
            for sent, chunk in enumerate(script.chunks):
                if script.drop_after is not None and sent >= script.drop_after:
                    return False  # close without the last chunk: a drop
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()
                if script.chunk_delay:
                    await asyncio.wait({gone}, timeout=script.chunk_delay)
                if gone.done():
                    self.disconnects.append(time.monotonic())
                    return False
            # stop watching before the end, and wait until the watch has let go of the
            # reader: the client's next request is read by the next ``_one``, which a
            # watch still pending would race ("readuntil() called while another
            # coroutine is already waiting")
            gone.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await gone
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return True
        finally:
            gone.cancel()


def _key_sent(headers: Mapping[str, str]) -> str:
    """The API key a request carried, in any wire's header."""
    bearer = headers.get("authorization", "").removeprefix("Bearer ")
    return bearer or headers.get("x-api-key") or headers.get("x-goog-api-key") or ""


_GEMINI_MODEL = re.compile(r"/models/([^/:]+):(\w+)")


def _streaming(path: str, body: Any) -> bool:
    """Whether the request asks for a stream (Gemini says so by its URL's method)."""
    in_path = _GEMINI_MODEL.search(path)
    if in_path is not None:
        return in_path.group(2) == "streamGenerateContent"
    return isinstance(body, dict) and body.get("stream") is True


async def _respond(
    writer: asyncio.StreamWriter,
    status: int,
    body: Any,
    headers: dict[str, str] | None = None,
) -> None:
    data = body if isinstance(body, bytes) else orjson.dumps(body)
    head = f"HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\n"
    head += f"content-length: {len(data)}\r\n"
    for key, value in (headers or {}).items():
        head += f"{key}: {value}\r\n"
    writer.write(head.encode() + b"\r\n" + data)
    await writer.drain()

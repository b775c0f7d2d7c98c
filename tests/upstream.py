"""A scripted model server for tests: a real HTTP/1.1 server on loopback that replays
recorded streams in the shapes real servers send, with fault modes.

    with ScriptedUpstream(SCRIPTS) as upstream:
        client = ModelClient("openai-chat", upstream.url)   # http://127.0.0.1:PORT/v1

The request's ``model`` picks the script. Streams go out with chunked transfer
encoding, one recorded message per chunk, so a drop (``drop_after``) looks on the
wire as it does from a real server: the connection closes before the last chunk.
``requests`` holds what arrived; ``disconnects`` the times clients went away while a
response was still being sent.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

DATA = Path(__file__).parent / "data"


@dataclass
class Script:
    """One scripted answer. ``fail``: answers given before it, one per request, as
    ``(status, retry_after)``; ``drop_after``: close after this many chunks;
    ``first_byte_delay``: seconds before the response headers; ``body``: the whole
    answer to a request that does not stream (None: the chunks either way)."""

    chunks: list[bytes]
    content_type: str = "text/event-stream"
    drop_after: int | None = None
    first_byte_delay: float = 0.0
    chunk_delay: float = 0.0
    fail: list[tuple[int, float | None]] = field(default_factory=list)
    always_fail: tuple[int, float | None] | None = None
    body: bytes | None = None


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: Any


def sse_messages(data: bytes) -> list[bytes]:
    """A recorded SSE stream split into its messages (each keeps its blank line)."""
    return [part + b"\n\n" for part in data.replace(b"\r\n", b"\n").split(b"\n\n") if part.strip()]


def chat_chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    """One ``chat.completion.chunk`` message, as vLLM / llama.cpp send it."""
    body = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 1717171717,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }
    return b"data: " + orjson.dumps(body) + b"\n\n"


def usage_chunk(prompt: int, completion: int) -> bytes:
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    body = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "choices": []}
    return b"data: " + orjson.dumps({**body, "usage": usage}) + b"\n\n"


DONE = b"data: [DONE]\n\n"


def call_stream(
    name: str, fragments: list[str], finish: str, call_id: str = "call_1"
) -> list[bytes]:
    """A streamed call: the header, its argument fragments, the finish, usage, DONE."""
    chunks = [chat_chunk({"role": "assistant", "content": None})]
    header = {"index": 0, "id": call_id, "type": "function", "function": {"name": name}}
    chunks.append(
        chat_chunk({"tool_calls": [{**header, "function": {"name": name, "arguments": ""}}]})
    )
    for fragment in fragments:
        chunks.append(
            chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]})
        )
    chunks += [chat_chunk({}, finish), usage_chunk(40, 12), DONE]
    return chunks


def text_stream(pieces: list[str], finish: str = "stop") -> list[bytes]:
    chunks = [chat_chunk({"role": "assistant", "content": ""})]
    chunks += [chat_chunk({"content": piece}) for piece in pieces]
    return [*chunks, chat_chunk({}, finish), usage_chunk(20, len(pieces)), DONE]


WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string"},
        "days": {"type": "integer"},
    },
    "required": ["city"],
}

# the recorded streams: what each scripted model answers
F32_LLAMA_CPP = sse_messages((DATA / "llama_cpp_python_forced_tool_choice.sse").read_bytes())
# F33: max_tokens cut the arguments, yet the server says tool_calls
F33_CUT_OFF = call_stream("get_weather", ['{"city": ', '"Par', "is"], "tool_calls")
PYTHON_DICT = call_stream("get_weather", ["{'city': 'Lima', ", "'days': '2',}"], "tool_calls")
# F34: a stream=false body (the server answers a whole chat.completion)
F34_BODY = orjson.dumps(
    {
        "id": "chatcmpl-body",
        "object": "chat.completion",
        "created": 1717171717,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_body",
                            "type": "function",
                            "function": {
                                "name": "get_weather",
                                "arguments": '{"city": "Oslo", "days": "3"}',
                            },
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39},
    }
)
# F35: a local model writes its call as fenced JSON in the text
F35_FENCED = text_stream(
    ['Checking.\n```json\n{"name": "get_wea', 'ther", "arguments": {"city": "Ro', 'me"}}\n```'],
)
UNREADABLE = call_stream("get_weather", ["<<<not json>>>"], "tool_calls")
PLAIN_TEXT = text_stream(["Hello", ", ", "world."])

SCRIPTS: dict[str, Script] = {
    "f32-llama-cpp": Script(F32_LLAMA_CPP),
    "f33-cut-off": Script(F33_CUT_OFF),
    "f34-body": Script([F34_BODY], content_type="application/json"),
    "f35-fenced": Script(F35_FENCED),
    "python-dict": Script(PYTHON_DICT),
    "unreadable": Script(UNREADABLE),
    "text": Script(PLAIN_TEXT),
    "drop": Script(PYTHON_DICT, drop_after=3),
    "slow-first-byte": Script(PLAIN_TEXT, first_byte_delay=2.0),
    "rate-limited": Script(PLAIN_TEXT, fail=[(429, 0.2)]),
    "server-error": Script(PLAIN_TEXT, always_fail=(500, None)),
    "bad-request": Script(PLAIN_TEXT, always_fail=(400, None)),
    "slow-stream": Script(text_stream(["tick "] * 200), chunk_delay=0.05),
}


class ScriptedUpstream:
    """The server, on its own event loop in a thread; a context manager."""

    def __init__(self, scripts: dict[str, Script] | None = None) -> None:
        self.scripts = dict(SCRIPTS if scripts is None else scripts)
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

    def __enter__(self) -> ScriptedUpstream:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the scripted upstream did not start")
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
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
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
        body = orjson.loads(raw) if raw else None
        self.requests.append(Received(path, headers, body))
        name = str(body.get("model")) if isinstance(body, dict) else ""
        in_path = re.search(r"/models/([^/:]+):(\w+)", path)  # Gemini names it in the URL
        if in_path is not None:
            name = in_path.group(1)
        streaming = (
            in_path.group(2) == "streamGenerateContent"
            if in_path is not None
            else isinstance(body, dict) and body.get("stream") is True
        )
        script = self.scripts.get(name)
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
            await _respond(writer, status, {"error": {"message": f"scripted {status}"}}, extra)
            return True
        await asyncio.sleep(script.first_byte_delay)
        if script.body is not None and not streaming:
            await _respond(writer, 200, script.body)
            return True
        if script.content_type == "application/json":
            await _respond(writer, 200, script.chunks[0])
            return True
        return await self._stream(script, reader, writer)

    async def _stream(
        self, script: Script, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: "
            + script.content_type.encode()
            + b"\r\ntransfer-encoding: chunked\r\n\r\n"
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
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return False
        finally:
            gone.cancel()


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

"""The front's pipes to a stdio backend, with ``tools/call`` written on them directly.

Through the SDK's client a ``tools/call`` is built and dumped by pydantic, handed to a
writer task by a memory stream, its answer parsed by pydantic in a reader task,
handed to the session by another memory stream, and validated twice more (against
the protocol version's surface and as a ``CallToolResult``); under callgrind that
was the largest part of the front's work per call (``bench/bench_mcp_front_ir.py``).
Here the front owns the child's pipes: a ``tools/call`` is written as one JSON line
with a request id of its own (``toolwire-N``, never one the SDK's session mints), and
the line that answers it is read with ``json.loads`` by the task reading the pipe
and checked for the few fields the front uses. Everything else, both ways (start-up,
discovery, ``tools/list_changed``, resources, prompts, progress of other requests),
goes through the SDK's session as before, over the same pipes.

Progress (``progressToken`` = the request id) and cancellation
(``notifications/cancelled`` when the caller gives up: a timeout or the client's own
cancellation) are kept. On a 2026-era session each request carries the session's
envelope in ``_meta``; the front copies it from the requests the SDK's session writes
(its ``tools/list`` comes first), so a raw call says exactly what the session says.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, TextIO

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.client.stdio import (
    StdioServerParameters,
    _create_platform_compatible_process,
    _get_executable_command,
    _stop_server_process,
    get_default_environment,
)
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolwire.mcpfront.stdio import PipeEnd, json_line
from toolwire.tools.base import ProgressFn, ToolOutput
from toolwire.tools.mcp import MCPTool, MCPToolError, MCPToolset, output_from_result
from toolwire.tools.mcp_config import MCPServerConfig

logger = logging.getLogger(__name__)

ID_PREFIX = "toolwire-"
_ID_MARK = b'"' + ID_PREFIX.encode()  # a line without it is never one of ours
# The 2026-era envelope keys the SDK's session stamps on each request's ``_meta``.
_ENVELOPE = (
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/logLevel",
)
CANCEL_WRITE_WAIT = 2.0  # seconds a cancellation notice may wait on a full pipe


@dataclass(eq=False, slots=True)
class _Waiting:
    progress: ProgressFn | None
    done: anyio.Event = field(default_factory=anyio.Event)
    reply: dict[str, Any] | None = None


class BackendPipes:
    """One backend process's pipes, shared by the SDK's session and raw calls."""

    def __init__(self, process: Any) -> None:
        self._process = process
        # anyio's send on a pipe yields to the event loop once more after the write
        # (a loop turn per message: 0.05 M of the front's instructions per call, callgrind);
        # the asyncio writer underneath, where there is one, writes without it.
        writer = getattr(getattr(process, "_process", None), "stdin", None)
        self._writer = writer if isinstance(writer, asyncio.StreamWriter) else None
        self._pending: dict[str, _Waiting] = {}
        self._next_id = 0
        self.envelope: dict[str, Any] | None = None  # copied from the session's requests
        self.closed = False

    def usable(self, protocol_version: str | None) -> bool:
        """Whether a raw call can say what the session would: open, and on a
        2026-era session once the session's envelope is known."""
        if self.closed:
            return False
        return protocol_version not in MODERN_PROTOCOL_VERSIONS or self.envelope is not None

    async def write(self, message: dict[str, Any]) -> None:
        await self._write_line(json_line(message))

    async def _write_line(self, data: bytes) -> None:
        writer = self._writer
        try:
            if writer is None:
                await self._process.stdin.send(data)
                return
            if writer.is_closing():
                raise BrokenPipeError
            writer.write(data)
            await writer.drain()  # returns at once unless the backend reads slowly
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError, RuntimeError):
            raise MCPError(code=types.CONNECTION_CLOSED, message="Connection closed") from None

    def _notice(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.envelope:
            params = {**params, "_meta": dict(self.envelope)}
        return {"jsonrpc": "2.0", "method": method, "params": params}

    async def call_tool(
        self, name: str, arguments: dict[str, Any], progress: ProgressFn | None
    ) -> dict[str, Any]:
        """The backend's ``result`` for ``tools/call``; its error answer raises ``MCPError``
        (``CONNECTION_CLOSED`` when the pipes closed first)."""
        if self.closed:
            raise MCPError(code=types.CONNECTION_CLOSED, message="Connection closed")
        self._next_id += 1
        request_id = f"{ID_PREFIX}{self._next_id}"
        meta = dict(self.envelope) if self.envelope else {}
        if progress is not None:
            meta["progressToken"] = request_id
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if meta:
            params["_meta"] = meta
        waiting = _Waiting(progress)
        self._pending[request_id] = waiting
        try:
            request = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
            await self.write(request)
            await waiting.done.wait()
        except BaseException:
            if self._pending.pop(request_id, None) is not None and not self.closed:
                await self._cancel(request_id)
            raise
        self._pending.pop(request_id, None)
        reply = waiting.reply
        if reply is None:
            raise MCPError(code=types.CONNECTION_CLOSED, message="Connection closed")
        error = reply.get("error")
        if error is not None:
            if not isinstance(error, dict):
                error = {}
            code = error.get("code")
            raise MCPError(
                code=code if isinstance(code, int) else types.INTERNAL_ERROR,
                message=str(error.get("message", "")),
                data=error.get("data"),
            )
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    async def _cancel(self, request_id: str) -> None:
        """Tell the backend the caller gave up (as the SDK's session does)."""
        notice = self._notice(
            "notifications/cancelled", {"requestId": request_id, "reason": "cancelled"}
        )
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(CANCEL_WRITE_WAIT),
            suppress(MCPError),
        ):
            await self.write(notice)

    async def take(self, line: bytes) -> bool:
        """Handle a line meant for a raw call (its answer, or progress of it); False
        when it is for the SDK's session."""
        if not self._pending or _ID_MARK not in line:
            return False
        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict):
            return False
        request_id = message.get("id")
        if "method" not in message and isinstance(request_id, str):
            waiting = self._pending.get(request_id)
            if waiting is None:
                return request_id.startswith(ID_PREFIX)  # a late answer to a cancelled call
            waiting.reply = message
            waiting.done.set()
            return True
        if message.get("method") == "notifications/progress":
            params = message.get("params")
            token = params.get("progressToken") if isinstance(params, dict) else None
            waiting = self._pending.get(token) if isinstance(token, str) else None
            if waiting is None or params is None:
                return False
            progress, total = params.get("progress"), params.get("total")
            if waiting.progress is not None and isinstance(progress, int | float):
                text = params.get("message")
                try:
                    await waiting.progress(
                        float(progress),
                        float(total) if isinstance(total, int | float) else None,
                        text if isinstance(text, str) else None,
                    )
                except Exception:  # as in the SDK's session: it must not end the session
                    logger.exception("progress callback failed")
            return True
        return False

    def fail_all(self) -> None:
        """The pipes closed: every raw call still waiting ends (``CONNECTION_CLOSED``)."""
        self.closed = True
        for waiting in self._pending.values():
            waiting.done.set()
        self._pending.clear()

    def note_envelope(self, message: Any) -> None:
        """Keep the 2026-era envelope the SDK's session put on a request it wrote."""
        if not isinstance(message, types.JSONRPCRequest) or not message.params:
            return
        meta = message.params.get("_meta")
        if isinstance(meta, dict) and _ENVELOPE[0] in meta:
            self.envelope = {k: meta[k] for k in _ENVELOPE if k in meta}


class _SessionWrite(PipeEnd):
    """The SDK session's write stream: each message written as one line on the pipe."""

    def __init__(self, pipes: BackendPipes) -> None:
        super().__init__()
        self._pipes = pipes

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        self._pipes.note_envelope(item.message)
        text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        try:
            await self._pipes._write_line(text.encode("utf-8") + b"\n")
        except MCPError:
            raise anyio.BrokenResourceError from None


def _parse(line: bytes) -> SessionMessage | Exception:
    """A line for the SDK's session, parsed as its own transport does."""
    try:
        text = line.decode("utf-8", errors="replace")
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        return exc


async def _read(
    pipes: BackendPipes,
    stdout: anyio.abc.ByteReceiveStream,
    to_session: MemoryObjectSendStream[Any],
) -> None:
    """Read the backend's stdout line by line: raw calls' lines are taken, the rest
    go to the session; at the end every raw call still waiting is failed. Once the
    session is gone the rest is read and dropped (as the SDK's transport drains it),
    so that a backend writing at shutdown is not stuck on a full pipe."""
    session_open = True
    try:
        async with to_session:
            buffer = b""
            async for chunk in stdout:
                lines = (buffer + chunk).split(b"\n")
                buffer = lines.pop()
                for line in lines:
                    if not line.strip() or await pipes.take(line) or not session_open:
                        continue
                    try:
                        await to_session.send(_parse(line))
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        session_open = False
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        pass  # closed under the read by shutdown, or the pipe broke: both end the session
    finally:
        pipes.fail_all()


@asynccontextmanager
async def backend_stdio(
    server: StdioServerParameters, errlog: TextIO, opened: Callable[[BackendPipes], None]
) -> AsyncIterator[tuple[Any, Any]]:
    """A stdio transport for the SDK's ``Client`` (``(read, write)`` streams) whose
    pipes are also given to ``opened`` for raw calls. Started and stopped as the
    SDK's ``stdio_client`` does (its helpers: the process group, the shutdown order)."""
    command = await _get_executable_command(server.command)
    process = await _create_platform_compatible_process(
        command=command, args=server.args, env=server.env, errlog=errlog, cwd=server.cwd
    )
    assert process.stdout is not None
    pipes = BackendPipes(process)
    to_session, from_pipes = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    opened(pipes)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_read, pipes, process.stdout, to_session)
        try:
            yield from_pipes, _SessionWrite(pipes)
        finally:
            pipes.fail_all()
            with anyio.CancelScope(shield=True):
                from_pipes.close()
                await _stop_server_process(process)
            tasks.cancel_scope.cancel()


def output_of(raw: dict[str, Any]) -> ToolOutput:
    """A raw ``tools/call`` result as ``output_from_result`` maps the SDK's model:
    text blocks read here; any other shape is validated by the SDK's model first."""
    content = raw.get("content")
    is_error = raw.get("isError")
    structured = raw.get("structuredContent")
    texts: list[str] = []
    plain = (
        isinstance(content, list)
        and raw.get("resultType", "complete") == "complete"
        and isinstance(is_error, bool | None)
        and isinstance(structured, dict | None)
    )
    if plain:
        assert isinstance(content, list)
        for block in content:
            if not (isinstance(block, dict) and block.get("type") == "text"):
                plain = False
                break
            text = block.get("text")
            if not isinstance(text, str):
                plain = False
                break
            texts.append(text)
    if not plain:
        return output_from_result(types.CallToolResult.model_validate(raw, by_name=False))
    value: Any = "\n".join(texts) if texts else (structured if structured is not None else "")
    return ToolOutput(
        value=value, is_error=bool(is_error), structured=None if is_error else structured
    )


class FrontToolset(MCPToolset):
    """An ``MCPToolset`` whose stdio backend's pipes are ``BackendPipes``: its
    ``tools/call`` go on them directly; everything else through the SDK's session.

    A tool with an output schema is called through the session, which checks the
    result against it; so is any call while the session is down (it starts the
    backend again) or before a 2026-era session has written its envelope.
    """

    def __init__(
        self, config: MCPServerConfig, *, errlog: TextIO | None = None, keep_trying: bool = False
    ) -> None:
        super().__init__(config, errlog=errlog, keep_trying=keep_trying)
        self._pipes: BackendPipes | None = None
        self._schema_tools: list[MCPTool] | None = None
        self._with_output_schema: set[str] = set()

    async def _transport(self, stack: AsyncExitStack) -> Any:
        cfg = self.config
        if cfg.transport != "stdio":
            return await super()._transport(stack)
        assert cfg.command is not None
        env = {**get_default_environment(), **cfg.env}
        params = StdioServerParameters(
            command=cfg.command, args=list(cfg.args), env=env, cwd=cfg.cwd
        )
        return backend_stdio(params, self._errlog or sys.stderr, self._opened)

    def _opened(self, pipes: BackendPipes) -> None:
        # Only one session is being opened at a time (a restart waits for the last
        # to be found broken), so the newest pipes are the current session's.
        self._pipes = pipes

    def _checks_output(self, name: str) -> bool:
        if self._schema_tools is not self.tools:
            self._schema_tools = self.tools
            self._with_output_schema = {t.remote_name for t in self.tools if t.output_schema}
        return name in self._with_output_schema

    async def call(
        self, name: str, arguments: dict[str, Any], *, progress: ProgressFn | None = None
    ) -> ToolOutput:
        pipes, connection = self._pipes, self._connection
        if (
            pipes is None
            or connection is None
            or connection.broken
            or connection.client is None
            or not pipes.usable(connection.client.protocol_version)
            or self._checks_output(name)
        ):
            return await super().call(name, arguments, progress=progress)
        try:
            raw = await pipes.call_tool(name, arguments, progress)
        except MCPError as exc:
            if exc.code != types.CONNECTION_CLOSED:
                raise MCPToolError(self.name, exc.code, exc.message) from None
            connection.broken = True  # the next call starts the server again
            self._down_reason = exc.message
            raise self._unavailable(
                f"{exc.message} during the call; it is started again on the next call"
            ) from None
        return output_of(raw)


@asynccontextmanager
async def open_front_toolsets(
    configs: Iterable[MCPServerConfig], *, errlog: TextIO | None = None
) -> AsyncIterator[list[MCPToolset]]:
    """``open_toolsets(..., keep_trying=True)`` with ``FrontToolset``s."""
    async with AsyncExitStack() as stack:
        yield [
            await stack.enter_async_context(FrontToolset(cfg, errlog=errlog, keep_trying=True))
            for cfg in configs
        ]

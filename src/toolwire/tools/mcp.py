"""MCP servers as toolsets, through the official ``mcp`` SDK (v2, snake_case fields).

An ``MCPToolset`` owns one connection (stdio subprocess or streamable HTTP). Entering it
connects, discovers every tool (following ``next_cursor`` pages) and keeps each tool's
input schema and annotations. Annotations are *hints* from a server that may not be
trusted: they can make policy stricter, never looser.

The tool list is read again when the server says it changed (``tools/list_changed``
on a handshake-era session, a ``subscriptions/listen`` event on a 2026-era one) and
after the server is started again; listeners in ``on_tools_changed`` are told.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass, field, replace
from functools import partial
from types import TracebackType
from typing import Any, Literal, TextIO, TypeVar

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolwire.spec import EMPTY_OBJECT_SCHEMA, ToolSpec
from toolwire.tools.base import Executor, ProgressFn, ToolHints, ToolOutput
from toolwire.tools.mcp_config import MCPServerConfig

_T = TypeVar("_T")

MAX_PAGES = 100  # a server whose cursor never ends cannot hang discovery
STARTUP_TIMEOUT = 60.0  # seconds for start-up and discovery when no timeout is configured
RESTART_WAIT = 2.0  # seconds a call waits for its server to start again before "unavailable"
RETRY_FIRST = 1.0  # seconds before trying again to start a server that would not start
RETRY_MAX = 30.0  # the wait doubles after each failed try, up to this


class MCPServerError(Exception):
    """A server that could not be started or reached, or that quit before it answered."""

    def __init__(self, server: str, problem: str, *, exited: bool = False) -> None:
        super().__init__(f"MCP server {server!r}: {problem}")
        self.server = server
        self.problem = problem
        self.exited = exited  # the server process started and quit: its stderr says why


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups; the task groups of the SDK wrap them."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def connect_error(config: MCPServerConfig, exc: BaseException) -> MCPServerError:
    """What went wrong when connecting, in one line a person can act on."""
    leaves = _leaves(exc)
    # The cause, not its echo: a spawn error beats the closed connection it leads to.
    cause = next((e for e in leaves if isinstance(e, OSError)), leaves[0])
    exited = False
    if isinstance(cause, FileNotFoundError) and cause.filename in (config.command, None):
        problem = f"command {config.command!r} not found (is it installed and on PATH?)"
    elif isinstance(cause, OSError) and config.transport == "stdio":
        where = f" ({cause.filename})" if cause.filename not in (config.command, None) else ""
        problem = f"cannot start {config.command!r}: {cause.strerror or cause}{where}"
    elif isinstance(cause, MCPError) and cause.code == types.CONNECTION_CLOSED:
        exited = config.transport == "stdio"
        problem = (
            f"{config.command!r} exited before it answered"
            if exited
            else f"{config.url} closed the connection before it answered"
        )
    elif config.transport != "stdio":
        problem = f"cannot connect to {config.url}: {type(cause).__name__}: {cause}"
    else:
        problem = f"{type(cause).__name__}: {cause}"
    return MCPServerError(config.name, " ".join(problem.split()), exited=exited)


class MCPToolError(Exception):
    """The server answered a call with a protocol error (e.g. an unknown tool)."""

    def __init__(self, server: str, code: int, message: str) -> None:
        super().__init__(f"MCP server {server!r}: {message} (code {code})")
        self.server = server
        self.code = code
        self.message = message


def hints_from_annotations(
    annotations: types.ToolAnnotations | None, title: str | None
) -> ToolHints:
    if annotations is None:
        return ToolHints(title=title)
    return ToolHints(
        read_only=annotations.read_only_hint,
        destructive=annotations.destructive_hint,
        idempotent=annotations.idempotent_hint,
        open_world=annotations.open_world_hint,
        title=annotations.title or title,
    )


def _input_schema(tool: types.Tool) -> dict[str, Any]:
    schema = dict(tool.input_schema or {})
    # MCP does not require "properties"; every provider's tool format does.
    schema.setdefault("type", "object")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return schema or dict(EMPTY_OBJECT_SCHEMA)


def _block(block: Any) -> Any:
    if isinstance(block, types.TextContent):
        return block.text
    return block.model_dump(mode="json", by_alias=True, exclude_none=True)


def output_from_result(result: types.CallToolResult) -> ToolOutput:
    """Map a ``CallToolResult``: ``is_error`` stays an error; text blocks become text."""
    blocks = [_block(b) for b in result.content]
    value: Any
    if not blocks:
        value = result.structured_content if result.structured_content is not None else ""
    elif all(isinstance(b, str) for b in blocks):
        value = "\n".join(blocks)
    else:
        value = blocks
    return ToolOutput(
        value=value,
        is_error=bool(result.is_error),
        structured=None if result.is_error else result.structured_content,
    )


@dataclass(frozen=True, slots=True)
class MCPTool:
    """One tool of an MCP server. ``name`` may be namespaced; ``remote_name`` is the server's."""

    toolset: MCPToolset = field(repr=False, compare=False)
    remote_name: str
    spec: ToolSpec
    hints: ToolHints
    output_schema: dict[str, Any] | None = None
    timeout: float | None = None
    max_concurrency: int | None = None
    executor: Executor = "mcp"

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def origin(self) -> str:
        return f"mcp:{self.toolset.name}"

    @property
    def server(self) -> str:
        return self.toolset.name

    def rename(self, name: str) -> MCPTool:
        return replace(self, spec=replace(self.spec, name=name))

    async def invoke(
        self, arguments: dict[str, Any], *, progress: ProgressFn | None = None
    ) -> ToolOutput:
        return await self.toolset.call(self.remote_name, arguments, progress=progress)


@dataclass(eq=False)
class _Connection:
    """One session with a server, held open by a task of the toolset's task group."""

    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    ready: anyio.Event = field(default_factory=anyio.Event)
    client: Client | None = None
    tools: list[MCPTool] = field(default_factory=list)
    error: BaseException | None = None
    broken: bool = False
    # Woken when the server says its tool list changed; one pending wake is enough.
    wake: MemoryObjectSendStream[None] = field(init=False)
    woken: MemoryObjectReceiveStream[None] = field(init=False)

    def __post_init__(self) -> None:
        self.wake, self.woken = anyio.create_memory_object_stream[None](1)

    def tools_changed(self) -> None:
        with suppress(anyio.WouldBlock):
            self.wake.send_nowait(None)

    def close(self) -> None:
        self.scope.cancel()


class MCPToolset:
    """A connection to one MCP server and the tools it offers.

    Use as ``async with MCPToolset(config) as toolset: toolset.tools``. Calls may run
    concurrently over the one connection. Server stderr goes to ``errlog``.

    Start-up and discovery must end within the server's ``timeout`` (else
    ``STARTUP_TIMEOUT`` seconds), or entering raises :class:`MCPServerError`: a server
    that never answers ``tools/list`` cannot hang its caller. When a call finds the
    connection closed (the server crashed), that call fails and the next one starts
    the server again. When that fails, the server is tried again in the background
    with a doubling wait; calls meanwhile fail at once ("server unavailable").

    With ``keep_trying``, a server that cannot be started does not raise either: the
    toolset starts without tools (``startup_error`` says why) and keeps trying.
    """

    def __init__(
        self, config: MCPServerConfig, *, errlog: TextIO | None = None, keep_trying: bool = False
    ) -> None:
        self.config = config
        self.name = config.name
        self.tools: list[MCPTool] = []
        self.restarts = 0
        self.keep_trying = keep_trying
        self.startup_error: MCPServerError | None = None
        self._down_reason = ""
        self._retrying = False
        self._errlog = errlog
        self._connection: _Connection | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        self._stack: AsyncExitStack | None = None
        self._restarting = False
        self.restart_wait = RESTART_WAIT  # the most a call waits for a restart
        self.on_tools_changed: list[Callable[[MCPToolset], Awaitable[None]]] = []

    @property
    def startup_timeout(self) -> float:
        return self.config.timeout or STARTUP_TIMEOUT

    async def _transport(self, stack: AsyncExitStack) -> Any:
        cfg = self.config
        if cfg.transport == "stdio":
            assert cfg.command is not None
            env = {**get_default_environment(), **cfg.env}
            params = StdioServerParameters(
                command=cfg.command, args=list(cfg.args), env=env, cwd=cfg.cwd
            )
            return stdio_client(params, errlog=self._errlog or sys.stderr)
        if cfg.transport == "http":
            from mcp.client.streamable_http import streamable_http_client

            assert cfg.url is not None
            http_client = None
            if cfg.headers:
                import httpx2

                # Same timeouts the SDK's own client uses, plus the configured headers.
                timeout = httpx2.Timeout(30, read=300)
                http_client = await stack.enter_async_context(
                    httpx2.AsyncClient(headers=dict(cfg.headers), timeout=timeout)
                )
            return streamable_http_client(cfg.url, http_client=http_client)
        from mcp.client.sse import sse_client

        assert cfg.url is not None
        return sse_client(cfg.url, headers=dict(cfg.headers) or None)

    async def __aenter__(self) -> MCPToolset:
        """Connect and discover the tools; raises ``MCPServerError`` when that fails."""
        stack = AsyncExitStack()
        self._tasks = await stack.enter_async_context(anyio.create_task_group())
        try:
            connection = await self._connect()
        except MCPServerError as exc:
            if not self.keep_trying:
                self._tasks = None
                await stack.aclose()
                raise
            self.startup_error = exc
            self._down_reason = f"could not be started: {exc.problem}"
            self._start_retrying()
        except BaseException:
            # Raised here, not through the task group, which would wrap it in a group.
            self._tasks = None
            await stack.aclose()
            raise
        else:
            self.tools = connection.tools
        self._stack = stack
        return self

    def _log(self, line: str) -> None:
        print(line, file=self._errlog or sys.stderr, flush=True)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        stack, self._stack = self._stack, None
        if self._connection is not None:
            self._connection.close()
        if self._tasks is not None:  # a background retry too
            self._tasks.cancel_scope.cancel()
        self._connection = self._tasks = None
        if stack is not None:
            await stack.__aexit__(exc_type, exc, tb)

    async def _connect(self) -> _Connection:
        """Start a session in the toolset's task group; wait for its tool list."""
        assert self._tasks is not None
        connection = _Connection()
        self._tasks.start_soon(self._hold, connection)
        try:
            with anyio.move_on_after(self.startup_timeout):
                await connection.ready.wait()
        except BaseException:  # the caller was cancelled: leave nothing half-open
            connection.close()
            raise
        if not connection.ready.is_set():
            connection.close()
            raise MCPServerError(
                self.name, f"did not start and list its tools within {self.startup_timeout:g} s"
            )
        if connection.error is not None or connection.client is None:
            error = connection.error or RuntimeError("no session")
            raise connect_error(self.config, error) from connection.error
        self._connection = connection
        return connection

    async def _hold(self, connection: _Connection) -> None:
        """Open the session, list the tools, and keep it open until closed."""
        with connection.scope:
            try:
                async with AsyncExitStack() as stack:
                    client = Client(
                        await self._transport(stack),
                        cache=None,
                        message_handler=self._message_handler(connection),
                    )
                    connection.client = await stack.enter_async_context(client)
                    connection.tools = await self.discover(connection.client)
                    async with anyio.create_task_group() as tasks:
                        if _announces_tool_changes(client):
                            # Listening before ready: no change can slip by unheard.
                            await tasks.start(self._listen, connection)
                        connection.ready.set()
                        await self._follow_changes(connection)
            except Exception as exc:  # a child failing would cancel the toolset's owner
                connection.error = exc
                connection.broken = True
        connection.broken = True
        connection.ready.set()

    @staticmethod
    def _message_handler(connection: _Connection) -> Any:
        async def handle(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                connection.tools_changed()

        return handle

    async def _listen(
        self,
        connection: _Connection,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """A 2026-era session: tool changes come as ``subscriptions/listen`` events."""
        assert connection.client is not None
        listening = False
        try:
            async with connection.client.listen(tools_list_changed=True) as events:
                task_status.started()
                listening = True
                async for _ in events:
                    connection.tools_changed()
        except Exception as exc:  # no events then; calls still work
            self._log(f"MCP server {self.name!r}: cannot follow tool changes: {exc}")
            if not listening:
                task_status.started()

    async def _follow_changes(self, connection: _Connection) -> None:
        """Read the tool list again each time the server says it changed."""
        assert connection.client is not None
        async for _ in connection.woken:
            tools = await self.discover(connection.client)
            connection.tools = tools
            if self._connection is connection:
                await self._set_tools(tools)

    async def _set_tools(self, tools: list[MCPTool]) -> None:
        """Take a newly read tool list; tell the listeners when it differs."""
        before = [(t.remote_name, t.spec, t.hints, t.output_schema) for t in self.tools]
        self.tools = tools
        if before != [(t.remote_name, t.spec, t.hints, t.output_schema) for t in tools]:
            for listener in list(self.on_tools_changed):
                try:
                    await listener(self)
                except Exception as exc:  # a listener's fault must not end the session
                    self._log(f"MCP server {self.name!r}: tool-change listener failed: {exc!r}")

    @property
    def client(self) -> Client:
        connection = self._connection
        if connection is None or connection.client is None:
            raise RuntimeError(f"MCP toolset {self.name!r} is not connected")
        return connection.client

    async def _live_connection(self) -> _Connection:
        """The open session, or a new one when the last one was found closed."""
        connection = self._connection
        if connection is not None and not connection.broken:
            return connection
        if self._tasks is None:
            raise RuntimeError(f"MCP toolset {self.name!r} is not connected")
        if self._retrying or self._restarting:
            # Never wait on a server that is down: the caller hears so at once.
            raise self._unavailable(f"{self._down_reason}; it is being started again")
        # The restart runs in the background: a server that stalls at start (npx
        # fetching, a dead mount) must not hold this call for the start-up timeout.
        self._restarting = True
        restarted = anyio.Event()
        self._tasks.start_soon(self._restart, connection, restarted)
        with anyio.move_on_after(self._wait_for_restart):
            await restarted.wait()  # a quick restart still serves this call
        fresh = self._connection
        if fresh is not None and not fresh.broken and fresh is not connection:
            return fresh
        if self._retrying:  # the restart failed; the backoff retries have begun
            raise self._unavailable(f"{self._down_reason}; trying again in {RETRY_FIRST:g} s")
        if restarted.is_set():  # started, then closed again at once
            raise self._unavailable(f"{self._down_reason}; it is started again on the next call")
        raise self._unavailable(f"{self._down_reason}; it is being started again")

    @property
    def _wait_for_restart(self) -> float:
        """How long a call waits for a restart: short, and within the call's timeout."""
        timeout = self.config.timeout
        return min(self.restart_wait, timeout / 2) if timeout else self.restart_wait

    async def _restart(self, connection: _Connection | None, done: anyio.Event) -> None:
        """Start the server again once; on failure, keep trying with backoff."""
        try:
            if connection is not None:
                connection.close()
            self.restarts += 1
            try:
                started = await self._connect()
            except MCPServerError as exc:
                self._down_reason = f"could not be started again: {exc.problem}"
                self._log(f"{exc}; trying again in {RETRY_FIRST:g} s")
                self._start_retrying()  # before _restarting clears: no gap for a call
                return
            # A server started again may offer other tools than before.
            await self._set_tools(started.tools)
        finally:
            self._restarting = False
            done.set()

    def _unavailable(self, why: str) -> MCPToolError:
        return MCPToolError(self.name, types.CONNECTION_CLOSED, f"server unavailable: {why}")

    def _start_retrying(self) -> None:
        if not self._retrying and self._tasks is not None:
            self._retrying = True
            self._tasks.start_soon(self._retry)

    async def _retry(self) -> None:
        """Try to start the server again, waiting longer after each failure."""
        wait = RETRY_FIRST
        try:
            while True:
                await anyio.sleep(wait)
                self.restarts += 1
                try:
                    started = await self._connect()
                except MCPServerError as exc:
                    wait = min(wait * 2, RETRY_MAX)
                    self._down_reason = f"could not be started again: {exc.problem}"
                    self._log(f"{exc}; trying again in {wait:g} s")
                    continue
                self._log(f"MCP server {self.name!r}: started again")
                self.startup_error = None
                await self._set_tools(started.tools)
                return
        finally:
            self._retrying = False

    async def discover(self, client: Client | None = None) -> list[MCPTool]:
        """List every tool, page by page."""
        client = client or self.client
        found: list[MCPTool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            for t in page.tools:
                found.append(
                    MCPTool(
                        toolset=self,
                        remote_name=t.name,
                        spec=ToolSpec(
                            name=t.name,
                            parameters=_input_schema(t),
                            description=t.description or "",
                        ),
                        hints=hints_from_annotations(t.annotations, t.title),
                        output_schema=dict(t.output_schema) if t.output_schema else None,
                        timeout=self.config.timeout,
                    )
                )
            cursor = page.next_cursor
            if not cursor:
                break
        return found

    # ----------------------------------------------- resources and prompts, read-only

    def offers(self, feature: Literal["resources", "prompts"]) -> bool:
        """Whether the server said it has resources (or prompts); False while down."""
        connection = self._connection
        if connection is None or connection.broken or connection.client is None:
            return False
        return getattr(connection.client.server_capabilities, feature, None) is not None

    async def _read_only(self, request: Callable[[Client], Awaitable[_T]]) -> _T:
        """One request on the session; a closed session marks it for a restart."""
        connection = await self._live_connection()
        assert connection.client is not None
        try:
            return await request(connection.client)
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                connection.broken = True
            raise MCPToolError(self.name, exc.code, exc.message) from None

    async def resources(self) -> list[types.Resource]:
        found: list[types.Resource] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await self._read_only(partial(_list_resources, cursor=cursor))
            found.extend(page.resources)
            if not (cursor := page.next_cursor):
                break
        return found

    async def resource_templates(self) -> list[types.ResourceTemplate]:
        found: list[types.ResourceTemplate] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await self._read_only(partial(_list_templates, cursor=cursor))
            found.extend(page.resource_templates)
            if not (cursor := page.next_cursor):
                break
        return found

    async def prompts(self) -> list[types.Prompt]:
        found: list[types.Prompt] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await self._read_only(partial(_list_prompts, cursor=cursor))
            found.extend(page.prompts)
            if not (cursor := page.next_cursor):
                break
        return found

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        return await self._read_only(lambda client: client.read_resource(uri))

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None
    ) -> types.GetPromptResult:
        return await self._read_only(lambda client: client.get_prompt(name, arguments))

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        progress: ProgressFn | None = None,
    ) -> ToolOutput:
        connection = await self._live_connection()
        assert connection.client is not None
        try:
            result = await connection.client.call_tool(name, arguments, progress_callback=progress)
        except MCPError as exc:
            if exc.code != types.CONNECTION_CLOSED:
                raise MCPToolError(self.name, exc.code, exc.message) from None
            connection.broken = True  # the next call starts the server again
            self._down_reason = exc.message
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            connection.broken = True
            self._down_reason = "Connection closed"
        else:
            return output_from_result(result)
        raise self._unavailable(
            f"{self._down_reason} during the call; it is started again on the next call"
        )


async def _list_resources(client: Client, cursor: str | None) -> types.ListResourcesResult:
    return await client.list_resources(cursor=cursor)


async def _list_templates(client: Client, cursor: str | None) -> types.ListResourceTemplatesResult:
    return await client.list_resource_templates(cursor=cursor)


async def _list_prompts(client: Client, cursor: str | None) -> types.ListPromptsResult:
    return await client.list_prompts(cursor=cursor)


def _announces_tool_changes(client: Client) -> bool:
    """A 2026-era server that says its tool list can change (it then serves listen)."""
    tools = client.server_capabilities.tools
    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    return modern and tools is not None and bool(tools.list_changed)


@asynccontextmanager
async def open_toolsets(
    configs: Iterable[MCPServerConfig],
    *,
    errlog: TextIO | None = None,
    keep_trying: bool = False,
) -> AsyncIterator[list[MCPToolset]]:
    """Connect to several servers; all are closed when the block ends. With
    ``keep_trying`` one that cannot be started is kept and tried again (see MCPToolset)."""
    async with AsyncExitStack() as stack:
        toolsets = [
            await stack.enter_async_context(MCPToolset(cfg, errlog=errlog, keep_trying=keep_trying))
            for cfg in configs
        ]
        yield toolsets

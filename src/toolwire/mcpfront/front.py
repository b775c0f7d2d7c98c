"""One MCP server in front of many: the tool table and ``tools/call`` through the engine.

The front lists the engine registry's tools (MCP backends' and Python functions) as
declared and answers every ``tools/call`` with ``ToolEngine.call``: resolve → validate
(coercion, F25 unwrapping) → policy → execute → record. Whatever the engine decides
(unknown tool, invalid arguments, held for approval, denied, timed out, failed) comes
back as a ``CallToolResult`` with ``isError`` and the engine's message, never as a
protocol error, and every call leaves exactly one audit record. A call held for
approval is put to the client by elicitation when it can show a form (see
``approval``); otherwise, and when nobody answers, the result says how to let it run:
``toolwire approve ID`` against the audit database, then the same call again (see
``toolwire.audit.approvals``).
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types import methods
from pydantic import TypeAdapter, ValidationError

from toolwire import __version__
from toolwire.audit.approvals import ApprovalBook
from toolwire.audit.redact import REDACTED, redact_arguments
from toolwire.engine.engine import Approver, CallState, PendingApproval, Phase, Rejected, ToolEngine
from toolwire.engine.results import ToolResult
from toolwire.mcpfront.approval import WaitingCall, ask_now, asks_in_rounds, can_elicit
from toolwire.mcpfront.passthrough import Passthrough
from toolwire.tools.base import Tool
from toolwire.tools.mcp import MCPToolset

TASK_META_KEY = "toolwire/task"
"""A call's ``_meta`` key naming the task to file it under (default: the connection)."""

MAX_HTTP_SESSIONS = 1024  # HTTP connections remembered for their audit session

_content_block: TypeAdapter[types.ContentBlock] = TypeAdapter(types.ContentBlock)


@dataclass(frozen=True, slots=True)
class _Call:
    name: str
    arguments: dict[str, Any] | None
    task_id: str
    session_id: str


@dataclass(eq=False, slots=True)
class Connection:
    """One client connection: its audit session, the client's name and version, and
    the SDK session to send it notifications on (known from its first request)."""

    session_id: str
    client: dict[str, str]
    session: ServerSession | None = None


_connection: contextvars.ContextVar[Connection | None] = contextvars.ContextVar(
    "toolwire_mcp_connection", default=None
)
# What the front adds to the record of the call running in this context: the
# reviewer's decision that let it run (or refused it).
_noted: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "toolwire_mcp_noted", default=None
)


def _annotations(tool: Tool) -> types.ToolAnnotations | None:
    h = tool.hints
    if all(v is None for v in (h.read_only, h.destructive, h.idempotent, h.open_world, h.title)):
        return None
    return types.ToolAnnotations(
        title=h.title,
        read_only_hint=h.read_only,
        destructive_hint=h.destructive,
        idempotent_hint=h.idempotent,
        open_world_hint=h.open_world,
    )


def declared_tool(tool: Tool) -> types.Tool:
    """A registry tool as an MCP tool: its exposed name, schema, description, hints."""
    output_schema = getattr(tool, "output_schema", None)
    return types.Tool(
        name=tool.name,
        title=tool.hints.title,
        description=tool.spec.description or None,
        input_schema=dict(tool.spec.parameters),
        output_schema=dict(output_schema) if output_schema else None,
        annotations=_annotations(tool),
    )


def _blocks(value: Any) -> list[types.ContentBlock] | None:
    """The backend's own content blocks, when the value is a list of them."""
    if not isinstance(value, list) or not value:
        return None
    out: list[types.ContentBlock] = []
    for item in value:
        if isinstance(item, str):
            out.append(types.TextContent(type="text", text=item))
            continue
        try:
            out.append(_content_block.validate_python(item))
        except ValidationError:
            return None
    return out


def call_result(result: ToolResult) -> types.CallToolResult:
    """An engine result as MCP: content blocks kept, every non-``ok`` status ``isError``."""
    blocks = _blocks(result.value) if result.status in ("ok", "tool_error") else None
    if blocks is None:
        blocks = [types.TextContent(type="text", text=result.content)]
    structured = result.structured if result.status == "ok" else None
    return types.CallToolResult(
        content=blocks,
        structured_content=structured if isinstance(structured, dict) else None,
        is_error=result.status != "ok",
    )


def _approval_message(result: ToolResult, *, asked: bool, book: ApprovalBook | None) -> str:
    reasons = "; ".join(result.record.extra.get("approval_reasons", [])) or "policy"
    said = (
        "The person at the client was asked and did not approve it (the question was "
        "dismissed or not answered)."
        if asked
        else "This client could not be asked: it does not support MCP elicitation."
    )
    always = (
        'To allow this tool always, add its name to the "allow" list of the policy file '
        "given to `toolwire mcp serve --policy FILE` and restart the server."
    )
    if book is None:  # no audit database: nowhere to record a later decision
        return (
            f"Approval required: the call to {result.name} was not run ({reasons}). {said} "
            f"A held call cannot be approved later (the server keeps no audit). {always}"
        )
    if REDACTED in (result.record.arguments or ""):
        return (
            f"Approval required: the call to {result.name} was not run ({reasons}). {said} "
            "Its arguments hold text the audit hides as secret, so a reviewer cannot see "
            "what they would approve and `toolwire approve` cannot be used for it. "
            f"{always}"
        )
    db = str(book.path.resolve())
    return (
        f"Approval required: the call to {result.name} was not run ({reasons}). {said} "
        f"Approval id: {result.approval_id}. To let it run, a person runs "
        f"`toolwire approve {result.approval_id} --db {db}` (or `toolwire reject "
        f"{result.approval_id} --db {db}`); then call {result.name} again with the same "
        f"arguments: that one identical call runs. {always}"
    )


def _unknown_round() -> types.CallToolResult:
    text = "This approval request is unknown or has expired; call the tool again."
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _client_of(ctx: Any) -> dict[str, str]:
    params = ctx.session.client_params
    info = getattr(params, "client_info", None)
    if info is None:
        return {}
    return {"name": str(info.name), "version": str(info.version)}


class MCPFront:
    """The MCP server side: lists the engine's tools and runs calls through it.

    ``server`` is a low-level ``mcp`` server; run it over any transport. Each
    ``server.run`` (one client connection) gets its own audit session.
    """

    def __init__(
        self,
        engine: ToolEngine,
        *,
        name: str = "toolwire",
        backends: Sequence[MCPToolset] = (),
        approvals: ApprovalBook | None = None,
    ) -> None:
        self.engine = engine
        self.approvals = approvals
        passthrough = Passthrough(backends)
        self._tools: list[types.Tool] = []
        self._tools_version = -1
        self._connections: set[Connection] = set()
        self._run_connection: Connection | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        self._waiting: dict[str, WaitingCall] = {}  # by request_state
        self._http_sessions: dict[str, Connection] = {}  # by Mcp-Session-Id
        # 2026-era clients hear of changes on subscriptions/listen streams fed by this bus.
        self._events = InMemorySubscriptionBus()
        engine.hooks.append(self._tag_record)
        self.server: Server[Connection] = Server(
            name,
            version=__version__,
            lifespan=self._lifespan,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._events),
            # Read-only: the backends' resources and prompts as they declare them.
            on_list_resources=passthrough.list_resources,
            on_list_resource_templates=passthrough.list_resource_templates,
            on_read_resource=passthrough.read_resource,
            on_list_prompts=passthrough.list_prompts,
            on_get_prompt=passthrough.get_prompt,
        )
        # The SDK's default OpenTelemetry middleware opens a span per message even with
        # no exporter installed; every call here is recorded in the audit instead.
        self.server.middleware = []

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options(NotificationOptions(tools_changed=True))

    async def tools_changed(self) -> None:
        """Tell every connected client that the tool list changed."""
        await self._events.publish(ToolsListChanged())
        for connection in list(self._connections):
            if connection.session is not None:  # handshake-era clients
                try:
                    await connection.session.send_tool_list_changed()
                except Exception:  # a client gone meanwhile; the others still hear
                    self._connections.discard(connection)

    def tools(self) -> list[types.Tool]:
        """The declared tools, rebuilt only when the registry changed."""
        registry = self.engine.registry
        if self._tools_version != registry.version:
            self._tools = [declared_tool(t) for t in registry]
            self._tools_version = registry.version
        return self._tools

    @asynccontextmanager
    async def _lifespan(self, _: Server[Connection]) -> AsyncIterator[Connection]:
        # One lifespan per ``server.run``, i.e. per client connection.
        connection = Connection(session_id=f"mcp_{os.urandom(8).hex()}", client={})
        self._connections.add(connection)
        self._run_connection = connection
        try:
            yield connection
        finally:
            self._connections.discard(connection)

    def _connection_of(self, ctx: Any) -> Connection:
        """The request's connection: the one ``server.run`` (stdio); over HTTP, one per
        ``Mcp-Session-Id``, and the lifespan's shared one for sessionless requests."""
        connection: Connection = ctx.lifespan_context
        request = ctx.request
        session_key = request.headers.get("mcp-session-id") if request is not None else None
        if session_key:
            found = self._http_sessions.get(session_key)
            if found is None:
                if len(self._http_sessions) >= MAX_HTTP_SESSIONS:  # forget the oldest
                    oldest = next(iter(self._http_sessions))
                    self._connections.discard(self._http_sessions.pop(oldest))
                found = Connection(session_id=f"mcp_{os.urandom(8).hex()}", client={})
                self._http_sessions[session_key] = found
                self._connections.add(found)
            connection = found
        if connection.session is None:
            connection.session = ctx.session
        return connection

    async def _list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        self._connection_of(ctx)
        return types.ListToolsResult(tools=self.tools())

    @asynccontextmanager
    async def running(self) -> AsyncIterator[MCPFront]:
        """Serve within this block: calls waiting across rounds for an approval run in
        its task group, and are cancelled (and recorded) when it ends."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield self
            finally:
                self._tasks = None
                tasks.cancel_scope.cancel()

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        connection = self._connection_of(ctx)
        if not connection.client:
            connection.client.update(_client_of(ctx))
        if params.request_state is not None:
            return await self._answer_round(connection, params)
        task = (params.meta or {}).get(TASK_META_KEY)
        call = _Call(
            params.name,
            params.arguments,
            task_id=str(task) if task else connection.session_id,
            session_id=connection.session_id,
        )
        ask: Approver | None = None
        if can_elicit(ctx.session):
            if asks_in_rounds(ctx.session):
                if self._tasks is not None:
                    return await self._call_in_rounds(connection, call, self._tasks)
            else:
                ask = partial(ask_now, ctx.session, ctx.request_id)
        result = await self._run(connection, call, self._approver(ask))
        return self._result(result, asked=ask is not None)

    @property
    def stdio_connection(self) -> Connection | None:
        """The connection of the latest ``server.run`` (over stdio, the only one)."""
        return self._run_connection

    @property
    def tasks(self) -> anyio.abc.TaskGroup | None:
        """The task group of ``running()``, while it runs."""
        return self._tasks

    async def run_call(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        task: str | None,
        client: dict[str, str],
    ) -> ToolResult:
        """A ``tools/call`` on the stdio connection from a client that cannot be asked
        (see ``fast``): what ``_call_tool`` does for it, without the SDK's context."""
        connection = self._run_connection
        assert connection is not None
        if not connection.client:
            connection.client.update(client)
        session_id = connection.session_id
        call = _Call(name, arguments, task_id=task or session_id, session_id=session_id)
        return await self._run(connection, call, self._approver(None))

    def _approver(self, ask: Approver | None) -> Approver | None:
        """A held call first takes a decision made with ``toolwire approve``/``reject``
        on an identical held call; only without one is the client asked (``ask``)."""
        book = self.approvals
        if book is None:
            return ask

        async def approver(pending: PendingApproval) -> bool | Rejected | None:
            redacted = redact_arguments(pending.arguments)
            if redacted.value != pending.arguments:
                # What the reviewer saw hides part of these arguments: a decision
                # matched by that would also let other hidden text run.
                return None if ask is None else await ask(pending)
            granted = book.take(pending.name, redacted.sha256, pending.call_id)
            if granted is None:
                return None if ask is None else await ask(pending)
            noted = _noted.get()
            if noted is not None:
                noted["approval"] = granted.to_dict()
            if granted.decision == "approved":
                return True
            why = f": {granted.reason}" if granted.reason else ""
            return Rejected(f"{granted.approval_id} was rejected with `toolwire reject`{why}")

        return approver

    async def _run(
        self, connection: Connection, call: _Call, approver: Approver | None
    ) -> ToolResult:
        token = _connection.set(connection)
        noted = _noted.set({})
        try:
            return await self.engine.call(
                call.name,
                call.arguments,
                task_id=call.task_id,
                session_id=call.session_id,
                approver=approver,
            )
        finally:
            _noted.reset(noted)
            _connection.reset(token)

    def _result(self, result: ToolResult | None, *, asked: bool) -> types.CallToolResult:
        if result is None:  # the background call was cancelled as the server stopped
            return _unknown_round()
        out = call_result(result)
        if result.status == "pending_approval":
            text = _approval_message(result, asked=asked, book=self.approvals)
            out.content = [types.TextContent(type="text", text=text)]
        return out

    def result_dict(self, result: ToolResult, version: str) -> dict[str, Any]:
        """``_result(result, asked=False)`` on the wire at protocol ``version``, as the
        SDK's server sends it; a text result is built directly (no model to build,
        dump, check against the version and dump again: most fast calls' answer)."""
        if result.status in ("ok", "tool_error") and isinstance(result.value, list):
            out = self._result(result, asked=False)
            dumped = out.model_dump(by_alias=True, mode="json", exclude_none=True)
            return methods.serialize_server_result("tools/call", version, dumped)
        text = result.content
        if result.status == "pending_approval":
            text = _approval_message(result, asked=False, book=self.approvals)
        wire: dict[str, Any] = {
            "content": [{"type": "text", "text": text}],
            "isError": result.status != "ok",
        }
        structured = result.structured if result.status == "ok" else None
        if isinstance(structured, dict):
            wire["structuredContent"] = structured
        return wire

    async def _call_in_rounds(
        self, connection: Connection, call: _Call, tasks: anyio.abc.TaskGroup
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Run the call in the background; if it is held, answer this round with the
        question and let the client's next round bring the answer."""
        waiting = WaitingCall(owner=connection)

        async def run() -> None:
            result = None
            try:
                result = await self._run(connection, call, self._approver(waiting.approver))
            finally:
                self._waiting.pop(waiting.key, None)
                waiting.finish(result)

        tasks.start_soon(run)
        await waiting.moved.wait()
        if waiting.done.is_set():
            return self._result(waiting.result, asked=False)
        self._waiting[waiting.key] = waiting
        return waiting.input_required()

    async def _answer_round(
        self, connection: Connection, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        waiting = self._waiting.get(params.request_state or "")
        if waiting is None or waiting.owner is not connection:
            return _unknown_round()
        del self._waiting[waiting.key]
        waiting.give(params.input_responses)
        await waiting.done.wait()
        return self._result(waiting.result, asked=True)

    @staticmethod
    def _tag_record(phase: Phase, state: CallState) -> None:
        """Put the client's name and version on the record of each call it makes, and
        the reviewer's decision that answered it."""
        if phase == "record":
            connection = _connection.get()
            if connection is not None and connection.client:
                state.extra["client"] = dict(connection.client)
            noted = _noted.get()
            if noted:
                state.extra.update(noted)

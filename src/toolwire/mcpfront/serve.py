"""Start the front: connect every backend once, then serve clients over stdio."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from toolwire.audit.approvals import ApprovalBook
from toolwire.audit.sinks import AuditSink
from toolwire.audit.sqlite import SQLiteSink
from toolwire.engine.engine import ToolEngine
from toolwire.engine.policy import Policy
from toolwire.httpkeys import has_key, keys_problem
from toolwire.mcpfront.backend import open_front_toolsets
from toolwire.mcpfront.fast import FastCalls
from toolwire.mcpfront.front import MCPFront
from toolwire.mcpfront.stdio import PipeIn, PipeOut, front_stdio
from toolwire.tools.base import Tool
from toolwire.tools.mcp import RETRY_FIRST, MCPToolset
from toolwire.tools.mcp_config import MCPServerConfig
from toolwire.tools.registry import ToolRegistry


@dataclass(frozen=True, slots=True)
class HTTPListen:
    """Where ``--http`` listens, and the keys a client must send (none: loopback only)."""

    host: str
    port: int
    api_keys: tuple[str, ...] = ()

    def problem(self) -> str | None:
        """Why this cannot be served, or None."""
        return keys_problem(self.api_keys, self.host)


async def serve(
    servers: Sequence[MCPServerConfig],
    python_tools: Sequence[Tool] = (),
    *,
    sinks: Sequence[AuditSink],
    policies: Sequence[Policy] | None = None,
    timeout: float | None = 60.0,
    errlog: TextIO | None = None,
    http: HTTPListen | None = None,
) -> None:
    """Serve until the client closes stdin (or, with ``http``, until stopped). Backends
    are started here, once, and kept: one long-lived session each, shared by every call
    (never a session per call).

    A backend that cannot be started is reported on ``errlog`` and tried again with
    a doubling wait while the others are served; ``MCPServerError`` is raised only
    when nothing at all could be started.
    """
    async with open_front_toolsets(servers, errlog=errlog or sys.stderr) as toolsets:
        failed = [ts.startup_error for ts in toolsets if ts.startup_error is not None]
        if failed and len(failed) == len(toolsets) and not python_tools:
            nothing_started = failed[0]
        else:
            nothing_started = None
            for exc in failed:
                print(
                    f"{exc}; serving the others, trying it again in {RETRY_FIRST:g} s",
                    file=errlog or sys.stderr,
                    flush=True,
                )
            await _serve_front(toolsets, python_tools, sinks, policies, timeout, errlog, http)
    if nothing_started is not None:  # raised out here, not wrapped by the task groups
        raise nothing_started


async def _serve_front(
    toolsets: Sequence[MCPToolset],
    python_tools: Sequence[Tool],
    sinks: Sequence[AuditSink],
    policies: Sequence[Policy] | None,
    timeout: float | None,
    errlog: TextIO | None,
    http: HTTPListen | None,
) -> None:
    def offered() -> list[Tool]:
        backends = [t for ts in toolsets for t in ts.tools if ts.config.offers(t.remote_name)]
        return [*python_tools, *backends]

    registry = ToolRegistry(offered())
    reported: set[tuple[str, tuple[str, ...]]] = set()

    def report_collisions() -> None:
        for declared, names in registry.collisions.items():
            if (declared, names) not in reported:
                reported.add((declared, names))
                print(
                    f"toolwire: tool name {declared!r} is declared more than once; "
                    f"offered as {', '.join(names)}",
                    file=errlog or sys.stderr,
                    flush=True,
                )

    report_collisions()
    # Results go back whole: cutting them is the client's decision, not the front's.
    engine = ToolEngine(
        registry, sinks=sinks, policies=policies, timeout=timeout, result_token_budget=None
    )
    # Decisions made with `toolwire approve` live in the (first) SQLite audit database.
    db = next((s.path for s in sinks if isinstance(s, SQLiteSink)), None)
    approvals = ApprovalBook(db) if db is not None else None
    front = MCPFront(engine, backends=toolsets, approvals=approvals)

    async def backend_tools_changed(_: MCPToolset) -> None:
        registry.replace_all(offered())
        report_collisions()
        await front.tools_changed()

    for ts in toolsets:
        ts.on_tools_changed.append(backend_tools_changed)
    # What start-up built (modules, schemas, the tokenizer) lives as long as the server:
    # kept out of the collector's reach, a full collection no longer walks it mid-call.
    gc.freeze()
    try:
        async with front.running():
            if http is None:
                async with front_stdio() as (read, write):
                    if isinstance(read, PipeIn) and isinstance(write, PipeOut):
                        assert front.tasks is not None
                        read.take = FastCalls(front, front.tasks, write.write_line).take
                    await front.server.run(read, write, front.initialization_options())
            else:
                await _serve_http(front, http, errlog)
    finally:
        if approvals is not None:
            approvals.close()
        engine.close()


def _with_keys(app: ASGIApp, keys: Sequence[bytes]) -> ASGIApp:
    """The app, answering 401 to an HTTP request without one of ``keys``."""

    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            if not has_key(headers, keys):
                await JSONResponse({"error": "invalid or missing API key"}, 401)(
                    scope, receive, send
                )
                return
        await app(scope, receive, send)

    return checked


async def _serve_http(front: MCPFront, http: HTTPListen, errlog: TextIO | None) -> None:
    """The streamable HTTP transport at ``http://HOST:PORT/mcp``."""
    import uvicorn  # needed only here

    app: ASGIApp = front.server.streamable_http_app(host=http.host)
    if http.api_keys:
        app = _with_keys(app, [k.encode() for k in http.api_keys])
    config = uvicorn.Config(app, host=http.host, port=http.port, log_level="warning")
    print(
        f"toolwire: MCP front on http://{http.host}:{http.port}/mcp",
        file=errlog or sys.stderr,
        flush=True,
    )
    await uvicorn.Server(config).serve()

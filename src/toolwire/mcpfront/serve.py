"""Start the front: connect every backend once, then serve clients over stdio."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from mcp.server.stdio import stdio_server

from toolwire.audit.sinks import AuditSink
from toolwire.engine.engine import ToolEngine
from toolwire.engine.policy import Policy
from toolwire.mcpfront.front import MCPFront
from toolwire.tools.base import Tool
from toolwire.tools.mcp import RETRY_FIRST, MCPToolset, open_toolsets
from toolwire.tools.mcp_config import MCPServerConfig
from toolwire.tools.registry import ToolRegistry


async def serve(
    servers: Sequence[MCPServerConfig],
    python_tools: Sequence[Tool] = (),
    *,
    sinks: Sequence[AuditSink],
    policies: Sequence[Policy] | None = None,
    timeout: float | None = 60.0,
    errlog: TextIO | None = None,
) -> None:
    """Serve until the client closes stdin. Backends are started here, once, and kept:
    one long-lived session each, shared by every call (never a session per call).

    A backend that cannot be started is reported on ``errlog`` and tried again with
    a doubling wait while the others are served; ``MCPServerError`` is raised only
    when nothing at all could be started.
    """
    async with open_toolsets(servers, errlog=errlog or sys.stderr, keep_trying=True) as toolsets:
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
            await _serve_front(toolsets, python_tools, sinks, policies, timeout, errlog)
    if nothing_started is not None:  # raised out here, not wrapped by the task groups
        raise nothing_started


async def _serve_front(
    toolsets: Sequence[MCPToolset],
    python_tools: Sequence[Tool],
    sinks: Sequence[AuditSink],
    policies: Sequence[Policy] | None,
    timeout: float | None,
    errlog: TextIO | None,
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
    front = MCPFront(engine)

    async def backend_tools_changed(_: MCPToolset) -> None:
        registry.replace_all(offered())
        report_collisions()
        await front.tools_changed()

    for ts in toolsets:
        ts.on_tools_changed.append(backend_tools_changed)
    try:
        async with front.running(), stdio_server() as (read, write):
            await front.server.run(read, write, front.initialization_options())
    finally:
        engine.close()

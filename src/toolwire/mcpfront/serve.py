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
from toolwire.tools.mcp import MCPToolset, open_toolsets
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

    Raises ``MCPServerError`` when a backend cannot be started.
    """
    async with open_toolsets(servers, errlog=errlog or sys.stderr) as toolsets:

        def offered() -> list[Tool]:
            backends = [t for ts in toolsets for t in ts.tools if ts.config.offers(t.remote_name)]
            return [*python_tools, *backends]

        registry = ToolRegistry(offered())
        # Results go back whole: cutting them is the client's decision, not the front's.
        engine = ToolEngine(
            registry, sinks=sinks, policies=policies, timeout=timeout, result_token_budget=None
        )
        front = MCPFront(engine)

        async def backend_tools_changed(_: MCPToolset) -> None:
            registry.replace_all(offered())
            await front.tools_changed()

        for ts in toolsets:
            ts.on_tools_changed.append(backend_tools_changed)
        try:
            async with stdio_server() as (read, write):
                await front.server.run(read, write, front.initialization_options())
        finally:
            engine.close()

"""``open_agent``: an ``Agent`` with Python ``@tool`` functions and the tools of the MCP
servers of an ``mcpServers`` configuration, connected for the length of a block.

    async with open_agent(client, mcp="mcp.json", tools=[add], max_turns=10) as agent:
        result = await agent.run("What time is it in Tokyo?")
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from toolwire.agent.loop import Agent
from toolwire.client import ModelClient
from toolwire.engine import ToolEngine
from toolwire.tools import MCPServerConfig, ToolRegistry, load_mcp_config, parse_mcp_config
from toolwire.tools.base import Tool

MCPConfig = str | os.PathLike[str] | Mapping[str, Any] | Sequence[MCPServerConfig]


def mcp_servers(config: MCPConfig | None) -> list[MCPServerConfig]:
    """The servers of a configuration: a JSON file's path, its object (``{"mcpServers":
    {...}}``) or the servers themselves. Raises ``MCPConfigError``."""
    if config is None:
        return []
    if isinstance(config, str | os.PathLike):
        return load_mcp_config(config)
    if isinstance(config, Mapping):
        return parse_mcp_config(config)
    return list(config)


@asynccontextmanager
async def open_agent(
    client: ModelClient,
    *,
    mcp: MCPConfig | None = None,
    tools: Iterable[Tool] = (),
    engine_options: Mapping[str, Any] | None = None,
    **agent_options: Any,
) -> AsyncIterator[Agent]:
    """Start the configured MCP servers, and yield an ``Agent`` whose engine
    (``ToolEngine(…, **engine_options)``: sinks, timeout, policies…) has their tools and
    ``tools``; a server's tool named like another tool is offered as ``server__tool``.
    When the block ends the servers are stopped and the engine (its audit sinks) is
    closed; the client is the caller's to close. Raises ``MCPConfigError`` for a bad
    configuration and ``MCPServerError`` for a server that cannot be started."""
    servers = mcp_servers(mcp)
    from toolwire.tools import open_toolsets  # loads the mcp SDK

    async with open_toolsets(servers) as toolsets:
        registry = ToolRegistry([*tools, *toolsets])  # MCP tools as the servers list them
        engine = ToolEngine(registry, **dict(engine_options or {}))
        try:
            yield Agent(client, engine, **agent_options)
        finally:
            engine.close()

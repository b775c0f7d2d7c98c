"""Tool definitions: typed Python functions and MCP servers, in one registry.

The MCP names (``MCPToolset``, ``MCPTool``, ``open_toolsets``) load the ``mcp`` SDK on
first use, so plain function tools work without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolwire.tools.base import ArgumentsRejected, Executor, ProgressFn, Tool, ToolHints, ToolOutput
from toolwire.tools.function import FunctionTool, ToolDefinitionError, function_tool, tool
from toolwire.tools.mcp_config import (
    MCPConfigError,
    MCPServerConfig,
    load_mcp_config,
    parse_mcp_config,
)
from toolwire.tools.registry import ToolNameConflict, ToolRegistry

if TYPE_CHECKING:
    from toolwire.tools.mcp import (
        MCPServerError,
        MCPTool,
        MCPToolError,
        MCPToolset,
        open_toolsets,
    )

__all__ = [
    "ArgumentsRejected",
    "Executor",
    "FunctionTool",
    "MCPConfigError",
    "MCPServerConfig",
    "MCPServerError",
    "MCPTool",
    "MCPToolError",
    "MCPToolset",
    "ProgressFn",
    "Tool",
    "ToolDefinitionError",
    "ToolHints",
    "ToolNameConflict",
    "ToolOutput",
    "ToolRegistry",
    "function_tool",
    "load_mcp_config",
    "open_toolsets",
    "parse_mcp_config",
    "tool",
]

_MCP_NAMES = {"MCPServerError", "MCPTool", "MCPToolError", "MCPToolset", "open_toolsets"}


def __getattr__(name: str) -> Any:
    if name in _MCP_NAMES:
        from toolwire.tools import mcp

        return getattr(mcp, name)
    raise AttributeError(f"module 'toolwire.tools' has no attribute {name!r}")

"""The MCP front: ``toolwire mcp serve``, one MCP server in front of many.

An edge: it uses the engine, the tools and the audit, and nothing below imports it.
"""

from toolwire.mcpfront.front import TASK_META_KEY, MCPFront, call_result, declared_tool
from toolwire.mcpfront.pytools import PythonToolsError, load_python_tools
from toolwire.mcpfront.serve import HTTPListen, serve

__all__ = [
    "TASK_META_KEY",
    "HTTPListen",
    "MCPFront",
    "PythonToolsError",
    "call_result",
    "declared_tool",
    "load_python_tools",
    "serve",
]

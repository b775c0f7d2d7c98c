"""A tool for ``toolwire chat --tools tests.agent.chat_tools:add``."""

from toolwire.tools import ToolHints, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(hints=ToolHints(destructive=True))
def remove(path: str) -> str:
    """Remove a file (marked destructive: the engine holds it for approval)."""
    return f"removed {path}"

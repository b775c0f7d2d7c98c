"""Tools for ``toolwire chat --tools tests.agent.chat_tools:add`` (and the others)."""

import uuid

import anyio

from toolwire.tools import ToolHints, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(hints=ToolHints(destructive=True))
def remove(path: str) -> str:
    """Remove a file (marked destructive: the engine holds it for approval)."""
    return f"removed {path}"


@tool
async def wait(seconds: float) -> str:
    """Wait this many seconds (a slow tool, to cancel while it runs)."""
    await anyio.sleep(seconds)
    return f"waited {seconds} s"


@tool
def look_up(record: uuid.UUID) -> str:
    """Look a record up (its schema's ``format: uuid`` is more than Gemini takes)."""
    return f"record {record}"

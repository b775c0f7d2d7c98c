"""A tool for ``toolwire chat --tools tests.agent.chat_tools:add``."""

from toolwire.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

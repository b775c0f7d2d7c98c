"""Module-level tools for the process executor tests (the child re-imports them)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from toolwire.tools import tool


@tool(executor="process")
def sleepy(seconds: float, marker: str = "") -> str:
    """Sleep, then touch ``marker`` (if given) to show the process lived on."""
    time.sleep(seconds)
    if marker:
        Path(marker).write_text("survived")
    return "woke"


@tool(executor="process")
def pid() -> int:
    return os.getpid()


@tool(executor="process")
def explode(message: str) -> str:
    raise ValueError(message)


@tool(executor="process")
def hard_exit() -> str:
    os._exit(7)

"""Python tools named on the command line as ``module:attr``."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable
from typing import Any

from toolwire.tools.base import Tool
from toolwire.tools.function import FunctionTool, ToolDefinitionError, function_tool


class PythonToolsError(ValueError):
    """A ``module:attr`` that does not name a tool, a function or a list of them."""


def _as_tools(value: Any, ref: str) -> list[Tool]:
    if isinstance(value, FunctionTool):
        return [value]
    if isinstance(value, list | tuple):
        return [t for item in value for t in _as_tools(item, ref)]
    if callable(value):
        try:
            return [function_tool(value)]
        except ToolDefinitionError as exc:
            raise PythonToolsError(f"{ref}: {exc}") from None
    raise PythonToolsError(f"{ref} is a {type(value).__name__}, not a tool or a function")


def load_python_tools(refs: Iterable[str]) -> list[Tool]:
    """The tools each ``module:attr`` names: a ``@tool``, a plain function, or a list.

    The working directory is importable, as it is for ``python -m``.
    """
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    tools: list[Tool] = []
    for ref in refs:
        module_name, sep, attr = ref.partition(":")
        if not sep or not module_name or not attr:
            raise PythonToolsError(f"{ref!r}: expected module:attr (e.g. mytools:search)")
        try:
            obj: Any = importlib.import_module(module_name)
        except ImportError as exc:
            raise PythonToolsError(f"cannot import {module_name!r}: {exc}") from None
        for part in attr.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise PythonToolsError(f"{module_name!r} has no attribute {attr!r}") from None
        tools.extend(_as_tools(obj, ref))
    return tools

"""All tools a caller can reach, Python functions and MCP tools alike, by unique name.

Names must be unique. When an MCP tool's name is already taken (by a function or by a
tool of another server) every MCP tool with that name is exposed as ``server__tool``;
Python functions keep their names, and two functions with one name are an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from toolwire.spec import ToolSpec
from toolwire.tools.base import Tool

NAMESPACE_SEPARATOR = "__"


class Toolset(Protocol):
    """Anything that offers a list of tools (an ``MCPToolset``)."""

    @property
    def tools(self) -> Sequence[Tool]: ...


class ToolNameConflict(ValueError):
    """Two tools that cannot both keep their names."""


def _server(tool: Tool) -> str | None:
    origin = tool.origin
    return origin[4:] if origin.startswith("mcp:") else None


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool | Toolset] = ()) -> None:
        self._sources: list[Tool] = []
        self._by_name: dict[str, Tool] = {}
        self._collisions: dict[str, tuple[str, ...]] = {}
        self.version = 0  # bumped on every change, so users of the specs can refresh
        self.add_all(tools)

    def add(self, tool: Tool) -> None:
        self.add_all([tool])

    def add_all(self, tools: Iterable[Tool | Toolset]) -> None:
        """Add tools, or toolsets (anything with a ``tools`` list, e.g. an MCPToolset)."""
        sources = list(self._sources)
        for item in tools:
            if isinstance(item, Tool):
                sources.append(item)
            elif hasattr(item, "tools"):
                sources.extend(item.tools)
            else:
                raise TypeError(f"not a tool or toolset: {item!r}")
        # Raises before anything changes.
        self._by_name, self._collisions = self._assign(sources)
        self._sources = sources
        self.version += 1

    @staticmethod
    def _assign(sources: list[Tool]) -> tuple[dict[str, Tool], dict[str, tuple[str, ...]]]:
        count: dict[str, int] = {}
        for t in sources:
            count[t.name] = count.get(t.name, 0) + 1
        out: dict[str, Tool] = {}
        collisions: dict[str, list[str]] = {}
        for t in sources:
            server = _server(t)
            name = t.name
            if server is not None and count[name] > 1:
                name = f"{server}{NAMESPACE_SEPARATOR}{t.name}"
            if name in out:
                raise ToolNameConflict(f"two tools are named {name!r}")
            out[name] = t if name == t.name else t.rename(name)
            if count[t.name] > 1:
                collisions.setdefault(t.name, []).append(name)
        return out, {declared: tuple(names) for declared, names in collisions.items()}

    def replace_all(self, tools: Iterable[Tool | Toolset]) -> None:
        """Start over with these tools (a server's tool list changed)."""
        sources, self._sources = self._sources, []
        try:
            self.add_all(tools)
        except BaseException:
            self._sources = sources
            raise

    @property
    def collisions(self) -> dict[str, tuple[str, ...]]:
        """Each name declared by more than one tool, and the names they are exposed as."""
        return dict(self._collisions)

    def ambiguous(self, name: str) -> tuple[str, ...]:
        """The exposed names a colliding declared name could mean, when no tool kept it."""
        if name in self._by_name:
            return ()
        return self._collisions.get(name, ())

    def get(self, name: str) -> Tool | None:
        return self._by_name.get(name)

    def __getitem__(self, name: str) -> Tool:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    @property
    def names(self) -> list[str]:
        return list(self._by_name)

    def specs(self) -> list[ToolSpec]:
        """Each tool's spec under its exposed name: what to declare to a model."""
        return [t.spec for t in self._by_name.values()]

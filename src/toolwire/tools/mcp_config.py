"""MCP server definitions from the common ``mcpServers`` JSON form.

The file written for Claude Desktop, Claude Code, Cursor, Cline or VS Code works as it
is::

    {"mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
        "docs": {"type": "http", "url": "http://127.0.0.1:8000/mcp",
                 "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}

VS Code's ``{"servers": {...}}`` is read the same way. ``${VAR}`` and ``${VAR:-default}``
are expanded from the environment in every string value. Entries with
``"disabled": true`` are skipped; ``timeout`` (seconds) sets the per-call timeout.
``allowTools`` / ``denyTools`` (lists of glob patterns over the server's own tool
names) choose which of its tools are offered: a tool must match ``allowTools`` when it
is given, and must not match ``denyTools``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

Transport = Literal["stdio", "http", "sse"]

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HTTP_TYPES = {"http", "streamable-http", "streamable_http", "streamablehttp"}


class MCPConfigError(ValueError):
    """An MCP configuration that cannot be read."""


@dataclass(frozen=True, slots=True)
class MCPServerConfig:
    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None
    allow_tools: tuple[str, ...] | None = None
    deny_tools: tuple[str, ...] = ()

    def offers(self, tool_name: str) -> bool:
        """Whether the allow/deny lists let this server's tool be offered."""
        if any(fnmatch.fnmatchcase(tool_name, p) for p in self.deny_tools):
            return False
        if self.allow_tools is None:
            return True
        return any(fnmatch.fnmatchcase(tool_name, p) for p in self.allow_tools)


def _patterns(name: str, entry: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise MCPConfigError(f"server {name!r}: {key!r} must be a list of tool-name patterns")
    return tuple(value)


def _expand(value: str, environ: Mapping[str, str]) -> str:
    def sub(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise MCPConfigError(f"environment variable {name!r} is not set")

    return _VAR.sub(sub, value)


def _strings(value: Any, what: str, environ: Mapping[str, str]) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MCPConfigError(f"{what} must be an object of strings")
    return {str(k): _expand(str(v), environ) for k, v in value.items()}


def parse_server(
    name: str, entry: Any, environ: Mapping[str, str] | None = None
) -> MCPServerConfig:
    env_src = os.environ if environ is None else environ
    if not isinstance(entry, Mapping):
        raise MCPConfigError(f"server {name!r}: expected an object")
    kind = str(entry.get("type") or entry.get("transport") or "").lower().replace(" ", "")
    timeout = entry.get("timeout")
    if timeout is not None and (not isinstance(timeout, int | float) or timeout <= 0):
        raise MCPConfigError(f"server {name!r}: timeout must be a positive number of seconds")
    allow_tools = _patterns(name, entry, "allowTools")
    deny_tools = _patterns(name, entry, "denyTools") or ()
    if "url" in entry or kind in _HTTP_TYPES or kind == "sse":
        url = entry.get("url")
        if not isinstance(url, str) or not url:
            raise MCPConfigError(f"server {name!r}: an HTTP server needs a 'url'")
        return MCPServerConfig(
            name=name,
            transport="sse" if kind == "sse" else "http",
            url=_expand(url, env_src),
            headers=_strings(entry.get("headers"), f"server {name!r}: headers", env_src),
            timeout=float(timeout) if timeout is not None else None,
            allow_tools=allow_tools,
            deny_tools=deny_tools,
        )
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise MCPConfigError(f"server {name!r}: needs a 'command' (stdio) or a 'url' (HTTP)")
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise MCPConfigError(f"server {name!r}: 'args' must be a list")
    cwd = entry.get("cwd")
    return MCPServerConfig(
        name=name,
        transport="stdio",
        command=_expand(command, env_src),
        args=tuple(_expand(str(a), env_src) for a in args),
        env=_strings(entry.get("env"), f"server {name!r}: env", env_src),
        cwd=_expand(str(cwd), env_src) if cwd else None,
        timeout=float(timeout) if timeout is not None else None,
        allow_tools=allow_tools,
        deny_tools=deny_tools,
    )


def parse_mcp_config(data: Any, environ: Mapping[str, str] | None = None) -> list[MCPServerConfig]:
    if not isinstance(data, Mapping):
        raise MCPConfigError("an MCP configuration must be a JSON object")
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, Mapping):
        raise MCPConfigError("expected an 'mcpServers' object")
    return [
        parse_server(str(name), entry, environ)
        for name, entry in servers.items()
        if not (isinstance(entry, Mapping) and entry.get("disabled") is True)
    ]


def load_mcp_config(
    path: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> list[MCPServerConfig]:
    """Read the servers of an ``mcpServers`` JSON file."""
    try:
        data = orjson.loads(Path(path).read_bytes())
    except OSError as exc:
        raise MCPConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except orjson.JSONDecodeError as exc:
        raise MCPConfigError(f"{path} is not valid JSON: {exc}") from exc
    return parse_mcp_config(data, environ)

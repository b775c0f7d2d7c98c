"""The mcpServers file format, and name collisions in the registry."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from toolwire.spec import ToolSpec
from toolwire.tools import (
    MCPConfigError,
    ToolHints,
    ToolNameConflict,
    ToolRegistry,
    load_mcp_config,
    parse_mcp_config,
    tool,
)
from toolwire.tools.mcp_config import parse_server


def test_common_mcp_servers_forms(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        """{"mcpServers": {
          "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "${TZNAME}"}},
          "web": {"type": "streamable-http", "url": "http://127.0.0.1:1/mcp",
                  "headers": {"Authorization": "Bearer ${TOKEN:-none}"}, "timeout": 5},
          "old": {"url": "http://127.0.0.1:2/sse", "type": "sse"},
          "off": {"command": "x", "disabled": true}}}"""
    )
    servers = {s.name: s for s in load_mcp_config(path, environ={"TZNAME": "UTC"})}
    assert set(servers) == {"time", "web", "old"}
    assert servers["time"].transport == "stdio" and servers["time"].env == {"TZ": "UTC"}
    assert servers["time"].args == ("mcp-server-time",)
    assert servers["web"].transport == "http" and servers["web"].timeout == 5
    assert servers["web"].headers == {"Authorization": "Bearer none"}
    assert servers["old"].transport == "sse"


def test_vscode_servers_key_and_errors() -> None:
    assert parse_mcp_config({"servers": {"a": {"type": "stdio", "command": "a"}}})[0].name == "a"
    for bad in (
        [],
        {"nothing": {}},
        {"mcpServers": {"a": {}}},
        {"mcpServers": {"a": {"command": "x", "args": "y"}}},
        {"mcpServers": {"a": {"command": "x", "env": {"K": "${UNSET_VAR_X}"}}}},
        {"mcpServers": {"a": {"command": "x", "timeout": -1}}},
    ):
        with pytest.raises(MCPConfigError):
            parse_mcp_config(bad, environ={})


def test_missing_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(MCPConfigError):
        load_mcp_config(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(MCPConfigError):
        load_mcp_config(tmp_path / "bad.json")


@dataclass(frozen=True)
class FakeMCPTool:
    spec: ToolSpec
    server: str
    hints: ToolHints = field(default_factory=ToolHints)
    executor: str = "mcp"
    timeout: float | None = None
    max_concurrency: int | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def origin(self) -> str:
        return f"mcp:{self.server}"

    def rename(self, name: str) -> FakeMCPTool:
        return replace(self, spec=replace(self.spec, name=name))

    async def invoke(self, arguments: dict[str, Any], *, progress: Any = None) -> Any:
        raise NotImplementedError


def test_collisions_are_namespaced_functions_keep_names() -> None:
    @tool
    def search(q: str) -> str:
        return q

    registry = ToolRegistry(
        [
            search,
            FakeMCPTool(ToolSpec("search"), "docs"),
            FakeMCPTool(ToolSpec("search"), "web"),
            FakeMCPTool(ToolSpec("fetch"), "web"),
        ]
    )
    assert registry.names == ["search", "docs__search", "web__search", "fetch"]
    assert registry.collisions == {"search": ("search", "docs__search", "web__search")}
    assert registry.ambiguous("search") == ()  # the function keeps the name
    assert registry["docs__search"].spec.name == "docs__search"
    assert [s.name for s in registry.specs()] == registry.names
    with pytest.raises(ToolNameConflict):
        registry.add(search)
    assert len(registry) == 4  # a failed add changes nothing


def test_allow_and_deny_tools_choose_what_a_server_offers() -> None:
    cfg = parse_server("git", {"command": "x", "allowTools": ["git_*"], "denyTools": ["git_reset"]})
    assert cfg.offers("git_log") and not cfg.offers("git_reset") and not cfg.offers("ls")
    assert parse_server("t", {"url": "http://h/mcp", "denyTools": ["a"]}).offers("b")
    assert parse_server("t", {"command": "x"}).offers("anything")
    with pytest.raises(MCPConfigError, match="'allowTools' must be a list"):
        parse_server("t", {"command": "x", "allowTools": "git_*"})


def test_an_ambiguous_unprefixed_name_is_an_error_naming_both_candidates() -> None:
    """``echo`` from two servers: a call to ``echo`` names a__echo and b__echo."""
    import anyio

    from toolwire.engine import ToolEngine

    registry = ToolRegistry(
        [FakeMCPTool(ToolSpec("echo"), "a"), FakeMCPTool(ToolSpec("echo"), "b")]
    )
    assert registry.collisions == {"echo": ("a__echo", "b__echo")}
    engine = ToolEngine(registry, sinks=[])
    r = anyio.run(engine.call, "echo", {})
    assert r.status == "invalid_args" and r.record.error_type == "ambiguous_tool"
    assert "'a__echo'" in r.content and "'b__echo'" in r.content

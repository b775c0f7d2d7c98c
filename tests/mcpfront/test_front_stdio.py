"""``toolwire mcp serve`` over stdio, driven by the official MCP client, in front of the
real ``mcp-server-time`` and ``mcp-server-git`` and a Python tool (issue 14)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

pytestmark = pytest.mark.anyio

CLIENT = types.Implementation(name="front-tests", version="9.1")
PY_TOOLS = '''
from toolwire import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''


@dataclass
class Front:
    client: Client
    db: Path
    repo: Path

    def records(self) -> list[dict[str, Any]]:
        conn = sqlite3.connect(self.db)
        conn.row_factory = sqlite3.Row
        try:
            return [dict(r) for r in conn.execute("SELECT * FROM tool_calls ORDER BY rowid")]
        finally:
            conn.close()


def _git(repo: Path, *args: str) -> str:
    cmd = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    return subprocess.run([*cmd, *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository of three commits with one staged change, a config and a tools module."""
    root = tmp_path_factory.mktemp("front")
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for i in (1, 2, 3):
        (repo / f"f{i}.txt").write_text(f"{i}\n")
        _git(repo, "add", f"f{i}.txt")
        _git(repo, "commit", "-q", "-m", f"commit {i}")
    (repo / "staged.txt").write_text("staged\n")
    _git(repo, "add", "staged.txt")
    servers = {
        "time": {
            "command": sys.executable,
            "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
        },
        "git": {
            "command": sys.executable,
            "args": ["-m", "mcp_server_git", "--repository", str(repo)],
        },
    }
    (root / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (root / "front_tools.py").write_text(PY_TOOLS)
    return root


def serve_params(workdir: Path, *extra: str) -> StdioServerParameters:
    args = ["-m", "toolwire", "mcp", "serve", "--config", "mcp.json", "--tools", "front_tools:add"]
    return StdioServerParameters(command=sys.executable, args=[*args, *extra], cwd=str(workdir))


@pytest.fixture(scope="module")
async def front(workdir: Path) -> AsyncIterator[Front]:
    db = workdir / "audit.db"
    params = serve_params(workdir, "--audit", str(db))
    async with Client(stdio_client(params), client_info=CLIENT) as client:
        yield Front(client, db, workdir / "repo")


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def test_lists_the_union_with_schemas_and_annotations_as_declared(
    front: Front, workdir: Path
) -> None:
    listed = {t.name: t for t in (await front.client.list_tools()).tools}
    direct_params = StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"]
    )
    async with Client(stdio_client(direct_params)) as direct:
        time_tools = {t.name: t for t in (await direct.list_tools()).tools}
    assert {"add", "get_current_time", "convert_time", "git_log", "git_reset"} <= set(listed)
    for name, declared in time_tools.items():  # no prefix: the names do not collide
        assert listed[name].input_schema == declared.input_schema
        assert listed[name].description == declared.description
        assert listed[name].annotations == declared.annotations
    reset = listed["git_reset"].annotations
    assert reset is not None and reset.destructive_hint is True
    assert listed["add"].input_schema["required"] == ["a", "b"]


async def test_call_returns_the_backends_structured_content(front: Front) -> None:
    r = await front.client.call_tool("get_current_time", {"timezone": "Asia/Tokyo"})
    assert not r.is_error, text_of(r)
    assert r.structured_content is not None
    assert r.structured_content["timezone"] == "Asia/Tokyo"


async def test_python_tool_string_is_coerced_to_integer(front: Front) -> None:
    r = await front.client.call_tool("add", {"a": "1", "b": 2})
    assert not r.is_error, text_of(r)
    assert text_of(r) == "3"
    assert json.loads(front.records()[-1]["repairs"]) == ["coerce:a:string->integer"]


async def test_backend_gets_an_integer_for_a_string_max_count(front: Front) -> None:
    """mcp-server-git would refuse ``"1"``; the front coerces it and one commit comes back."""
    r = await front.client.call_tool("git_log", {"repo_path": str(front.repo), "max_count": "1"})
    assert not r.is_error, text_of(r)
    out = text_of(r)
    assert out.count("Commit: ") == 1
    assert "Message: commit 3" in out and "commit 2" not in out


async def test_f25_arguments_wrapped_once_more_are_unwrapped(front: Front) -> None:
    """F25: ``{"arguments": {...}}`` whose inner keys fit the schema is unwrapped."""
    wrapped = {"arguments": {"repo_path": str(front.repo), "max_count": "2"}}
    r = await front.client.call_tool("git_log", wrapped)
    assert not r.is_error, text_of(r)
    out = text_of(r)
    assert out.count("Commit: ") == 2
    assert "Message: commit 3" in out and "Message: commit 2" in out
    assert "commit 1" not in out
    rec = front.records()[-1]
    assert json.loads(rec["repairs"]) == ["unwrap:arguments", "coerce:max_count:string->integer"]
    assert rec["status"] == "ok"


async def test_near_miss_name_is_an_error_result_naming_the_closest_tools(front: Front) -> None:
    r = await front.client.call_tool("get_time", {})
    assert r.is_error
    assert "get_time" in text_of(r) and "get_current_time" in text_of(r)
    rec = front.records()[-1]
    assert (rec["status"], rec["error_type"]) == ("invalid_args", "unknown_tool")


async def test_schema_violation_is_an_error_result_naming_the_missing_arguments(
    front: Front,
) -> None:
    r = await front.client.call_tool("convert_time", {"time": "10:00"})
    assert r.is_error
    assert "source_timezone" in text_of(r) and "target_timezone" in text_of(r)
    assert front.records()[-1]["status"] == "invalid_args"


async def test_destructive_tool_is_held_not_run(front: Front) -> None:
    r = await front.client.call_tool("git_reset", {"repo_path": str(front.repo)})
    assert r.is_error
    assert "Approval required" in text_of(r) and '"allow"' in text_of(r)
    # git_reset unstages everything: the staged file still being staged proves it never ran.
    assert "staged.txt" in _git(front.repo, "diff", "--cached", "--name-only")
    rec = front.records()[-1]
    assert (rec["status"], rec["policy_decision"]) == ("pending_approval", "approval_required")


async def test_every_call_leaves_one_record_with_the_client(front: Front) -> None:
    before = len(front.records())
    calls: list[tuple[str, dict[str, Any]]] = [
        ("add", {"a": 1, "b": 1}),
        ("nope", {}),
        ("add", {"a": "x", "b": 1}),
        ("git_reset", {"repo_path": str(front.repo)}),
        ("get_current_time", {"timezone": "Not/AZone"}),
    ]
    for name, args in calls:
        await front.client.call_tool(name, args)
    new = front.records()[before:]
    assert [r["name_as_sent"] for r in new] == [name for name, _ in calls]
    assert [r["status"] for r in new] == [
        "ok",
        "invalid_args",
        "invalid_args",
        "pending_approval",
        "tool_error",
    ]
    assert {json.dumps(json.loads(r["extra"])["client"]) for r in new} == {
        json.dumps({"name": "front-tests", "version": "9.1"})
    }
    sessions = {r["session_id"] for r in front.records()}
    assert len(sessions) == 1 and None not in sessions  # one session per connection
    assert {r["task_id"] for r in new} == sessions  # the task is the connection


async def test_task_named_in_meta_files_the_call_under_it(front: Front) -> None:
    await front.client.call_tool("add", {"a": 1, "b": 2}, meta={"toolwire/task": "t-42"})
    assert front.records()[-1]["task_id"] == "t-42"


async def test_policy_allow_rule_grants_a_destructive_tool(workdir: Path) -> None:
    policy = workdir / "policy.json"
    policy.write_text(json.dumps({"allow": ["git_reset"]}))
    params = serve_params(workdir, "--audit", "none", "--policy", str(policy))
    repo = workdir / "repo"
    (repo / "granted.txt").write_text("x\n")
    _git(repo, "add", "granted.txt")
    async with Client(stdio_client(params)) as client:
        r = await client.call_tool("git_reset", {"repo_path": str(repo)})
    assert not r.is_error, text_of(r)
    assert _git(repo, "diff", "--cached", "--name-only") == ""


def test_serve_without_anything_to_serve_is_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire", "mcp", "serve"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "nothing to serve" in proc.stderr


def test_serve_with_a_missing_backend_is_one_line(tmp_path: Path) -> None:
    cfg = tmp_path / "mcp.json"
    cfg.write_text(json.dumps({"mcpServers": {"x": {"command": "no-such-mcp-server-here"}}}))
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire", "mcp", "serve", "--config", str(cfg), "--audit", "none"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "not found" in proc.stderr


async def test_per_server_allow_and_deny_lists(workdir: Path) -> None:
    data = json.loads((workdir / "mcp.json").read_text())
    data["mcpServers"]["time"]["allowTools"] = ["get_*"]
    data["mcpServers"]["git"]["denyTools"] = ["git_reset", "git_check*"]
    (workdir / "filtered.json").write_text(json.dumps(data))
    params = serve_params(workdir, "--audit", "none")
    params.args[params.args.index("mcp.json")] = "filtered.json"
    async with Client(stdio_client(params)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        r = await client.call_tool("git_reset", {"repo_path": str(workdir / "repo")})
    assert "get_current_time" in names and "convert_time" not in names
    assert "git_log" in names and not {"git_reset", "git_checkout"} & names
    assert r.is_error and "Unknown tool 'git_reset'" in text_of(r)

"""``toolwire tools`` and ``toolwire audit`` through typer's runner."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire.cli.audit_cmd import app as audit_app
from toolwire.cli.tools_cmd import app as tools_app

SERVER = str(Path(__file__).parents[1] / "tools" / "mcp_test_server.py")


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps({"mcpServers": {"t": {"command": sys.executable, "args": [SERVER, "stdio"]}}})
    )
    return path


def test_tools_list(config: Path) -> None:
    result = CliRunner().invoke(tools_app, ["list", "--config", str(config), "--json"])
    assert result.exit_code == 0, result.output
    tools = json.loads(result.stdout)
    assert [t["name"] for t in tools] == ["echo", "slow", "fail", "progress", "wipe"]
    assert tools[4]["hints"]["destructive"] is True


def test_tools_call_records_and_report(config: Path, tmp_path: Path) -> None:
    db = tmp_path / "audit.db"
    runner = CliRunner()
    base = ["call", "--config", str(config), "--audit", str(db)]
    ok = runner.invoke(tools_app, [*base, "echo", "--args", '{"text": "hello"}'])
    assert ok.exit_code == 0 and ok.stdout == "hello\n"
    failed = runner.invoke(tools_app, [*base, "fail"])
    assert failed.exit_code == 1 and "it broke" in failed.stdout
    pending = runner.invoke(tools_app, [*base, "wipe"])
    assert pending.exit_code == 3
    assert "pending approval" in pending.stderr and "appr_" in pending.stderr
    approved = runner.invoke(tools_app, [*base, "wipe", "--approve"])
    assert approved.exit_code == 0 and approved.stdout == "wiped\n"
    bad = runner.invoke(tools_app, [*base, "echo", "--args", "{}"])
    assert bad.exit_code == 1 and "text" in bad.stdout

    report = runner.invoke(audit_app, ["report", "--db", str(db), "--json"])
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    by_tool = {t["tool"]: t for t in data["tools"]}
    assert data["calls"] == 6  # wipe twice pending, once approved
    assert by_tool["wipe"]["by_status"] == {"ok": 1, "pending_approval": 2}
    assert by_tool["echo"]["by_status"] == {"ok": 1, "invalid_args": 1}
    text = runner.invoke(audit_app, ["report", "--db", str(db)])
    assert text.exit_code == 0 and "TPST" in text.stdout and "echo" in text.stdout


def test_bad_config_and_missing_db(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{}")
    r = CliRunner().invoke(tools_app, ["list", "--config", str(tmp_path / "bad.json")])
    assert r.exit_code == 2 and "mcpServers" in r.stderr
    r2 = CliRunner().invoke(audit_app, ["report", "--db", str(tmp_path / "none.db")])
    assert r2.exit_code == 2


@pytest.mark.parametrize("command", [["list"], ["call", "echo"]])
@pytest.mark.parametrize(
    ("entry", "what"),
    [
        ({"command": "no-such-mcp-server-x"}, "command 'no-such-mcp-server-x' not found"),
        ({"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}, "exited before"),
    ],
)
def test_a_missing_or_quitting_server_is_one_line_naming_it(
    tmp_path: Path, command: list[str], entry: dict[str, Any], what: str
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"broken": entry}}))
    audit = ["--audit", str(tmp_path / "a.db")] if command[0] == "call" else []
    r = CliRunner().invoke(tools_app, [*command, "--config", str(path), *audit])
    assert r.exit_code == 2, r.output
    (line,) = r.stderr.splitlines()
    assert "MCP server 'broken'" in line and what in line


def _audit_db(path: Path) -> Path:
    from toolwire.audit import SQLiteSink

    SQLiteSink(path).close()
    return path


@pytest.mark.parametrize(
    ("name", "content", "what"),
    [
        ("random.db", bytes(range(256)) * 4, "not an audit database"),
        ("empty.db", b"", "is empty"),
        ("audit.jsonl", b'{"type": "call", "tool_name": "x"}\n', "line 1: not a call record"),
        ("audit.jsonl", b"just some text\n", "line 1: not JSON"),
        ("audit.jsonl", b"[1, 2]\n", "line 1: neither a call nor a task"),
    ],
)
def test_report_on_a_file_that_is_not_an_audit_log_says_so(
    tmp_path: Path, name: str, content: bytes, what: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    r = CliRunner().invoke(audit_app, ["report", "--db", str(path)])
    assert r.exit_code == 2, r.output
    (line,) = r.stderr.splitlines()
    assert str(path) in line and what in line


def test_report_on_another_sqlite_database_says_so(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    r = CliRunner().invoke(audit_app, ["report", "--db", str(path)])
    assert r.exit_code == 2 and "not a toolwire audit log" in r.stderr


def test_report_leaves_no_wal_or_shm_files(tmp_path: Path) -> None:
    db = _audit_db(tmp_path / "audit.db")
    before = sorted(p.name for p in tmp_path.iterdir())
    r = CliRunner().invoke(audit_app, ["report", "--db", str(db), "--json"])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before == ["audit.db"]


def test_call_with_an_audit_file_that_cannot_be_used_says_so(config: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(bytes(range(256)) * 4)
    for audit in (tmp_path / "no" / "such" / "dir" / "a.db", junk):
        r = CliRunner().invoke(
            tools_app, ["call", "echo", "--config", str(config), "--audit", str(audit)]
        )
        assert r.exit_code == 2, r.output
        (line,) = r.stderr.splitlines()
        assert f"cannot use {audit} as the audit database" in line


def test_tools_list_reports_a_collision(tmp_path: Path) -> None:
    """Two servers declaring ``echo``: both prefixed, and the collision said."""
    server = {"command": sys.executable, "args": [SERVER, "stdio"]}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"a": server, "b": server}}))
    runner = CliRunner()
    as_json = runner.invoke(tools_app, ["list", "--config", str(path), "--json"])
    assert as_json.exit_code == 0, as_json.output
    tools = {t["name"]: t for t in json.loads(as_json.stdout)}
    assert tools["a__echo"]["collides_as"] == "echo" and tools["b__echo"]["collides_as"] == "echo"
    text = runner.invoke(tools_app, ["list", "--config", str(path)])
    assert "collision: 'echo' is declared by 2 tools, listed as a__echo, b__echo" in text.stdout

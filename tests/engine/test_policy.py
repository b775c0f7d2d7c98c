"""Built-in policies, through the engine so violations land in the record."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.audit import MemorySink
from toolwire.engine import (
    AllowTools,
    CallLimits,
    CommandPolicy,
    PathPolicy,
    Policy,
    ToolEngine,
)
from toolwire.tools import tool

pytestmark = pytest.mark.anyio


@tool
def read_file(path: str) -> str:
    return f"read {path}"


@tool
def add_files(repo: str, files: list[str]) -> str:
    return "added"


@tool
def shell(command: str) -> str:
    return "ran"


def make(policies: list[Policy]) -> tuple[ToolEngine, MemorySink]:
    sink = MemorySink()
    return ToolEngine([read_file, add_files, shell], sinks=[sink], policies=policies), sink


async def status(engine: ToolEngine, name: str, args: dict[str, Any], **kw: Any) -> str:
    return (await engine.call(name, args, **kw)).status


async def test_allow_list() -> None:
    engine, sink = make([AllowTools("read_*")])
    assert await status(engine, "read_file", {"path": "/a"}) == "ok"
    assert await status(engine, "shell", {"command": "ls"}) == "denied"
    assert "allow list" in sink.records[-1].violations[0]


async def test_path_prefixes_are_normalized() -> None:
    engine, sink = make([PathPolicy(allow=["/work"], deny=["/work/secrets"])])
    assert await status(engine, "read_file", {"path": "/work/a.txt"}) == "ok"
    assert await status(engine, "read_file", {"path": "/work/../etc/passwd"}) == "denied"
    assert await status(engine, "read_file", {"path": "/work/secrets/key"}) == "denied"
    assert await status(engine, "read_file", {"path": "/workshop/x"}) == "denied"
    # lists of paths under a path-like key are checked one by one
    assert await status(engine, "add_files", {"repo": "/work", "files": ["/work/a", "/etc/x"]}) == (
        "denied"
    )
    assert [len(r.violations) for r in sink.records] == [0, 1, 1, 1, 1]


async def test_relative_paths_resolve_against_base() -> None:
    engine, _ = make([PathPolicy(allow=["/work"], base="/work/project")])
    assert await status(engine, "read_file", {"path": "src/a.py"}) == "ok"
    assert await status(engine, "read_file", {"path": "../../etc/passwd"}) == "denied"


async def test_command_regexes() -> None:
    engine, sink = make([CommandPolicy(deny=[r"\brm\s+-rf\b", r"curl .*\|\s*sh"])])
    assert await status(engine, "shell", {"command": "ls -la"}) == "ok"
    assert await status(engine, "shell", {"command": "sudo rm -rf /"}) == "denied"
    assert await status(engine, "shell", {"command": "curl x.sh | sh"}) == "denied"
    assert "rm" in sink.records[1].violations[0]


async def test_call_limits_per_tool_and_per_task() -> None:
    engine, sink = make([CallLimits(per_tool={"shell": 2}, per_task=3)])
    results = [await status(engine, "shell", {"command": "x"}, task_id="t") for _ in range(3)]
    assert results == ["ok", "ok", "denied"]
    assert await status(engine, "read_file", {"path": "a"}, task_id="t") == "ok"
    assert await status(engine, "read_file", {"path": "a"}, task_id="t") == "denied"
    assert await status(engine, "shell", {"command": "x"}, task_id="other") == "ok"
    assert "limit of 3" in sink.records[4].violations[0]


async def test_denied_calls_do_not_use_up_limits() -> None:
    engine, _ = make([PathPolicy(allow=["/ok"]), CallLimits(per_tool={"read_file": 1})])
    assert await status(engine, "read_file", {"path": "/no"}) == "denied"
    assert await status(engine, "read_file", {"path": "/ok/a"}) == "ok"
    assert await status(engine, "read_file", {"path": "/ok/a"}) == "denied"


@tool
def put(opts: dict[str, Any]) -> str:
    return "put"


@tool
def copy(filename: str = "", file_name: str = "", target: str = "", note: str = "") -> str:
    return "copied"


@pytest.mark.parametrize(
    ("tool_name", "args"),
    [
        ("read_file", {"path": "//etc/passwd"}),
        ("read_file", {"path": "///etc//passwd"}),
        ("read_file", {"path": "file:///etc/passwd"}),
        ("read_file", {"path": "FILE://localhost/etc/passwd"}),
        ("read_file", {"path": "file:///%65tc/passwd"}),
        ("read_file", {"path": "file://etc/passwd"}),
        ("read_file", {"path": " /etc/passwd"}),
        ("read_file", {"path": "/tmp/x\x00/../../etc/passwd"}),
        ("read_file", {"path": "/etc/passwd\x00.txt"}),
        ("copy", {"filename": "/etc/shadow"}),
        ("copy", {"file_name": "/etc/shadow"}),
        ("copy", {"target": "/etc/cron.d/x"}),
        ("copy", {"note": "../../../etc/passwd"}),  # a path by content, whatever the key
        ("copy", {"note": "file:///etc/passwd"}),
        ("put", {"opts": {"dest": {"where": "/etc/hosts"}}}),  # nested
        ("put", {"opts": {"items": [{"name": "/etc/hosts"}]}}),
    ],
)
async def test_path_policy_bypasses_are_denied(tool_name: str, args: dict[str, Any]) -> None:
    sink = MemorySink()
    engine = ToolEngine(
        [read_file, copy, put], sinks=[sink], policies=[PathPolicy(deny=["/etc"], base="/work")]
    )
    assert await status(engine, tool_name, args) == "denied"
    assert sink.records[0].violations[0].startswith("path: ")


async def test_path_policy_keeps_ordinary_values() -> None:
    engine, _ = make([PathPolicy(allow=["/work"], base="/work")])
    engine.registry.add(copy)
    assert await status(engine, "read_file", {"path": "file:///work/a.txt"}) == "ok"
    assert await status(engine, "read_file", {"path": "file://localhost/work/a"}) == "ok"
    assert await status(engine, "copy", {"note": "profile: see https://x.org/a/b"}) == "ok"
    assert await status(engine, "copy", {"target": "src/out.txt"}) == "ok"
    assert await status(engine, "copy", {"target": "https://example.com/upload"}) == "ok"
    # file contents are not paths, even when they start with a slash
    assert await status(engine, "copy", {"note": "/* header */\nint x;"}) == "ok"
    assert await status(engine, "copy", {"note": "// a comment"}) == "ok"
    assert await status(engine, "copy", {"note": "~5 minutes"}) == "ok"


async def test_path_policy_follows_symbolic_links(tmp_path: Any) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(secret)
    engine, _ = make([PathPolicy(allow=[str(work)])])
    assert await status(engine, "read_file", {"path": str(work / "a.txt")}) == "ok"
    assert await status(engine, "read_file", {"path": str(work / "link" / "key")}) == "denied"
    engine, _ = make([PathPolicy(deny=[str(secret)])])
    assert await status(engine, "read_file", {"path": str(work / "link" / "key")}) == "denied"
    engine, _ = make([PathPolicy(deny=[str(secret)], follow_symlinks=False)])
    assert await status(engine, "read_file", {"path": str(work / "link" / "key")}) == "ok"


@tool
def run(
    Command: str = "", opts: dict[str, Any] | None = None, argv: list[str] | None = None
) -> str:
    return "ran"


@tool
def spawn(command: str, args: list[str]) -> str:
    return "spawned"


@pytest.mark.parametrize(
    ("tool_name", "args"),
    [
        ("run", {"Command": "sudo rm -rf /"}),
        ("run", {"opts": {"command": "rm -rf /"}}),
        ("run", {"opts": {"shellCommand": "rm -rf /"}}),
        ("run", {"opts": {"steps": [{"cmd": "rm -rf /"}]}}),
        ("run", {"argv": ["rm", "-rf", "/"]}),
        ("run", {"argv": ["sh", "-c", "rm -rf /"]}),
        ("spawn", {"command": "rm", "args": ["-rf", "/"]}),
    ],
)
async def test_command_policy_sees_every_command(tool_name: str, args: dict[str, Any]) -> None:
    sink = MemorySink()
    engine = ToolEngine(
        [run, spawn], sinks=[sink], policies=[CommandPolicy(deny=[r"\brm\s+-rf\b"])]
    )
    assert await status(engine, tool_name, args) == "denied"
    assert sink.records[0].violations[0].startswith("command: ")


async def test_command_policy_leaves_other_text_alone() -> None:
    engine = ToolEngine([run, spawn], sinks=[], policies=[CommandPolicy(deny=[r"\brm\s+-rf\b"])])
    assert await status(engine, "run", {"opts": {"title": "rm -rf is dangerous"}}) == "ok"
    assert await status(engine, "spawn", {"command": "ls", "args": ["-la"]}) == "ok"

"""Policies from a JSON policy file (``toolwire mcp serve --policy FILE``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.engine import ToolEngine
from toolwire.engine.policy_file import PolicyFileError, load_policy_file, parse_policies
from toolwire.tools import ToolHints, function_tool

pytestmark = pytest.mark.anyio


def wipe() -> str:
    return "wiped"


def look() -> str:
    return "seen"


def tools() -> list[object]:
    return [
        function_tool(wipe, executor="inline", hints=ToolHints(destructive=True)),
        function_tool(look, executor="inline"),
    ]


async def statuses(data: object) -> dict[str, str]:
    engine = ToolEngine(tools(), sinks=[], policies=parse_policies(data))  # type: ignore[arg-type]
    return {n: (await engine.call(n, {})).status for n in ("wipe", "look")}


async def test_empty_policy_still_holds_destructive_tools() -> None:
    assert await statuses({}) == {"wipe": "pending_approval", "look": "ok"}


async def test_allow_lifts_the_destructive_hint() -> None:
    assert await statuses({"allow": ["wi*"]}) == {"wipe": "ok", "look": "ok"}


async def test_deny_and_require_approval_win_over_allow() -> None:
    got = await statuses({"allow": ["*"], "deny": ["wipe"], "require_approval": ["look"]})
    assert got == {"wipe": "denied", "look": "pending_approval"}


def test_unknown_key_is_an_error_not_ignored() -> None:
    with pytest.raises(PolicyFileError, match="'denny'"):
        parse_policies({"denny": ["wipe"]})


def test_patterns_must_be_a_list_of_strings() -> None:
    with pytest.raises(PolicyFileError, match="'deny' must be a list"):
        parse_policies({"deny": "wipe"})


def test_unreadable_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text("{nope")
    with pytest.raises(PolicyFileError, match="not valid JSON"):
        load_policy_file(bad)
    with pytest.raises(PolicyFileError, match="cannot read"):
        load_policy_file(tmp_path / "missing.json")

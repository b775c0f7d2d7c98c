"""The package's own namespace: ``from toolwire import ...`` and the README that uses it."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import REAL
from typer.testing import CliRunner

import toolwire
from toolwire.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_names_a_program_needs_are_at_the_top() -> None:
    from toolwire import (  # noqa: F401
        StreamParser,
        ToolCall,
        ToolEngine,
        coerce_arguments,
        parse_stream,
        repair_json,
        tool,
    )

    assert {
        "StreamParser",
        "parse_stream",
        "ToolCall",
        "repair_json",
        "coerce_arguments",
        "ToolEngine",
        "tool",
    } <= set(toolwire.__all__)


SUBPACKAGES = (
    "parser",
    "events",
    "spec",
    "repair",
    "coerce",
    "encoders",
    "engine",
    "tools",
    "audit",
    "agent",
    "client",
    "sdk",
)


@pytest.mark.parametrize("name", toolwire.__all__)
def test_every_public_name_is_the_object_a_subpackage_exports(name: str) -> None:
    value = getattr(toolwire, name)
    homes = [
        m
        for m in SUBPACKAGES
        if getattr(importlib.import_module(f"toolwire.{m}"), name, None) is value
    ]
    assert homes, f"toolwire.{name} is none of the subpackages' objects"


def test_star_import_gives_exactly_all_and_unknown_names_fail() -> None:
    namespace: dict[str, object] = {}
    exec("from toolwire import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(toolwire.__all__)
    with pytest.raises(AttributeError):
        _ = toolwire.no_such_name  # type: ignore[attr-defined]


def test_importing_toolwire_loads_nothing_it_does_not_use() -> None:
    """The names are lazy: the command line and a parsing program never load the engine."""
    code = (
        "import sys, toolwire; from toolwire import parse_stream; "
        "print(sorted(m for m in sys.modules if m.startswith(('toolwire.engine', 'mcp'))))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT / "src")},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_the_readme_examples_import_from_the_top() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    imports = [
        line for b in blocks for line in b.splitlines() if line.startswith(("from ", "import "))
    ]
    ours = [line for line in imports if "toolwire" in line]
    assert ours and all(line.startswith("from toolwire import ") for line in ours), ours
    for line in ours:
        exec(line, {})


def test_the_readme_output_contract_is_what_parse_prints() -> None:
    block = README.split("`toolwire parse` prints one JSON object", 1)[1]
    shown = json.loads(re.search(r"```json\n(.*?)```", block, re.S).group(1))
    result = CliRunner().invoke(app, ["parse", str(REAL / "anthropic/tool_use_response.sse")])
    assert result.exit_code == 0
    assert shown == json.loads(result.stdout)

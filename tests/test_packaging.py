"""What a newcomer gets from ``pip install toolwire``."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import toolwire

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower() for r in requirements}


def test_a_plain_install_brings_what_toolwire_tools_needs() -> None:
    """`toolwire tools` and the MCP toolsets import the mcp SDK: it must not hide in an extra."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert "mcp" in _names(project["dependencies"])


def test_the_version_toolwire_reports_is_the_package_version() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert toolwire.__version__ == project["version"]

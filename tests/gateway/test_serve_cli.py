"""``toolwire serve``: what it refuses before it listens (one line, exit 2)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from toolwire.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--host", "0.0.0.0"], "without a gateway key"),
        (["--upstream-format", "grpc"], "not supported"),
        (["--text-format", "nope"], "unknown --text-format"),
    ],
)
def test_serve_refuses_bad_settings_with_one_line(args: list[str], says: str) -> None:
    result = runner.invoke(
        app, ["serve", "--upstream", "http://127.0.0.1:1/v1", "--audit", "none", *args]
    )
    assert result.exit_code == 2
    assert says in result.output
    assert "Traceback" not in result.output

"""``toolwire serve``: what it refuses before it listens (one line, exit 2), the server
it chooses, and the garbage collector it sets up."""

from __future__ import annotations

import gc

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from typer.testing import CliRunner

from toolwire.cli import app, serve_cmd
from toolwire.cli.serve_cmd import ServeError, frozen_after_startup, server_choice

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--host", "0.0.0.0"], "without a gateway key"),
        (["--upstream-format", "grpc"], "not supported"),
        (["--text-format", "nope"], "unknown --text-format"),
        (["--loop", "trio"], "--loop 'trio' is not known"),
        (["--http", "zttp"], "--http 'zttp' is not known"),
    ],
)
def test_serve_refuses_bad_settings_with_one_line(args: list[str], says: str) -> None:
    result = runner.invoke(
        app, ["serve", "--upstream", "http://127.0.0.1:1/v1", "--audit", "none", *args]
    )
    assert result.exit_code == 2
    assert says in result.output
    assert "Traceback" not in result.output


def test_auto_takes_uvloop_and_httptools_where_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    assert server_choice("auto", "auto") == ("uvloop", "httptools")  # both are dependencies
    assert server_choice("asyncio", "h11") == ("asyncio", "h11")
    monkeypatch.setattr(serve_cmd.importlib.util, "find_spec", lambda name: None)
    assert server_choice("auto", "auto") == ("asyncio", "h11")  # e.g. on Windows
    with pytest.raises(ServeError, match="the uvloop package is not installed"):
        server_choice("uvloop", "auto")
    with pytest.raises(ServeError, match="the httptools package is not installed"):
        server_choice("auto", "httptools")


def test_the_served_app_freezes_what_startup_made() -> None:
    served = frozen_after_startup(Starlette())
    gc.unfreeze()
    try:
        with TestClient(served):
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()

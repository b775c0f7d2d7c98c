"""The ``toolwire`` command line. Each command lives in its own module."""

from __future__ import annotations

from typing import Annotated

import typer

from toolwire import __version__
from toolwire.cli import audit_cmd, mcp_cmd, tools_cmd
from toolwire.cli.approve_cmd import approve, reject
from toolwire.cli.chat_cmd import chat
from toolwire.cli.convert_cmd import convert
from toolwire.cli.demo_cmd import demo
from toolwire.cli.io import command_group
from toolwire.cli.parse_cmd import parse
from toolwire.cli.repair_cmd import repair
from toolwire.cli.serve_cmd import serve

app = command_group("Reliable LLM tool calling: parse, repair, type and run tool calls.")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"toolwire {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """The options of ``toolwire`` itself (the app's help text is given above)."""


app.command()(parse)
app.command()(repair)
app.command()(demo)
app.command()(convert)
app.command()(serve)
app.command()(chat)
app.command()(approve)
app.command()(reject)
app.add_typer(tools_cmd.app, name="tools", help="List and call tools from MCP servers.")
app.add_typer(audit_cmd.app, name="audit", help="Reports from the audit log.")
app.add_typer(mcp_cmd.app, name="mcp", help="Serve MCP: one server in front of many, audited.")


def main() -> None:
    app()

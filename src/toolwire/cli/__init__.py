"""The ``toolwire`` command line. Each command lives in its own module."""

from __future__ import annotations

import typer

from toolwire.cli import audit_cmd, tools_cmd
from toolwire.cli.convert_cmd import convert
from toolwire.cli.demo_cmd import demo
from toolwire.cli.parse_cmd import parse
from toolwire.cli.repair_cmd import repair

app = typer.Typer(
    name="toolwire",
    help="Reliable LLM tool calling: parse, repair, type and run tool calls.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(parse)
app.command()(repair)
app.command()(demo)
app.command()(convert)
app.add_typer(tools_cmd.app, name="tools", help="List and call tools from MCP servers.")
app.add_typer(audit_cmd.app, name="audit", help="Reports from the audit log.")


def main() -> None:
    app()

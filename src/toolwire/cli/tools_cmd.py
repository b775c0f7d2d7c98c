"""``toolwire tools``: list and call the tools of MCP servers from an ``mcpServers`` file."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import orjson
import typer
from rich.console import Console
from rich.table import Table

from toolwire.audit.locations import default_location, open_sink, safe_url
from toolwire.cli.io import command_group

if TYPE_CHECKING:
    from toolwire.engine import ToolResult
    from toolwire.tools import ToolRegistry

# The engine and tool modules are imported inside the commands: every other toolwire
# command would otherwise pay for loading them (pydantic and the engine) at start-up.

app = command_group("List and call the tools of MCP servers (a JSON file in the mcpServers form).")


@app.callback()
def main() -> None:
    """List and call the tools of MCP servers."""


ConfigOpt = Annotated[
    Path,
    typer.Option("--config", "-c", metavar="FILE", help="MCP servers JSON file (mcpServers form)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Show the servers' stderr.")]

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_PENDING = 3


def _fail(message: str) -> typer.Exit:
    Console(stderr=True).print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_USAGE)


async def _with_registry(config: Path, verbose: bool, body: Any) -> Any:
    from toolwire.tools import ToolRegistry, load_mcp_config
    from toolwire.tools.mcp import open_toolsets

    servers = load_mcp_config(config)
    with open(os.devnull, "w") as devnull:
        errlog = sys.stderr if verbose else devnull
        async with open_toolsets(servers, errlog=errlog) as toolsets:
            return await body(ToolRegistry(toolsets))


def _run(config: Path, verbose: bool, body: Any) -> Any:
    """``body(registry)`` with every configured server connected; a configuration or a
    server that fails is one line on stderr and exit 2."""
    from toolwire.tools import MCPConfigError, MCPServerError

    try:
        return anyio.run(_with_registry, config, verbose, body)
    except MCPConfigError as exc:
        raise _fail(str(exc)) from None
    except MCPServerError as exc:
        hint = " (--verbose shows its stderr)" if exc.exited and not verbose else ""
        raise _fail(f"{exc}{hint}") from None


@app.command("list")
def list_tools(config: ConfigOpt, json_out: JsonOpt = False, verbose: VerboseOpt = False) -> None:
    """List every tool of every configured server, with its hints."""

    async def body(registry: ToolRegistry) -> list[dict[str, Any]]:
        collided = {n for names in registry.collisions.values() for n in names}
        return [
            {
                "name": t.name,
                "origin": t.origin,
                "description": t.spec.description,
                "hints": t.hints.to_dict(),
                "parameters": dict(t.spec.parameters),
                # Set when another tool declares the same name (so this one may be prefixed).
                "collides_as": getattr(t, "remote_name", t.name) if t.name in collided else None,
            }
            for t in registry
        ]

    tools = _run(config, verbose, body)
    if json_out:
        sys.stdout.write(orjson.dumps(tools, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    table = Table("tool", "server", "hints", "description")
    for t in tools:
        hints = ", ".join(k for k, v in t["hints"].items() if v is True)
        first_line = (t["description"] or "").strip().splitlines()[:1]
        table.add_row(t["name"], t["origin"].removeprefix("mcp:"), hints, "".join(first_line))
    Console().print(table)
    for line in collision_lines(tools):
        Console().print(line, highlight=False, soft_wrap=True)


def collision_lines(tools: list[dict[str, Any]]) -> list[str]:
    """One line per name that more than one tool declares, with the names they got."""
    by_declared: dict[str, list[str]] = {}
    for t in tools:
        if t["collides_as"] is not None:
            by_declared.setdefault(t["collides_as"], []).append(t["name"])
    return [
        f"collision: {declared!r} is declared by {len(names)} tools, listed as " + ", ".join(names)
        for declared, names in by_declared.items()
    ]


@app.command("call")
def call_tool(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Tool name (as listed).")],
    config: ConfigOpt,
    args: Annotated[
        str, typer.Option("--args", "-a", metavar="JSON", help="Arguments as JSON.")
    ] = "{}",
    audit: Annotated[
        str | None,
        typer.Option(
            "--audit",
            metavar="FILE|URL",
            help="Audit SQLite file or postgresql:// URL [default: $TOOLWIRE_AUDIT_DB or "
            "./toolwire-audit.db].",
        ),
    ] = None,
    approve: Annotated[
        bool, typer.Option("--approve", help="Approve the call if a policy asks for approval.")
    ] = False,
    timeout: Annotated[
        float, typer.Option(metavar="SECONDS", help="Seconds before the call times out.")
    ] = 60.0,
    task: Annotated[
        str | None, typer.Option(metavar="ID", help="Task id to file the call under.")
    ] = None,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Call one tool through the engine and print its result.

    Exit code 0: ok; 1: the call failed (tool error, invalid arguments, denied, timeout);
    2: bad usage or configuration; 3: the call waits for approval (re-run with --approve).
    """
    from toolwire.engine import ToolEngine

    audit_path = audit or default_location()
    try:
        opened = open_sink(audit_path)
    except (sqlite3.Error, OSError, ValueError) as exc:
        raise _fail(f"cannot use {safe_url(audit_path)} as the audit database: {exc}") from None
    sinks = [] if opened is None else [opened]

    async def body(registry: ToolRegistry) -> list[ToolResult]:
        engine = ToolEngine(registry, sinks=sinks, timeout=timeout)
        first = await engine.call(name, args, task_id=task)
        if first.status == "pending_approval" and approve and first.approval_id:
            return [first, await engine.approve(first.approval_id)]
        return [first]

    try:
        results = _run(config, verbose, body)
    finally:
        for sink in sinks:
            sink.close()
    result = results[-1]
    if json_out:
        out = result.to_dict()
        out["value"] = result.value if _jsonable(result.value) else result.content
        sys.stdout.write(orjson.dumps(out, default=str, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif result.status == "pending_approval":
        Console(stderr=True).print(
            f"[yellow]pending approval[/yellow] (id {result.approval_id}): {result.content}\n"
            "Re-run with --approve to run it.",
            highlight=False,
        )
    else:
        sys.stdout.write(result.content + ("\n" if not result.content.endswith("\n") else ""))
        if result.status != "ok":
            Console(stderr=True).print(f"[red]{result.status}[/red]", highlight=False)
    if result.status == "pending_approval":
        raise typer.Exit(EXIT_PENDING)
    if result.status != "ok":
        raise typer.Exit(EXIT_FAILED)


def _jsonable(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except TypeError:
        return False
    return True

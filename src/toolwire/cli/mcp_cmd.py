"""``toolwire mcp serve``: one MCP server in front of many, every call audited."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import anyio
import typer

from toolwire.cli.io import (
    AuditOption,
    OtlpOption,
    ToolsOption,
    audit_sinks,
    command_group,
    fail,
)

app = command_group("An MCP server in front of MCP servers and Python tools.")


@app.callback()
def main() -> None:
    """An MCP server in front of MCP servers and Python tools."""


@app.command("serve")
def serve_cmd(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", "-c", metavar="FILE", help="MCP servers JSON file (mcpServers form)."
        ),
    ] = None,
    tools: ToolsOption = None,
    audit: AuditOption = None,
    otlp_endpoint: OtlpOption = None,
    policy: Annotated[
        Path | None,
        typer.Option(
            "--policy",
            metavar="FILE",
            help='Policy JSON: {"allow": [...], "deny": [...], "require_approval": [...]}.',
        ),
    ] = None,
    timeout: Annotated[
        float, typer.Option(metavar="SECONDS", help="Per-call timeout (a server's own wins).")
    ] = 60.0,
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.",
        ),
    ] = None,
    api_key: Annotated[
        list[str] | None,
        typer.Option(
            "--api-key",
            metavar="KEY",
            help="With --http: a key clients must send (x-api-key or Bearer); repeatable. "
            "Without one, only a loopback address is served.",
        ),
    ] = None,
) -> None:
    """Serve MCP over stdio (or streamable HTTP): the tools of every configured server
    and the Python tools, each call through the engine (validate, coerce, policy,
    audit). Destructive tools wait for approval."""
    # Imported here: other commands should not pay for the engine and the SDK's server.
    from toolwire.engine.policy_file import PolicyFileError, load_policy_file
    from toolwire.mcpfront import HTTPListen, PythonToolsError, load_python_tools, serve
    from toolwire.tools import MCPConfigError, MCPServerError, load_mcp_config

    if config is None and not tools:
        fail("nothing to serve: give --config FILE and/or --tools MODULE:ATTR")
    listen = None
    if http is not None:
        host, sep, port = http.rpartition(":")
        if not sep or not host or not port.isdigit():
            fail(f"--http {http!r}: expected HOST:PORT (e.g. 127.0.0.1:8788)")
        listen = HTTPListen(host.strip("[]"), int(port), tuple(api_key or ()))
        problem = listen.problem()
        if problem is not None:
            fail(problem)
    elif api_key:
        fail("--api-key is for --http; stdio needs no key")
    try:
        servers = load_mcp_config(config) if config is not None else []
        python_tools = load_python_tools(tools or [])
        policies = load_policy_file(policy) if policy is not None else None
    except (MCPConfigError, PythonToolsError, PolicyFileError) as exc:
        fail(str(exc))
    sinks = audit_sinks(audit, otlp_endpoint, "toolwire-mcp")
    try:
        anyio.run(
            lambda: serve(
                servers,
                python_tools,
                sinks=sinks,
                policies=policies,
                timeout=timeout,
                http=listen,
            )
        )
    except MCPServerError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None

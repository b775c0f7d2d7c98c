"""``toolwire serve``: run the gateway (``toolwire.gateway``) with uvicorn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolwire.audit.sinks import AuditSink
from toolwire.audit.sqlite import SQLiteSink, default_audit_path
from toolwire.cli.io import fail
from toolwire.client.model_client import WIRE_PATHS
from toolwire.gateway.config import DEFAULT_UPSTREAM_KEY_ENV, ConfigError, GatewayConfig
from toolwire.textformats import FAMILIES


def serve(
    upstream: Annotated[
        str, typer.Option("--upstream", help="Upstream API base, e.g. http://127.0.0.1:8000/v1.")
    ],
    upstream_format: Annotated[
        str, typer.Option("--upstream-format", help="The upstream's wire format: openai-chat.")
    ] = "openai-chat",
    text_format: Annotated[
        str | None,
        typer.Option(
            "--text-format",
            help="Text-format family (or auto) for servers that leave tool markup in the text.",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Upstream model name to send (default: the client's)."),
    ] = None,
    upstream_key_env: Annotated[
        str,
        typer.Option("--upstream-key-env", help="Environment variable holding the upstream key."),
    ] = DEFAULT_UPSTREAM_KEY_ENV,
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8787,
    audit: Annotated[
        str | None,
        typer.Option(
            "--audit",
            help="Audit SQLite file, or none [default: $TOOLWIRE_AUDIT_DB or ./toolwire-audit.db].",
        ),
    ] = None,
    api_key: Annotated[
        list[str] | None,
        typer.Option("--api-key", help="A key clients must send (x-api-key or Bearer); repeat."),
    ] = None,
) -> None:
    """Serve OpenAI and Anthropic clients from any model server, every tool call repaired."""
    if upstream_format not in WIRE_PATHS:
        fail(f"--upstream-format {upstream_format!r} is not supported yet; use openai-chat")
    if text_format is not None and text_format not in FAMILIES:
        fail(f"unknown --text-format {text_format!r}; known: {', '.join(FAMILIES)}")
    if not upstream.startswith(("http://", "https://")):
        fail(f"--upstream must be an http(s) URL, got {upstream!r}")
    sink: AuditSink | None = None
    if audit != "none":
        path = Path(audit) if audit else default_audit_path()
        try:
            sink = SQLiteSink(path)
        except Exception as exc:  # sqlite3 errors: unwritable path, not a database
            fail(f"cannot open the audit database {path}: {exc}")
    config = GatewayConfig(
        upstream_url=upstream,
        upstream_format=upstream_format,
        model=model,
        upstream_key_env=upstream_key_env,
        text_format=text_format,
        api_keys=tuple(api_key or ()),
        audit=sink,
    )
    try:
        config.check_listen(host)
    except ConfigError as exc:
        fail(str(exc))
    import uvicorn  # the server is needed only here

    from toolwire.gateway import create_app

    typer.echo(f"toolwire: serving on http://{host}:{port} -> {upstream} ({upstream_format})")
    try:
        uvicorn.run(create_app(config), host=host, port=port, log_level="warning")
    finally:
        if sink is not None:
            sink.close()

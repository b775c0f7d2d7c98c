"""``toolwire serve``: run the gateway (``toolwire.gateway``) with uvicorn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolwire.audit.sinks import AuditSink
from toolwire.audit.sqlite import SQLiteSink, default_audit_path
from toolwire.cli.io import fail
from toolwire.gateway.config import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_UPSTREAM_KEY_ENV,
    UPSTREAM_FORMATS,
    ConfigError,
    ConfigFile,
    GatewayConfig,
    load_config,
)
from toolwire.gateway.limits import KeyLimits
from toolwire.textformats import FAMILIES


def serve(
    upstream: Annotated[
        str | None,
        typer.Option(
            "--upstream",
            help="Upstream API base, e.g. http://127.0.0.1:8000/v1 (serves any model name "
            "the config file does not).",
        ),
    ] = None,
    upstream_format: Annotated[
        str,
        typer.Option(
            "--upstream-format",
            help="The upstream's API: openai-chat, anthropic, openai-responses, gemini or ollama.",
        ),
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
    config_file: Annotated[
        Path | None,
        typer.Option("--config", help="TOML file: models, their upstreams, aliases, keys."),
    ] = None,
    host: Annotated[str | None, typer.Option("--host", help="[default: 127.0.0.1]")] = None,
    port: Annotated[int | None, typer.Option("--port", help="[default: 8787]")] = None,
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
    max_streams_per_key: Annotated[
        int | None,
        typer.Option(
            "--max-streams-per-key",
            min=1,
            help="Requests in flight at once per gateway key (per process); more get 429.",
        ),
    ] = None,
    requests_per_minute_per_key: Annotated[
        int | None,
        typer.Option(
            "--requests-per-minute-per-key",
            min=1,
            help="Requests per minute per gateway key (per process); more get 429.",
        ),
    ] = None,
) -> None:
    """Serve OpenAI and Anthropic clients from any model server, every tool call repaired."""
    if upstream_format not in UPSTREAM_FORMATS:
        fail(
            f"--upstream-format {upstream_format!r} is not supported; "
            f"known: {', '.join(UPSTREAM_FORMATS)}"
        )
    if text_format is not None and text_format not in FAMILIES:
        fail(f"unknown --text-format {text_format!r}; known: {', '.join(FAMILIES)}")
    if upstream is not None and not upstream.startswith(("http://", "https://")):
        fail(f"--upstream must be an http(s) URL, got {upstream!r}")
    if upstream is None and config_file is None:
        fail("give --upstream URL, or --config FILE")
    loaded: ConfigFile | None = None
    if config_file is not None:
        try:
            loaded = load_config(config_file)
        except ConfigError as exc:
            fail(str(exc))
    host = host or (loaded and loaded.host) or "127.0.0.1"
    port = port or (loaded and loaded.port) or 8787
    audit = audit or (loaded and loaded.audit) or None
    sink: AuditSink | None = None
    if audit != "none":
        path = Path(audit) if audit else default_audit_path()
        try:
            sink = SQLiteSink(path)
        except Exception as exc:  # sqlite3 errors: unwritable path, not a database
            fail(f"cannot open the audit database {path}: {exc}")
    base = loaded.config if loaded is not None else None
    file_limits = base.limits if base else KeyLimits()
    limits = KeyLimits(
        max_streams_per_key or file_limits.max_streams,
        requests_per_minute_per_key or file_limits.requests_per_minute,
    )
    try:
        config = GatewayConfig(
            upstream_url=upstream,
            upstream_format=upstream_format,
            model=model,
            upstream_key_env=upstream_key_env,
            text_format=text_format,
            api_keys=tuple(api_key or ()) + (base.api_keys if base else ()),
            audit=sink,
            max_body_bytes=base.max_body_bytes if base else DEFAULT_MAX_BODY_BYTES,
            routes=base.routes if base else (),
            aliases=base.aliases if base else (),
            limits=limits,
        )
        config.check_listen(host)
    except ConfigError as exc:
        fail(str(exc))
    import uvicorn  # the server is needed only here

    from toolwire.gateway import create_app

    served = ", ".join(f"{r.name} -> {r.upstream_url}" for r in config.all_routes())
    typer.echo(f"toolwire: serving on http://{host}:{port}: {served}")
    try:
        uvicorn.run(create_app(config), host=host, port=port, log_level="warning")
    finally:
        if sink is not None:
            sink.close()

"""``toolwire serve``: run the gateway (``toolwire.gateway``) with uvicorn.

With ``--workers N`` uvicorn starts N processes, each of which builds its gateway by
``worker_app`` from the same settings, passed in an environment variable. A gateway
keeps nothing between requests except its metrics and per-key limit counts. Metrics
are summed over the workers (a ``PROMETHEUS_MULTIPROC_DIR`` this command makes and
removes); limits are per worker unless ``--redis`` shares them; every worker writes to
the same audit database.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolwire.audit.locations import default_location, open_sink, safe_url
from toolwire.audit.sinks import AuditSink
from toolwire.cli.io import OtlpOption, fail, start_tracing
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

if TYPE_CHECKING:
    from starlette.applications import Starlette

# Where ``serve --workers N`` hands its settings to the worker processes.
SETTINGS_ENV = "TOOLWIRE_SERVE_SETTINGS"
# Where the workers keep their metrics for /metrics to sum (prometheus_client's name).
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# the choices of ``--loop`` and ``--http``: the fast one (its own package), the standard one
LOOPS = ("uvloop", "asyncio")
HTTP_PROTOCOLS = ("httptools", "h11")


class ServeError(Exception):
    """A setting ``serve`` refuses; the message is the one line it prints."""


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """The options of ``toolwire serve``, as given (JSON-able, for the workers)."""

    upstream: str | None = None
    upstream_format: str = "openai-chat"
    text_format: str | None = None
    model: str | None = None
    upstream_key_env: str = DEFAULT_UPSTREAM_KEY_ENV
    config_file: str | None = None
    host: str | None = None
    port: int | None = None
    audit: str | None = None
    api_keys: tuple[str, ...] = ()
    max_streams_per_key: int | None = None
    requests_per_minute_per_key: int | None = None
    otlp_endpoint: str | None = None
    tokens_per_minute_per_key: int | None = None
    redis: str | None = None

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeSettings:
        values: dict[str, Any] = json.loads(text)
        values["api_keys"] = tuple(values.get("api_keys") or ())
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Serving:
    """What the settings resolve to: the gateway's config, where it listens, its sink."""

    config: GatewayConfig
    host: str
    port: int
    sink: AuditSink | None


def prepare(settings: ServeSettings) -> Serving:
    """The gateway's config for ``settings``; raises ``ServeError``. Opens the audit sink."""
    if settings.upstream_format not in UPSTREAM_FORMATS:
        raise ServeError(
            f"--upstream-format {settings.upstream_format!r} is not supported; "
            f"known: {', '.join(UPSTREAM_FORMATS)}"
        )
    if settings.text_format is not None and settings.text_format not in FAMILIES:
        raise ServeError(
            f"unknown --text-format {settings.text_format!r}; known: {', '.join(FAMILIES)}"
        )
    upstream = settings.upstream
    if upstream is not None and not upstream.startswith(("http://", "https://")):
        raise ServeError(f"--upstream must be an http(s) URL, got {upstream!r}")
    if upstream is None and settings.config_file is None:
        raise ServeError("give --upstream URL, or --config FILE")
    loaded: ConfigFile | None = None
    if settings.config_file is not None:
        try:
            loaded = load_config(Path(settings.config_file))
        except ConfigError as exc:
            raise ServeError(str(exc)) from None
    host = settings.host or (loaded and loaded.host) or "127.0.0.1"
    port = settings.port or (loaded and loaded.port) or 8787
    audit = settings.audit or (loaded and loaded.audit) or None
    base = loaded.config if loaded is not None else None
    file_limits = base.limits if base else KeyLimits()
    limits = KeyLimits(
        settings.max_streams_per_key or file_limits.max_streams,
        settings.requests_per_minute_per_key or file_limits.requests_per_minute,
        settings.tokens_per_minute_per_key or file_limits.tokens_per_minute,
    )
    redis_url = settings.redis or (base.redis_url if base else None)
    if redis_url is not None and not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ServeError(f"--redis must be a redis:// URL, got {redis_url!r}")
    try:
        config = GatewayConfig(
            upstream_url=upstream,
            upstream_format=settings.upstream_format,
            model=settings.model,
            upstream_key_env=settings.upstream_key_env,
            text_format=settings.text_format,
            api_keys=settings.api_keys + (base.api_keys if base else ()),
            max_body_bytes=base.max_body_bytes if base else DEFAULT_MAX_BODY_BYTES,
            routes=base.routes if base else (),
            aliases=base.aliases if base else (),
            limits=limits,
            redis_url=redis_url,
            stream_lease_seconds=base.stream_lease_seconds if base else 15.0,
        )
        config.check_listen(host)
    except ConfigError as exc:
        raise ServeError(str(exc)) from None
    where = audit or default_location()
    try:
        sink = open_sink(where)
    except Exception as exc:  # sqlite3 errors, an unwritable spill directory, a newer schema
        raise ServeError(f"cannot open the audit database {safe_url(where)}: {exc}") from None
    location = where if sink is not None else None
    return Serving(
        dataclasses.replace(config, audit=sink, audit_location=location), host, port, sink
    )


def server_choice(loop: str, http: str) -> tuple[str, str]:
    """The event loop and HTTP protocol uvicorn is to use: ``auto`` is uvloop and
    httptools where they are installed, else asyncio and h11 (as uvicorn chooses);
    raises ``ServeError`` for an unknown name or one that is not installed."""
    return _choose("--loop", loop, LOOPS), _choose("--http", http, HTTP_PROTOCOLS)


def _choose(option: str, value: str, names: tuple[str, str]) -> str:
    fast, standard = names
    if value not in ("auto", *names):
        raise ServeError(f"{option} {value!r} is not known; known: auto, {fast}, {standard}")
    installed = importlib.util.find_spec(fast) is not None
    if value == fast and not installed:
        raise ServeError(f"{option} {fast}: the {fast} package is not installed")
    if value == "auto":
        return fast if installed else standard
    return value


def frozen_after_startup(app: Starlette) -> Starlette:
    """``app``, whose start ends with ``gc.freeze()``: what the process holds once it
    has started (modules, the app, its clients: about 50,000 objects) is never walked
    by a garbage collection again. Measured: a full collection of them took 30 ms of
    CPU, during which no stream moves (at 50 streams × 50 tokens/s, 75 chunks held up
    at once: more than the slowest 1% of a 2-second run); after the freeze, under 1 ms.
    Collections of what requests make go on as before."""
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with inner(app):
            gc.collect()  # what startup left unreachable is not kept for good
            gc.freeze()
            yield

    app.router.lifespan_context = lifespan
    return app


def worker_app() -> Starlette:
    """The gateway of one ``--workers`` process (a uvicorn app factory): built from the
    settings the parent process checked, its audit sink closed when the worker stops."""
    from toolwire.gateway import create_app

    settings = ServeSettings.from_json(os.environ[SETTINGS_ENV])
    serving = prepare(settings)
    start_tracing(settings.otlp_endpoint, "toolwire-gateway")  # checked by the parent
    app = create_app(serving.config)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            async with inner(app):
                yield
        finally:
            if serving.sink is not None:
                serving.sink.close()
            if os.environ.get(MULTIPROC_ENV):
                from prometheus_client import multiprocess

                # its live gauges stop counting
                multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]

    app.router.lifespan_context = lifespan
    return frozen_after_startup(app)


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
            help="Audit SQLite file, postgresql:// URL (shared by replicas), or none "
            "[default: $TOOLWIRE_AUDIT_DB or ./toolwire-audit.db].",
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
            help="Requests in flight at once per gateway key; more get 429.",
        ),
    ] = None,
    requests_per_minute_per_key: Annotated[
        int | None,
        typer.Option(
            "--requests-per-minute-per-key",
            min=1,
            help="Requests per minute per gateway key; more get 429.",
        ),
    ] = None,
    tokens_per_minute_per_key: Annotated[
        int | None,
        typer.Option(
            "--tokens-per-minute-per-key",
            min=1,
            help="Tokens (input and output) per minute per gateway key; more get 429.",
        ),
    ] = None,
    redis: Annotated[
        str | None,
        typer.Option(
            "--redis",
            metavar="URL",
            help="Count the per-key limits in this Redis, shared by every worker and "
            "replica [default: per process].",
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            help="Server processes; /metrics sums them. Per-key limits are per process "
            "unless --redis is given.",
        ),
    ] = 1,
    loop: Annotated[
        str,
        typer.Option(
            "--loop",
            help="Event loop: auto (uvloop where installed, else asyncio), asyncio or uvloop.",
        ),
    ] = "auto",
    http: Annotated[
        str,
        typer.Option(
            "--http",
            help="HTTP/1.1 server protocol: auto (httptools where installed, else h11), "
            "h11 or httptools.",
        ),
    ] = "auto",
    otlp_endpoint: OtlpOption = None,
) -> None:
    """Serve OpenAI and Anthropic clients from any model server, every tool call repaired."""
    settings = ServeSettings(
        upstream=upstream,
        upstream_format=upstream_format,
        text_format=text_format,
        model=model,
        upstream_key_env=upstream_key_env,
        config_file=str(config_file) if config_file is not None else None,
        host=host,
        port=port,
        audit=audit,
        api_keys=tuple(api_key or ()),
        max_streams_per_key=max_streams_per_key,
        requests_per_minute_per_key=requests_per_minute_per_key,
        otlp_endpoint=otlp_endpoint,
        tokens_per_minute_per_key=tokens_per_minute_per_key,
        redis=redis,
    )
    try:
        loop, http = server_choice(loop, http)
        serving = prepare(settings)
    except ServeError as exc:
        fail(str(exc))
    import uvicorn  # the server is needed only here

    from toolwire.gateway import create_app

    start_tracing(otlp_endpoint, "toolwire-gateway")
    served = ", ".join(f"{r.name} -> {r.upstream_url}" for r in serving.config.all_routes())
    each = f" ({workers} workers)" if workers > 1 else ""
    typer.echo(
        f"toolwire: serving on http://{serving.host}:{serving.port}{each} ({loop}, {http}): "
        f"{served}"
    )
    if workers > 1:
        # Each worker opens its own sink and tracer provider; this process only
        # checked that they open.
        if serving.sink is not None:
            serving.sink.close()
        os.environ[SETTINGS_ENV] = settings.to_json()
        metrics_dir = tempfile.mkdtemp(prefix="toolwire-metrics-")
        os.environ[MULTIPROC_ENV] = metrics_dir  # read by the workers when they start
        try:
            uvicorn.run(
                f"{__name__}:worker_app",
                factory=True,
                workers=workers,
                host=serving.host,
                port=serving.port,
                loop=loop,
                http=http,
                log_level="warning",
            )
        finally:
            os.environ.pop(MULTIPROC_ENV, None)
            shutil.rmtree(metrics_dir, ignore_errors=True)
        return
    try:
        uvicorn.run(
            frozen_after_startup(create_app(serving.config)),
            host=serving.host,
            port=serving.port,
            loop=loop,
            http=http,
            log_level="warning",
        )
    finally:
        if serving.sink is not None:
            serving.sink.close()

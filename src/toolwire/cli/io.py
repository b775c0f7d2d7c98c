"""Small shared helpers for commands: reading inputs, printing JSON, failing clearly."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import orjson
import typer

from toolwire.finish import schema_problem
from toolwire.jsontext import NotJSONError, dumps
from toolwire.spec import ToolSpec, ToolSpecError, load_tool_specs

if TYPE_CHECKING:
    from toolwire.audit.sinks import AuditSink

# options the commands that run tools share (chat, mcp serve)
ToolsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tools",
        metavar="MODULE:ATTR",
        help="Python tools: a @tool, a function or a list of them (repeatable).",
    ),
]
AuditOption = Annotated[
    str | None,
    typer.Option(
        "--audit",
        metavar="DB|URL|none",
        help="Audit SQLite file, postgresql:// URL, or 'none' [default: $TOOLWIRE_AUDIT_DB "
        "or ./toolwire-audit.db].",
    ),
]

OtlpOption = Annotated[
    str | None,
    typer.Option(
        "--otlp-endpoint",
        metavar="URL",
        help="Export OpenTelemetry spans over OTLP/HTTP to URL (…/v1/traces) [default: "
        "$OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or $OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces].",
    ),
]


def start_tracing(endpoint: str | None, service_name: str) -> Any:
    """The tracer provider for ``--otlp-endpoint`` (or the standard variables), set as
    the global one; None when neither asks for tracing. Missing packages: one line,
    exit 2. Call ``shutdown()`` on it at exit to flush the last spans."""
    from toolwire.audit.tracing import TracingUnavailable, configure_tracing, endpoint_from_env

    endpoint = endpoint or endpoint_from_env()
    if not endpoint:
        return None
    if not endpoint.startswith(("http://", "https://")):
        fail(f"--otlp-endpoint must be an http(s) URL, got {endpoint!r}")
    try:
        return configure_tracing(endpoint, service_name=service_name)
    except TracingUnavailable as exc:
        fail(str(exc))


def audit_sinks(
    audit: str | None, otlp_endpoint: str | None = None, service_name: str = "toolwire"
) -> list[AuditSink]:
    """The sinks ``--audit`` names (``toolwire.audit.open_sink``): none for 'none',
    else the SQLite file (the default path when not given) or the PostgreSQL database;
    one that cannot be used is one line and exit 2. With tracing on
    (``--otlp-endpoint`` or the standard variables), also the OTel sink: an
    ``execute_tool`` span per call."""
    import sqlite3

    from toolwire.audit.locations import default_location, open_sink, safe_url

    traced: list[AuditSink] = []
    provider = start_tracing(otlp_endpoint, service_name)
    if provider is not None:
        from toolwire.audit.otel import OTelSink

        traced.append(OTelSink(provider))
    where = audit or default_location()
    try:
        sink = open_sink(where)
    except (sqlite3.Error, OSError, ValueError) as exc:
        fail(f"cannot use {safe_url(where)} as the audit database: {exc}")
    return [*([] if sink is None else [sink]), *traced]


def command_group(help: str) -> typer.Typer:
    """A typer app with toolwire's help conventions: plain help text (no type column of
    ``<bool>``/``<str>``; metavars name what a value is), ``-h`` as well as ``--help``."""
    return typer.Typer(
        help=help,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"toolwire: {message}", err=True)
    raise typer.Exit(code)


def read_input(path: str | None) -> bytes:
    """A file's bytes, or standard input for ``-`` / no path."""
    if path is None or path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")


def read_json_file(path: str, what: str) -> Any:
    data = read_input(path)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        fail(f"{what} file {path} is not JSON: it is not UTF-8 text (byte {exc.start})")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        fail(f"{what} file {path} is not valid JSON: {exc}")


def read_tools(path: str | None) -> list[ToolSpec]:
    """The tools of a tools file; a tool whose schema is not JSON Schema is refused here
    rather than turning each of its calls ``invalid``."""
    if path is None:
        return []
    try:
        specs = load_tool_specs(read_json_file(path, "tools"))
    except ToolSpecError as exc:
        fail(f"tools file {path}: {exc}")
    for spec in specs:
        problem = schema_problem(spec.parameters)
        if problem is not None:
            fail(f"tools file {path}: tool {spec.name!r}: not valid JSON Schema: {problem}")
    return specs


def print_json(value: Any) -> None:
    """Indented JSON on stdout; a lone surrogate is written as its ``\\uXXXX`` escape."""
    try:
        text = dumps(value, indent=True)
    except NotJSONError as exc:
        fail(f"the result cannot be written as JSON: {exc}")
    sys.stdout.write(text + "\n")

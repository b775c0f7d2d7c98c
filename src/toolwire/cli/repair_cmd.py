"""``toolwire repair``: broken JSON (or a Python literal) in, the repaired value out."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from toolwire.cli.io import fail, print_json, read_json_file
from toolwire.coerce import coerce_arguments
from toolwire.finish import SchemaValidator
from toolwire.repair import repair_json

#: Exit code when the input was cut off: what is printed is a best effort (F1).
EXIT_TRUNCATED = 3


def repair(
    text: Annotated[
        str | None,
        typer.Argument(
            metavar="TEXT", help="The text to repair; standard input when missing or -."
        ),
    ] = None,
    schema: Annotated[
        str | None,
        typer.Option(metavar="FILE", help="JSON Schema file: coerce and validate the value by it."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help='Print {"value", "status", "repairs"}.')
    ] = False,
) -> None:
    """Repair one JSON value and print it.

    Exit 1: nothing could be recovered.
    Exit 3: the input was cut off; the value printed is what arrived (status "truncated").
    """
    raw = sys.stdin.read() if text is None or text == "-" else text
    result = repair_json(raw)
    if not result.ok:
        fail(f"nothing could be recovered: {result.error}", code=1)
    value: Any = result.value
    repairs = list(result.repairs)
    status: str = result.status
    errors: list[str] = []
    if schema is not None:
        schema_doc = read_json_file(schema, "schema")
        if not isinstance(schema_doc, dict):
            fail(f"schema file {schema} must hold a JSON object")
        coerced = coerce_arguments(value, schema_doc)
        value = coerced.value
        repairs.extend(coerced.repairs)
        errors = SchemaValidator(schema_doc).errors(value)
        if coerced.repairs and status == "complete":
            status = "repaired"
        if errors and status != "truncated":
            status = "invalid"
    if as_json:
        out: dict[str, Any] = {"value": value, "status": status, "repairs": repairs}
        if errors:
            out["errors"] = errors
        print_json(out)
    else:
        print_json(value)
        for error in errors:
            typer.echo(f"toolwire: {error}", err=True)
    if result.truncated:
        fail("the input was cut off: the value printed is incomplete", code=EXIT_TRUNCATED)

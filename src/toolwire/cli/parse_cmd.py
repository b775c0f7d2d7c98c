"""``toolwire parse``: a raw stream in, one JSON object with the calls out."""

from __future__ import annotations

from typing import Annotated

import typer

from toolwire.cli.io import fail, print_json, read_input, read_tools
from toolwire.events import StreamResult, ToolCall
from toolwire.parser import StreamParser, UnknownFormatError


def parse(
    file: Annotated[
        str | None,
        typer.Argument(metavar="FILE", help="Stream file; standard input when missing or -."),
    ] = None,
    format: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="auto | openai-chat | anthropic | openai-responses | gemini | ollama | "
            "text:<family> (text:auto detects the family).",
        ),
    ] = "auto",
    tools: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="JSON list of tools: {name, parameters}, OpenAI or Anthropic shape.",
        ),
    ] = None,
    text_format: Annotated[
        str | None,
        typer.Option(
            metavar="FAMILY",
            help="Also extract tool markup from the stream's text (e.g. hermes).",
        ),
    ] = None,
    calls_in_reasoning: Annotated[
        bool,
        typer.Option(help="Keep tool calls written inside reasoning (<think>)."),
    ] = False,
    strict: Annotated[
        bool,
        typer.Option(help="Exit 1 when a call is truncated or invalid."),
    ] = False,
) -> None:
    """Parse a raw model stream and print its calls, text, finish reason and usage.

    Output: {"calls": [{"id", "name", "arguments", "partial_arguments", "status",
    "repairs", "errors"}], "text", "finish_reason", "usage"}, plus "reasoning" and
    "errors" when there are any. Each call's status says how far it can be trusted; a
    truncated or invalid call also gets a one-line warning on stderr.

    Exit 0 whenever the input could be read (with --strict: 1 when a call is truncated
    or invalid); 2 for empty input, input that is not text, unreadable files, bad tools
    files and unknown formats.
    """
    specs = read_tools(tools)
    data = read_input(file)
    try:
        parser = StreamParser(
            format, specs, text_format=text_format, calls_in_reasoning=calls_in_reasoning
        )
    except UnknownFormatError as exc:
        fail(str(exc))
    events = parser.feed(data)
    events.extend(parser.close())
    if parser.input_error is not None:  # empty, or not text: nothing to report on
        fail(parser.input_error)
    result = StreamResult.collect(events)
    print_json(result.to_dict())
    untrusted = [c for c in result.calls if c.status in ("truncated", "invalid")]
    for call in untrusted:
        typer.echo(f"toolwire: {'' if strict else 'warning: '}{_call_problem(call)}", err=True)
    if strict and untrusted:
        raise typer.Exit(1)


def _call_problem(call: ToolCall) -> str:
    """One line on what is wrong with a call that must not run as it is."""
    named = f"call {call.name!r}" + (f" ({call.id})" if call.id else "")
    if call.status == "truncated":
        return f"{named} is truncated: its arguments were cut off"
    why = call.errors[0] if call.errors else "its arguments could not be read"
    return f"{named} is invalid: {' '.join(why.split())}"

"""``toolwire parse``: a raw stream in, one JSON object with the calls out."""

from __future__ import annotations

from typing import Annotated

import typer

from toolwire.cli.io import fail, print_json, read_input, read_tools
from toolwire.events import StreamResult
from toolwire.parser import StreamParser, UnknownFormatError


def parse(
    file: Annotated[str | None, typer.Argument(help="Stream file, or - for stdin.")] = None,
    format: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="auto | openai-chat | anthropic | openai-responses | gemini | ollama | "
            "text:<family> (text:auto detects the family).",
        ),
    ] = "auto",
    tools: Annotated[
        str | None,
        typer.Option(help="JSON list of tools: {name, parameters}, OpenAI or Anthropic shape."),
    ] = None,
    text_format: Annotated[
        str | None,
        typer.Option(help="Also extract tool markup from the stream's text (e.g. hermes)."),
    ] = None,
    calls_in_reasoning: Annotated[
        bool,
        typer.Option(help="Keep tool calls written inside reasoning (<think>); default: ignore."),
    ] = False,
) -> None:
    """Parse a raw model stream and print its calls, text, finish reason and usage.

    Output: {"calls": [{"id", "name", "arguments", "partial_arguments", "status",
    "repairs", "errors"}], "text", "finish_reason", "usage"}. Exit 0 whenever the input
    could be read; each call's status says how far it can be trusted. Exit 2 for empty
    input or input that is not text.
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
    print_json(StreamResult.collect(events).to_dict())

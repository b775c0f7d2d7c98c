"""``toolwire convert``: re-encode a stream from one wire format to another.

Reads incrementally (a pipe from ``curl -N`` is converted as it arrives) and writes
each wire chunk as soon as it exists; ``--whole`` writes the target's non-streaming
response body instead, at the end. What the target format cannot express is reported
on standard error, never dropped silently.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, BinaryIO

import typer

from toolwire.cli.io import fail, read_tools
from toolwire.encoders import ENCODERS, StreamConverter, UnknownEncoderError
from toolwire.parser import UnknownFormatError

_CHUNK = 65536


def _read(stream: BinaryIO) -> bytes:
    """The bytes available now (at most one chunk); empty at the end of input."""
    read1 = getattr(stream, "read1", None)
    data: bytes = read1(_CHUNK) if read1 is not None else stream.read(_CHUNK)
    return data


def convert(
    file: Annotated[str, typer.Argument(help="Stream file, or - for stdin.")] = "-",
    source: Annotated[
        str,
        typer.Option(
            "--from",
            help="Source wire format: openai-chat | anthropic | openai-responses | gemini | "
            "ollama | auto.",
        ),
    ] = "auto",
    target: Annotated[
        str,
        typer.Option(
            "--to",
            help=f"Target wire format: {' | '.join(ENCODERS)} | gemini-array.",
        ),
    ] = "openai-chat",
    tools: Annotated[
        str | None,
        typer.Option(help="JSON list of tools, to repair and validate calls on the way."),
    ] = None,
    arguments: Annotated[
        str,
        typer.Option(
            help="final: each call whole, with repaired arguments | stream: argument text "
            "forwarded as it arrives.",
        ),
    ] = "final",
    model: Annotated[str, typer.Option(help="Model name written into the output.")] = "toolwire",
    whole: Annotated[
        bool,
        typer.Option(
            "--whole",
            help="Write the target's non-streaming response body (one JSON object).",
        ),
    ] = False,
) -> None:
    """Re-encode a model stream in another wire format (decode → canonical events → encode)."""
    if arguments not in ("final", "stream"):
        fail(f"--arguments must be 'final' or 'stream', not {arguments!r}")
    specs = read_tools(tools)
    try:
        converter = StreamConverter(
            source, target, specs, arguments=arguments, model=model, whole=whole
        )
    except (UnknownFormatError, UnknownEncoderError) as exc:
        fail(str(exc))
    try:
        stream: BinaryIO = sys.stdin.buffer if file == "-" else Path(file).open("rb")  # noqa: SIM115
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    out = sys.stdout
    try:
        out.write("".join(converter.start()))
        while data := _read(stream):
            out.write("".join(converter.feed(data)))
            out.flush()
        out.write("".join(converter.close()) + ("\n" if whole else ""))
        out.flush()
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    for note in converter.lossy:
        typer.echo(f"toolwire: not expressible in {target}: {note}", err=True)

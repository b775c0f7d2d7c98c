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
from toolwire.events import Event, StreamError, StreamFinished
from toolwire.parser import UnknownFormatError
from toolwire.providers import detect_format

_CHUNK = 65536
_HEAD = 4096  # bytes of the input kept to name the format it looks like


def _read(stream: BinaryIO) -> bytes:
    """The bytes available now (at most one chunk); empty at the end of input."""
    read1 = getattr(stream, "read1", None)
    data: bytes = read1(_CHUNK) if read1 is not None else stream.read(_CHUNK)
    return data


class _OutputGate:
    """Holds the output back until the input reads as the ``--from`` format: a wrong
    ``--from`` is then an error on stderr, not a converted stream of error events.

    The input has shown its format once the decoder produced content (text, a call),
    usage, or a finish reason the wire sent. With ``--from auto`` nothing is held.
    """

    def __init__(self, source: str, prelude: list[str]) -> None:
        self.source = source
        self.holding = source != "auto"
        self._held = list(prelude)
        self._head = b""  # the start of the input, to name the format it looks like
        self._size = 0
        self._seen = 0  # events already looked at

    def release(self, data: bytes, parts: list[str], events: list[Event]) -> list[str]:
        """What may be written now, given the input ``data`` just fed and its output."""
        self._held.extend(parts)
        if self.holding:
            self._size += len(data)
            self._head += data[: max(0, _HEAD - len(self._head))]
            # empty input is never the format, whatever the decoder made of it
            if not self._recognised(events) or self._size == 0:
                return []
            self.holding = False
        out, self._held = self._held, []
        return out

    def _recognised(self, events: list[Event]) -> bool:
        new, self._seen = events[self._seen :], len(events)
        for event in new:
            if isinstance(event, StreamFinished):
                if event.raw_finish_reason is not None or (event.usage and event.usage.to_dict()):
                    return True
            elif not isinstance(event, StreamError):
                return True
        return False

    def problem(self) -> str:
        if self._size == 0:
            return f"the input is empty: nothing to convert from {self.source}"
        looks = detect_format(self._head.decode("utf-8", "replace"))
        hint = (
            f"it looks like {looks}: use --from {looks} or --from auto"
            if looks not in (None, self.source)
            else "check --from, or use --from auto"
        )
        return f"nothing in the input reads as {self.source} ({hint})"


def convert(
    file: Annotated[
        str | None,
        typer.Argument(metavar="FILE", help="Stream file; standard input when missing or -."),
    ] = None,
    source: Annotated[
        str,
        typer.Option(
            "--from",
            metavar="FORMAT",
            help="Source wire format: openai-chat | anthropic | openai-responses | gemini | "
            "ollama | auto.",
        ),
    ] = "auto",
    target: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="FORMAT",
            help=f"Target wire format: {' | '.join(ENCODERS)} | gemini-array.",
        ),
    ] = "openai-chat",
    tools: Annotated[
        str | None,
        typer.Option(
            metavar="FILE", help="JSON list of tools, to repair and validate calls on the way."
        ),
    ] = None,
    arguments: Annotated[
        str,
        typer.Option(
            metavar="MODE",
            help="final: each call whole, with repaired arguments | stream: argument text "
            "forwarded as it arrives.",
        ),
    ] = "final",
    model: Annotated[
        str, typer.Option(metavar="NAME", help="Model name written into the output.")
    ] = "toolwire",
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
        stream: BinaryIO = (
            sys.stdin.buffer if file in (None, "-") else Path(file).open("rb")  # noqa: SIM115
        )
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    gate = _OutputGate(source, converter.start())
    out = sys.stdout
    try:
        out.write("".join(gate.release(b"", [], converter.events)))
        while data := _read(stream):
            out.write("".join(gate.release(data, converter.feed(data), converter.events)))
            out.flush()
        last = gate.release(b"", converter.close(), converter.events)
        if gate.holding:
            fail(gate.problem())
        out.write("".join(last) + ("\n" if whole else ""))
        out.flush()
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    for note in converter.lossy:
        typer.echo(f"toolwire: not expressible in {target}: {note}", err=True)

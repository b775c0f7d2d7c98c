"""``toolwire demo``: the bundled real captures and failure-mode streams, end to end."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from toolwire.cli.io import fail
from toolwire.events import StreamResult
from toolwire.parser import StreamParser, UnknownFormatError
from toolwire.replay.recorded import RecordedStream, read_cases, real_captures

_STATUS_STYLE = {
    "complete": "green",
    "repaired": "yellow",
    "truncated": "red",
    "invalid": "magenta",
}


def bundled_streams() -> list[RecordedStream]:
    """Real captures first, then one stream per failure mode."""
    return real_captures() + read_cases("streams.jsonl")


def _chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def run_stream(stream: RecordedStream, chunk_size: int = 7) -> tuple[StreamResult, int]:
    """Feed the stream in small network-like pieces, as a real client would see it."""
    parser = StreamParser(stream.format, stream.tools)
    events = []
    pieces = _chunked(stream.data, chunk_size)
    for piece in pieces:
        events.extend(parser.feed(piece))
    events.extend(parser.close())
    return StreamResult.collect(events), len(pieces)


def _short(value: Any, limit: int = 44) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _stream_cell(stream: RecordedStream, pieces: int) -> Text:
    cell = Text(stream.name, style="cyan")
    cell.append(f"\n{stream.format}", style="dim")
    if stream.covers:
        cell.append(f", {' '.join(stream.covers)}", style="dim")
    cell.append(f"\n{len(stream.data):,} B in {pieces} reads", style="dim")
    return cell


def _outcome_cell(result: StreamResult) -> Group:
    """Each call (name, arguments, status; repairs and first error indented), then the
    finish reason."""
    lines: list[RenderableType] = []
    for call in result.calls:
        shown = call.arguments if call.arguments is not None else call.partial_arguments
        line = Text(call.name, style="bold")
        line.append(f"({_short(shown)}) ")
        line.append(call.status, style=_STATUS_STYLE.get(call.status, ""))
        lines.append(line)
        if call.repairs:
            lines.append(Padding(Text(", ".join(call.repairs), style="yellow"), (0, 0, 0, 2)))
        for error in call.errors[:1]:
            lines.append(Padding(Text(f"↳ {error}", style="dim"), (0, 0, 0, 2)))
    if result.text and not result.calls:
        lines.append(Text(f"text: {_short(result.text)}", style="dim"))
    lines.append(Text(f"finish: {result.finish_reason or '-'}", style="dim"))
    return Group(*lines)


def _matches(result: StreamResult, expect: dict[str, Any] | None) -> bool | None:
    if expect is None:
        return None
    calls = expect.get("calls", [])
    if len(calls) != len(result.calls):
        return False
    for want, got in zip(calls, result.calls, strict=True):
        for key, value in want.items():
            if getattr(got, key) != value:
                return False
    if "finish_reason" in expect and expect["finish_reason"] != result.finish_reason:
        return False
    return "text" not in expect or expect["text"] == result.text


def demo(
    streams: Annotated[
        bool,
        typer.Option(
            "--streams", help="Instead: the bundled streams through the parser, as a table."
        ),
    ] = False,
    chunk_size: Annotated[
        int,
        typer.Option(
            min=1, metavar="BYTES", help="With --streams: bytes per network read for each stream."
        ),
    ] = 7,
) -> None:
    """The gateway end to end: broken streams from a replayed model server, asked by the
    real openai and anthropic SDKs directly and through toolwire serve (no network)."""
    if streams:
        streams_table(chunk_size)
        return
    try:
        from toolwire.cli.demo_gateway import render, run_demo

        run = run_demo()
    except ImportError as exc:
        fail(
            f"the demo drives the real SDKs and {exc.name} is not installed: "
            "pip install 'toolwire[demo]' (or run toolwire demo --streams)"
        )
    render(run, Console())


def streams_table(chunk_size: int) -> None:
    """Run the bundled streams through the pipeline and show what came out."""
    console = Console()
    table = Table(
        title=f"toolwire demo: real captures and failure-mode streams, in {chunk_size}-byte reads",
        show_lines=True,
    )
    # Three columns, so that a stream and its calls read on an 80-column terminal.
    table.add_column("stream", min_width=18, max_width=24, overflow="fold")
    table.add_column("calls: arguments, status, repairs; finish", ratio=1)
    table.add_column("match", justify="center", no_wrap=True)
    statuses = dict.fromkeys(_STATUS_STYLE, 0)
    streams = calls = 0
    expected = {True: 0, False: 0}
    skipped: list[str] = []
    for stream in bundled_streams():
        try:
            result, pieces = run_stream(stream, chunk_size)
        except UnknownFormatError as exc:
            skipped.append(stream.name)
            table.add_row(stream.name, Text(str(exc), style="dim"), "")
            continue
        streams += 1
        for call in result.calls:
            calls += 1
            statuses[call.status] += 1
        verdict = _matches(result, stream.expect)
        if verdict is not None:
            expected[verdict] += 1
        mark = {None: "", True: "[green]✓[/]", False: "[red]✗[/]"}[verdict]
        table.add_row(_stream_cell(stream, pieces), _outcome_cell(result), mark)
    console.print(table)
    with_expectation = expected[True] + expected[False]
    console.print(
        f"{streams} streams ({streams - with_expectation} real captures, {with_expectation} "
        f"with an expected result), {calls} calls: "
        f"[green]{statuses['complete']} complete[/], [yellow]{statuses['repaired']} repaired[/], "
        f"[red]{statuses['truncated']} truncated[/] (never handed over as final), "
        f"[magenta]{statuses['invalid']} invalid[/] (kept, with an error the model can act on)."
        f"\nAs expected: {expected[True]} of the {with_expectation} streams with an expected "
        "result." + (f"\nSkipped (format unknown): {', '.join(skipped)}." if skipped else ""),
        highlight=False,
    )

"""``toolwire demo``: the bundled real captures and failure-mode streams, end to end."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from toolwire.events import StreamResult, ToolCall
from toolwire.parser import StreamParser, UnknownFormatError

_STATUS_STYLE = {
    "complete": "green",
    "repaired": "yellow",
    "truncated": "red",
    "invalid": "magenta",
}


@dataclass
class DemoStream:
    name: str
    format: str
    data: bytes
    tools: list[dict[str, Any]]
    covers: list[str]
    expect: dict[str, Any] | None


def bundled_streams() -> list[DemoStream]:
    """Real captures first, then one stream per failure mode."""
    root = resources.files("toolwire.data.demo")
    out: list[DemoStream] = []
    for provider, fmt in (("openai", "openai-chat"), ("anthropic", "anthropic")):
        folder = root / "real" / provider
        for entry in sorted(folder.iterdir(), key=lambda p: p.name):
            if entry.name.endswith(".sse"):
                out.append(
                    DemoStream(
                        f"real {provider} {entry.name.removesuffix('.sse')}",
                        fmt,
                        entry.read_bytes(),
                        [],
                        [],
                        None,
                    )
                )
    for line in (root / "streams.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        fmt = case["format"]
        out.append(
            DemoStream(
                case["id"],
                fmt,
                case["input"].encode(),
                case["tools"],
                case["covers"],
                case["expect"],
            )
        )
    return out


def _chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def run_stream(stream: DemoStream, chunk_size: int = 7) -> tuple[StreamResult, int]:
    """Feed the stream in small network-like pieces, as a real client would see it."""
    parser = StreamParser(stream.format, stream.tools)
    events = []
    pieces = _chunked(stream.data, chunk_size)
    for piece in pieces:
        events.extend(parser.feed(piece))
    events.extend(parser.close())
    return StreamResult.collect(events), len(pieces)


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_cell(call: ToolCall) -> Text:
    style = _STATUS_STYLE.get(call.status, "")
    shown = call.arguments if call.arguments is not None else call.partial_arguments
    cell = Text(f"{call.name}", style="bold")
    cell.append(f"({_short(shown)}) ")
    cell.append(call.status, style=style)
    return cell


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
    chunk_size: Annotated[
        int,
        typer.Option(
            min=1, metavar="BYTES", help="Bytes per network read when feeding each stream."
        ),
    ] = 7,
) -> None:
    """Run the bundled streams through the pipeline and show what came out."""
    console = Console()
    table = Table(
        title="toolwire demo: real captures and failure-mode streams, fed in "
        f"{chunk_size}-byte reads",
        show_lines=True,
    )
    table.add_column("stream", style="cyan", max_width=24)
    table.add_column("what arrived")
    table.add_column("repairs")
    table.add_column("calls (name(arguments) status)")
    table.add_column("finish")
    table.add_column("as expected", justify="center")
    totals = {"streams": 0, "calls": 0, "complete": 0, "repaired": 0, "truncated": 0, "invalid": 0}
    expected_ok = expected_all = 0
    for stream in bundled_streams():
        try:
            result, pieces = run_stream(stream, chunk_size)
        except UnknownFormatError as exc:
            table.add_row(stream.name, stream.format, "-", Text(str(exc), style="dim"), "-", "")
            continue
        totals["streams"] += 1
        arrived = f"{stream.format}\n{len(stream.data):,} B, {pieces} reads"
        if stream.covers:
            arrived += "\n" + " ".join(stream.covers)
        repairs = sorted({r for c in result.calls for r in c.repairs})
        calls = Text()
        for i, call in enumerate(result.calls):
            totals["calls"] += 1
            totals[call.status] += 1
            if i:
                calls.append("\n")
            calls.append_text(_call_cell(call))
            for error in call.errors[:1]:
                calls.append(f"\n  ↳ {error}", style="dim")
        if result.text and not result.calls:
            calls.append(f"text: {_short(result.text, 50)}", style="dim")
        verdict = _matches(result, stream.expect)
        if verdict is not None:
            expected_all += 1
            expected_ok += verdict
        mark = {None: "", True: "[green]✓[/]", False: "[red]✗[/]"}[verdict]
        table.add_row(
            stream.name,
            arrived,
            "\n".join(repairs) or "-",
            calls,
            result.finish_reason or "-",
            mark,
        )
    console.print(table)
    console.print(
        f"{totals['streams']} streams, {totals['calls']} calls: "
        f"[green]{totals['complete']} complete[/], [yellow]{totals['repaired']} repaired[/], "
        f"[red]{totals['truncated']} truncated[/] (never handed over as final), "
        f"[magenta]{totals['invalid']} invalid[/] (kept, with an error the model can act on). "
        f"Matches the expected result: {expected_ok}/{expected_all}."
    )

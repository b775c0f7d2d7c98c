"""``toolwire demo``: the gateway end to end, on an embedded default.

A replay server on loopback answers with broken streams in the shapes open-model
servers send (``toolwire.replay``); ``toolwire serve`` runs in front of it; the real
``openai`` and ``anthropic`` SDKs ask each stream directly and through the gateway.
What each client got is judged against the result each recording should give.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from toolwire.audit import MemorySink
from toolwire.gateway.background import BackgroundGateway
from toolwire.gateway.config import GatewayConfig
from toolwire.replay import ReplayServer, Script, sse_messages
from toolwire.replay.recorded import RecordedStream, open_model_streams

QUESTION = [{"role": "user", "content": "Use a tool."}]


@dataclass(frozen=True)
class Got:
    """What one client got for one stream: its calls as (name, arguments), arguments as
    the client holds them (text for OpenAI clients, a value for Anthropic ones)."""

    calls: list[tuple[str, Any]]
    finish: str | None
    error: str | None = None


@dataclass(frozen=True)
class Verdict:
    """``right``: the calls the stream should give, and no cut-off call. Otherwise
    ``problems`` says what a client would face."""

    right: bool
    problems: list[str]
    unusable: int = 0
    truncations_delivered: int = 0


@dataclass
class StreamOutcome:
    stream: RecordedStream
    direct: Verdict
    openai: Verdict
    anthropic: Verdict
    repairs: list[str] = field(default_factory=list)
    held_back: int = 0  # cut-off calls the gateway did not deliver


@dataclass
class DemoRun:
    outcomes: list[StreamOutcome]
    seconds: float


def _arguments(value: Any) -> tuple[bool, Any]:
    """(readable as a JSON object, the value) for arguments as a client got them."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return False, None
    return isinstance(value, dict), value


def judge(got: Got, stream: RecordedStream) -> Verdict:
    expect = stream.expect or {}
    wanted = [c for c in expect.get("calls", []) if c.get("status") != "truncated"]
    cut = len(expect.get("calls", [])) - len(wanted)
    if got.error is not None:
        return Verdict(False, [got.error])
    problems: list[str] = []
    unusable = 0
    values = []
    declared = {tool["name"] for tool in stream.tools}
    for name, arguments in got.calls:
        readable, value = _arguments(arguments)
        values.append((name, value))
        if not readable:
            unusable += 1
            problems.append(f"not JSON: {_short(arguments, 24)}")
        elif name not in declared and all(w["name"] != name for w in wanted):
            unusable += 1
            problems.append(f"no tool {_short(name, 24)}")
    delivered_cut = max(0, len(got.calls) - len(wanted)) if cut else 0
    if delivered_cut:
        problems.insert(0, "cut-off call handed over")
    right = values == [(w["name"], w["arguments"]) for w in wanted] and not delivered_cut
    if not right and not problems:
        if len(values) != len(wanted):
            problems.append(f"{len(values)} calls, {len(wanted)} sent")
        else:
            problems += [
                f"{name}: {_short(value)}"
                for (name, value), w in zip(values, wanted, strict=True)
                if (name, value) != (w["name"], w["arguments"])
            ]
    return Verdict(right, problems, unusable, delivered_cut)


def _short(value: Any, limit: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _openai_ask(client: Any, stream: RecordedStream) -> Got:
    """The SDK's own stream accumulator (``chat.completions.stream``)."""
    import openai

    tools = [{"type": "function", "function": t} for t in stream.tools]
    try:
        with client.chat.completions.stream(
            model=stream.name, messages=QUESTION, tools=tools
        ) as events:
            choice = events.get_final_completion().choices[0]
    except openai.LengthFinishReasonError as cut:  # it still hands over what it got
        choice = cut.completion.choices[0]
    except Exception as exc:  # the SDK's own failure is what the client got
        return Got([], None, f"openai SDK: {type(exc).__name__}")
    calls = [
        (c.function.name, c.function.arguments)
        for c in choice.message.tool_calls or []
        if c.type == "function"
    ]
    return Got(calls, choice.finish_reason)


def _anthropic_ask(client: Any, stream: RecordedStream) -> Got:
    tools = [{"name": t["name"], "input_schema": t["parameters"]} for t in stream.tools]
    try:
        with client.messages.stream(
            model=stream.name, max_tokens=1024, messages=QUESTION, tools=tools
        ) as events:
            message = events.get_final_message()
    except Exception as exc:
        return Got([], None, f"anthropic SDK: {type(exc).__name__}")
    calls = [(b.name, b.input) for b in message.content if b.type == "tool_use"]
    return Got(calls, message.stop_reason)


def run_demo(streams: Sequence[RecordedStream] | None = None) -> DemoRun:
    """Every stream, asked by each client; the SDKs are imported here (``ImportError``
    when they are not installed)."""
    import anthropic
    import openai

    chosen = list(open_model_streams() if streams is None else streams)
    started = time.monotonic()
    sink = MemorySink()
    scripts = {s.name: Script(sse_messages(s.data)) for s in chosen}
    outcomes: list[StreamOutcome] = []
    with ReplayServer(scripts) as upstream, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic's, on the SDKs' objects holding odd values
        config = GatewayConfig(upstream_url=upstream.url, text_format="auto", audit=sink)
        with BackgroundGateway(config) as gateway:
            direct = openai.OpenAI(base_url=upstream.url, api_key="demo", max_retries=0)
            via_openai = openai.OpenAI(base_url=gateway.url + "/v1", api_key="demo", max_retries=0)
            via_anthropic = anthropic.Anthropic(base_url=gateway.url, api_key="demo", max_retries=0)
            for stream in chosen:  # one at a time: the table follows the streams' order
                outcomes.append(
                    StreamOutcome(
                        stream,
                        judge(_openai_ask(direct, stream), stream),
                        judge(_openai_ask(via_openai, stream), stream),
                        judge(_anthropic_ask(via_anthropic, stream), stream),
                    )
                )
            _wait_for(lambda: _records(sink) >= _expected_records(outcomes))
    for outcome in outcomes:
        # the gateway's audit: one record per call per request (two requests a stream)
        mine = [r for r in sink.records if r.extra.get("model") == outcome.stream.name]
        delivered = [r for r in mine if r.extra.get("delivered")]
        outcome.repairs = list(dict.fromkeys(repair for r in delivered for repair in r.repairs))
        outcome.held_back = sum(1 for r in mine if not r.extra.get("delivered")) // 2
    return DemoRun(outcomes, time.monotonic() - started)


def _records(sink: MemorySink) -> int:
    return len(sink.records)


def _expected_records(outcomes: list[StreamOutcome]) -> int:
    per_stream = [len((o.stream.expect or {}).get("calls", [])) for o in outcomes]
    return 2 * sum(per_stream)


def _wait_for(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    """The audit is written off the request path, when each request ends."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def render(run: DemoRun, console: Console) -> None:
    """The table and the counts, at 80 columns."""
    table = Table(
        title="What each client got: directly, and through toolwire serve",
        title_justify="left",
        width=80,
    )
    table.add_column("stream", width=21, no_wrap=True, overflow="ellipsis")
    table.add_column("directly (openai SDK)", width=25, no_wrap=True, overflow="ellipsis")
    table.add_column("through toolwire: openai, anthropic SDK; repairs", ratio=1, overflow="fold")
    for outcome in run.outcomes:
        name = Text(outcome.stream.name, style="cyan")
        table.add_row(name, _direct_cell(outcome.direct), _gateway_cell(outcome))
    console.print(table)
    counts = count(run)
    n = counts["streams"]
    console.print(
        f"{n} broken streams in the shapes open-model servers send, replayed on loopback "
        f"and asked by the real SDKs, in {run.seconds:.1f} s.\n"
        f"[bold]Directly[/], the openai SDK got the right calls from {counts['direct_right']} "
        f"of {n} streams: [red]{counts['direct_unusable']} calls unusable[/] (not JSON, or no "
        f"such tool), [red]{counts['direct_truncations']} cut-off calls handed over[/] as "
        f"calls, {counts['direct_other']} more streams with wrong values, no call or an SDK "
        "error. The anthropic SDK cannot talk to these servers at all.\n"
        f"[bold]Through toolwire[/]: right for the openai SDK on {counts['openai_right']} of {n}, "
        f"for the anthropic SDK on {counts['anthropic_right']} of {n}; "
        f"[yellow]{counts['repaired']} streams with named repairs[/], "
        f"[green]{counts['held_back']} cut-off calls held back[/] (finish length, max_tokens).",
        highlight=False,
        width=80,
    )


def count(run: DemoRun) -> dict[str, int]:
    outcomes = run.outcomes
    return {
        "streams": len(outcomes),
        "direct_right": sum(o.direct.right for o in outcomes),
        "direct_unusable": sum(o.direct.unusable for o in outcomes),
        "direct_truncations": sum(o.direct.truncations_delivered for o in outcomes),
        "direct_other": sum(
            not (o.direct.right or o.direct.unusable or o.direct.truncations_delivered)
            for o in outcomes
        ),
        "openai_right": sum(o.openai.right for o in outcomes),
        "anthropic_right": sum(o.anthropic.right for o in outcomes),
        "repaired": sum(bool(o.repairs) for o in outcomes),
        "held_back": sum(o.held_back for o in outcomes),
    }


def _mark(verdict: Verdict) -> Text:
    return Text("✓", style="green") if verdict.right else Text("✗", style="red")


def _direct_cell(verdict: Verdict) -> Text:
    cell = _mark(verdict)
    if verdict.problems:
        cell.append(" " + "; ".join(verdict.problems))
    return cell


def _gateway_cell(outcome: StreamOutcome) -> Text:
    cell = _mark(outcome.openai)
    cell.append(" ")
    cell.append_text(_mark(outcome.anthropic))
    if outcome.held_back:
        cell.append(" cut-off, held back", style="green")
    if outcome.repairs:
        cell.append(" " + ", ".join(outcome.repairs), style="yellow")
    for problem in (outcome.openai.problems + outcome.anthropic.problems)[:2]:
        cell.append(f"\n{problem}", style="red")
    return cell

"""What the interactive ``toolwire chat`` shows: the model's text as it streams (its
reasoning dimmed), a panel per tool call, approval questions, a line per run, and once
each what the wire could not take of a request (``RequestNotes``).

Text is written straight to the terminal as it arrives; a live region (``rich.Live``)
exists only while a turn's calls run, so streamed text never has to share lines with a
region that redraws. A call's panel is printed for good once the call has its result;
until then it sits in the live region with its running time. Without a terminal (a
``Console(record=True)`` in the tests, a pipe) there is no live region: each panel is
printed once, when final.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from toolwire.agent import (
    AgentEvent,
    CallStreaming,
    ReasoningOut,
    RequestNotes,
    RunFinished,
    RunResult,
    TextOut,
    ToolReplied,
    ToolStarted,
)
from toolwire.engine.engine import PendingApproval
from toolwire.events import ToolCall
from toolwire.jsontext import dumps

ARGUMENTS_SHOWN = 400  # characters of a call's arguments in its panel
RESULT_SHOWN = 200  # characters of a result's summary

# border colour by the engine's status (and the states before it has one)
_STYLES = {
    "ok": "green",
    "running": "blue",
    "needs approval": "yellow",
    "pending_approval": "yellow",
    "denied": "yellow",
    "cancelled": "yellow",
}


@dataclass
class CallView:
    """One call as shown: what the parser made of it, then what the engine did."""

    call: ToolCall
    status: str = "running"
    repairs: tuple[str, ...] = ()
    result: str | None = None
    seconds: float | None = None  # the engine's time for it, once replied
    started: float | None = None  # when it was handed to the engine (for the live clock)
    note: str = ""  # why it is held, for a call that needs approval
    name: str = ""

    def __post_init__(self) -> None:
        self.repairs = self.call.repairs
        self.name = self.name or self.call.name

    def panel(self) -> Panel:
        rows = Table.grid(padding=(0, 1))
        rows.add_column(style="bold", no_wrap=True)
        rows.add_column(overflow="fold")
        rows.add_row("arguments", Text(_arguments(self.call)))
        status = self.status
        if self.call.status != "complete":
            status += f" (wire: {self.call.status})"
        rows.add_row("status", Text(status))
        if self.repairs:
            rows.add_row("repairs", Text(", ".join(self.repairs)))
        if self.note:
            rows.add_row("held", Text(self.note))
        if self.result is not None:
            rows.add_row("result", Text(self.result))
        seconds = self.seconds
        if seconds is None and self.started is not None:
            seconds = time.monotonic() - self.started
        if seconds is not None:
            rows.add_row("time", Text(_duration(seconds)))
        return Panel(
            rows,
            title=f"[bold]{escape(self.name)}[/]",
            title_align="left",
            subtitle=escape(self.call.id or ""),
            subtitle_align="right",
            border_style=_STYLES.get(self.status, "red"),
            expand=False,
        )


class ChatView:
    """Shows one run after another on ``console``; ``show`` takes the agent's events."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.calls: dict[str, CallView] = {}  # this run's, by the id the history gives
        self._running: list[CallView] = []  # in the live region
        self._live: Live | None = None
        self._line_open = False  # the last text written did not end its line
        self._reasoning = False  # the open line is reasoning (dim)
        self._noted: set[str] = set()  # notes shown (each run says them again)

    # ---------------------------------------------------------------- events

    def show(self, event: AgentEvent) -> None:
        if isinstance(event, TextOut):
            self._write(event.text, reasoning=False)
        elif isinstance(event, ReasoningOut):
            self._write(event.text, reasoning=True)
        elif isinstance(event, CallStreaming):  # its panel comes once it is complete
            self._end_line()
            self.console.print(Text(f"calling {event.name}…", style="dim"), soft_wrap=True)
        elif isinstance(event, ToolStarted):
            view = self._view(event.call)
            view.status, view.started = "running", time.monotonic()
            self._running.append(view)
            self._live_on()
        elif isinstance(event, ToolReplied):
            outcome = event.outcome
            view = self._view(outcome.call)
            view.name = outcome.result.name or view.name
            view.status = outcome.status
            view.repairs = outcome.repairs
            view.result = _summary(outcome.reply)
            view.seconds = outcome.result.record.duration_ms / 1000
            view.note = ""
            self._settle(view)
        elif isinstance(event, RequestNotes):
            for note in event.notes:
                if note not in self._noted:
                    self._noted.add(note)
                    self._end_line()
                    line = Text(f"toolwire: not sent as asked: {note}", style="yellow")
                    self.console.print(line, soft_wrap=True)
        elif isinstance(event, RunFinished):
            self.finish(event.result)

    def finish(self, result: RunResult) -> None:
        """The run's last line: why it stopped, turns, calls, tokens."""
        self._live_off()
        self._end_line()
        self.calls.clear()
        if result.stop == "upstream_error" and not result.calls:  # nothing but the error
            self.error(f"the run stopped ({result.stop}): {result.error}")
            return
        usage = result.usage
        line = (
            f"{result.stop} · {result.turns} turn{'s' * (result.turns != 1)} · "
            f"{len(result.calls)} call{'s' * (len(result.calls) != 1)} · "
            f"{usage.input_tokens or 0} in / {usage.output_tokens or 0} out tokens"
        )
        self.console.print(Text(line, style="dim"))
        if result.stop != "done":
            why = f": {result.error}" if result.error else ""
            self.error(f"the run stopped ({result.stop}){why}")

    def cancelled(self) -> None:
        """The user cancelled the turn: calls still on screen end as cancelled."""
        for view in list(self._running):
            view.status, view.note = "cancelled", ""
            self._settle(view)
        self._live_off()
        self._end_line()
        self.console.print(Text("cancelled · the conversation goes on", style="yellow"))
        self.calls.clear()

    def error(self, message: str) -> None:
        self._live_off()
        self._end_line()
        self.console.print(Text(f"toolwire: {message}", style="red"), soft_wrap=True)

    # -------------------------------------------------------------- approvals

    def held(self, pending: PendingApproval) -> None:
        """A call waits for the user: the live region stops (the question is asked on
        the plain terminal) and the call's panel says why it is held."""
        self._live_off()
        view = self.calls.get(pending.call_id)
        if view is None:
            view = CallView(_pending_call(pending))
        view.status = "needs approval"
        view.note = "; ".join(pending.reasons)
        self._end_line()
        self.console.print(view.panel())

    def answered(self, pending: PendingApproval, approved: bool | None) -> None:
        view = self.calls.get(pending.call_id)
        if view is not None:
            view.status = "running" if approved else "denied"
        if self._running:
            self._live_on()

    # -------------------------------------------------------------- internals

    def _view(self, call: ToolCall) -> CallView:
        """By the id the history gives the call (a panel appears once the call is
        handed to the engine, under that id, not at ``CallParsed``)."""
        key = call.id or ""
        view = self.calls.get(key)
        if view is None:
            view = self.calls[key] = CallView(call)
        return view

    def _write(self, text: str, *, reasoning: bool) -> None:
        if reasoning != self._reasoning:
            self._end_line()
            self._reasoning = reasoning
        self.console.print(
            Text(text, style="dim italic" if reasoning else ""), end="", soft_wrap=True
        )
        self._line_open = not text.endswith("\n")

    def _end_line(self) -> None:
        if self._line_open:
            self.console.print()
            self._line_open = False

    def _settle(self, view: CallView) -> None:
        """A call has its result: its panel is printed for good."""
        if view in self._running:
            self._running.remove(view)
        self._end_line()
        self.console.print(view.panel())  # above the live region, if one is on
        if not self._running:
            self._live_off()

    def _live_on(self) -> None:
        if self._live is not None or not self.console.is_terminal:
            return
        self._end_line()
        self._live = Live(
            _Running(self),
            console=self.console,
            refresh_per_second=8,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def _live_off(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


class _Running:
    """The live region: the panels of the calls still running, redrawn each refresh."""

    def __init__(self, view: ChatView) -> None:
        self.view = view

    def __rich__(self) -> RenderableType:
        return Group(*(v.panel() for v in list(self.view._running)))


def _arguments(call: ToolCall) -> str:
    if call.arguments is not None:
        text = dumps(call.arguments)
    else:  # not fit to run (truncated, unreadable): what arrived, marked as such
        text = f"{call.raw_arguments} (as sent)"
    if len(text) > ARGUMENTS_SHOWN:
        text = text[:ARGUMENTS_SHOWN] + "…"
    return text


def _summary(reply: str) -> str:
    """The reply's start, on one line."""
    text = " ".join(reply.split())
    return text if len(text) <= RESULT_SHOWN else text[:RESULT_SHOWN] + "…"


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _pending_call(pending: PendingApproval) -> ToolCall:
    """A held call the view was not shown (not one the agent started): what the engine
    holds, with its repairs, and no claim about the wire."""
    return ToolCall(
        id=pending.call_id,
        name=pending.name,
        arguments=dict(pending.arguments),
        raw_arguments="",
        status="complete",
        repairs=pending.repairs,
    )

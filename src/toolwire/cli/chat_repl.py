"""The interactive ``toolwire chat``: a prompt, a run of the agent per prompt, one
conversation across them.

Two threads. The terminal is read on the main thread only (prompts, and the answers to
approval questions), so Ctrl-C always arrives there as ``KeyboardInterrupt`` and never
in the middle of the agent's work. The agent, its tools and the display run on an event
loop in a second thread (anyio's blocking portal), which stays up for the whole
session so MCP servers and the HTTP client are opened once. Ctrl-C during a run cancels
that run's cancel scope (the engine records running calls ``cancelled``); the
conversation goes on from what the run had done.
"""

from __future__ import annotations

import contextlib
import queue
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, aclosing
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from rich.console import Console
from rich.text import Text

from toolwire.agent import (
    Agent,
    RunFinished,
    RunResult,
)
from toolwire.cli.chat_render import ChatView
from toolwire.engine.engine import Approver, PendingApproval

EXIT_COMMANDS = ("/exit", "/quit")
PROMPT = "> "
HINT = "Ctrl-C cancels a turn; Ctrl-D or /exit quits."

OpenAgent = Callable[[Approver], AbstractAsyncContextManager[Agent]]
"""Opens the agent (tools, MCP servers, client) with the given approver; closes them."""


@dataclass(eq=False)
class Question:
    """An approval question put to the main thread, answered from there."""

    pending: PendingApproval
    answer: bool | None = None
    stale: bool = False  # its run was cancelled before the answer came
    answered: anyio.Event = field(default_factory=anyio.Event)

    def give(self, answer: bool | None) -> None:
        self.answer = answer
        self.answered.set()


class Session:
    """The conversation: its history, the run in progress, approval questions. Its
    coroutines run on the event loop thread; ``questions`` is read by the main one."""

    def __init__(self, view: ChatView) -> None:
        self.view = view
        self.history: list[dict[str, Any]] = []
        self.questions: queue.Queue[Question] = queue.Queue()
        self._scope: anyio.CancelScope | None = None
        self._asking: anyio.Lock | None = None

    async def approve(self, pending: PendingApproval) -> bool | None:
        """The engine's approver: one question at a time, with the live display paused."""
        if self._asking is None:
            self._asking = anyio.Lock()
        async with self._asking:
            self.view.held(pending)
            question = Question(pending)
            self.questions.put(question)
            try:
                await question.answered.wait()
            finally:
                question.stale = True
            self.view.answered(pending, question.answer)
            return question.answer

    async def turn(self, agent: Agent, prompt: str) -> None:
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                # closed at once however the run ends, so a cut run is settled now
                async with aclosing(agent.stream(prompt, history=self.history)) as events:
                    async for event in events:
                        self.view.show(event)
                        if isinstance(event, RunFinished):
                            self.history = next_history(self.history, event.result)
            finally:
                self._scope = None
        if scope.cancelled_caught:
            self.view.cancelled()
            if agent.last_result is not None:  # settled by the loop: one reply per call
                self.history = agent.last_result.messages

    def cancel(self) -> None:
        if self._scope is not None:
            self._scope.cancel()


def next_history(history: list[dict[str, Any]], result: RunResult) -> list[dict[str, Any]]:
    """The history a finished run leaves; a prompt the model never answered (the
    upstream failed before any call) is left out, so it can simply be asked again."""
    if result.stop == "upstream_error" and not result.calls:
        return history
    return result.messages


def repl(open_agent: OpenAgent, console: Console) -> None:
    """Prompt, run, repeat until Ctrl-D, ``/exit`` or two Ctrl-C in a row at the prompt."""
    with contextlib.suppress(ImportError):  # not on every platform
        import readline  # noqa: F401  (line editing and recall for input())
    view = ChatView(console)
    session = Session(view)
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(open_agent(session.approve)) as agent,
    ):
        tools = len(agent.engine.registry.specs())
        header = f"toolwire chat · {agent.client.model} · {tools} tool{'s' * (tools != 1)}"
        console.print(Text(f"{header} · {HINT}", style="dim"))
        interrupted = False
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                console.print()
                return
            except KeyboardInterrupt:
                console.print()
                if interrupted:
                    return
                interrupted = True
                console.print("Ctrl-C again, Ctrl-D or /exit to quit.", style="dim")
                continue
            interrupted = False
            prompt = line.strip()
            if prompt in EXIT_COMMANDS:
                return
            if prompt:
                _run(portal, session, agent, prompt)


def _run(portal: BlockingPortal, session: Session, agent: Agent, prompt: str) -> None:
    """One run on the loop thread, while this thread answers its approval questions
    and turns Ctrl-C into the run's cancellation."""
    future = portal.start_task_soon(session.turn, agent, prompt)
    while True:
        try:
            try:
                question = session.questions.get(timeout=0.05)
            except queue.Empty:
                if future.done():
                    break
                continue
            if not question.stale:
                answer = _ask(question)
                portal.call(question.give, answer)
        except KeyboardInterrupt:
            portal.call(session.cancel)
    error = future.exception()
    if error is not None:  # not the model's or a tool's failure: those are in the run
        portal.call(session.view.error, str(error) or type(error).__name__)


def _ask(question: Question) -> bool:
    """y or yes runs the call; anything else (Enter, Ctrl-D) declines it; Ctrl-C
    cancels the run."""
    try:
        answer = input(f"Run {question.pending.name}? [y/N] ")
    except EOFError:
        print()
        return False
    except KeyboardInterrupt:  # cancels the run (see _run); the line is left ended
        print()
        raise
    return answer.strip().lower() in ("y", "yes")

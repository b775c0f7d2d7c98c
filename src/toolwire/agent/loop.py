"""``Agent``: a model, its tools and the engine, driven turn by turn until the model
stops calling tools or a limit ends the run.

    agent = Agent(ModelClient("openai-chat", url, model="m"), ToolEngine([add]))
    result = await agent.run("What is 2 + 3?")
    async for event in agent.stream("What is 2 + 3?"): ...
    more = await agent.run("And times 4?", history=result.messages)

Each turn: one request (history and tool definitions in Chat Completions shape, put in
the client's wire format by ``ModelClient.prepare``; see ``toolwire.agent.history``);
the answer's raw bytes go through ``StreamParser``; the calls go through
``engine.execute_many`` in parallel; every call gets exactly one reply, in call order.
The engine runs neither a truncated call nor an invalid one: a truncated call's reply
tells the model it was cut off; an invalid one's is the engine's message naming what to
correct. Calls a limit keeps from running are recorded ``denied`` and told why. A run
is one engine task.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping, Sequence
from contextlib import aclosing
from typing import Any

import anyio

from toolwire.agent.emitter import TextEmitter
from toolwire.agent.events import (
    AgentEvent,
    CallOutcome,
    CallParsed,
    CallStreaming,
    ReasoningOut,
    RequestNotes,
    RunFinished,
    RunResult,
    StopReason,
    TextOut,
    ToolReplied,
    ToolStarted,
    TurnFinished,
)
from toolwire.agent.history import (
    assistant_message,
    start_messages,
    tool_message,
    unique_ids,
    used_ids,
)
from toolwire.agent.wirenames import declared_names
from toolwire.audit.tracing import AgentSpan, ChatSpan
from toolwire.client import ModelClient, UpstreamError
from toolwire.engine import ToolEngine
from toolwire.engine.engine import Approver
from toolwire.engine.results import ToolResult
from toolwire.events import (
    CallFinished,
    CallStarted,
    FinishReason,
    ReasoningDelta,
    ReasoningSignature,
    StreamError,
    StreamFinished,
    TextDelta,
    ToolCall,
    Usage,
)
from toolwire.parser import StreamParser
from toolwire.providers.tooldefs import to_openai_tool
from toolwire.spec import ToolSpec
from toolwire.tools.base import Tool

# the stop for an answer without calls, by the way the answer ended
_NO_CALL_STOPS: dict[str, StopReason] = {
    "length": "max_tokens",
    "content_filter": "content_filter",
    "error": "upstream_error",
}


def cut_off_reply(name: str) -> str:
    """The reply to a truncated call: why it was not run, and what to do instead."""
    return (
        f"Your call to {name} was cut off at the output token limit before its "
        "arguments were complete, so it was not run. Call it again with smaller "
        "arguments, or split the work into several smaller calls."
    )


def cancelled_reply(name: str, started: bool) -> str:
    """The reply to a call of a cancelled run (what a resumed run shows the model)."""
    if started:
        return (
            f"The call to {name} was cancelled by the user before it finished; "
            "it may have done part of its work."
        )
    return f"The call to {name} was not run: the user cancelled the run."


def limit_reply(name: str, why: str) -> str:
    return f"The call to {name} was not run: {why}. Answer with what you have."


class Agent:
    """``engine`` runs the tools (or give ``tools`` and a ``ToolEngine`` with default
    settings is made for them: ``@tool`` functions, MCP tools from
    ``MCPToolset.discover()``; ``toolwire.agent.open_agent`` connects an ``mcpServers``
    configuration). Limits, each None for none: ``max_turns`` (model requests in
    a run), ``max_tool_calls`` (calls run in a run; the calls of the turn that would
    pass it are declined, and the run stops after that turn), ``max_input_tokens``,
    ``max_output_tokens``, ``max_total_tokens`` (the model's reported usage summed over
    the run; once one is reached the calls of that turn are declined and the run
    stops). ``invalid_retries``: invalid or truncated calls in a row a tool may get
    before the run stops (one more ends it); a valid call of the tool starts its count
    again, so a long run is not ended by mistakes spread over it.

    ``last_result`` is the ``RunResult`` of the run started last, kept up to date as it
    goes: after a cancelled run (its ``stream`` task cancelled, or the generator closed
    with ``aclose()``), it holds the run with ``stop == "cancelled"`` and a history in
    which every call has its reply, ready to resume with ``history=``.
    """

    def __init__(
        self,
        client: ModelClient,
        engine: ToolEngine | None = None,
        *,
        tools: Iterable[Tool] = (),
        system: str | None = None,
        max_turns: int | None = 20,
        max_tool_calls: int | None = None,
        max_input_tokens: int | None = None,
        max_output_tokens: int | None = None,
        max_total_tokens: int | None = None,
        invalid_retries: int = 5,
        text_size: int = 150,
        text_interval: float = 0.05,
        text_format: str | None = None,
        request: Mapping[str, Any] | None = None,
        approver: Approver | None = None,
    ) -> None:
        if engine is None:
            engine = ToolEngine(tools)
        elif tools:
            raise ValueError("give tools or an engine, not both")
        limits = {
            "max_turns": max_turns,
            "max_tool_calls": max_tool_calls,
            "max_input_tokens": max_input_tokens,
            "max_output_tokens": max_output_tokens,
            "max_total_tokens": max_total_tokens,
            "invalid_retries": invalid_retries,
        }
        for name, value in limits.items():
            if value is not None and value < 0:
                raise ValueError(f"{name} must not be negative, got {value}")
        self.client = client
        self.engine = engine
        self.system = system
        self.max_turns = max_turns
        self.max_tool_calls = max_tool_calls
        self.max_input_tokens = max_input_tokens
        self.max_output_tokens = max_output_tokens
        self.max_total_tokens = max_total_tokens
        self.invalid_retries = invalid_retries
        self.text_size = text_size
        self.text_interval = text_interval
        self.text_format = text_format
        self.request = dict(request or {})  # more request fields (temperature, max_tokens…)
        self.approver = approver  # asked about calls the engine's policies hold
        self.last_result: RunResult | None = None
        self._declared: tuple[list[ToolSpec], list[dict[str, Any]]] | None = None

    async def run(
        self,
        prompt: str | None,
        *,
        task_id: str | None = None,
        history: Sequence[dict[str, Any]] | None = None,
        solved: bool | Callable[[RunResult], bool] | None = None,
    ) -> RunResult:
        """Run to the end; the result of ``stream``'s last event. ``solved`` (a flag,
        or a test of the result) finishes the run's task in the audit as solved or
        not; None leaves that to a later ``finish``."""
        async with aclosing(self.stream(prompt, task_id=task_id, history=history)) as events:
            async for event in events:
                if isinstance(event, RunFinished):
                    result = event.result
                    if solved is not None:
                        self.finish(result, solved=solved(result) if callable(solved) else solved)
                    return result
        raise AssertionError("a run always ends with RunFinished")  # pragma: no cover

    def finish(self, result: RunResult, *, solved: bool) -> None:
        """Say whether the run's task was solved (for the audit's tokens per task)."""
        self.engine.finish_task(result.task_id, solved=solved)

    async def stream(
        self,
        prompt: str | None,
        *,
        task_id: str | None = None,
        history: Sequence[dict[str, Any]] | None = None,
    ) -> AsyncGenerator[AgentEvent, None]:
        """The run's events, ending with ``RunFinished``. ``history``: a previous
        ``RunResult.messages`` (JSON-loaded or not) to continue; ``prompt`` None
        resumes it as it stands. Turn numbers go on from the history's. Iterate it
        inside ``contextlib.aclosing`` (or ``aclose()`` it) when you may stop early,
        so that a run left mid-turn is settled at once (see ``last_result``)."""
        messages = start_messages(history, self.system, prompt)
        task = self.engine.start_task(task_id)
        result = RunResult(text="", stop="done", turns=0, task_id=task, messages=messages)
        self.last_result = result
        run_span = AgentSpan(model=self._model(), task_id=task)
        taken = used_ids(messages)
        first = sum(1 for m in messages if m.get("role") == "assistant")
        invalid: dict[str, int] = {}  # each tool's invalid calls since its last valid one
        ran = 0  # calls handed to the engine in this run
        turn: _Turn | None = None
        try:
            while True:
                result.turns += 1
                turn = _Turn(first + result.turns)
                answer = turn.answer
                chat_span = ChatSpan(
                    model=self._model(),
                    wire=self.client.format,
                    base_url=self.client.base_url,
                    conversation_id=task,
                    parent=run_span.context,
                )
                try:
                    asking_turn = self._ask(messages, turn.number, answer, result.notes)
                    async with aclosing(asking_turn) as asking:
                        async for event in asking:
                            yield event
                finally:  # (cancelled too: the span ends with what was read)
                    chat_span.finish(
                        usage=answer.usage,
                        finish_reasons=[answer.finish_reason] if answer.finish_reason else [],
                        error=answer.error,
                    )
                result.usage_per_turn.append(answer.usage)
                if answer.usage is not None:
                    self.engine.add_usage(task, answer.usage)
                yield TurnFinished(turn.number, answer.finish_reason, answer.usage)
                result.text = answer.text
                if answer.error is not None and not answer.calls:
                    turn = None  # nothing of a failed answer goes into the history
                    result.stop, result.error = "upstream_error", answer.error
                    break
                if not answer.calls:
                    messages.append(assistant_message(answer.text, []))
                    turn = None
                    result.stop = _NO_CALL_STOPS.get(answer.finish_reason or "", "done")
                    if result.stop == "upstream_error":
                        result.error = "the model's answer could not be read"
                    break
                turn.calls = unique_ids(answer.calls, turn.number, taken)
                limit, why, allowed = self._limit(result.usage, ran, len(turn.calls))
                extra = self._record_extra(answer.usage)
                for i in range(allowed, len(turn.calls)):
                    turn.done[i] = self.engine.decline(
                        turn.calls[i],
                        limit_reply(turn.calls[i].name, why),
                        reason="limit",
                        task_id=task,
                        turn=turn.number,
                        extra=extra,
                    )
                running = turn.calls[:allowed]
                for call in running:
                    yield ToolStarted(call, turn.number)
                ran += len(running)
                await self.engine.execute_many(
                    running,
                    task_id=task,
                    turn=turn.number,
                    extra=extra,
                    done=turn.done.__setitem__,
                    approver=self.approver,
                )
                outcomes = turn.commit(messages, result)
                turn = None
                for outcome in outcomes:
                    call = outcome.call
                    key = outcome.result.name or call.name
                    if call.status in ("truncated", "invalid") or outcome.status == "invalid_args":
                        invalid[key] = invalid.get(key, 0) + 1
                    elif invalid:  # a valid call of the tool ends its run of failures
                        invalid.pop(key, None)
                    yield ToolReplied(outcome)
                spent = any(n > self.invalid_retries for n in invalid.values())
                if answer.error is not None:
                    result.stop, result.error = "upstream_error", answer.error
                    break
                if limit is not None:
                    result.stop = limit
                    break
                if spent:
                    result.stop = "invalid_retries"
                    break
                if self.max_turns is not None and result.turns >= self.max_turns:
                    result.stop = "max_turns"
                    break
        except (anyio.get_cancelled_exc_class(), GeneratorExit, KeyboardInterrupt):
            if turn is not None:
                self._settle(turn, messages, result, task)
            result.stop = "cancelled"
            run_span.finish(stop=result.stop, usage=result.usage)
            raise
        except BaseException as exc:  # a request that cannot be built, a bug: the span ends
            run_span.finish(stop="error", usage=result.usage, error=f"{type(exc).__name__}: {exc}")
            raise
        run_span.finish(stop=result.stop, usage=result.usage, error=result.error)
        yield RunFinished(result)

    def _tool_definitions(self, specs: list[ToolSpec]) -> list[dict[str, Any]]:
        """The tools as the request declares them, made again only when the registry's
        specs changed (a list of the same spec objects compares equal at once)."""
        if self._declared is None or self._declared[0] != specs:
            self._declared = (specs, [to_openai_tool(spec) for spec in specs])
        return self._declared[1]

    def _model(self) -> str:
        return str(self.client.model or self.request.get("model", "model"))

    def _limit(self, usage: Usage, ran: int, calls: int) -> tuple[StopReason | None, str, int]:
        """The limit this turn's calls reach, if any: its stop reason, why it keeps
        calls from running, and how many of the ``calls`` may still run."""
        used_in = usage.input_tokens or 0
        used_out = usage.output_tokens or 0
        budgets: tuple[tuple[StopReason, int, int | None, str], ...] = (
            ("max_input_tokens", used_in, self.max_input_tokens, "input"),
            ("max_output_tokens", used_out, self.max_output_tokens, "output"),
            ("max_total_tokens", used_in + used_out, self.max_total_tokens, "total"),
        )
        for stop, used, budget, kind in budgets:
            if budget is not None and used >= budget:
                return stop, f"the run's budget of {budget} {kind} tokens is spent ({used})", 0
        if self.max_tool_calls is not None and ran + calls > self.max_tool_calls:
            why = f"the run's limit of {self.max_tool_calls} tool calls is reached"
            return "max_tool_calls", why, max(0, self.max_tool_calls - ran)
        return None, "", calls

    def _record_extra(self, usage: Usage | None) -> dict[str, Any]:
        """What each call's audit record says of the model turn that made it."""
        extra: dict[str, Any] = {"model": self._model()}
        if usage is not None:
            extra["turn_usage"] = {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "reasoning_tokens": usage.reasoning_tokens,
            }
        return extra

    def _settle(
        self, turn: _Turn, messages: list[dict[str, Any]], result: RunResult, task: str
    ) -> None:
        """A turn the run left mid-way goes into the history whole: the text so far,
        the calls parsed so far, each with one reply and one record (``cancelled``
        unless it had finished)."""
        if turn.calls is None:
            turn.calls = unique_ids(turn.answer.calls, turn.number, used_ids(messages))
        for i, call in enumerate(turn.calls):
            if i not in turn.done:  # never handed to the engine (the engine records its own)
                turn.done[i] = self.engine.decline(
                    call,
                    cancelled_reply(call.name, started=False),
                    status="cancelled",
                    reason="cancelled",
                    task_id=task,
                    turn=turn.number,
                    extra=self._record_extra(turn.answer.usage),
                )
        result.text = turn.answer.text
        turn.commit(messages, result)

    async def _ask(
        self, messages: list[dict[str, Any]], turn: int, answer: _Answer, notes: list[str]
    ) -> AsyncGenerator[AgentEvent, None]:
        """One model turn: send the history, read the answer into ``answer``. What the
        wire cannot take of the request is said first, each note once (``notes``: the
        run's so far)."""
        specs = self.engine.registry.specs()
        body: dict[str, Any] = {
            **self.request,
            "model": self._model(),
            "messages": messages,
            "stream": True,
        }
        if specs:
            body["tools"] = self._tool_definitions(specs)
        prepared = self.client.prepare(body, "openai-chat", stream=True)
        new = [note for note in prepared.lossy if note not in notes]
        if new:
            notes.extend(new)
            yield RequestNotes(tuple(new), turn)
        names = prepared.names  # names the wire refuses went out changed: read them so
        wire_specs = names.wire_specs(specs) if names is not None else specs
        parser = StreamParser(self.client.format, wire_specs, text_format=self.text_format)
        emitter = TextEmitter(self.text_size, self.text_interval)
        thinking = TextEmitter(self.text_size, self.text_interval)
        try:
            response = await self.client.open(prepared)
            chunks = response.iter_bytes().__aiter__()
            # a read that outlived a wait: the next wait is for it (None at the end)
            reading: asyncio.Future[bytes | None] | None = None
            try:
                while True:
                    if reading is None and not (emitter.held or thinking.held):
                        try:  # nothing held: just read
                            chunk = await chunks.__anext__()
                        except StopAsyncIteration:
                            break
                    else:  # text is held: wait for the next piece no longer than it may
                        if reading is None:
                            reading = asyncio.ensure_future(anext(chunks, None))
                        wait = _due(emitter, thinking)
                        done, _ = await asyncio.wait((reading,), timeout=wait)
                        if not done:
                            for event in answer.due(emitter, thinking, turn):
                                yield event
                            continue
                        read, reading = reading.result(), None
                        if read is None:
                            break
                        chunk = read
                    events = declared_names(parser.feed(chunk), names)
                    for event in answer.take(events, emitter, thinking, turn):
                        yield event
            finally:
                with anyio.CancelScope(shield=True):  # closed even when cancelled
                    if reading is not None:
                        reading.cancel()
                        await asyncio.wait((reading,))
                        if not reading.cancelled():
                            reading.exception()  # retrieved: the run is over
                    await response.aclose()
        except UpstreamError as exc:
            answer.error = exc.message
        for event in answer.take(declared_names(parser.close(), names), emitter, thinking, turn):
            yield event
        rest = thinking.flush()
        if rest:
            yield ReasoningOut(rest, turn)
        rest = emitter.flush()
        if rest:
            yield TextOut(rest, turn)


def _due(emitter: TextEmitter, thinking: TextEmitter) -> float | None:
    """How long the reader may wait before held text is due; None when none is held."""
    text, thought = emitter.due(), thinking.due()
    if text is None:
        return thought
    return text if thought is None else min(text, thought)


class _Answer:
    """One turn's answer as the parser reads it, with what of its reasoning must go
    back to the server (see ``toolwire.agent.history``)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.calls: list[ToolCall] = []
        self.reasoning: list[str] = []  # reasoning text not (yet) in a signed block
        self.thinking_blocks: list[dict[str, Any]] = []  # Anthropic's, whole
        self.signatures: dict[int, str] = {}  # Gemini's, by the call's slot
        self.finish_reason: FinishReason | None = None
        self.usage: Usage | None = None
        self.error: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def message(self, calls: list[ToolCall], names: list[str]) -> dict[str, Any]:
        """The turn's assistant message, its calls under their ids in the history
        (``calls``, in the order of ``self.calls``)."""
        signatures = None
        if self.signatures:
            signatures = [self.signatures.get(c.slot) for c in self.calls]
        return assistant_message(
            self.text,
            calls,
            names,
            reasoning="".join(self.reasoning),
            thinking_blocks=self.thinking_blocks,
            signatures=signatures,
        )

    def _close_thinking_block(self, signature: str) -> None:
        """An Anthropic signature closes the thinking block read so far."""
        thought = "".join(self.reasoning)
        self.reasoning.clear()
        block = {"type": "thinking", "thinking": thought, "signature": signature}
        self.thinking_blocks.append(block)

    def _sign(self, event: ReasoningSignature) -> None:
        if event.kind == "redacted":
            self.thinking_blocks.append({"type": "redacted_thinking", "data": event.value})
        elif event.slot is not None:  # a Gemini signature on a text part is not kept
            self.signatures[event.slot] = event.value  # by slot: servers repeat ids

    def due(self, emitter: TextEmitter, thinking: TextEmitter, turn: int) -> list[AgentEvent]:
        """What the emitters held that is due by now (the reader waited for it)."""
        out: list[AgentEvent] = []
        if thinking.due() == 0.0:
            batch = thinking.flush()
            if batch:
                out.append(ReasoningOut(batch, turn))
        if emitter.due() == 0.0:
            batch = emitter.flush()
            if batch:
                out.append(TextOut(batch, turn))
        return out

    def take(
        self, events: list[Any], emitter: TextEmitter, thinking: TextEmitter, turn: int
    ) -> list[AgentEvent]:
        out: list[AgentEvent] = []
        for event in events:
            if isinstance(event, ReasoningDelta):
                self.reasoning.append(event.text)
                batch = thinking.feed(event.text)
                if batch:
                    out.append(ReasoningOut(batch, turn))
                if event.signature:
                    self._close_thinking_block(event.signature)
            elif isinstance(event, TextDelta):
                self.parts.append(event.text)
                batch = emitter.feed(event.text)
                if batch:
                    out.append(TextOut(batch, turn))
            elif isinstance(event, CallFinished):
                self.calls.append(event.call)
                out.append(CallParsed(event.call, turn))
            elif isinstance(event, CallStarted):  # what the model said first goes out first
                if thinking.held:
                    out.append(ReasoningOut(thinking.flush() or "", turn))
                if emitter.held:
                    out.append(TextOut(emitter.flush() or "", turn))
                out.append(CallStreaming(event.name, event.id, event.slot, turn))
            elif isinstance(event, StreamFinished):
                self.finish_reason = event.finish_reason
                self.usage = event.usage
            elif isinstance(event, StreamError) and self.error is None:
                self.error = event.message
            elif isinstance(event, ReasoningSignature):
                self._sign(event)
        return out


class _Turn:
    """A turn in progress: its answer, its calls under their ids in the history, and
    each call's result as it comes (from the engine, or a decline)."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.answer = _Answer()
        self.calls: list[ToolCall] | None = None
        self.done: dict[int, ToolResult] = {}

    def commit(self, messages: list[dict[str, Any]], result: RunResult) -> list[CallOutcome]:
        """The turn into the history: the assistant message, then one reply per call."""
        calls = self.calls or []
        if not calls and not self.answer.text:
            return []
        results = [self.done[i] for i in range(len(calls))]
        names = [r.name or c.name for c, r in zip(calls, results, strict=True)]
        messages.append(self.answer.message(calls, names))
        outcomes = []
        for call, tool_result in zip(calls, results, strict=True):
            reply = _reply(call, tool_result)
            messages.append(tool_message(call.id, reply))
            outcome = CallOutcome(self.number, call, tool_result, reply)
            result.calls.append(outcome)
            outcomes.append(outcome)
        return outcomes


def _reply(call: ToolCall, result: ToolResult) -> str:
    if result.status == "cancelled":
        # a call that reached its tool has an executor on its record
        return cancelled_reply(result.name or call.name, result.record.executor is not None)
    if call.status == "truncated":
        return cut_off_reply(call.name)
    return result.content

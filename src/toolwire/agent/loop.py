"""``Agent``: a model, its tools and the engine, driven turn by turn until the model
stops calling tools or a limit ends the run.

    agent = Agent(ModelClient("openai-chat", url, model="m"), ToolEngine([add]))
    result = await agent.run("What is 2 + 3?")
    async for event in agent.stream("What is 2 + 3?"): ...

Each turn: one request (history and tool definitions in Chat Completions shape, put in
the client's wire format by ``ModelClient.prepare``); the answer's raw bytes go through
``StreamParser``; the calls go through ``engine.execute_many`` in parallel; every call
gets exactly one reply, in call order. The engine runs neither a truncated call nor an
invalid one: a truncated call's reply tells the model it was cut off; an invalid one's
is the engine's message naming what to correct. A run is one engine task.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from toolwire.agent.emitter import TextEmitter
from toolwire.agent.events import (
    AgentEvent,
    CallOutcome,
    CallParsed,
    ReasoningOut,
    RunFinished,
    RunResult,
    StopReason,
    TextOut,
    ToolReplied,
    ToolStarted,
    TurnFinished,
)
from toolwire.audit.tracing import AgentSpan, ChatSpan
from toolwire.client import ModelClient, UpstreamError
from toolwire.engine import ToolEngine
from toolwire.engine.results import ToolResult
from toolwire.events import (
    CallFinished,
    FinishReason,
    ReasoningDelta,
    StreamError,
    StreamFinished,
    TextDelta,
    ToolCall,
    Usage,
)
from toolwire.jsontext import dumps
from toolwire.parser import StreamParser
from toolwire.providers.tooldefs import to_openai_tool
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


class Agent:
    """``engine`` runs the tools (or give ``tools`` and a ``ToolEngine`` with default
    settings is made for them: ``@tool`` functions, MCP tools from
    ``MCPToolset.discover()``). ``invalid_retries``: invalid or truncated calls a
    tool may get in one run before the run stops."""

    def __init__(
        self,
        client: ModelClient,
        engine: ToolEngine | None = None,
        *,
        tools: Iterable[Tool] = (),
        system: str | None = None,
        max_turns: int = 20,
        invalid_retries: int = 5,
        text_size: int = 150,
        text_interval: float = 0.05,
        text_format: str | None = None,
        request: Mapping[str, Any] | None = None,
    ) -> None:
        if engine is None:
            engine = ToolEngine(tools)
        elif tools:
            raise ValueError("give tools or an engine, not both")
        self.client = client
        self.engine = engine
        self.system = system
        self.max_turns = max_turns
        self.invalid_retries = invalid_retries
        self.text_size = text_size
        self.text_interval = text_interval
        self.text_format = text_format
        self.request = dict(request or {})  # more request fields (temperature, max_tokens…)

    async def run(self, prompt: str, *, task_id: str | None = None) -> RunResult:
        """Run to the end; the result of ``stream``'s last event."""
        async for event in self.stream(prompt, task_id=task_id):
            if isinstance(event, RunFinished):
                return event.result
        raise AssertionError("a run always ends with RunFinished")  # pragma: no cover

    def finish(self, result: RunResult, *, solved: bool) -> None:
        """Say whether the run's task was solved (for the audit's tokens per task)."""
        self.engine.finish_task(result.task_id, solved=solved)

    async def stream(self, prompt: str, *, task_id: str | None = None) -> AsyncIterator[AgentEvent]:
        task = self.engine.start_task(task_id)
        messages: list[dict[str, Any]] = []
        if self.system:
            messages.append({"role": "system", "content": self.system})
        messages.append({"role": "user", "content": prompt})
        result = RunResult(text="", stop="done", turns=0, task_id=task, messages=messages)
        run_span = AgentSpan(model=self._model(), task_id=task)
        invalid: dict[str, int] = {}
        while True:
            result.turns += 1
            turn = result.turns
            answer = _Answer()
            chat_span = ChatSpan(
                model=self._model(),
                wire=self.client.format,
                base_url=self.client.base_url,
                conversation_id=task,
                parent=run_span.context,
            )
            async for event in self._ask(messages, turn, answer):
                yield event
            chat_span.finish(
                usage=answer.usage,
                finish_reasons=[answer.finish_reason] if answer.finish_reason else [],
                error=answer.error,
            )
            result.usage_per_turn.append(answer.usage)
            if answer.usage is not None:
                self.engine.add_usage(task, answer.usage)
            yield TurnFinished(turn, answer.finish_reason, answer.usage)
            result.text = answer.text
            if answer.error is not None and not answer.calls:
                result.stop, result.error = "upstream_error", answer.error
                break
            if not answer.calls:
                messages.append({"role": "assistant", "content": answer.text})
                result.stop = _NO_CALL_STOPS.get(answer.finish_reason or "", "done")
                if result.stop == "upstream_error":
                    result.error = "the model's answer could not be read"
                break
            calls = _unique_ids(answer.calls, turn)
            messages.append(_assistant_message(answer.text, calls))
            for call in calls:
                yield ToolStarted(call, turn)
            results = await self.engine.execute_many(calls, task_id=task, turn=turn)
            spent = False
            for call, tool_result in zip(calls, results, strict=True):
                reply = _reply(call, tool_result)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": reply})
                outcome = CallOutcome(turn, call, tool_result, reply)
                result.calls.append(outcome)
                if call.status in ("truncated", "invalid") or tool_result.status == "invalid_args":
                    key = tool_result.name or call.name
                    invalid[key] = invalid.get(key, 0) + 1
                    spent = spent or invalid[key] > self.invalid_retries
                yield ToolReplied(outcome)
            if answer.error is not None:
                result.stop, result.error = "upstream_error", answer.error
                break
            if spent:
                result.stop = "invalid_retries"
                break
            if turn >= self.max_turns:
                result.stop = "max_turns"
                break
        run_span.finish(stop=result.stop, usage=result.usage, error=result.error)
        yield RunFinished(result)

    def _model(self) -> str:
        return str(self.client.model or self.request.get("model", "model"))

    async def _ask(
        self, messages: list[dict[str, Any]], turn: int, answer: _Answer
    ) -> AsyncIterator[AgentEvent]:
        """One model turn: send the history, read the answer into ``answer``."""
        specs = self.engine.registry.specs()
        body: dict[str, Any] = {
            **self.request,
            "model": self._model(),
            "messages": messages,
            "stream": True,
        }
        if specs:
            body["tools"] = [to_openai_tool(spec) for spec in specs]
        prepared = self.client.prepare(body, "openai-chat", stream=True)
        parser = StreamParser(self.client.format, specs, text_format=self.text_format)
        emitter = TextEmitter(self.text_size, self.text_interval)
        thinking = TextEmitter(self.text_size, self.text_interval)
        try:
            response = await self.client.open(prepared)
            try:
                async for chunk in response.iter_bytes():
                    for event in answer.take(parser.feed(chunk), emitter, thinking, turn):
                        yield event
            finally:
                await response.aclose()
        except UpstreamError as exc:
            answer.error = exc.message
        for event in answer.take(parser.close(), emitter, thinking, turn):
            yield event
        rest = thinking.flush()
        if rest:
            yield ReasoningOut(rest, turn)
        rest = emitter.flush()
        if rest:
            yield TextOut(rest, turn)


class _Answer:
    """One turn's answer as the parser reads it."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.calls: list[ToolCall] = []
        self.finish_reason: FinishReason | None = None
        self.usage: Usage | None = None
        self.error: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def take(
        self, events: list[Any], emitter: TextEmitter, thinking: TextEmitter, turn: int
    ) -> list[AgentEvent]:
        out: list[AgentEvent] = []
        for event in events:
            if isinstance(event, ReasoningDelta):
                batch = thinking.feed(event.text)
                if batch:
                    out.append(ReasoningOut(batch, turn))
            elif isinstance(event, TextDelta):
                self.parts.append(event.text)
                batch = emitter.feed(event.text)
                if batch:
                    out.append(TextOut(batch, turn))
            elif isinstance(event, CallFinished):
                self.calls.append(event.call)
                out.append(CallParsed(event.call, turn))
            elif isinstance(event, StreamFinished):
                self.finish_reason = event.finish_reason
                self.usage = event.usage
            elif isinstance(event, StreamError) and self.error is None:
                self.error = event.message
        return out


def _unique_ids(calls: list[ToolCall], turn: int) -> list[ToolCall]:
    """Each call under an id of its own: a missing or repeated id (F32: local servers
    send ``call_0`` for every call) would give two replies the same id."""
    seen: set[str] = set()
    out: list[ToolCall] = []
    for i, call in enumerate(calls):
        if not call.id or call.id in seen:
            call = dataclasses.replace(call, id=f"call_t{turn}_{i}")
        seen.add(call.id or "")
        out.append(call)
    return out


def _assistant_message(text: str, calls: list[ToolCall]) -> dict[str, Any]:
    """The model's turn as the next request carries it: arguments as the repaired JSON
    (a call with none fit to send, truncated or unreadable, as ``{}``)."""
    return {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": dumps(call.arguments if call.arguments is not None else {}),
                },
            }
            for call in calls
        ],
    }


def _reply(call: ToolCall, result: ToolResult) -> str:
    if call.status == "truncated":
        return cut_off_reply(call.name)
    return result.content

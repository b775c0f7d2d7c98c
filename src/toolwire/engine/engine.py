"""The execution engine: every call goes resolve → validate → policy → execute → record.

Each phase can end the call with a status the model can act on; every call the engine
answers leaves exactly one record, written to the sinks before the result is returned.
Hooks run after each phase and may add to the record (``state.extra``).
"""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, NamedTuple

import anyio
import anyio.to_thread

from toolwire.audit.locations import open_sink
from toolwire.audit.record import ExecutionRecord, Status, TaskRecord
from toolwire.audit.redact import (
    Redactor,
    canonical_json,
    redact,
    redact_arguments,
    redact_arguments_text,
)
from toolwire.audit.sinks import AuditSink
from toolwire.engine.concurrent import run_all
from toolwire.engine.deadlines import DeadlineTimer, asyncio_loop
from toolwire.engine.normalize import render, truncate
from toolwire.engine.policy import Decision, Policy, PolicyRequest, default_policies
from toolwire.engine.process import run_in_process
from toolwire.engine.results import ToolResult
from toolwire.engine.tasks import TaskLedger
from toolwire.events import ToolCall, Usage
from toolwire.finish import NOT_GIVEN, CallFinisher
from toolwire.jsontext import NotJSONError, dumps, text_of
from toolwire.names import ambiguous_tool_message, resolve_tool_name, unknown_tool_message
from toolwire.surrogates import LONE_SURROGATE, replace_surrogates, replace_surrogates_in
from toolwire.tokens import estimate_tokens, tokenizer_name
from toolwire.tools.base import ArgumentsRejected, Tool, ToolOutput
from toolwire.tools.function import FunctionTool
from toolwire.tools.registry import ToolRegistry

log = logging.getLogger("toolwire.engine")

Phase = Literal["resolve", "validate", "policy", "execute", "record"]
PHASES: tuple[Phase, ...] = ("resolve", "validate", "policy", "execute", "record")


@dataclass(frozen=True, slots=True)
class CallRequest:
    """A call from any source: a name and arguments as JSON text, a mapping, or nothing."""

    name: str
    arguments: Mapping[str, Any] | str | None = None
    id: str | None = None


@dataclass(slots=True)
class CallState:
    """One call on its way through the phases; hooks read it and may add to ``extra``."""

    call_id: str
    name_as_sent: str
    raw_arguments: str
    value: Any
    truncated: bool
    session_id: str | None
    task_id: str | None
    turn: int | None
    started_at: float
    t0: float
    name: str = ""
    tool: Tool | None = None
    arguments: dict[str, Any] | None = None
    repairs: list[str] = field(default_factory=list)
    validation_errors: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    decision: str | None = None
    approval_id: str | None = None
    pending: PendingApproval | None = None  # listed by the engine once recorded
    approved: bool = False
    status: Status | None = None
    output: ToolOutput | None = None
    error_type: str | None = None
    error_message: str | None = None
    content: str = ""
    cancel_requested: bool = False
    scope: anyio.CancelScope | None = None
    canonical: bytes | None = None  # the arguments as canonical JSON, once computed
    extra: dict[str, Any] = field(default_factory=dict)
    cancelled_result: ToolResult | None = None  # the result of a call cancelled mid-run
    batch: _Batch | None = None  # where its record waits to be written with others

    def end(self, status: Status, content: str, error_type: str | None = None) -> None:
        self.status = status
        # Messages quote names and exceptions, which may hold a lone surrogate.
        content = replace_surrogates(content)
        self.content = content
        self.error_type = error_type
        if status != "ok":
            self.error_message = content


# A record to write, and the call it lists as waiting for approval once it is written.
_Stored = tuple[ExecutionRecord, "tuple[PendingApproval, _ArgumentsAudit] | None"]

# Texts longer than this (in characters to tokenize) are counted in a worker thread: a
# count runs at 1-5 MB/s and would stall every other call on the event loop.
OFF_LOOP_CHARS = 4096


class _ArgumentsAudit(NamedTuple):  # a tuple: built on every call, at a tuple's cost
    """What a record says of a call's arguments. Kept for a call waiting for approval:
    ``reject`` runs on the caller's thread, and must not redact or count them again."""

    sha256: str | None  # of the redacted arguments (see toolwire.audit.redact)
    tokens: int
    stored: str | None  # the redacted arguments as JSON, when the engine stores them
    redactor: Redactor  # knows the secrets found in them


class _Texts:
    """A call's result text and arguments, and what the record says of them once
    counted and redacted (``count``: the part that may run in a worker thread)."""

    __slots__ = (
        "arguments",
        "arguments_text",
        "audit",
        "budget",
        "canonical",
        "content",
        "full",
        "result_chars",
        "result_tokens",
        "store",
        "structured",
        "truncated",
        "value",
    )

    def __init__(self, budget: int | None, store: bool) -> None:
        self.budget = budget
        self.store = store
        self.full: str | None = None  # what the tool returned, as text
        self.content = ""  # what the model reads: ``full`` cut to the budget, or a message
        self.value: Any = None
        self.structured: Any = None
        self.arguments: Any = NOT_GIVEN  # NOT_GIVEN: only ``arguments_text`` (unreadable)
        self.canonical: bytes | None = None
        self.arguments_text = ""
        self.audit: _ArgumentsAudit | None = None
        self.result_chars = 0
        self.result_tokens = 0
        self.truncated = False

    def work(self) -> int:
        """About how many characters ``count`` will tokenize and redact."""
        result = len(self.full) if self.full is not None else len(self.content)
        if self.full is not None and self.budget is not None:
            result = min(result, self.budget * 16)  # truncate_to_tokens reads no further
        return result + (len(self.arguments_text) if self.audit is None else 0)

    def count(self) -> None:
        if self.full is not None:
            self.content, self.result_tokens, self.truncated = truncate(self.full, self.budget)
            self.result_chars = len(self.full)
        else:
            self.result_tokens = estimate_tokens(self.content)
            self.result_chars = len(self.content)
        if self.audit is None:
            self.audit = self._audit_arguments()

    def _audit_arguments(self) -> _ArgumentsAudit:
        tokens = estimate_tokens(self.arguments_text)
        stored: str | None = None
        if self.arguments is NOT_GIVEN:
            redacted = redact_arguments_text(self.arguments_text)
            if self.store:
                stored = redacted.value
        else:
            redacted = redact_arguments(self.arguments, self.canonical)
            if self.store and redacted.sha256 is not None:
                stored = dumps(redacted.value, default=text_of)
        return _ArgumentsAudit(redacted.sha256, tokens, stored, redacted.redactor)


Hook = Callable[[Phase, CallState], None]


@dataclass(frozen=True, slots=True)
class Rejected:
    """An approver's refusal with the reviewer's reason (``False`` gives a generic one)."""

    reason: str


Approver = Callable[["PendingApproval"], Awaitable[bool | Rejected | None]]
"""Asked while a call waits for approval: True runs it, False or ``Rejected`` rejects it
(``denied``), None leaves it waiting (``pending_approval``). Either way the call has
one record."""
ProgressListener = Callable[[str, float, float | None, str | None], None]


@dataclass(frozen=True, slots=True, repr=False)
class PendingApproval:
    """A call waiting for ``approve`` or ``reject``. It keeps its arguments as sent (the
    call runs with them once approved); its repr and str show them redacted."""

    approval_id: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    reasons: tuple[str, ...]
    task_id: str | None
    session_id: str | None
    turn: int | None
    repairs: tuple[str, ...]
    created_at: float

    def __repr__(self) -> str:
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "arguments":
                try:
                    value = redact(value)
                except RecursionError:
                    value = "<arguments>"
            shown.append(f"{f.name}={value!r}")
        return f"PendingApproval({', '.join(shown)})"


def _split_arguments(arguments: Mapping[str, Any] | str | None) -> tuple[str, Any]:
    """``(raw text, value)`` of a call's arguments: JSON text is read by the finisher."""
    if isinstance(arguments, str):
        return arguments, NOT_GIVEN
    return "", arguments or {}


def _acquire_nowait(limits: list[anyio.Semaphore]) -> bool:
    """Take every slot without waiting, or none: waiting costs a trip through the loop."""
    for i, sem in enumerate(limits):
        try:
            sem.acquire_nowait()
        except anyio.WouldBlock:
            for taken in limits[:i]:
                taken.release()
            return False
    return True


async def _acquire(limits: list[anyio.Semaphore]) -> None:
    for i, sem in enumerate(limits):
        try:
            await sem.acquire()
        except BaseException:
            for taken in reversed(limits[:i]):
                taken.release()
            raise


def _release(limits: list[anyio.Semaphore]) -> None:
    for sem in reversed(limits):
        sem.release()


def _redacted_extra(extra: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """``extra`` with secrets replaced, by the rules and those known from the arguments."""
    try:
        redacted: dict[str, Any] = redactor.value(extra)
    except RecursionError:  # a hook stored a container that holds itself
        return dict.fromkeys(map(str, extra), "[unrecordable]")
    return redacted


def _reject(state: CallState, reason: str) -> None:
    state.decision = "rejected"
    state.end(
        "denied",
        f"The call to {state.name} was not approved: {reason}. "
        "Do not retry it; choose another way or ask the user.",
        "rejected",
    )


class _Batch:
    """The records and results of an ``execute_many`` batch not written yet: those of
    the calls that end in one pass of the event loop go to the sinks together at the
    end of that pass (``call_soon``; at once without an asyncio loop), then ``done``
    is told of each."""

    __slots__ = ("_done", "_ended", "_engine", "_loop", "_scheduled", "error", "extra", "stored")

    def __init__(self, engine: ToolEngine, done: Callable[[int, ToolResult], None] | None):
        self._engine = engine
        self._done = done
        self._loop = asyncio_loop()
        self._scheduled = False
        self._ended: list[tuple[int, ToolResult]] = []
        self.stored: list[_Stored] = []
        self.error: Exception | None = None  # the first error of ``done``
        # the extra given for every call of the batch, and it redacted by the rules
        self.extra: tuple[dict[str, Any], dict[str, Any]] | None = None

    def ended(self, i: int, result: ToolResult) -> None:
        """Call ``i`` has its result (its record is in ``stored``)."""
        self._ended.append((i, result))
        if self._loop is None:
            self.flush()
        elif not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def write(self) -> None:
        stored, self.stored = self.stored, []
        self._engine._store(stored)

    def flush(self) -> None:
        self._scheduled = False
        self.write()
        ended, self._ended = self._ended, []
        if self._done is None:
            return
        for i, result in ended:
            try:
                self._done(i, result)
            except Exception as exc:  # goes on to execute_many's caller
                if self.error is None:
                    self.error = exc


class ApprovalNotFound(KeyError):
    """No call is waiting under that approval id (unknown, or already decided)."""


class ToolEngine:
    """Runs tool calls through one audited path.

    ``sinks`` defaults to one SQLite file (``$TOOLWIRE_AUDIT_DB`` or
    ``./toolwire-audit.db``); pass ``[]`` for none. ``policies`` defaults to
    ``default_policies()`` (destructive tools need approval). ``timeout`` applies to
    each call's execution (not its wait for a concurrency slot). ``max_concurrency``
    caps calls running at once; ``tool_concurrency`` caps single tools (a tool's own
    ``max_concurrency`` also counts). Results are cut to ``result_token_budget`` tokens.
    """

    def __init__(
        self,
        tools: ToolRegistry | Iterable[Tool] = (),
        *,
        sinks: Sequence[AuditSink] | None = None,
        policies: Sequence[Policy] | None = None,
        timeout: float | None = 60.0,
        max_concurrency: int | None = 16,
        tool_concurrency: Mapping[str, int] | None = None,
        result_token_budget: int | None = 4000,
        store_arguments: bool = False,
        hooks: Sequence[Hook] = (),
        on_progress: ProgressListener | None = None,
        session_id: str | None = None,
    ) -> None:
        self.registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        if sinks is None:  # $TOOLWIRE_AUDIT_DB (a path or a postgresql:// URL)
            default = open_sink(None)
            sinks = [] if default is None else [default]
        self.sinks: list[AuditSink] = list(sinks)
        self.policies: list[Policy] = default_policies() if policies is None else list(policies)
        self._admitters = [p for p in self.policies if hasattr(p, "admitted")]
        self.timeout = timeout
        self.result_token_budget = result_token_budget
        self.store_arguments = store_arguments
        self.hooks = list(hooks)
        self.on_progress = on_progress
        self.session_id = session_id
        self._global = anyio.Semaphore(max_concurrency) if max_concurrency else None
        self._tool_concurrency = dict(tool_concurrency or {})
        self._tool_limits: dict[str, anyio.Semaphore] = {}
        self._limits_by_name: dict[str, tuple[Tool, list[anyio.Semaphore]]] = {}
        self._finisher: CallFinisher | None = None
        self._finisher_key: tuple[int, int] | None = None
        # Listed once the call's pending record is written (with what it says of the
        # arguments, reused by reject).
        self._pending: dict[str, tuple[PendingApproval, _ArgumentsAudit]] = {}
        self._running: dict[str, CallState] = {}
        self._deadlines = DeadlineTimer()
        self._tokenizer = tokenizer_name()
        self.tasks = TaskLedger(self._emit_task)
        self.sink_errors = 0
        self._id_prefix = os.urandom(8).hex()
        self._ids = itertools.count(1)

    # ----------------------------------------------------------------- public API

    async def execute(
        self,
        call: ToolCall | CallRequest,
        *,
        task_id: str | None = None,
        session_id: str | None = None,
        turn: int | None = None,
        extra: Mapping[str, Any] | None = None,
        approver: Approver | None = None,
    ) -> ToolResult:
        """Run one call through all phases and return its result (never raises for it).
        ``extra`` goes into the call's record (e.g. the model and its usage that turn);
        a call that needs approval asks ``approver`` first, when one is given."""
        state = self._begin(call, task_id, session_id, turn)
        if extra:
            state.extra.update(extra)
        return await self._run(state, approver=approver)

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        id: str | None = None,
        task_id: str | None = None,
        session_id: str | None = None,
        turn: int | None = None,
        approver: Approver | None = None,
    ) -> ToolResult:
        """Shorthand for ``execute(CallRequest(name, arguments, id))``; a call that
        needs approval asks ``approver`` first, when one is given."""
        # Straight to the state, without a CallRequest: this is the hot path.
        raw, value = _split_arguments(arguments)
        state = self._new_state(name, raw, value, False, [], id, task_id, session_id, turn)
        return await self._run(state, approver=approver)

    async def execute_many(
        self,
        calls: Sequence[ToolCall | CallRequest],
        *,
        task_id: str | None = None,
        session_id: str | None = None,
        turn: int | None = None,
        extra: Mapping[str, Any] | None = None,
        done: Callable[[int, ToolResult], None] | None = None,
        approver: Approver | None = None,
    ) -> list[ToolResult]:
        """Run a batch in parallel (within the concurrency limits); results in call order.
        ``done(i, result)`` is told of each call once the batch is recorded, also when
        the batch is cancelled (the call's result then says ``cancelled`` unless it had
        finished), so a cancelled caller still has every call's result.

        Records of calls that end in the same pass of the event loop are written
        together at the end of that pass (one transaction in a sink with
        ``write_many``: SQLite's cost per record nearly halves), before their results
        are handed back; a call that ends while others run is written at once."""
        results: list[ToolResult | None] = [None] * len(calls)
        states = [self._begin(c, task_id, session_id, turn) for c in calls]
        started = [False] * len(calls)
        batch = _Batch(self, done)
        if extra:
            batch.extra = (dict(extra), _redacted_extra(dict(extra), Redactor()))
        for state in states:
            state.batch = batch
            if extra:
                state.extra.update(extra)

        async def one(i: int) -> None:
            started[i] = True
            state = states[i]
            try:
                results[i] = await self._run(state, approver=approver)
            finally:
                result = results[i] or state.cancelled_result
                if result is not None:
                    batch.ended(i, result)

        try:
            await run_all(len(calls), one)
        except BaseException:
            for i, state in enumerate(states):
                if not started[i]:  # cancelled before it began: recorded too
                    state.end("cancelled", f"The call to {state.name} was cancelled.", "cancelled")
                    batch.ended(i, self._record(state))
            batch.flush()
            raise
        batch.flush()
        if batch.error is not None:
            raise batch.error
        return [r for r in results if r is not None]

    def decline(
        self,
        call: ToolCall | CallRequest,
        message: str,
        *,
        status: Literal["denied", "cancelled"] = "denied",
        reason: str = "declined",
        task_id: str | None = None,
        session_id: str | None = None,
        turn: int | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Record a call its caller will not run (a run's limit was reached, the run
        was cancelled before it started): one record, ``message`` as its content."""
        state = self._begin(call, task_id, session_id, turn)
        if extra:
            state.extra.update(extra)
        self._resolve(state)  # the record names the tool as resolved
        state.decision = reason
        state.end(status, message, reason)
        return self._record(state)

    def cancel(self, call_id: str) -> bool:
        """Cancel a running (or queued) call; its result has status ``cancelled``."""
        state = self._running.get(call_id)
        if state is None:
            return False
        state.cancel_requested = True
        if state.scope is not None:
            state.scope.cancel()
        return True

    def pending(self) -> list[PendingApproval]:
        return [pending for pending, _ in self._pending.values()]

    async def approve(self, approval_id: str) -> ToolResult:
        """Run a call that was waiting for approval (deny rules and limits still apply)."""
        pending, _ = self._take_pending(approval_id)
        state = self._resume(pending)
        state.approved = True
        state.repairs = list(pending.repairs)
        return await self._run(state, from_policy=True)

    def reject(self, approval_id: str, reason: str = "rejected by the reviewer") -> ToolResult:
        """Refuse a waiting call; it is recorded as ``denied``.

        Synchronous, and cheap whatever the size of the call: its arguments were
        redacted and counted (off the event loop) when it was recorded as pending, and
        only the short refusal is counted here.
        """
        pending, audit = self._take_pending(approval_id)
        state = self._resume(pending)
        _reject(state, reason)
        return self._record(state, audit)

    def start_task(self, task_id: str | None = None, *, session_id: str | None = None) -> str:
        return self.tasks.start(task_id, session_id=session_id or self.session_id)

    def add_usage(self, task_id: str, usage: Usage) -> None:
        """Add model usage (as the provider reported it) to a task, for TPST."""
        self.tasks.add_usage(
            task_id,
            input_tokens=usage.input_tokens or 0,
            output_tokens=usage.output_tokens or 0,
            reasoning_tokens=usage.reasoning_tokens or 0,
        )

    def finish_task(self, task_id: str, *, solved: bool) -> TaskRecord:
        return self.tasks.finish(task_id, solved=solved)

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()

    # ------------------------------------------------------------------ phases

    def _begin(
        self,
        call: ToolCall | CallRequest,
        task_id: str | None,
        session_id: str | None,
        turn: int | None,
    ) -> CallState:
        if isinstance(call, ToolCall):
            name = call.name_as_sent or call.name
            raw = call.raw_arguments
            value: Any = call.arguments if call.arguments is not None else NOT_GIVEN
            truncated = call.status == "truncated"
            if truncated:
                value = NOT_GIVEN
            repairs = list(call.repairs)
        else:
            name = call.name
            raw, value = _split_arguments(call.arguments)
            truncated = False
            repairs = []
        return self._new_state(
            name, raw, value, truncated, repairs, call.id, task_id, session_id, turn
        )

    def _new_state(
        self,
        name: str,
        raw: str,
        value: Any,
        truncated: bool,
        repairs: list[str],
        call_id: str | None,
        task_id: str | None,
        session_id: str | None,
        turn: int | None,
    ) -> CallState:
        session = session_id or self.session_id
        if task_id is not None:
            self.tasks.ensure(task_id, session)
        state = CallState(
            call_id=call_id or self._new_id("call"),
            name_as_sent=name,
            raw_arguments=raw,
            value=value,
            truncated=truncated,
            session_id=session,
            task_id=task_id,
            turn=turn,
            started_at=time.time(),
            t0=time.perf_counter(),
            name=name,
        )
        state.repairs = repairs
        return state

    async def _run(
        self, state: CallState, *, from_policy: bool = False, approver: Approver | None = None
    ) -> ToolResult:
        self._running[state.call_id] = state
        try:
            if not from_policy:
                self._resolve(state)
                if self.hooks:
                    self._hook("resolve", state)
                if state.status is None:
                    self._validate(state)
                    if self.hooks:
                        self._hook("validate", state)
            if state.status is None:
                self._policy(state)
                if state.status == "pending_approval" and approver is not None:
                    await self._ask(approver, state)
                if self.hooks:
                    self._hook("policy", state)
            if state.status is None:
                await self._execute(state)
                if self.hooks:
                    self._hook("execute", state)
        except anyio.get_cancelled_exc_class():
            # The caller was cancelled: record the call, then let cancellation go on.
            if state.status is None or state.status == "ok":
                state.output = None
                state.end("cancelled", f"The call to {state.name} was cancelled.", "cancelled")
            with anyio.CancelScope(shield=True):
                state.cancelled_result = await self._record_async(state)
            raise
        except KeyboardInterrupt:
            # The user's interrupt, not the tool's error: record the call, then let
            # the interrupt go on (recorded on this thread: no await while it is due).
            state.output = None
            message = f"The call to {state.name} was interrupted."
            state.end("cancelled", message, "KeyboardInterrupt")
            # The loop may not run again: the batch's records so far, and this one, now.
            batch, state.batch = state.batch, None
            if batch is not None:
                batch.write()
            state.cancelled_result = self._record(state)
            raise
        except Exception as exc:  # an engine or hook bug must not lose the record
            log.exception("engine failure in call %s", state.call_id)
            state.output = None
            state.end(
                "tool_error", f"Internal error running {state.name}: {text_of(exc)}", "EngineError"
            )
        finally:
            self._running.pop(state.call_id, None)
        return await self._record_async(state)

    def _resolve(self, state: CallState) -> None:
        registry = self.registry
        tool = registry.get(state.name_as_sent)
        if tool is None:
            names = registry.names
            match = resolve_tool_name(state.name_as_sent, names)
            candidates = registry.ambiguous(state.name_as_sent) if match.name is None else ()
            if candidates:
                message = ambiguous_tool_message(state.name_as_sent, candidates)
                state.end("invalid_args", message, "ambiguous_tool")
                return
            if match.name is None:
                message = unknown_tool_message(state.name_as_sent, match, names)
                text = message[0].upper() + message[1:]
                state.end(
                    "invalid_args",
                    text if text.endswith(("?", ".")) else text + ".",
                    "unknown_tool",
                )
                return
            tool = registry[match.name]
            # the parser may have named this repair already (it normalizes names too)
            if match.repair and match.repair not in state.repairs:
                state.repairs.append(match.repair)
        state.tool = tool
        state.name = tool.name

    def _finisher_for(self) -> CallFinisher:
        key = (id(self.registry), self.registry.version)
        if self._finisher is None or self._finisher_key != key:
            self._finisher = CallFinisher(self.registry.specs())
            self._finisher_key = key
        return self._finisher

    def _validate(self, state: CallState) -> None:
        if state.value is not NOT_GIVEN and not self._writable(state):
            return
        finisher = self._finisher_for()
        if not state.truncated and finisher.accepts_as_sent(state.name, state.value):
            # The finisher would return this object as it is (status complete).
            state.arguments = state.value
            return
        finished = finisher.finish(
            id=state.call_id,
            name=state.name,
            raw_arguments=state.raw_arguments,
            value=state.value,
            truncated=state.truncated,
        )
        for r in finished.repairs:
            if r not in state.repairs:
                state.repairs.append(r)
        state.canonical = None  # of the value as sent; the finisher may have changed it
        if finished.status in ("complete", "repaired") and finished.arguments is not None:
            state.arguments = finished.arguments
            return
        state.validation_errors = list(finished.errors)
        if finished.arguments is not None:
            state.arguments = finished.arguments
        problems = "; ".join(finished.errors) or "the arguments could not be read"
        state.end(
            "invalid_args",
            f"Invalid arguments for {state.name}: {problems}. "
            "Correct the arguments and call the tool again.",
            "truncated_arguments" if finished.status == "truncated" else "invalid_arguments",
        )

    def _writable(self, state: CallState) -> bool:
        """Whether arguments given as a value can be written as JSON (the audit hash
        needs it, and so does any tool that sends them on). A lone surrogate is
        replaced (repair ``lone_surrogate``); anything else JSON cannot hold -- a
        non-string key, a container that holds itself, a 5,000-digit integer -- makes
        the call ``invalid_args``."""
        try:
            state.canonical = canonical_json(state.value)
            return True
        except NotJSONError as exc:
            problem = text_of(exc)
        try:
            fixed, lone = replace_surrogates_in(state.value)
        except RecursionError:  # a container that holds itself
            fixed, lone = state.value, False
        if lone:
            try:
                state.canonical = canonical_json(fixed)
                state.value = fixed
                state.repairs.append(LONE_SURROGATE)
                return True
            except NotJSONError as exc:
                problem = text_of(exc)
        state.validation_errors = [f"the arguments cannot be written as JSON: {problem}"]
        state.end(
            "invalid_args",
            f"Invalid arguments for {state.name}: they cannot be written as JSON "
            f"({problem}). Send the arguments as a plain JSON object.",
            "invalid_arguments",
        )
        return False

    def _policy(self, state: CallState) -> None:
        if not self.policies:
            state.decision = "approved" if state.approved else "allow"
            return
        assert state.tool is not None and state.arguments is not None
        request = PolicyRequest(
            tool=state.tool,
            name=state.name,
            arguments=state.arguments,
            call_id=state.call_id,
            task_id=state.task_id,
            session_id=state.session_id,
        )
        denies: list[Decision] = []
        approvals: list[Decision] = []
        for policy in self.policies:
            decision = policy.check(request)
            if decision is None or decision.action == "allow":
                continue
            (denies if decision.action == "deny" else approvals).append(decision)
        if denies:
            state.violations.extend(f"{d.policy}: {d.reason}" for d in denies)
            state.decision = "deny"
            reasons = "; ".join(d.reason for d in denies)
            state.end(
                "denied",
                f"The call to {state.name} was denied by policy: {reasons}. "
                "Do not retry it unchanged.",
                "denied",
            )
            return
        if approvals and not state.approved:
            approval_id = self._new_id("appr")
            reasons_t = tuple(d.reason for d in approvals)
            state.pending = PendingApproval(
                approval_id=approval_id,
                call_id=state.call_id,
                name=state.name,
                arguments=state.arguments,
                reasons=reasons_t,
                task_id=state.task_id,
                session_id=state.session_id,
                turn=state.turn,
                repairs=tuple(state.repairs),
                created_at=time.time(),
            )
            state.approval_id = approval_id
            state.decision = "approval_required"
            state.extra["approval_reasons"] = list(reasons_t)
            state.end(
                "pending_approval",
                f"The call to {state.name} is waiting for approval "
                f"({'; '.join(reasons_t)}); approval id {approval_id}.",
            )
            return
        state.decision = "approved" if state.approved else "allow"
        for policy in self._admitters:
            policy.admitted(request)

    async def _ask(self, approver: Approver, state: CallState) -> None:
        """Put a waiting call to ``approver``; the call goes on as it answers."""
        pending = state.pending
        assert pending is not None
        try:
            answer = await approver(pending)
        except anyio.get_cancelled_exc_class():
            # The caller gave up while asking (Ctrl-C at the question): the call ends
            # ``cancelled`` (see ``_run``), not left listed as waiting for nobody.
            state.pending = None
            state.status = state.error_type = state.error_message = None
            raise
        except Exception:  # no answer: the call keeps waiting, as without an approver
            log.exception("approver failed for call %s", state.call_id)
            answer = None
        if answer is None:
            return
        state.pending = None  # decided: not listed as waiting
        state.status = state.error_type = state.error_message = None
        state.content = ""
        if answer is True:
            state.approved = True
            self._policy(state)  # deny rules and admission (rate limits) still apply
            return
        _reject(state, answer.reason if isinstance(answer, Rejected) else "the user declined it")

    def _limits(self, tool: Tool) -> list[anyio.Semaphore]:
        # Built once per tool object: the same semaphores serve every call of it.
        cached = self._limits_by_name.get(tool.name)
        if cached is not None and cached[0] is tool:
            return cached[1]
        out = [self._global] if self._global is not None else []
        limit = self._tool_concurrency.get(tool.name, tool.max_concurrency)
        if limit:
            sem = self._tool_limits.get(tool.name)
            if sem is None:
                sem = self._tool_limits[tool.name] = anyio.Semaphore(limit)
            out.append(sem)
        self._limits_by_name[tool.name] = (tool, out)
        return out

    async def _execute(self, state: CallState) -> None:
        tool = state.tool
        assert tool is not None and state.arguments is not None
        timeout = tool.timeout if tool.timeout is not None else self.timeout
        limits = self._limits(tool)
        held = _acquire_nowait(limits)
        scope: anyio.CancelScope | None = None
        output: ToolOutput | None = None
        try:
            if held and tool.executor == "inline" and not state.cancel_requested:
                # An inline tool blocks the loop until it returns: nothing can time it
                # out or cancel it, so it needs no cancel scope (the fast path).
                try:
                    output = await self._invoke(tool, state)
                finally:
                    _release(limits)
            else:
                scope = state.scope = anyio.CancelScope()
                if state.cancel_requested:
                    scope.cancel()
                with scope:
                    if not held:
                        await _acquire(limits)
                    try:
                        # The clock starts once the call holds its slots.
                        if timeout is not None:
                            self._deadlines.start(scope, timeout)
                        output = await self._invoke(tool, state)
                    finally:
                        self._deadlines.stop(scope)
                        _release(limits)
        except ArgumentsRejected as exc:
            state.validation_errors = list(exc.errors)
            state.end(
                "invalid_args",
                f"Invalid arguments for {state.name}: {text_of(exc)}. "
                "Correct the arguments and call the tool again.",
                "invalid_arguments",
            )
            return
        except (Exception, SystemExit, GeneratorExit) as exc:
            # sys.exit() or a stray GeneratorExit in a tool's body ends that call, not
            # the caller's program. (KeyboardInterrupt goes on: see _run.)
            type_name = getattr(exc, "type_name", None)
            if not isinstance(type_name, str) or not type_name:
                type_name = type(exc).__name__
            state.end("tool_error", f"Error: {type_name}: {text_of(exc)}", type_name)
            return
        if output is None or (scope is not None and scope.cancelled_caught):
            if state.cancel_requested:
                state.end("cancelled", f"The call to {state.name} was cancelled.", "cancelled")
            else:
                state.end(
                    "timeout",
                    f"The call to {state.name} timed out after {timeout or 0:g} s. "
                    "Try a smaller request, or continue without this result.",
                    "timeout",
                )
            return
        state.output = output
        if output.is_error:
            state.status, state.error_type = "tool_error", "tool_reported_error"
        else:
            state.status = "ok"

    async def _invoke(self, tool: Tool, state: CallState) -> ToolOutput:
        args = state.arguments
        assert args is not None
        state.extra["executor"] = tool.executor
        if tool.executor == "process" and isinstance(tool, FunctionTool):
            kwargs = tool.bind(args, validated=True)
            return ToolOutput(value=await run_in_process(tool, kwargs))
        if tool.executor == "mcp":
            listener = self.on_progress
            call_id = state.call_id

            async def report(progress: float, total: float | None, message: str | None) -> None:
                state.extra["progress_events"] = state.extra.get("progress_events", 0) + 1
                state.extra["progress"] = [progress, total]
                if listener is not None:
                    listener(call_id, progress, total, message)

            return await tool.invoke(args, progress=report)
        if isinstance(tool, FunctionTool):
            return await tool.invoke(args, validated=True)
        return await tool.invoke(args)

    # ------------------------------------------------------------------ record

    def _record(self, state: CallState, audit: _ArgumentsAudit | None = None) -> ToolResult:
        """Record the call and build its result, counting tokens on this thread.
        ``audit``: what was said of the arguments already (they are not looked at)."""
        texts = self._prepare(state, audit)
        texts.count()
        return self._write(state, texts)

    async def _record_async(self, state: CallState) -> ToolResult:
        """As ``_record``; large texts are counted in a worker thread, off the loop."""
        texts = self._prepare(state)
        if texts.work() > OFF_LOOP_CHARS:
            with anyio.CancelScope(shield=True):  # a cancelled caller still gets its record
                await anyio.to_thread.run_sync(texts.count)
        else:
            texts.count()
        return self._write(state, texts)

    def _prepare(self, state: CallState, audit: _ArgumentsAudit | None = None) -> _Texts:
        """The texts of the record and the result, before any token is counted."""
        if self.hooks:
            self._hook("record", state)
        # A held call keeps its (redacted) arguments: a reviewer must see what they allow.
        store = self.store_arguments or state.status == "pending_approval"
        texts = _Texts(self.result_token_budget, store)
        output = state.output
        status = state.status or "tool_error"
        if output is not None and status in ("ok", "tool_error"):
            try:
                full = render(output.value)
            except Exception as exc:  # a value no JSON text can hold: the tool's error
                state.output = None
                state.end(
                    "tool_error",
                    f"The result of {state.name} cannot be sent back as JSON: {text_of(exc)}.",
                    "unrepresentable_result",
                )
            else:
                full, lone = replace_surrogates_in(full)
                if lone:
                    state.extra["result_repairs"] = [LONE_SURROGATE]
                if status == "tool_error" and not full:
                    full = "The tool reported an error without a message."
                texts.full = full
                texts.value, texts.structured = output.value, output.structured
        if texts.full is None:
            texts.content = state.content
        if audit is not None:
            texts.audit = audit
            return texts
        args = state.arguments if state.arguments is not None else state.value
        if args is NOT_GIVEN:
            texts.arguments_text = state.raw_arguments
        else:
            texts.arguments = args
            canonical = state.canonical
            if canonical is None:
                try:
                    canonical = canonical_json(args)
                except NotJSONError:  # the call was refused for it (or never resolved)
                    canonical = None
            texts.canonical = canonical
            texts.arguments_text = canonical.decode() if canonical is not None else ""
        return texts

    def _write(self, state: CallState, texts: _Texts) -> ToolResult:
        """The record, written to every sink, and the result handed back."""
        status: Status = state.status or "tool_error"
        duration_ms = (time.perf_counter() - state.t0) * 1000.0
        content = texts.content
        if status == "tool_error" and texts.full is not None:
            state.error_message = content[:2000]
        error_message = state.error_message
        validation_errors = tuple(state.validation_errors)
        violations = tuple(state.violations)
        audit = texts.audit
        assert audit is not None  # set by count
        redactor = audit.redactor
        if status != "ok":
            # Only calls that failed pay for this: their texts can repeat the arguments.
            if error_message:
                error_message = redactor.text(error_message)
            validation_errors = tuple(map(redactor.text, validation_errors))
            violations = tuple(map(redactor.text, violations))
        tool = state.tool
        extra = state.extra
        executor = extra.pop("executor", None)
        if extra:  # hook errors, approval reasons, what hooks add: free text
            shared = state.batch.extra if state.batch is not None else None
            try:
                same = shared is not None and not redactor.known and extra == shared[0]
            except Exception:  # a value whose == raises
                same = False
            if same and shared is not None:
                # The batch's extra as given: redacted once for all its calls (the
                # rules alone decide when the call's arguments hold no secret).
                extra = dict(shared[1])
            else:
                extra = _redacted_extra(extra, redactor)
        record = ExecutionRecord(
            record_id=self._new_id("rec"),
            call_id=state.call_id,
            tool_name=state.name,
            status=status,
            started_at=state.started_at,
            duration_ms=duration_ms,
            name_as_sent=state.name_as_sent,
            tool_type="function" if tool is None or tool.executor != "mcp" else "extension",
            tool_origin=tool.origin if tool is not None else "",
            tool_description=tool.spec.description if tool is not None else "",
            session_id=state.session_id,
            task_id=state.task_id,
            turn=state.turn,
            executor=executor,
            error_type=state.error_type,
            error_message=error_message,
            arguments_sha256=audit.sha256,
            arguments=audit.stored,
            arguments_tokens=audit.tokens,
            repairs=tuple(state.repairs),
            validation_errors=validation_errors,
            violations=violations,
            policy_decision=state.decision,
            approval_id=state.approval_id,
            result_chars=texts.result_chars,
            result_tokens=texts.result_tokens,
            result_truncated=texts.truncated,
            tokenizer=self._tokenizer,
            extra=extra,
        )
        pending = state.pending
        stored: _Stored = (
            record,
            (pending, audit) if pending is not None and status == "pending_approval" else None,
        )
        if state.batch is not None:
            state.batch.stored.append(stored)
        else:
            self._store([stored])
        return ToolResult(
            call_id=state.call_id,
            name=state.name,
            status=status,
            content=content,
            value=texts.value,
            record=record,
            approval_id=state.approval_id if status == "pending_approval" else None,
            structured=texts.structured,
        )

    def _store(self, stored: list[_Stored]) -> None:
        """Write records to every sink (together where a sink can), then list the
        calls they leave waiting for approval."""
        if not stored:
            return
        records = [record for record, _ in stored]
        for sink in self.sinks:
            # getattr, not isinstance(sink, BatchSink): a protocol check costs ~10 µs
            write_many = getattr(sink, "write_many", None) if len(records) > 1 else None
            if write_many is not None:
                try:
                    write_many(records)
                    continue
                except Exception:  # one by one: a record the batch failed on fails alone
                    log.exception("audit sink %r failed to write a batch", sink)
            for record in records:
                try:
                    sink.write(record)
                except Exception:
                    self.sink_errors += 1
                    log.exception("audit sink %r failed to write record %s", sink, record.record_id)
        for _, waiting in stored:
            if waiting is not None:
                # Listed only now: a reject from now on finds the arguments counted.
                self._pending[waiting[0].approval_id] = waiting

    # ----------------------------------------------------------------- helpers

    def _new_id(self, kind: str) -> str:
        # A random per-engine prefix and a counter: unique across processes, and far
        # cheaper per call than a uuid4.
        return f"{kind}_{self._id_prefix}{next(self._ids):x}"

    def _hook(self, phase: Phase, state: CallState) -> None:
        for hook in self.hooks:
            try:
                hook(phase, state)
            except Exception as exc:  # a broken hook must not lose the call or its record
                log.exception("hook %r failed in phase %s", hook, phase)
                try:
                    said = repr(exc)
                except Exception:
                    said = f"<{type(exc).__name__}>"
                state.extra.setdefault("hook_errors", []).append(f"{phase}: {said}")

    def _emit_task(self, task: TaskRecord) -> None:
        for sink in self.sinks:
            try:
                sink.write_task(task)
            except Exception:
                self.sink_errors += 1
                log.exception("audit sink %r failed to write task %s", sink, task.task_id)

    def _take_pending(self, approval_id: str) -> tuple[PendingApproval, _ArgumentsAudit]:
        try:
            return self._pending.pop(approval_id)
        except KeyError:
            raise ApprovalNotFound(approval_id) from None

    def _resume(self, pending: PendingApproval) -> CallState:
        tool = self.registry.get(pending.name)
        state = CallState(
            call_id=pending.call_id,
            name_as_sent=pending.name,
            raw_arguments="",
            value=pending.arguments,
            truncated=False,
            session_id=pending.session_id,
            task_id=pending.task_id,
            turn=pending.turn,
            started_at=time.time(),
            t0=time.perf_counter(),
            name=pending.name,
            tool=tool,
            arguments=pending.arguments,
        )
        state.approval_id = pending.approval_id
        if tool is None:  # the tool went away while the call waited
            state.end(
                "invalid_args", f"Tool {pending.name!r} is no longer available.", "unknown_tool"
            )
        return state

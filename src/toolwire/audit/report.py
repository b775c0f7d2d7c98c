"""Aggregates over the audit trail: per-tool health, per-model health (the gateway's
records name the model in ``extra``) and tokens per solved task (TPST).

TPST = all tokens spent on all tasks' attempts (solved, failed and still open) ÷ the
number of solved tasks. A task's tokens are the model usage the caller reported for it;
a task with no reported usage counts the estimated tokens of its tool traffic instead
(arguments written by the model plus results read back), and is marked ``estimate``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from toolwire.audit.record import STATUSES, ExecutionRecord, TaskRecord


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0..100) of a non-empty list."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def ran_repaired(record: ExecutionRecord) -> bool:
    """Whether the call was taken on repaired arguments: the parser's status was
    ``repaired``. A refused call's repairs (``invalid``, ``truncated``: attempts on
    arguments that stayed unusable) do not make it a repaired call."""
    on_wire = record.extra.get("call_status")
    if isinstance(on_wire, str):
        return on_wire == "repaired"  # the gateway's: the parser's status
    # the engine's: it refuses invalid and cut-off arguments as invalid_args
    return bool(record.repairs) and record.status not in ("invalid_args", "truncated")


@dataclass(slots=True)
class ToolStats:
    tool: str
    calls: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    failures: int = 0
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    repaired_calls: int = 0
    violations: int = 0
    result_tokens: int = 0
    arguments_tokens: int = 0


@dataclass(slots=True)
class TaskSummary:
    tasks: int = 0
    solved: int = 0
    failed: int = 0
    open: int = 0
    total_tokens: int = 0
    unsolved_tokens: int = 0
    estimated_tasks: int = 0
    tokens_per_solved_task: float | None = None


@dataclass(slots=True)
class AuditReport:
    calls: int
    tools: list[ToolStats]
    tasks: TaskSummary

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class ModelStats:
    """One model's calls. ``model`` None: records that name no model (the engine's)."""

    model: str | None
    calls: int = 0
    repaired_calls: int = 0
    repaired_share: float = 0.0
    truncated: int = 0
    invalid: int = 0
    top_repairs: dict[str, int] = field(default_factory=dict)  # name -> calls, most first


TOP_REPAIRS = 3


def build_model_report(records: Iterable[ExecutionRecord]) -> list[ModelStats]:
    """Per model named in a record's ``extra["model"]``, busiest first."""
    per_model: dict[str | None, ModelStats] = {}
    repairs: dict[str | None, Counter[str]] = {}
    for rec in records:
        name = rec.extra.get("model")
        model = name if isinstance(name, str) else None
        st = per_model.setdefault(model, ModelStats(model=model))
        st.calls += 1
        repaired = rec.repairs if ran_repaired(rec) else ()
        if repaired:
            st.repaired_calls += 1
        if rec.status == "truncated":
            st.truncated += 1
        elif rec.status == "invalid_args":
            st.invalid += 1
        # a repair named twice in one call counts once: the figure is calls
        repairs.setdefault(model, Counter()).update(set(repaired))
    for model, st in per_model.items():
        st.repaired_share = round(st.repaired_calls / st.calls, 4)
        ranked = sorted(repairs[model].items(), key=lambda kv: (-kv[1], kv[0]))
        st.top_repairs = dict(ranked[:TOP_REPAIRS])
    return sorted(per_model.values(), key=lambda s: (-s.calls, s.model or ""))


def build_report(
    records: Iterable[ExecutionRecord], tasks: Mapping[str, TaskRecord]
) -> AuditReport:
    per_tool: dict[str, ToolStats] = {}
    durations: dict[str, list[float]] = {}
    traffic: dict[str, int] = {}  # estimated tokens per task id
    total = 0
    for rec in records:
        total += 1
        st = per_tool.setdefault(rec.tool_name, ToolStats(tool=rec.tool_name))
        st.calls += 1
        st.by_status[rec.status] = st.by_status.get(rec.status, 0) + 1
        if rec.status != "ok":
            st.failures += 1
        if ran_repaired(rec):
            st.repaired_calls += 1
        st.violations += len(rec.violations)
        st.result_tokens += rec.result_tokens
        st.arguments_tokens += rec.arguments_tokens
        durations.setdefault(rec.tool_name, []).append(rec.duration_ms)
        if rec.task_id is not None:
            traffic[rec.task_id] = (
                traffic.get(rec.task_id, 0) + rec.result_tokens + rec.arguments_tokens
            )
    for name, st in per_tool.items():
        st.p50_ms = round(percentile(durations[name], 50), 3)
        st.p95_ms = round(percentile(durations[name], 95), 3)
        st.by_status = {s: st.by_status[s] for s in STATUSES if s in st.by_status}

    summary = TaskSummary()
    for task_id in set(tasks) | set(traffic):
        task = tasks.get(task_id) or TaskRecord(task_id=task_id)
        tokens = task.reported_tokens
        if tokens == 0:
            tokens = traffic.get(task_id, 0)
            summary.estimated_tasks += 1
        summary.tasks += 1
        summary.total_tokens += tokens
        if task.status == "solved":
            summary.solved += 1
        else:
            summary.unsolved_tokens += tokens
            if task.status == "failed":
                summary.failed += 1
            else:
                summary.open += 1
    if summary.solved:
        summary.tokens_per_solved_task = round(summary.total_tokens / summary.solved, 1)
    tools = sorted(per_tool.values(), key=lambda s: (-s.calls, s.tool))
    return AuditReport(calls=total, tools=tools, tasks=summary)

"""The audit page's figures for a time range, as one JSON-able object (``GET
/api/dashboard``; the page draws nothing it does not find here).

- ``calls_over_time``: calls per model per time bucket, by call status. A call's
  status is what happened to it on the wire and in the engine: ``complete``,
  ``repaired``, ``invalid``, ``truncated``, or the engine's outcome when it ran and
  failed (``tool_error``, ``timeout``, ``denied``, ``pending_approval``,
  ``cancelled``).
- ``repairs``: per model, calls taken on repaired arguments, by each kind of repair
  (the part of a repair's name before the first ``:``: ``python_literal``, ``coerce``,
  ``name``…); an invalid or truncated call's repair attempts are not counted.
- ``truncations``: per model, cut-off calls, and how many of them were held back
  from the client (the gateway never delivers one; the loop never runs one).
- ``tokens_per_solved_task``: per model and per tool, by ``toolwire audit report``'s
  definition, over the tasks whose calls name that model (tool).
- ``slowest_tools``: by p95 duration.
- ``latest_problems``: the newest invalid and truncated calls, with their redacted
  arguments (when the record holds them) and errors.

A record names its model in ``extra["model"]`` (the gateway's and the loop's do);
one that names none counts under ``"(none)"``.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.audit.record import ExecutionRecord, TaskRecord
from toolwire.audit.report import build_report, percentile, ran_repaired

NO_MODEL = "(none)"
CALL_STATUSES = (
    "complete",
    "repaired",
    "invalid",
    "truncated",
    "tool_error",
    "timeout",
    "denied",
    "pending_approval",
    "cancelled",
)
LATEST = 20
SLOWEST = 10
MAX_BUCKETS = 60
# bucket widths a chart may use: the smallest that gives at most MAX_BUCKETS
_WIDTHS = (60, 300, 900, 3600, 3 * 3600, 6 * 3600, 86400, 7 * 86400)


@dataclass(frozen=True, slots=True)
class TimeRange:
    start: float  # epoch seconds, inclusive
    end: float  # exclusive


def model_of(record: ExecutionRecord) -> str:
    name = record.extra.get("model")
    return name if isinstance(name, str) and name else NO_MODEL


def call_status(record: ExecutionRecord) -> str:
    """What happened to the call (see the module's docstring)."""
    on_wire = record.extra.get("call_status")
    if isinstance(on_wire, str) and on_wire in CALL_STATUSES:
        return on_wire  # the gateway's: the parser's status
    if record.status == "ok":
        return "repaired" if record.repairs else "complete"
    if record.status == "truncated" or record.error_type == "truncated_arguments":
        return "truncated"  # the engine refuses a cut-off call as invalid_args
    if record.status == "invalid_args":
        return "invalid"
    return record.status


def repair_kind(repair: str) -> str:
    return repair.split(":", 1)[0]


def bucket_width(span: float) -> int:
    """The smallest usual width giving at most MAX_BUCKETS buckets; past a week a
    bucket, as wide as MAX_BUCKETS buckets need."""
    for width in _WIDTHS:
        if span / width <= MAX_BUCKETS:
            return width
    return math.ceil(span / MAX_BUCKETS)


def dashboard(
    records: Iterable[ExecutionRecord],
    tasks: Mapping[str, TaskRecord],
    when: TimeRange | None = None,
) -> dict[str, Any]:
    """The page's figures over the records that started in ``when`` (all of them when
    None; the range then runs from the first record to just after the last). An open
    end (``inf``) ends just after the last record chosen."""
    chosen = sorted(
        (r for r in records if when is None or when.start <= r.started_at < when.end),
        key=lambda r: r.started_at,
    )
    if when is None:
        first = chosen[0].started_at if chosen else 0.0
        last = chosen[-1].started_at if chosen else 0.0
        when = TimeRange(first, last + 1)
    elif math.isinf(when.end):
        when = TimeRange(when.start, (chosen[-1].started_at if chosen else when.start) + 1)
    width = bucket_width(when.end - when.start)
    origin = math.floor(when.start / width) * width
    count = max(1, math.ceil((when.end - origin) / width))
    series: dict[tuple[str, str], list[int]] = {}
    repairs: dict[str, Counter[str]] = defaultdict(Counter)
    truncated: Counter[str] = Counter()
    held: Counter[str] = Counter()
    per_model: dict[str, list[ExecutionRecord]] = defaultdict(list)
    durations: dict[str, list[float]] = defaultdict(list)
    for record in chosen:
        model = model_of(record)
        status = call_status(record)
        per_model[model].append(record)
        counts = series.setdefault((model, status), [0] * count)
        counts[min(count - 1, int((record.started_at - origin) // width))] += 1
        if ran_repaired(record):  # a refused call's repair attempts are no repairs
            repairs[model].update({repair_kind(r) for r in record.repairs})
        if status == "truncated":
            truncated[model] += 1
            if record.extra.get("delivered") is not True:
                held[model] += 1
        durations[record.tool_name].append(record.duration_ms)
    models = sorted(per_model, key=lambda m: (-len(per_model[m]), m))
    return {
        "range": {"from": when.start, "to": when.end},
        "calls": len(chosen),
        "models": models,
        "statuses": list(CALL_STATUSES),
        "calls_over_time": {
            "bucket_seconds": width,
            "buckets": [origin + i * width for i in range(count)],
            "series": [
                {"model": model, "status": status, "counts": series[model, status]}
                for model, status in sorted(
                    series, key=lambda ms: (models.index(ms[0]), _rank(ms[1]))
                )
            ],
        },
        "repairs": [
            {
                "model": model,
                "calls": len(per_model[model]),
                "kinds": dict(repairs[model].most_common()),
            }
            for model in models
        ],
        "truncations": [
            {"model": model, "truncated": truncated[model], "held_back": held[model]}
            for model in models
            if truncated[model]
        ],
        "tokens_per_solved_task": {
            "by_model": _tpst(per_model, tasks),
            "by_tool": _tpst(_by_tool(chosen), tasks),
        },
        "slowest_tools": _slowest(durations),
        "latest_problems": [
            _problem(r) for r in reversed(chosen) if call_status(r) in ("invalid", "truncated")
        ][:LATEST],
    }


def _rank(status: str) -> int:
    return CALL_STATUSES.index(status) if status in CALL_STATUSES else len(CALL_STATUSES)


def _by_tool(records: list[ExecutionRecord]) -> dict[str, list[ExecutionRecord]]:
    out: dict[str, list[ExecutionRecord]] = defaultdict(list)
    for record in records:
        out[record.tool_name].append(record)
    return out


def _tpst(
    groups: Mapping[str, list[ExecutionRecord]], tasks: Mapping[str, TaskRecord]
) -> list[dict[str, Any]]:
    """Per group: the tasks its calls belong to, with ``build_report``'s TPST."""
    rows: list[dict[str, Any]] = []
    for name, records in groups.items():
        ids = {r.task_id for r in records if r.task_id is not None}
        if not ids:
            continue
        summary = build_report(
            [r for r in records if r.task_id in ids], {i: tasks[i] for i in ids if i in tasks}
        ).tasks
        rows.append(
            {
                "name": name,
                "tasks": summary.tasks,
                "solved": summary.solved,
                "tokens": summary.total_tokens,
                "tokens_per_solved_task": summary.tokens_per_solved_task,
                "estimated_tasks": summary.estimated_tasks,
            }
        )
    return sorted(rows, key=lambda row: (-row["tasks"], row["name"]))


def _slowest(durations: Mapping[str, list[float]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [
        {
            "tool": tool,
            "calls": len(values),
            "p50_ms": round(percentile(values, 50), 3),
            "p95_ms": round(percentile(values, 95), 3),
            "max_ms": round(max(values), 3),
        }
        for tool, values in durations.items()
    ]
    return sorted(rows, key=lambda row: (-row["p95_ms"], row["tool"]))[:SLOWEST]


def _problem(record: ExecutionRecord) -> dict[str, Any]:
    return {
        "time": record.started_at,
        "model": model_of(record),
        "tool": record.tool_name,
        "name_as_sent": record.name_as_sent or record.tool_name,
        "status": call_status(record),
        "arguments": record.arguments,  # redacted when written; None when not kept
        "errors": list(record.validation_errors)
        or ([record.error_message] if record.error_message else []),
        "repairs": list(record.repairs),
        "task_id": record.task_id,
        "request_id": record.extra.get("request_id"),
    }

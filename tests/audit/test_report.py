"""Per-tool aggregates and TPST."""

from __future__ import annotations

from toolwire.audit import ExecutionRecord, TaskRecord, build_report
from toolwire.audit.report import percentile


def rec(tool: str, status: str = "ok", ms: float = 1.0, **kw: object) -> ExecutionRecord:
    return ExecutionRecord(
        record_id=f"{tool}{ms}{status}",
        call_id=None,
        tool_name=tool,
        status=status,  # type: ignore[arg-type]
        started_at=0.0,
        duration_ms=ms,
        **kw,  # type: ignore[arg-type]
    )


def test_percentiles() -> None:
    assert percentile([5.0], 95) == 5.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile(list(map(float, range(1, 101))), 95) == 95.05


def test_per_tool_stats() -> None:
    records = [
        rec("a", ms=float(i), result_tokens=10, repairs=("x",) if i == 1 else ())
        for i in range(1, 11)
    ] + [
        rec("a", "timeout", 100.0),
        rec("b", "denied", 0.1, violations=("path: no", "limit: no")),
    ]
    report = build_report(records, {})
    a, b = report.tools
    assert (a.tool, a.calls, a.failures, a.by_status) == ("a", 11, 1, {"ok": 10, "timeout": 1})
    assert a.p50_ms == 6.0 and a.result_tokens == 100 and a.repaired_calls == 1
    assert (b.calls, b.violations, b.by_status) == (1, 2, {"denied": 1})
    assert report.tasks.tokens_per_solved_task is None


def test_tpst_counts_all_attempts_and_failures() -> None:
    tasks = {
        "t1": TaskRecord("t1", "solved", input_tokens=900, output_tokens=100),
        "t2": TaskRecord("t2", "failed", input_tokens=1500, output_tokens=500, attempts=2),
        "t3": TaskRecord("t3", "solved", input_tokens=400, output_tokens=100),
    }
    # t4 has no reported usage: its tool traffic is the estimate
    records = [rec("a", task_id="t4", result_tokens=70, arguments_tokens=30)]
    summary = build_report(records, tasks).tasks
    assert (summary.tasks, summary.solved, summary.failed, summary.open) == (4, 2, 1, 1)
    assert summary.total_tokens == 1000 + 2000 + 500 + 100
    assert summary.unsolved_tokens == 2100 and summary.estimated_tasks == 1
    assert summary.tokens_per_solved_task == 1800.0

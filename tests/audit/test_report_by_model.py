"""``toolwire audit report --by model``: the gateway's records, per model, from SQLite and
JSONL audit files alike."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire.audit import ExecutionRecord, JSONLSink, SQLiteSink
from toolwire.audit.record import Status
from toolwire.cli.audit_cmd import app as audit_app
from toolwire.events import CallStatus, ToolCall
from toolwire.gateway.delivery import PassedCall, call_record


def gateway_record(
    model: str, status: CallStatus, repairs: tuple[str, ...] = ()
) -> ExecutionRecord:
    now = time.monotonic()
    call = ToolCall(
        id="c",
        name="search",
        arguments={"q": "x"} if status != "truncated" else None,
        raw_arguments='{"q": "x"}',
        status=status,
        repairs=repairs,
        errors=("arguments are not readable JSON",) if status == "invalid" else (),
    )
    return call_record(
        PassedCall(call, delivered=status != "truncated", finished_at=now),
        model=model,
        request_id="r",
        upstream="u",
        started_at=time.time(),
        started_monotonic=now,
        ttfb_ms=None,
    )


RECORDS = [
    gateway_record("qwen", "complete"),
    gateway_record("qwen", "repaired", ("trailing_comma",)),
    gateway_record("qwen", "repaired", ("trailing_comma", "single_quote")),
    gateway_record("qwen", "truncated", ("close_brackets",)),  # as F33's: not repaired
    gateway_record("llama", "invalid"),
    gateway_record("llama", "repaired", ("code_fence",)),
]


@pytest.mark.parametrize("suffix", [".db", ".jsonl"])
def test_report_by_model_from_gateway_records(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"audit{suffix}"
    sink = SQLiteSink(path) if suffix == ".db" else JSONLSink(path)
    for record in RECORDS:
        sink.write(record)
    sink.close()

    result = CliRunner().invoke(audit_app, ["report", "--db", str(path), "--by", "model", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["calls"] == 6
    qwen, llama = data["models"]
    assert qwen == {
        "model": "qwen",
        "calls": 4,
        "repaired_calls": 2,
        "repaired_share": 0.5,
        "truncated": 1,
        "invalid": 0,
        "top_repairs": {"trailing_comma": 2, "single_quote": 1},
    }
    assert (llama["model"], llama["calls"], llama["invalid"], llama["truncated"]) == (
        "llama",
        2,
        1,
        0,
    )
    assert llama["top_repairs"] == {"code_fence": 1}

    table = CliRunner().invoke(audit_app, ["report", "--db", str(path), "--by", "model"])
    assert table.exit_code == 0, table.output
    assert "qwen" in table.stdout and "2 (50%)" in table.stdout
    assert "trailing_comma 2" in table.stdout


def test_records_without_a_model_are_counted_apart(tmp_path: Path) -> None:
    """The engine's records name no model: their own row, not dropped."""
    path = tmp_path / "audit.jsonl"
    sink = JSONLSink(path)
    sink.write(gateway_record("qwen", "complete"))
    sink.write(ExecutionRecord("e1", None, "echo", "ok", started_at=0.0, duration_ms=1.0))
    sink.close()
    result = CliRunner().invoke(audit_app, ["report", "--db", str(path), "--by", "model", "--json"])
    models = {m["model"]: m["calls"] for m in json.loads(result.stdout)["models"]}
    assert models == {"qwen": 1, None: 1}


def test_report_by_something_else_is_refused_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        audit_app, ["report", "--db", str(tmp_path / "a.db"), "--by", "day"]
    )
    assert result.exit_code == 2 and "give tool or model" in result.output
    assert "Traceback" not in result.output


def engine_record(
    status: Status, repairs: tuple[str, ...], error_type: str | None = None
) -> ExecutionRecord:
    return ExecutionRecord(
        "r",
        "c",
        "search",
        status,
        time.time(),
        1.0,
        error_type=error_type,
        repairs=repairs,
        extra={"model": "m"},
    )


# One record of each status, each carrying repair attempts: only the calls taken on
# repaired arguments count as repaired (before: the invalid ones did too).
EACH_STATUS = [
    gateway_record("m", "complete"),
    gateway_record("m", "repaired", ("trailing_comma",)),
    gateway_record("m", "invalid", ("single_quote",)),
    gateway_record("m", "truncated", ("close_brackets",)),
    engine_record("ok", ("coerce: '3' -> 3",)),
    engine_record("tool_error", ("coerce: '4' -> 4",)),  # ran on repaired arguments
    engine_record("invalid_args", ("python_literal",)),
    engine_record("invalid_args", ("close_brackets",), error_type="truncated_arguments"),
    engine_record("truncated", ("close_brackets",)),
]


def test_only_calls_taken_on_repaired_arguments_count_as_repaired() -> None:
    from toolwire.audit.report import build_model_report, build_report
    from toolwire.dashboard import dashboard

    (model,) = build_model_report(EACH_STATUS)
    assert (model.calls, model.repaired_calls, model.repaired_share) == (9, 3, 0.3333)
    assert model.top_repairs == {"coerce: '3' -> 3": 1, "coerce: '4' -> 4": 1, "trailing_comma": 1}
    (tool,) = build_report(EACH_STATUS, {}).tools
    assert tool.repaired_calls == 3
    (kinds,) = dashboard(EACH_STATUS, {})["repairs"]
    assert kinds == {"model": "m", "calls": 9, "kinds": {"coerce": 2, "trailing_comma": 1}}

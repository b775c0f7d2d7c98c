"""SQLite, JSONL and OpenTelemetry sinks; redaction."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toolwire.audit import (
    REDACTED,
    ExecutionRecord,
    JSONLSink,
    SQLiteSink,
    TaskRecord,
    read_jsonl,
    read_sqlite,
    redact,
)


def record(i: int = 0, **kw: object) -> ExecutionRecord:
    base: dict[str, object] = dict(
        record_id=f"r{i}",
        call_id=f"c{i}",
        tool_name="add",
        status="ok",
        started_at=1_700_000_000.0 + i,
        duration_ms=1.5,
        repairs=("python_literal",),
        violations=("path: outside",),
        extra={"progress_events": 2},
        result_truncated=True,
    )
    base.update(kw)
    return ExecutionRecord(**base)  # type: ignore[arg-type]


def test_sqlite_round_trip_in_wal_mode(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    sink = SQLiteSink(db)
    sink.write(record(0))
    sink.write(record(1, status="timeout", task_id="t"))
    sink.write_task(TaskRecord(task_id="t", status="solved", input_tokens=5))
    # visible to another connection before close: each write is committed
    records, tasks = read_sqlite(db)
    assert [r.record_id for r in records] == ["r0", "r1"]
    assert records[0] == record(0)
    assert tasks["t"].status == "solved" and tasks["t"].input_tokens == 5
    mode = sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    sink.close()


def test_sqlite_write_many_commits_the_records_together(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    sink = SQLiteSink(db)
    # a lone surrogate (from a name or an exception) is replaced, as by write
    sink.write_many([record(0), record(1, error_message="bad \ud800 text"), record(2)])
    records, _ = read_sqlite(db)  # committed: another connection sees them
    assert [r.record_id for r in records] == ["r0", "r1", "r2"]
    assert records[0] == record(0)
    assert records[1].error_message == "bad \ufffd text"
    assert not sink._conn.in_transaction
    sink.close()


def test_jsonl_round_trip_and_cut_line(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    sink = JSONLSink(path)
    sink.write(record(0))
    sink.write_task(TaskRecord(task_id="t"))
    with path.open("ab") as fh:
        fh.write(b'{"type": "call", "record_id": "cut')  # a crash mid-line
    records, tasks = read_jsonl(path)
    assert records == [record(0)] and list(tasks) == ["t"]
    sink.close()


def test_otel_spans_carry_genai_attributes() -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk not installed")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from toolwire.audit.otel import OTelSink

    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    sink = OTelSink(provider)
    sink.write(record(0, session_id="s1"))
    sink.write(record(1, status="tool_error", error_type="ValueError", error_message="bad"))
    ok, failed = exporter.get_finished_spans()
    assert ok.name == "execute_tool add"
    assert ok.attributes is not None and failed.attributes is not None
    assert ok.attributes["gen_ai.operation.name"] == "execute_tool"
    assert ok.attributes["gen_ai.tool.call.id"] == "c0"
    assert ok.attributes["gen_ai.conversation.id"] == "s1"
    assert ok.end_time is not None and ok.start_time is not None
    assert ok.end_time - ok.start_time == 1_500_000  # the record's own duration
    assert failed.attributes["error.type"] == "ValueError"
    assert failed.status.status_code.name == "ERROR"


def test_redaction() -> None:
    args = {
        "user": "ann",
        "password": "hunter2",
        "apiKey": "abc",
        "max_tokens": 10,
        "author": "me",
        "headers": {"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz"},
        "cmd": "curl -H 'x-key: sk-abcdefghijklmnopqrstuv' https://u:pw@host/x",
        "items": ["ghp_abcdefghijklmnopqrstuvwxyz0123"],
    }
    out = redact(args)
    assert out["user"] == "ann" and out["max_tokens"] == 10 and out["author"] == "me"
    assert out["password"] == out["apiKey"] == REDACTED
    assert out["headers"]["Authorization"] == REDACTED
    assert "sk-" not in out["cmd"] and "pw@" not in out["cmd"] and "curl" in out["cmd"]
    assert out["items"] == [REDACTED]

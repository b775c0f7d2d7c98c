"""Audit: one record per tool call, sinks that store them, and reports over them."""

from toolwire.audit.locations import open_sink
from toolwire.audit.readers import read_audit
from toolwire.audit.record import (
    STATUSES,
    AuditFileError,
    ExecutionRecord,
    Status,
    TaskRecord,
    TaskStatus,
)
from toolwire.audit.redact import REDACTED, arguments_hash, canonical_json, redact
from toolwire.audit.report import (
    AuditReport,
    ModelStats,
    TaskSummary,
    ToolStats,
    build_model_report,
    build_report,
)
from toolwire.audit.sinks import AuditSink, BatchSink, JSONLSink, MemorySink, read_jsonl
from toolwire.audit.sqlite import SQLiteSink, read_sqlite

__all__ = [
    "REDACTED",
    "STATUSES",
    "AuditFileError",
    "AuditReport",
    "AuditSink",
    "BatchSink",
    "ExecutionRecord",
    "JSONLSink",
    "MemorySink",
    "ModelStats",
    "SQLiteSink",
    "Status",
    "TaskRecord",
    "TaskStatus",
    "TaskSummary",
    "ToolStats",
    "arguments_hash",
    "build_model_report",
    "build_report",
    "canonical_json",
    "open_sink",
    "read_audit",
    "read_jsonl",
    "read_sqlite",
    "redact",
]

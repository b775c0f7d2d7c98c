"""OpenTelemetry spans ``execute_tool {gen_ai.tool.name}``, one per record.

Needs ``opentelemetry-api`` (the ``otel`` extra); configure a tracer provider and
exporter as usual. Spans carry the record's own start time and duration.
"""

from __future__ import annotations

from typing import Any

from toolwire.audit.record import ExecutionRecord, TaskRecord
from toolwire.audit.tracing import run_context


class OTelSink:
    def __init__(self, tracer_provider: Any = None, *, tracer_name: str = "toolwire") -> None:
        try:
            from opentelemetry import trace
        except ImportError as exc:  # optional dependency
            raise ImportError(
                "the OpenTelemetry sink needs opentelemetry-api: pip install 'toolwire[otel]'"
            ) from exc
        self._trace = trace
        self._tracer = trace.get_tracer(tracer_name, tracer_provider=tracer_provider)

    def write(self, record: ExecutionRecord) -> None:
        trace = self._trace
        start_ns = int(record.started_at * 1e9)
        span = self._tracer.start_span(
            f"execute_tool {record.tool_name}",
            kind=trace.SpanKind.INTERNAL,
            attributes=record.to_otel_attributes(),
            start_time=start_ns,
            context=run_context(record.task_id),  # under its run's span, if any
        )
        if record.status not in ("ok", "pending_approval"):
            span.set_status(trace.Status(trace.StatusCode.ERROR, record.error_message))
        span.end(end_time=start_ns + int(record.duration_ms * 1e6))

    def write_task(self, task: TaskRecord) -> None:
        pass  # tasks are not spans; their calls carry toolwire.task.id

    def close(self) -> None:
        pass

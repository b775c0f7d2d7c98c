"""OpenTelemetry spans of model requests, by the GenAI semantic conventions.

``chat {model}`` (kind CLIENT) covers one upstream request from sending it to its
last byte, with the usage and finish reasons read from the answer. The gateway makes
one per relayed request, the conversation loop one per turn (inside an
``invoke_agent toolwire`` span for the run, so that the turn's ``execute_tool``
spans from ``OTelSink`` sit under the same run). Without ``opentelemetry-api``
installed, or with no tracer provider configured (given or set globally), no span is
made at all: the API's default spans record nothing, and making them each turn costs
the loop more than the rest of its bookkeeping.

``configure_tracing`` sets a tracer provider that exports OTLP over HTTP (needs
``opentelemetry-sdk`` and ``opentelemetry-exporter-otlp-proto-http``, the ``otel``
extra); the commands call it for ``--otlp-endpoint`` or the standard
``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` variables.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from toolwire.audit.redact import redact_text
from toolwire.events import Usage

# gen_ai.provider.name by upstream wire format (the conventions' well-known values)
_PROVIDERS = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gcp.gemini",
    "ollama": "ollama",
}


class TracingUnavailable(RuntimeError):
    """Export was asked for but the OpenTelemetry SDK or exporter is not installed."""


def _trace() -> Any:
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace


def _tracer(tracer_provider: Any) -> tuple[Any, Any] | None:
    """The API module and a tracer, or None when no span would be recorded: without
    the API, or when neither ``tracer_provider`` nor a global provider is set. The
    global one is looked up each time, so a provider set later is used at once."""
    trace = _trace()
    if trace is None:
        return None
    provider = tracer_provider or trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return None
    return trace, provider.get_tracer("toolwire")


def endpoint_from_env() -> str | None:
    """The OTLP/HTTP traces endpoint the standard variables name, if any."""
    traces = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if traces:
        return traces
    base = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    return base.rstrip("/") + "/v1/traces" if base else None


def configure_tracing(endpoint: str, *, service_name: str = "toolwire") -> Any:
    """Install a global tracer provider exporting spans to ``endpoint`` (a full
    ``…/v1/traces`` URL) over OTLP/HTTP in batches; returns it (``shutdown()``
    flushes). Raises ``TracingUnavailable`` when the packages are missing."""
    try:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise TracingUnavailable(
            "tracing needs opentelemetry-sdk and opentelemetry-exporter-otlp-proto-http: "
            "pip install 'toolwire[otel]'"
        ) from None
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    trace.set_tracer_provider(provider)
    return provider


class ChatSpan:
    """One upstream request's span; ``finish`` ends it (once)."""

    def __init__(
        self,
        *,
        model: str,
        wire: str,
        base_url: str,
        tracer_provider: Any = None,
        conversation_id: str | None = None,
        parent: Any = None,
    ) -> None:
        """``parent``: the trace context to nest under (an ``AgentSpan.context``)."""
        self._span: Any = None
        found = _tracer(tracer_provider)
        if found is None:
            return
        trace, tracer = found
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": _PROVIDERS.get(wire, wire),
            "gen_ai.request.model": model,
        }
        where = urlsplit(base_url)
        if where.hostname:
            attributes["server.address"] = where.hostname
            attributes["server.port"] = where.port or (443 if where.scheme == "https" else 80)
        if conversation_id:
            attributes["gen_ai.conversation.id"] = conversation_id
        self._span = tracer.start_span(
            f"chat {model}", kind=trace.SpanKind.CLIENT, attributes=attributes, context=parent
        )

    def finish(
        self,
        *,
        usage: Usage | None = None,
        finish_reasons: Sequence[str] = (),
        response_model: str | None = None,
        error: str | None = None,
        error_type: str | None = None,
    ) -> None:
        span, self._span = self._span, None
        if span is None:
            return
        if usage is not None:
            if usage.input_tokens is not None:
                span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
            if usage.output_tokens is not None:
                span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
        if finish_reasons:
            span.set_attribute("gen_ai.response.finish_reasons", list(finish_reasons))
        if response_model:
            span.set_attribute("gen_ai.response.model", response_model)
        if error is not None:
            trace = _trace()
            span.set_attribute("error.type", error_type or "upstream_error")
            # an upstream's error text may echo the key it was sent
            span.set_status(trace.Status(trace.StatusCode.ERROR, redact_text(error)))
        span.end()


# the context of each run in progress, by task id: the engine's ``execute_tool`` spans
# (written by ``OTelSink`` from records that name the task) nest under their run
_RUNS: dict[str, Any] = {}


def run_context(task_id: str | None) -> Any:
    """The trace context of the run of ``task_id`` while it goes on, else None."""
    return _RUNS.get(task_id) if task_id else None


class AgentSpan:
    """``invoke_agent toolwire``: one run's span, the parent of its ``chat`` spans and
    of its calls' ``execute_tool`` spans. Not made current (a run is an async
    generator; a context attached there could be detached elsewhere): children
    name it as their parent."""

    def __init__(self, *, model: str, task_id: str, tracer_provider: Any = None) -> None:
        self._span: Any = None
        self.context: Any = None
        self._task_id = task_id
        found = _tracer(tracer_provider)
        if found is None:
            return
        trace, tracer = found
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "toolwire",
            "gen_ai.request.model": model,
            "gen_ai.conversation.id": task_id,
        }
        self._span = tracer.start_span(
            "invoke_agent toolwire", kind=trace.SpanKind.INTERNAL, attributes=attributes
        )
        self.context = trace.set_span_in_context(self._span)
        _RUNS[task_id] = self.context

    def finish(self, *, stop: str, usage: Usage | None = None, error: str | None = None) -> None:
        span, self._span = self._span, None
        if span is None:
            return
        _RUNS.pop(self._task_id, None)
        span.set_attribute("toolwire.stop", stop)
        if usage is not None:
            span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens or 0)
            span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens or 0)
        if error is not None:
            trace = _trace()
            span.set_attribute("error.type", stop)
            span.set_status(trace.Status(trace.StatusCode.ERROR, redact_text(error)))
        span.end()

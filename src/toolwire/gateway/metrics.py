"""What the gateway counts, for ``GET /metrics`` (Prometheus text format).

One registry per app, so that several gateways in one process (tests) do not mix.
With ``--workers N``, ``toolwire serve`` sets ``PROMETHEUS_MULTIPROC_DIR`` (a
directory it makes and removes) before the workers start: each worker's values go to
files there, and ``/metrics``, whichever worker answers, sums them over the workers
(prometheus_client's multiprocess mode; gauges sum the live workers only).

``added_latency_seconds`` is what the gateway adds before the client's first byte:
the time from the request's arrival to sending it upstream (reading, translating),
plus the time from the upstream's first chunk to the client's first piece of it
(parsing, repairing, encoding). The upstream's own wait is ``upstream_ttfb_seconds``.
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from toolwire.events import ToolCall

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
_TTFB_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


class GatewayMetrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "toolwire_gateway_requests",
            "Requests answered, by client route, upstream and HTTP status.",
            ["route", "upstream", "status"],
            registry=r,
        )
        self.calls = Counter(
            "toolwire_gateway_calls",
            "Tool calls passed (or held back), by status.",
            ["status"],
            registry=r,
        )
        self.repairs = Counter(
            "toolwire_gateway_repairs", "Repairs made to tool calls, by kind.", ["kind"], registry=r
        )
        self.truncations = Counter(
            "toolwire_gateway_truncations",
            "Tool calls cut off by the output limit (never delivered).",
            registry=r,
        )
        self.upstream_errors = Counter(
            "toolwire_gateway_upstream_errors",
            "Upstream failures (connect, timeout, status, dropped).",
            ["upstream", "kind"],
            registry=r,
        )
        self.streams_in_flight = Gauge(
            "toolwire_gateway_streams_in_flight",
            "Streams being relayed now.",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.refusals = Counter(
            "toolwire_gateway_limit_refusals",
            "Requests refused with 429 by a per-key limit, by limit.",
            ["limit"],
            registry=r,
        )
        self.limit_store_unreachable = Counter(
            "toolwire_gateway_limit_store_unreachable",
            "Requests decided without the shared limit store (Redis), by decision: "
            "open (counted in this process) or closed (refused).",
            ["decision"],
            registry=r,
        )
        self.audit_queue_depth = Gauge(
            "toolwire_audit_queue_depth",
            "Audit records waiting to be written to the shared database.",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.audit_events = {
            name: Counter(f"toolwire_audit_{name}", text, registry=r)
            for name, text in (
                ("written", "Audit records written to the shared database from the queue."),
                ("spilled", "Audit records sent to the local spill file instead."),
                ("replayed", "Audit records the database got from a spill file."),
                ("write_errors", "Failed writes to the audit database."),
            )
        }
        self.upstream_ttfb = Histogram(
            "toolwire_gateway_upstream_ttfb_seconds",
            "Seconds from sending a request upstream to its response headers (retries included).",
            buckets=_TTFB_BUCKETS,
            registry=r,
        )
        self.added_latency = Histogram(
            "toolwire_gateway_added_latency_seconds",
            "Seconds the gateway adds before the client's first byte.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )

    def call(self, call: ToolCall) -> None:
        self.calls.labels(call.status).inc()
        for repair in call.repairs:
            # "coerce:$.days:string->integer" counts as "coerce": paths and names
            # would make a label per tool argument
            self.repairs.labels(repair.split(":", 1)[0]).inc()
        if call.status == "truncated":
            self.truncations.inc()

    def audit_count(self, name: str, value: int) -> None:
        """What the audit sink reports (its ``on_count``): the queue's depth, or by how
        much one of its counts grew."""
        if name == "queue_depth":
            self.audit_queue_depth.set(value)
        elif name in self.audit_events:
            self.audit_events[name].inc(value)

    def render(self) -> bytes:
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # summed
            return generate_latest(registry)
        return generate_latest(self.registry)

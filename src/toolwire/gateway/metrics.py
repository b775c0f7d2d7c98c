"""What the gateway counts, for ``GET /metrics`` (Prometheus text format).

One registry per app, so that several gateways in one process (tests) do not mix.
With ``--workers N`` each worker process counts for itself (prometheus_client's
multiprocess mode is not set up here).

``added_latency_seconds`` is what the gateway adds before the client's first byte:
the time from the request's arrival to sending it upstream (reading, translating),
plus the time from the upstream's first chunk to the client's first piece of it
(parsing, repairing, encoding). The upstream's own wait is ``upstream_ttfb_seconds``.
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

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
            "toolwire_gateway_streams_in_flight", "Streams being relayed now.", registry=r
        )
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

    def render(self) -> bytes:
        return generate_latest(self.registry)

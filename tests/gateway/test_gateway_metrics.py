"""``GET /metrics``: requests by route/upstream/status, calls by status, repairs by kind,
truncations, upstream errors, streams in flight, TTFB and added-latency histograms."""

from __future__ import annotations

import time
from typing import Any

import anthropic
import httpx
import openai
import pytest
from gateway.serving import KEY, GatewayServer
from prometheus_client.parser import text_string_to_metric_families
from upstream import WEATHER_SCHEMA, ScriptedUpstream

pytestmark = pytest.mark.gateway

TOOLS: list[Any] = [{"name": "get_weather", "input_schema": WEATHER_SCHEMA}]


def samples(gateway: GatewayServer) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(gateway.url + "/metrics", headers={"x-api-key": KEY}).text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict[Any, float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def eventually(gateway: GatewayServer, check: Any) -> dict[Any, float]:
    """Calls are counted when each request ends, just after its last byte."""
    deadline = time.monotonic() + 5
    while True:
        found = samples(gateway)
        if check(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def test_metrics_count_what_the_gateway_did(
    gateway: GatewayServer, upstream: ScriptedUpstream
) -> None:
    client = anthropic.Anthropic(base_url=gateway.url, api_key=KEY, max_retries=0)
    request: dict[str, Any] = {
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": TOOLS,
    }
    with client.messages.stream(model="python-dict", **request) as events:
        events.get_final_message()
    client.messages.create(model="f33-cut-off", **request)  # F33: held back
    with pytest.raises(anthropic.APIStatusError):
        client.messages.create(model="server-error", **request)
    with (
        pytest.raises(anthropic.APIStatusError),
        client.messages.stream(model="drop", **request) as events,
    ):
        events.get_final_message()
    openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0).responses.create(
        model="text", input="hi"
    )

    def counted(found: dict[Any, float]) -> bool:
        return value(found, "toolwire_gateway_calls_total", status="truncated") >= 2

    found = eventually(gateway, counted)
    url = upstream.url
    assert value(found, "toolwire_gateway_requests_total", route="/v1/messages", upstream=url,
                 status="200") == 3  # fmt: skip
    assert value(found, "toolwire_gateway_requests_total", route="/v1/messages", upstream=url,
                 status="502") == 1  # fmt: skip
    assert value(found, "toolwire_gateway_requests_total", route="/v1/responses", upstream=url,
                 status="200") == 1  # fmt: skip
    assert value(found, "toolwire_gateway_calls_total", status="repaired") == 1
    # the cut-off call, and the call in flight when the upstream dropped
    assert value(found, "toolwire_gateway_calls_total", status="truncated") == 2
    assert value(found, "toolwire_gateway_repairs_total", kind="python_literal") == 1
    assert value(found, "toolwire_gateway_repairs_total", kind="coerce") == 1
    assert value(found, "toolwire_gateway_truncations_total") == 2
    assert value(found, "toolwire_gateway_upstream_errors_total", upstream=url, kind="status") == 1
    assert value(found, "toolwire_gateway_upstream_errors_total", upstream=url, kind="dropped") == 1
    assert value(found, "toolwire_gateway_upstream_ttfb_seconds_count") == 4
    assert value(found, "toolwire_gateway_added_latency_seconds_count") == 4
    assert value(found, "toolwire_gateway_streams_in_flight") == 0


def test_streams_in_flight_and_the_key(gateway: GatewayServer) -> None:
    body = {"model": "slow-stream", "stream": True, "messages": [{"role": "user", "content": "x"}]}
    with httpx.stream(
        "POST", gateway.url + "/v1/chat/completions", json=body, headers={"x-api-key": KEY}
    ) as response:
        lines = response.iter_lines()
        for _ in range(4):
            next(lines)
        assert value(samples(gateway), "toolwire_gateway_streams_in_flight") == 1
    gone = eventually(gateway, lambda f: value(f, "toolwire_gateway_streams_in_flight") == 0)
    assert value(gone, "toolwire_gateway_streams_in_flight") == 0
    assert httpx.get(gateway.url + "/metrics").status_code == 401

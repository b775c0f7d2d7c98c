"""A scripted upstream and a gateway in front of it, one pair per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gateway.serving import KEY, GatewayServer
from upstream import ScriptedUpstream

from toolwire.audit import MemorySink
from toolwire.client import ClientTimeouts, RetryPolicy
from toolwire.gateway import GatewayConfig


@pytest.fixture(scope="module")
def sink() -> MemorySink:
    return MemorySink()


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as server:
        yield server


@pytest.fixture(scope="module")
def gateway(upstream: ScriptedUpstream, sink: MemorySink) -> Iterator[GatewayServer]:
    config = GatewayConfig(
        upstream_url=upstream.url,
        text_format="auto",
        api_keys=(KEY,),
        audit=sink,
        max_body_bytes=256 * 1024,
        timeouts=ClientTimeouts(read=1.0),
        retry=RetryPolicy(attempts=2, backoff=0.01, max_backoff=0.02),
    )
    with GatewayServer(config) as server:
        yield server

"""The upstream model client: one request to a model server, its answer as raw bytes.

Shared by the edges (the gateway now, the conversation loop later). It never parses a
wire format: the bytes it yields go into ``StreamParser``.
"""

from toolwire.client.model_client import (
    ClientTimeouts,
    ModelClient,
    PreparedRequest,
    RetryPolicy,
    UpstreamError,
    UpstreamResponse,
)

__all__ = [
    "ClientTimeouts",
    "ModelClient",
    "PreparedRequest",
    "RetryPolicy",
    "UpstreamError",
    "UpstreamResponse",
]

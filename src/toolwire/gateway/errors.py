"""Errors in the client's own API format: each front has its error body and types."""

from __future__ import annotations

from typing import Literal

import orjson
from starlette.responses import Response

from toolwire.client import UpstreamError

Front = Literal["openai-chat", "anthropic", "openai-responses"]

_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    504: "timeout_error",
}
_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    413: "invalid_request_error",
    429: "rate_limit_exceeded",
}


def error_body(front: Front, status: int, message: str) -> dict[str, object]:
    if front == "anthropic":
        kind = _ANTHROPIC_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = _OPENAI_TYPES.get(status, "upstream_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def error_response(
    front: Front, status: int, message: str, headers: dict[str, str] | None = None
) -> Response:
    return Response(
        orjson.dumps(error_body(front, status, message)),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def upstream_status(error: UpstreamError) -> int:
    """The status the client gets for an upstream failure: the client's own mistakes
    (400, 404, 413, 422) and rate limits pass through; a timeout is 504; everything
    else (unreachable, 5xx, the upstream refusing the gateway's key) is 502."""
    if error.kind == "timeout":
        return 504
    if error.kind == "status" and error.status in (400, 404, 413, 422, 429):
        return error.status
    return 502

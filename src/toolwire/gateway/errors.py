"""Errors in the client's own API format: each front has its error body and types."""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Sequence
from typing import Literal

import orjson
from starlette.responses import Response

from toolwire.audit.redact import REDACTED, redact_text
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


def upstream_keys(key_env: str) -> tuple[str, ...]:
    """The key the gateway sends upstream (from ``key_env``), in the forms an upstream
    may echo it: as sent (also inside ``Bearer …``) and percent-encoded."""
    key = os.environ.get(key_env)
    if not key:
        return ()
    quoted = urllib.parse.quote(key, safe="")
    return (key,) if quoted == key else (key, quoted)


def scrub(text: str, keys: Sequence[str]) -> str:
    """Upstream text on its way to a client, a log or the audit: the upstream's own
    key replaced wherever it appears (an upstream may echo the key it refused, and a
    key of no known shape escapes pattern rules), then the pattern rules."""
    for key in keys:
        if key in text:
            text = text.replace(key, REDACTED)
    return redact_text(text)

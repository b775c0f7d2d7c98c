"""The gateway's audit record of a call redacts as the engine's does."""

from __future__ import annotations

import time

from toolwire.events import ToolCall
from toolwire.gateway.delivery import PassedCall, call_record


def record_of(call: ToolCall) -> str:
    now = time.monotonic()
    rec = call_record(
        PassedCall(call, delivered=True, finished_at=now),
        model="m",
        request_id="r",
        upstream="u",
        started_at=time.time(),
        started_monotonic=now,
        ttfb_ms=None,
    )
    return " ".join([rec.error_message or "", *rec.validation_errors, rec.arguments_sha256 or ""])


def test_error_text_of_a_passed_call_is_redacted() -> None:
    """A schema error quotes the value: the token must not reach the audit."""
    call = ToolCall(
        id="c1",
        name="login",
        arguments={"token": ["ghp_abcdefghijklmnopqrstuvwxyz0123456789"]},
        raw_arguments='{"token": ["ghp_abcdefghijklmnopqrstuvwxyz0123456789"]}',
        status="invalid",
        errors=("argument token: ['ghp_abcdefghijklmnopqrstuvwxyz0123456789'] is not a string",),
    )
    text = record_of(call)
    assert "ghp_abcdef" not in text and "[REDACTED]" in text


def test_unreadable_arguments_are_hashed_redacted() -> None:
    """Two unreadable calls that differ only in a password hash the same."""

    def unreadable(password: str) -> ToolCall:
        raw = f"{{password: {password}, user: ann"
        return ToolCall(
            id="c",
            name="login",
            arguments=None,
            raw_arguments=raw,
            status="invalid",
            errors=("arguments are not readable JSON",),
        )

    first, second = record_of(unreadable("hunter2")), record_of(unreadable("swordfish"))
    assert first == second and len(first.split()[-1]) == 64

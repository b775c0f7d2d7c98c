"""Asking the person at the client before a held call runs: MCP elicitation.

A handshake-era client is asked with an ``elicitation/create`` request inside the call.
A 2026-era client cannot be sent requests: the first ``tools/call`` round answers with
an ``InputRequiredResult`` holding the question, and the client's retry (carrying its
answer and our ``request_state``) lets the waiting call go on. Either way the engine
asks its approver while the call is in the policy phase, so the call keeps exactly one
record: the executed one when approved, ``denied`` when declined, ``pending_approval``
when nobody answers.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolwire.engine.engine import PendingApproval
from toolwire.engine.results import ToolResult

APPROVAL_KEY = "approval"
"""The key of the question in an ``InputRequiredResult`` and of the client's answer."""
APPROVAL_WAIT = 300.0
"""Seconds a call waits for a 2026-era client's answer before it stays pending."""

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Run this call",
            "description": "Allow this one call to run.",
        }
    },
    "required": ["approve"],
}


def can_elicit(session: Any) -> bool:
    """Whether the client said it can show a form (a bare ``elicitation: {}`` means form)."""
    caps = session.client_capabilities
    elicitation = getattr(caps, "elicitation", None) if caps is not None else None
    if elicitation is None:
        return False
    return elicitation.form is not None or elicitation.url is None


def asks_in_rounds(session: Any) -> bool:
    """A 2026-era connection: questions go in ``InputRequiredResult``, not requests."""
    return session.protocol_version in MODERN_PROTOCOL_VERSIONS


def question(pending: PendingApproval) -> str:
    arguments = json.dumps(pending.arguments, ensure_ascii=False, sort_keys=True)
    if len(arguments) > 500:
        arguments = arguments[:500] + "…"
    reasons = "; ".join(pending.reasons)
    return f"Allow the call to {pending.name} with {arguments}? It needs approval: {reasons}."


def elicit_request(pending: PendingApproval) -> types.ElicitRequest:
    return types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            message=question(pending), requested_schema=APPROVAL_SCHEMA
        )
    )


def answer_of(result: Any) -> bool | None:
    """True only for an accepted form that says approve; False when declined or
    answered no; None when dismissed or unreadable (the call then stays held)."""
    if not isinstance(result, types.ElicitResult):
        return None
    if result.action == "decline":
        return False
    if result.action != "accept":
        return None
    return (result.content or {}).get("approve") is True


async def ask_now(session: Any, request_id: Any, pending: PendingApproval) -> bool | None:
    """Ask a handshake-era client with an ``elicitation/create`` request."""
    result = await session.elicit_form(
        question(pending), APPROVAL_SCHEMA, related_request_id=request_id
    )
    return answer_of(result)


@dataclass(eq=False)
class WaitingCall:
    """A call run in the background while a 2026-era client is asked across rounds."""

    owner: object  # the connection that made the call; only it may answer
    key: str = field(default_factory=lambda: os.urandom(16).hex())
    pending: PendingApproval | None = None
    answer: bool | None = None
    result: ToolResult | None = None
    moved: anyio.Event = field(default_factory=anyio.Event)  # asked, or finished
    answered: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)

    async def approver(self, pending: PendingApproval) -> bool | None:
        self.pending = pending
        self.moved.set()
        with anyio.move_on_after(APPROVAL_WAIT):
            await self.answered.wait()
        return self.answer

    def finish(self, result: ToolResult | None) -> None:
        self.result = result
        self.moved.set()
        self.done.set()

    def give(self, responses: Any) -> None:
        self.answer = answer_of((responses or {}).get(APPROVAL_KEY))
        self.answered.set()

    def input_required(self) -> types.InputRequiredResult:
        assert self.pending is not None
        return types.InputRequiredResult(
            input_requests={APPROVAL_KEY: elicit_request(self.pending)}, request_state=self.key
        )

"""What of each finished call reaches the client, and the audit record it leaves.

- A **truncated** call is never delivered (G1, ``toolwire.cutoff``): it goes on to
  the client's encoder, which holds it back by the same rule and makes the stop
  reason ``max_tokens`` / ``length`` (``tool_use`` / ``tool_calls`` when calls were
  delivered before it); here it is recorded as not delivered (status ``truncated``).
- An **invalid** call is delivered, so that the client can answer the model with the
  error. Where arguments are text (OpenAI) the client gets the text as the model sent
  it. Where arguments are an object (Anthropic ``tool_use.input``) and the text cannot
  be read at all, the input is ``{"toolwire_unreadable_arguments": <the text>,
  "toolwire_errors": [<what is wrong>]}``: never a silent ``{}``, and a client that
  checks the input against the tool's schema (as Claude Code does) reports it back.
- Names shortened for the upstream are restored before anything else.
- Call ids become the client's shape (``callids``): ``toolu_…`` for Anthropic
  clients, ``call_…`` for OpenAI ones, unique within the answer; the upstream's id
  travels inside and is restored when the results come back. (A Gemini thought
  signature names its call by slot, which the encoder matches whatever id the call
  gets.)
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from dataclasses import dataclass

from toolwire.audit.record import ExecutionRecord, Status
from toolwire.audit.redact import redact_arguments, redact_arguments_text, redact_text
from toolwire.cutoff import deliverable
from toolwire.events import CallFinished, Event, ToolCall
from toolwire.gateway.callids import client_call_id, fresh_call_id
from toolwire.gateway.errors import Front
from toolwire.jsontext import dumps
from toolwire.providers.tooldefs import ToolNameMap

UNREADABLE_KEY = "toolwire_unreadable_arguments"
# Of an invalid or truncated call the record keeps the arguments, redacted, up to this
# many characters: what the audit page shows of what went wrong.
KEPT_ARGUMENTS_CHARS = 4096
ERRORS_KEY = "toolwire_errors"
_AUDIT_STATUS: dict[str, Status] = {
    "complete": "ok",
    "repaired": "ok",
    "invalid": "invalid_args",
    "truncated": "truncated",
}


@dataclass(frozen=True, slots=True)
class PassedCall:
    """A finished call as the gateway saw it, and whether the client got it."""

    call: ToolCall
    delivered: bool
    finished_at: float  # time.monotonic()
    upstream_id: str | None = None


class CallDelivery:
    """The per-request event filter between the parser and the client's encoder."""

    def __init__(
        self,
        *,
        arguments_are_objects: bool,
        names: ToolNameMap | None = None,
        front: Front | None = None,
        salt: str = "",
    ) -> None:
        """``front``: the client's API, whose id shape calls get (None: ids as sent);
        ``salt``: the request's id, which makes ids unique across turns."""
        self.arguments_are_objects = arguments_are_objects
        self.names = names
        self.front = front
        self.salt = salt
        self.calls: list[PassedCall] = []
        self._ids: set[str] = set()

    def __call__(self, event: Event) -> Event:
        if self.names is not None:
            event = self.names.restore(event)
        if not isinstance(event, CallFinished):
            return event
        call = event.call
        upstream_id = call.id
        call = self._client_id(call)
        if not deliverable(call):  # the encoder holds it back and says "cut"
            self.calls.append(PassedCall(call, False, time.monotonic(), upstream_id))
            return CallFinished(call)
        if call.arguments is None and self.arguments_are_objects:
            unreadable = {UNREADABLE_KEY: call.raw_arguments, ERRORS_KEY: list(call.errors)}
            call = dataclasses.replace(call, arguments=unreadable)
        self.calls.append(PassedCall(call, True, time.monotonic(), upstream_id))
        return CallFinished(call)

    def _client_id(self, call: ToolCall) -> ToolCall:
        if self.front is None:
            return call
        found = client_call_id(call.id or "", self.front, self.salt)
        if found is None or found in self._ids:  # missing, too long, or repeated
            found = fresh_call_id(self.front, self.salt, call.slot)
        self._ids.add(found)
        return dataclasses.replace(call, id=found)


def call_record(
    passed: PassedCall,
    *,
    model: str,
    request_id: str,
    upstream: str,
    started_at: float,
    started_monotonic: float,
    ttfb_ms: float | None,
    upstream_error: str | None = None,
    notes: tuple[str, ...] = (),
) -> ExecutionRecord:
    """The audit record of one call the gateway passed (or held back).
    ``upstream_error``: why the upstream's answer failed part way, if it did;
    ``notes``: what of the request and the answer was dropped or changed, in words."""
    call = passed.call
    # The same hash as the engine's: of the redacted arguments (or text, if unreadable);
    # error text is redacted by the same rules, as the engine's is.
    kept: str | None = None  # the redacted arguments of a call that went wrong
    if call.arguments is not None:
        redacted = redact_arguments(call.arguments)
        digest: str | None = redacted.sha256
        if call.status == "invalid":
            kept = dumps(redacted.value)
    elif call.raw_arguments:
        redacted = redact_arguments_text(call.raw_arguments)
        digest, kept = redacted.sha256, str(redacted.value)
    else:
        digest = None
    if kept is not None and len(kept) > KEPT_ARGUMENTS_CHARS:
        kept = kept[:KEPT_ARGUMENTS_CHARS] + "…"
    errors = tuple(redact_text(error, call.arguments) for error in call.errors)
    return ExecutionRecord(
        record_id=uuid.uuid4().hex,
        call_id=call.id,
        tool_name=call.name,
        status=_AUDIT_STATUS[call.status],
        started_at=started_at,
        duration_ms=round((passed.finished_at - started_monotonic) * 1000, 3),
        name_as_sent=call.name_as_sent or call.name,
        tool_origin="gateway",
        executor="gateway",
        error_type=None if call.status in ("complete", "repaired") else call.status,
        error_message="; ".join(errors) or None,
        arguments_sha256=digest,
        arguments=kept,
        repairs=call.repairs,
        validation_errors=errors,
        extra={
            "model": model,
            "request_id": request_id,
            "upstream": upstream,
            "call_status": call.status,
            "delivered": passed.delivered,
            "upstream_call_id": passed.upstream_id,
            "ttfb_ms": ttfb_ms,
            **({"upstream_error": upstream_error} if upstream_error else {}),
            **({"notes": list(notes)} if notes else {}),
        },
    )

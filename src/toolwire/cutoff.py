"""The rule for cut-off calls (G1): a truncated call is never delivered as a call.

A call the model did not finish (status ``truncated``) is not fit to run: its
arguments are whatever came before the cut. Whoever hands calls on to a client (the
encoders, the gateway) holds it back, records it, and says the output was cut: the
stop reason becomes ``length`` (``max_tokens`` for Anthropic), never a plain ``stop``.
When complete calls were delivered before it, the stop reason is ``tool_calls``
instead (the client runs the calls it got; the held-back one is noted).
"""

from __future__ import annotations

import dataclasses

from toolwire.events import StreamFinished, ToolCall


def deliverable(call: ToolCall) -> bool:
    """Whether ``call`` may reach a client as a tool call."""
    return call.status != "truncated"


def held_back_note(call: ToolCall) -> str:
    """What a client was not sent, in words (for ``lossy`` lists)."""
    return f"a truncated call to {call.name!r} was held back: it was cut off, not finished"


def cut_finish(finished: StreamFinished) -> StreamFinished:
    """The finish of a turn from which a truncated call was held back: ``length``
    (unless the turn already ended for another reason: filtered or failed)."""
    if finished.finish_reason in ("stop", "tool_calls"):
        return dataclasses.replace(finished, finish_reason="length", raw_finish_reason=None)
    return finished

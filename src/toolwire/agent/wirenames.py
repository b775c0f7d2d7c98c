"""Tool names the upstream's wire refuses (Anthropic and Gemini name rules): the
client's translation declares them under other names; the model's calls come back
under those and go to the engine under the declared ones."""

from __future__ import annotations

import dataclasses

from toolwire.events import CallFinished, Event
from toolwire.providers.tooldefs import ToolNameMap


def declared_names(events: list[Event], names: ToolNameMap | None) -> list[Event]:
    """``events`` with each call under its declared name. The engine resolves a call
    by the name as sent, so the wire name in it is undone too (what the model added
    around it, a ``functions.`` prefix say, stays for the engine to name)."""
    if names is None:
        return events
    changed = names.changed
    out: list[Event] = []
    for event in events:
        event = names.restore(event)
        if isinstance(event, CallFinished):
            call = event.call
            wire = changed.get(call.name)
            if wire is not None and call.name_as_sent and wire in call.name_as_sent:
                sent = call.name_as_sent.replace(wire, call.name)
                event = CallFinished(dataclasses.replace(call, name_as_sent=sent))
        out.append(event)
    return out

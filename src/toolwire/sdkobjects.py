"""Stream messages the vendors' SDKs have already parsed, as plain dicts for the
decoders (``StreamParser.feed_object``).

The SDKs are never imported: an object is read by duck typing, ``model_dump()`` (the
``openai`` and ``anthropic`` models are pydantic's: the fields the server sent, under
their wire names), else ``to_dict()``, else a mapping as it is. Reading
the dict saves the JSON round trip of re-serialising each object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.providers.detect import message_wire

# events the SDKs' stream helpers add beside the server's own (each with a snapshot of
# the whole message so far): nothing in them that the server's events do not carry
_HELPER_EVENTS = frozenset({"text", "input_json", "citation", "thinking", "signature"})


def object_value(obj: Any) -> dict[str, Any] | None:
    """The stream message an SDK object holds, as a dict; None for a helper's derived
    event. Raises ``TypeError`` for an object that holds no message."""
    kind = getattr(obj, "type", None)
    if isinstance(kind, str) and not isinstance(obj, Mapping):
        if kind == "chunk" and hasattr(obj, "chunk"):
            obj = obj.chunk  # openai's ``chat.completions.stream()``: the chunk inside
        elif kind in _HELPER_EVENTS or (
            "." in kind and not kind.startswith("response.")  # openai's chat helper events
        ):
            return None
    if isinstance(obj, dict):
        return obj  # read, never changed
    if isinstance(obj, Mapping):
        return dict(obj)
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        # what the SDKs' ``to_dict()`` gives (the fields sent, under their wire names),
        # without its wrapper's cost
        value = dump(exclude_unset=True, by_alias=True)
    else:
        to_dict = getattr(obj, "to_dict", None)
        if not callable(to_dict):
            raise TypeError(f"not a stream message of any wire: {type(obj).__name__}")
        value = to_dict()
    if not isinstance(value, dict):
        raise TypeError(f"not a stream message of any wire: {type(obj).__name__}")
    return value


def object_wire(value: Mapping[str, Any]) -> str | None:
    """The wire format a stream message belongs to, from its shape."""
    return message_wire(dict(value))

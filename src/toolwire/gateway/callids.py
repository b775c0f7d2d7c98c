"""Tool-call ids in the client's shape, and back to the upstream's, with no state.

A call the upstream names ``call_1`` reaches an Anthropic client as ``toolu_tw…`` and
an OpenAI client as ``call_tw…``: after the client's prefix, ``tw``, a 6-hex salt from
the request id (so that an upstream that reuses ids across turns still gives the
client ids unique in its conversation), a 4-hex check, and the upstream id in base64url.
When the client sends its history back, ``restore_upstream_ids`` decodes every such id,
so the upstream sees its own ids again (some servers insist on their id shapes). Any
process decodes any id: nothing is kept between requests, so ``--workers N`` and
replicas work.

An upstream id that is missing, too long to carry, or repeated within one answer gets
a fresh id instead (``fresh_call_id``), which goes back to the upstream unchanged.
Should two ids in one history decode to the same upstream id (an upstream that reuses
ids), those keep their client ids, so that every call keeps exactly one reply.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from typing import Any

from toolwire.gateway.errors import Front

PREFIXES: dict[Front, str] = {
    "anthropic": "toolu_",
    "openai-chat": "call_",
    "openai-responses": "call_",
}
_MARK = "tw"
_SALT = 6
_CHECK = 4
MAX_CARRIED = 48  # characters of an upstream id carried inside a client id


def _check(salt: str, payload: str) -> str:
    return hashlib.sha256(f"{salt}:{payload}".encode()).hexdigest()[:_CHECK]


def client_call_id(upstream_id: str, front: Front, salt: str) -> str | None:
    """The client's id carrying ``upstream_id`` (None: it cannot be carried)."""
    if not upstream_id or len(upstream_id) > MAX_CARRIED:
        return None
    try:
        raw = upstream_id.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from the wire
        return None
    payload = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    salt = hashlib.sha256(salt.encode()).hexdigest()[:_SALT]
    return f"{PREFIXES[front]}{_MARK}{salt}{_check(salt, payload)}{payload}"


def fresh_call_id(front: Front, salt: str, slot: int) -> str:
    """An id for a call whose upstream id cannot be carried (deterministic per slot)."""
    digest = hashlib.sha256(f"{salt}:{slot}".encode()).hexdigest()[:24]
    return f"{PREFIXES[front]}{digest}"


def upstream_call_id(client_id: str) -> str | None:
    """The upstream id inside a client id made by ``client_call_id`` (else None)."""
    for prefix in ("toolu_", "call_"):
        if client_id.startswith(prefix + _MARK):
            rest = client_id[len(prefix) + len(_MARK) :]
            break
    else:
        return None
    salt, check, payload = rest[:_SALT], rest[_SALT : _SALT + _CHECK], rest[_SALT + _CHECK :]
    if not payload or _check(salt, payload) != check:
        return None
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        return raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None


# where each client format keeps call ids: (the call's id, a result's reference)


def _anthropic_ids(body: Mapping[str, Any]) -> list[tuple[dict[str, Any], str]]:
    found: list[tuple[dict[str, Any], str]] = []
    for message in _list(body.get("messages")):
        content = message.get("content") if isinstance(message, dict) else None
        for block in _list(content):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                found.append((block, "id"))
            elif isinstance(block, dict) and block.get("type") == "tool_result":
                found.append((block, "tool_use_id"))
    return found


def _openai_chat_ids(body: Mapping[str, Any]) -> list[tuple[dict[str, Any], str]]:
    found: list[tuple[dict[str, Any], str]] = []
    for message in _list(body.get("messages")):
        if not isinstance(message, dict):
            continue
        for call in _list(message.get("tool_calls")):
            if isinstance(call, dict):
                found.append((call, "id"))
        if message.get("role") == "tool":
            found.append((message, "tool_call_id"))
    return found


def _responses_ids(body: Mapping[str, Any]) -> list[tuple[dict[str, Any], str]]:
    return [
        (item, "call_id")
        for item in _list(body.get("input"))
        if isinstance(item, dict) and "call_id" in item
    ]


_FINDERS = {
    "anthropic": _anthropic_ids,
    "openai-chat": _openai_chat_ids,
    "openai-responses": _responses_ids,
}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def restore_upstream_ids(body: dict[str, Any], front: Front) -> int:
    """Rewrite, in place, every call id in ``body`` that carries an upstream id back to
    that id; returns how many were rewritten. Ids of other shapes stay as they are, and
    so do ids whose upstream id another id of the same history also decodes to."""
    places = _FINDERS[front](body)
    decoded: dict[str, str] = {}
    owners: dict[str, set[str]] = {}
    for holder, key in places:
        client_id = holder.get(key)
        if not isinstance(client_id, str) or client_id in decoded:
            continue
        upstream = upstream_call_id(client_id)
        if upstream is not None:
            decoded[client_id] = upstream
        # an id sent as it is claims its own value too
        owners.setdefault(client_id if upstream is None else upstream, set()).add(client_id)
    rewritten = 0
    for holder, key in places:
        client_id = holder.get(key)
        if not isinstance(client_id, str):
            continue
        upstream = decoded.get(client_id)
        if upstream is not None and len(owners[upstream]) == 1:
            holder[key] = upstream
            rewritten += 1
    return rewritten

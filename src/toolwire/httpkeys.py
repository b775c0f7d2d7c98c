"""Keys for toolwire's HTTP servers (the gateway, the MCP front): who may call them.

Without keys a server answers anyone who reaches it, so it listens on loopback only.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


def keys_problem(keys: Sequence[str], host: str | None = None, *, what: str = "key") -> str | None:
    """Why a server cannot use ``keys`` (or, given ``host``, listen there with them), or
    None. An empty key would match a request that carries none; without keys a server
    answers anyone who reaches it, so it listens on loopback only."""
    if any(not key.strip() for key in keys):
        return f"a {what} is empty: every key needs characters"
    if host is not None and not keys and host not in LOOPBACK_HOSTS:
        return (
            f"refusing to listen on {host} without a {what} "
            "(give --api-key, or listen on 127.0.0.1)"
        )
    return None


def key_index(headers: Mapping[str, str], keys: Sequence[bytes]) -> int | None:
    """Which of ``keys`` the request carries (``x-api-key`` or ``Bearer``), or None."""
    given = headers.get("x-api-key", "")
    auth = headers.get("authorization", "")
    if not given and auth[:7].lower() == "bearer ":
        given = auth[7:].strip()
    candidate = given.encode()
    if not candidate:
        return None  # no key given; an empty configured key matches nothing either
    # compare with every key, constant time each: no early exit on a match
    found = None
    for i, key in enumerate(keys):
        if key and hmac.compare_digest(candidate, key):
            found = i
    return found


def has_key(headers: Mapping[str, str], keys: Sequence[bytes]) -> bool:
    """Whether the request carries one of ``keys``; with none configured, every one does."""
    return not keys or key_index(headers, keys) is not None

"""Arguments for the audit trail: a stable hash always, the values only on request.

Stored arguments have secret-looking values replaced by ``"[REDACTED]"``: whole values
under keys that name a secret (password, token, api_key, authorization, …), and the
credential-looking parts of any string (``sk-…``, ``ghp_…``, ``AKIA…``, JWTs, bearer
headers, private-key blocks). The hash is taken before redaction, so equal calls still
hash equal.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from toolwire.jsontext import NotJSONError, dumps, text_of
from toolwire.surrogates import replace_surrogates_in

REDACTED = "[REDACTED]"

# Whole words of a key (snake, kebab or camel case), so "author" or "max_tokens" pass.
_SECRET_KEY = re.compile(
    r"(^|_)(password|passwd|passphrase|pwd|secret|token|api_?key|access_key|auth"
    r"|authorization|credentials?|private_key|cookie|session_id|signature)($|_)"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_VALUE = re.compile(
    r"(sk-[A-Za-z0-9_\-]{16,}"  # OpenAI / Anthropic style keys
    r"|gh[pousr]_[A-Za-z0-9]{20,}"  # GitHub tokens
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google API key
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"  # JWT
    r"|(?i:bearer|basic)\s+[A-Za-z0-9._~+/=\-]{12,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|[a-z][a-z0-9+.\-]*://[^/\s:@]+:[^/\s@]+@)"  # credentials in a URL
)


def canonical_json(value: Any) -> bytes:
    """Sorted-key JSON; anything orjson cannot encode is written with ``str``.

    Integers beyond 64 bits take the stdlib's slower path. Raises ``NotJSONError`` for
    what JSON text cannot hold, and for a lone surrogate: its escape would hash like
    the six characters ``\\ud800``, so the caller repairs it first (the engine does).
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=text_of)
    except TypeError:
        pass
    text = dumps(value, default=text_of, sort_keys=True)
    try:  # written, so the value holds no cycle: it can be walked
        lone = replace_surrogates_in(value)[1]
    except RecursionError:
        raise NotJSONError("it is nested too deeply") from None
    if lone:
        raise NotJSONError("it holds a lone surrogate")
    return text.encode()


def arguments_hash(canonical: bytes) -> str:
    return hashlib.sha256(canonical).hexdigest()


def is_secret_key(key: str) -> bool:
    words = _CAMEL.sub("_", key).lower().replace("-", "_").replace(".", "_")
    return _SECRET_KEY.search(words) is not None


def redact(value: Any) -> Any:
    """A copy of ``value`` with secret-looking values replaced."""
    if isinstance(value, dict):
        return {
            k: (REDACTED if isinstance(k, str) and v and is_secret_key(k) else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return _SECRET_VALUE.sub(REDACTED, value)
    return value

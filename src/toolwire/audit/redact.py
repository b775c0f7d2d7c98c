"""Secrets out of the audit trail: a stable hash of the arguments always, their values
only on request, and the same rules for raw argument text and error text.

What is replaced by ``"[REDACTED]"``:

- the whole value under a key that names a secret, read as words in any case style:
  ``password``/``passwords``, ``PGPASSWORD``, ``DB_PASS``, ``pass``, ``pw``, ``pwd``,
  ``secret(s)``, ``token(s)`` (but not counts such as ``max_tokens``), ``api_keys``,
  ``auth``, ``authorization``, ``credentials``, ``ssh_key``, ``private_key``, ``cookie``,
  ``sessionid``, ``signature``, …;
- inside any string: ``key=value``, ``key: value`` and ``--key value`` where the key names
  a secret (``PGPASSWORD=…``, ``X-Api-Key: …``, ``Authorization: Bearer …``,
  ``"password": "…"``, ``--token …``), the ``-p`` value of a client that takes a
  password there (``mysql -phunter2``, ``sshpass -p …``), the password of ``-u user:pw``
  and of a URL, and well-known credential shapes (``sk-…``, ``sk_live_…``, ``ghp_…``,
  ``glpat-…``, ``hf_…``, ``AKIA…``, JWTs, bearer values, private-key blocks);
- and, in any text of the same call (error messages, the other arguments), every secret
  value already found in its arguments (four characters or more).

The arguments hash (``arguments_sha256``) is the SHA-256 of the *redacted* arguments in
canonical JSON (of the redacted text, for arguments that could not be read). It tells
identical calls apart, and groups repeats, by everything except their secrets: a hash of
the values as sent would let anyone with the audit test guesses of a weak password
against it. It reveals no more than the stored arguments would; no key is needed, so
hashes agree across processes, databases and the gateway.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

import orjson

from toolwire.identifiers import snake_words
from toolwire.jsontext import NotJSONError, dumps, text_of
from toolwire.surrogates import replace_surrogates_in

REDACTED = "[REDACTED]"

# Found in a key's snake_case words anywhere: pgpassword, api_keys, sessionid, X-Api-Key.
_SECRET_PART = re.compile(
    r"pass(?:word|wd|phrase|code)|secret|credential|bearer|cookie|authorization|signature"
    r"|api_?keys?|(?:private|ssh|access|signing|encryption|master)_?keys?|sess(?:ion_?)?id"
)
# Secret only as a whole word: "pass" in DB_PASS, not in "passage" or "compass".
_SECRET_WORDS = frozenset({"pass", "pw", "pwd", "auth", "oauth", "jwt", "csrf", "xsrf", "otp"})
_TOKEN = re.compile(r"token(?!i[sz])")  # token, tokens, csrftoken; not tokenizer
# With "token", these words make a count or a cursor, not a secret: max_tokens, page_token.
_NOT_A_SECRET_TOKEN = frozenset(
    {"max", "min", "num", "count", "limit", "total", "used", "budget", "prompt", "completion",
     "input", "output", "reasoning", "cached", "remaining", "estimated", "usage", "per",
     "type", "ids", "page"}
)  # fmt: skip

# A flag that might name a secret: the cheap test before ``is_secret_key``.
_HINT = (
    r"(?=[\w.\-]*?"
    r"(?i:pass|pw|secret|token|key|auth|cred|cookie|sess|sign|bearer|jwt|csrf|xsrf|otp))"
)
_QUOTED = r""""(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?"""
_SCHEME = r"(?:(?i:bearer|basic|token|digest)\s+)?"
# key=value, key: value, "key": "value", Authorization: Bearer value. The value is read
# only after a secret key, so a key inside another key's value is still seen
# ("user: password=…") and the scan stays linear.
_ASSIGNED_KEY = re.compile(r"""(?<![\w.\-])(?P<key>[A-Za-z_][\w.\-]*)["']?\s*[:=]\s*""")
_ASSIGNED_VALUE = re.compile(
    rf"""{_SCHEME}(?P<value>{_QUOTED}|\[[^\]\n]*\]?|\{{[^}}\n]*\}}?|[^\s,;&"'<>()\[\]{{}}]+)"""
)
# --password value, --api-key=value
# Between a flag and its value: =, spaces, or the next item of a JSON argv list.
_NEXT_ITEM = r"""(?:=|\s+|["']\s*,\s*)"""
_FLAG = re.compile(
    rf"""(?<![\w-])--?{_HINT}(?P<key>[A-Za-z][\w-]*){_NEXT_ITEM}"""
    rf"""(?P<value>{_QUOTED}|[^\s"'-][^\s"',]*)"""
)
# -p is a password only for some clients (mysql -phunter2, sshpass -p hunter2); for
# others it is -path, -print, -pthread or a port.
_PASSWORD_CLIENT = re.compile(r"\b(?:mysql\w*|mariadb[\w-]*|mycli|sshpass)\b")
_DASH_P = re.compile(rf"""(?<![\w-])-p(?:{_NEXT_ITEM})?(?P<value>{_QUOTED}|[^\s"'-][^\s"',]*)""")
_USER_PASSWORD = re.compile(
    r"""(?<![\w-])(?:-u|--user)(?:\s+|=)?["']?(?P<user>[^\s:"'@/]+):(?P<value>[^\s"']+)"""
)
# The lookbehind starts the scheme only where a run of scheme characters starts: linear time.
_URL_PASSWORD = re.compile(
    r"(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]*://[^/\s:@]*:(?P<value>[^/\s@]+)@", re.I
)
_SHAPES = re.compile(
    r"sk-[A-Za-z0-9_\-]{16,}"  # OpenAI, Anthropic
    r"|[rs]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{16,}"  # Stripe
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    r"|gl(?:pat|dt|rt|ptt|soat|ft|cbt|imt|oas|agent)-[A-Za-z0-9_\-]{16,}"  # GitLab
    r"|hf_[A-Za-z0-9]{20,}"  # Hugging Face
    r"|npm_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_\-]{40,}"  # package registries
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}"  # Slack
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key id
    r"|AIza[0-9A-Za-z_\-]{30,}|ya29\.[0-9A-Za-z_\-]{20,}"  # Google
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"  # JWT
    r"|(?i:bearer|basic)\s+[A-Za-z0-9._~+/=\-]{12,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----(?:.*?-----END [A-Z ]*PRIVATE KEY-----|.*)",
    re.DOTALL,
)
_MIN_KNOWN = 4  # shorter known secrets are not searched for in other text
_SCALARS: frozenset[type] = frozenset({int, float, bool, type(None)})
_PLAIN: frozenset[type] = _SCALARS | {str}  # the leaves of JSON


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
    """The SHA-256 of ``canonical`` (give it redacted arguments: see the module doc)."""
    return hashlib.sha256(canonical).hexdigest()


@functools.lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    """Does the key name a secret (its value is redacted whole)?"""
    words = snake_words(key)
    if _SECRET_PART.search(words):
        return True
    split = words.split("_")
    if not _SECRET_WORDS.isdisjoint(split):
        return True
    return _TOKEN.search(words) is not None and _NOT_A_SECRET_TOKEN.isdisjoint(split)


def _unquoted(value: str) -> str:
    if value[:1] in "\"'":
        value = value[1:-1] if len(value) > 1 and value[-1] == value[0] else value[1:]
    return value


def _quoted_like(value: str, text: str) -> str:
    """``text`` in the quotes ``value`` had (a lone opening quote stays lone)."""
    quote = value[0] if value[:1] in "\"'" else ""
    closing = quote if quote and len(value) > 1 and value[-1] == quote else ""
    return f"{quote}{text}{closing}"


class Redactor:
    """Redaction for one call: the secrets found in its arguments are also removed from
    its other text (an error message that repeats a password, a second copy of it)."""

    __slots__ = ("_ordered", "known")

    def __init__(self, arguments: Any = None) -> None:
        self.known: set[str] = set()
        self._ordered: list[str] | None = None
        if arguments is not None:
            self._collect(arguments, False)

    def _collect(self, value: Any, secret: bool) -> None:
        kind = type(value)
        if not secret and kind in _PLAIN:  # most values: nothing to look at
            return
        if kind is dict or isinstance(value, Mapping):
            for k, v in value.items():
                self._collect(v, secret or (isinstance(k, str) and is_secret_key(k)))
        elif isinstance(value, list | tuple):
            for v in value:
                self._collect(v, secret)
        elif secret and not isinstance(value, bool) and isinstance(value, str | int | float):
            self._found(str(value))

    def _found(self, secret: str) -> None:
        if len(secret) >= _MIN_KNOWN and secret != REDACTED and secret not in self.known:
            self.known.add(secret)
            self._ordered = None

    def value(self, value: Any) -> Any:
        """A copy of ``value`` (a JSON-like value) with secrets replaced."""
        kind = type(value)
        if kind is str:
            return self.text(value)
        if kind in _PLAIN:  # a number, a bool or None: kept (and no ABC check for it)
            return value
        if kind is dict or isinstance(value, Mapping):
            out: dict[Any, Any] = {}
            for k, v in value.items():
                if isinstance(k, str):
                    if v and not isinstance(v, bool) and is_secret_key(k):
                        v = REDACTED
                    else:
                        v = self.value(v)
                    # A plain short name holds no secret; a long or odd key may be one.
                    key = self.text(k) if len(k) > 16 or not k.isidentifier() else k
                    if key != k and key in out:  # two secret keys: keep both values
                        key = f"{key}#{len(out)}"
                    out[key] = v
                else:
                    out[k] = self.value(v)
            return out
        if isinstance(value, list | tuple):
            out_list = [self.value(v) for v in value]
            if len(value) > 1 and all(isinstance(v, str) for v in value):
                self._argv(value, out_list)
            return out_list
        if isinstance(value, str):
            return self.text(value)
        return value

    def _argv(self, argv: list[str] | tuple[str, ...], out: list[Any]) -> None:
        """An argv list: the item after a flag that takes a secret (``--password x``,
        ``sshpass -p x``) is a secret."""
        client = "-p" in argv and any(_PASSWORD_CLIENT.search(a) for a in argv)
        for i, flag in enumerate(argv[:-1]):
            if flag[:1] != "-" or "=" in flag or argv[i + 1][:1] == "-":
                continue
            if (flag == "-p" and client) or (flag[:2] == "--" and is_secret_key(flag[2:])):
                self._found(argv[i + 1])
                out[i + 1] = REDACTED

    def text(self, text: str) -> str:
        """``text`` with secrets replaced: by the rules, and the secrets already known."""
        if not text:
            return text
        # Each rule runs only on text that has what it needs (most strings have none).
        if ":" in text or "=" in text:
            text = self._assignments(text)
        if "-" in text:
            text = _FLAG.sub(self._flag, text)
            if "-p" in text and _PASSWORD_CLIENT.search(text):
                text = _DASH_P.sub(self._group, text)
            if "-u" in text:
                text = _USER_PASSWORD.sub(self._user_password, text)
        if "://" in text and "@" in text:
            text = _URL_PASSWORD.sub(self._group, text)
        text = _SHAPES.sub(self._whole, text)
        if self.known:
            for secret in self._longest_first():
                if secret in text:
                    text = text.replace(secret, REDACTED)
        return text

    def _longest_first(self) -> list[str]:
        if self._ordered is None:
            self._ordered = sorted(self.known, key=len, reverse=True)
        return self._ordered

    def _replace(self, m: re.Match[str], value: str) -> str:
        """The match with its ``value`` group replaced (quotes kept)."""
        secret = _unquoted(value)
        if not secret or secret == REDACTED:
            return m.group(0)
        self._found(secret)
        start, end = m.span("value")
        start -= m.start()
        end -= m.start()
        whole = m.group(0)
        return f"{whole[:start]}{_quoted_like(value, REDACTED)}{whole[end:]}"

    def _assignments(self, text: str) -> str:
        pieces: list[str] = []
        done = 0  # text before this is written out
        for m in _ASSIGNED_KEY.finditer(text):
            if m.start() < done or not is_secret_key(m["key"]):
                continue
            v = _ASSIGNED_VALUE.match(text, m.end())
            secret = _unquoted(v["value"]) if v else ""
            if not v or not secret or secret == REDACTED:
                continue
            self._found(secret)
            start, end = v.span("value")
            pieces += [text[done:start], _quoted_like(v["value"], REDACTED)]
            done = end
        if not pieces:
            return text
        pieces.append(text[done:])
        return "".join(pieces)

    def _flag(self, m: re.Match[str]) -> str:
        return self._replace(m, m["value"]) if is_secret_key(m["key"]) else m.group(0)

    def _group(self, m: re.Match[str]) -> str:
        return self._replace(m, m["value"])

    def _user_password(self, m: re.Match[str]) -> str:
        if m["user"].isdigit() and m["value"].isdigit():  # -u 1000:1000 is uid:gid
            return m.group(0)
        return self._replace(m, m["value"])

    def _whole(self, m: re.Match[str]) -> str:
        self._found(m.group(0))
        return REDACTED


class RedactedArguments(NamedTuple):
    """A call's arguments as the audit may hold them."""

    value: Any  # the redacted copy (for unreadable arguments: the redacted text)
    sha256: str | None  # of its canonical JSON; None when JSON cannot hold it
    redactor: Redactor  # knows the secrets found, to remove them from the call's other text


def redact_arguments(arguments: Any, canonical: bytes | None = None) -> RedactedArguments:
    """Redact a call's arguments (a JSON-like value) and hash what is left. Never raises.

    ``canonical``: the arguments' canonical JSON when the caller has it; it is reused
    when nothing was redacted (most calls), saving a second encoding.
    """
    if canonical is not None and _holds_no_text(arguments):
        return RedactedArguments(arguments, arguments_hash(canonical), Redactor())
    try:
        redactor = Redactor(arguments)
        redacted = redactor.value(arguments)
    except RecursionError:  # a container that holds itself: nothing can be written
        return RedactedArguments(None, None, Redactor())
    try:
        unchanged = canonical is not None and redacted == arguments
    except Exception:  # a value whose == raises (an array): encode again
        unchanged = False
    try:
        if canonical is None or not unchanged:
            canonical = canonical_json(redacted)
    except (NotJSONError, RecursionError):
        return RedactedArguments(redacted, None, redactor)
    return RedactedArguments(redacted, arguments_hash(canonical), redactor)


def _holds_no_text(arguments: Any) -> bool:
    """Is it a flat object of numbers, booleans and nulls under short plain keys that
    name no secret? Redaction leaves such an object as it is: the small call skips it."""
    if type(arguments) is not dict:
        return False
    for key, value in arguments.items():
        if type(value) not in _SCALARS or type(key) is not str:
            return False
        if len(key) > 16 or not key.isidentifier() or is_secret_key(key):
            return False
    return True


def redact_arguments_text(raw: str) -> RedactedArguments:
    """As :func:`redact_arguments`, for arguments that are text that could not be read."""
    redactor = Redactor()
    text = redactor.text(raw)
    return RedactedArguments(text, arguments_hash(text.encode("utf-8", "surrogatepass")), redactor)


def redact(value: Any) -> Any:
    """A copy of ``value`` with secret-looking values replaced."""
    return Redactor(value).value(value)


def redact_text(text: str, arguments: Any = None) -> str:
    """``text`` (an error message, unparsable arguments) with secrets replaced, including
    those found in the call's ``arguments`` when given."""
    redactor = Redactor(arguments)
    if arguments is not None:
        redactor.value(arguments)  # for the secrets inside its strings (PGPASSWORD=…)
    return redactor.text(text)

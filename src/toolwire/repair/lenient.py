"""A lenient, linear-time JSON parser for the broken JSON that language models write.

One forward pass, recursive descent, no backtracking. Runs of ordinary string
characters are consumed by compiled regexes (C speed) and collected as slices in a
list, never by ``+=`` on a string. Decisions about an ambiguous quote look ahead a
bounded distance (the whitespace after it, or one object key). The one place that
re-reads text -- a string that runs to the end of the input although the input ends
with a closer, cut back at its first delimiter -- draws on a budget of ``2 * len(text)``
characters, so the total work stays below ``3 * len(text)``.

Strict JSON cut off by the end of the text -- the common case, a call cut off by
max_tokens -- is first tried by a faster reading that gives exactly the general
reader's result or steps aside (``read_cut_off_json``, at the end of this module): it
uses C functions (``str.split``, ``bytes.translate``, the json scanner, regexes without
backtracking) in a fixed number of passes, so it is linear too. JSON cut off inside a
string, the most common cut, is read with fewer passes still (``read_cut_string``).

The parser never raises: :func:`parse_lenient` returns a :class:`LenientOutcome`.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable
from json.decoder import scanstring as _scanstring  # type: ignore[attr-defined]
from typing import Any, Final, NamedTuple

from .numbers import float_underflows

__all__ = [
    "CUT_STRING_REPAIRS",
    "MAX_DEPTH",
    "LenientOutcome",
    "parse_lenient",
    "read_cut_off_json",
    "read_cut_string",
    "unescape_json_text",
]

#: Containers nested deeper than this are refused (recursion is bounded by it).
MAX_DEPTH: Final = 200

# Contexts a value is read in; they decide what may follow the end of a string.
_TOP: Final = 0
_KEY: Final = 1
_OBJ: Final = 2  # an object member's value
_ARR: Final = 3

_WS: Final = frozenset(" \t\n\r")
# Unicode spaces some models emit between tokens (jsonrepair's list).
_SPECIAL_WS: Final = frozenset(
    "\u00a0\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u200b\u202f\u205f\u3000\ufeff"
)
_WS_RUN: Final = re.compile(r"[ \t\n\r]*")
# What skip() may skip starts with one of these.
_SKIP_FIRST: Final = _WS | _SPECIAL_WS | frozenset("/#")
_OPEN_QUOTES: Final = frozenset("\"'\u201c\u201d\u2018\u2019`\u00b4")
_CLOSERS: Final = frozenset("}])")

# Ordinary characters of a string, per set of closing quotes: everything except the
# closers, the backslash and control characters.
# Valid escapes are part of a run too (decoded per run), so text full of \" and \\
# still moves at regex speed; anything else stops the run for a closer look.
_ESCAPE_IN_RUN: Final = r"""|\\(?:["\\/bfnrt']|u[0-9a-fA-F]{4})"""
_RUN_DQ: Final = re.compile(r'(?:[^"\\\x00-\x1f]+' + _ESCAPE_IN_RUN + ")*")
_RUN_SQ: Final = re.compile(r"(?:[^'\\\x00-\x1f]+" + _ESCAPE_IN_RUN + ")*")
_RUN_DQ_LIKE: Final = re.compile('(?:[^"\u201c\u201d\\\\\\x00-\\x1f]+' + _ESCAPE_IN_RUN + ")*")
_RUN_SQ_LIKE: Final = re.compile(
    "(?:[^'\u2018\u2019`\u00b4\\\\\\x00-\\x1f]+" + _ESCAPE_IN_RUN + ")*"
)
_ESCAPE: Final = re.compile(r"""\\(["\\/bfnrt']|u[0-9a-fA-F]{4})""")
_SURROGATE_PAIR: Final = re.compile("[\ud800-\udbff][\udc00-\udfff]")
# An escape that may spell a surrogate (a search that starts with a literal is fast).
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
# In a run: the escape \' (a run of backslashes of odd length before an apostrophe),
# and a " that is not escaped (a run of even length before it).
_APOSTROPHE_ESCAPE: Final = re.compile(r"(?<!\\)((?:\\\\)*)\\'")
_RAW_QUOTE: Final = re.compile(r'(?<!\\)((?:\\\\)*)"')
_DQ_LIKE: Final = '"\u201c\u201d'
_SQ_LIKE: Final = "'\u2018\u2019`\u00b4"

_SIMPLE_ESCAPES: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_HEX4: Final = re.compile(r"[0-9a-fA-F]{4}")
_HEX_PREFIX: Final = re.compile(r"[0-9a-fA-F]{0,3}")

# A quote that ends a string inside an object is trusted when, after a comma, the
# text goes on with something shaped like the next key.
_KEY_AHEAD: Final = re.compile(
    r"""(?:[A-Za-z_$][\w$]{0,60}[ \t]+(?=["']))?"""  # a stray word before the key
    r"""(?:(?:"(?:[^"\\\n]|\\.){0,200}"|'(?:[^'\\\n]|\\.){0,200}'"""
    r"""|[\u201c\u2018][^\u201d\u2019\n]{0,200}[\u201d\u2019]"""
    r"""|[\w$][\w$\-]{0,200}"?)[ \t\r\n]*(?::|\Z)"""
    r"""|"(?:[^"\\\n]|\\.){0,200}\\?\Z|[\w$][\w$\-]{0,200}\Z)"""  # or a key cut off by the end
)
# In an array, a quote after a comma opens the next item when that item closes.
_ITEM_AHEAD: Final = re.compile(
    r"""(?:[^"\\\n]|\\.){0,200}"[ \t\r\n]*[,\]]|(?:[^"\\\n]|\\.){0,200}\\?\Z"""
)
# `"a": "first, b: "second"`: the string's content ends like the start of a member.
_MEMBER_TAIL: Final = re.compile(r""",\s*[\w$]{1,60}\s*:\s*\Z""")
_JSON_NUMBER: Final = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LOOSE_NUMBER: Final = re.compile(r"[-+]?(?:\d[\d_]*)?(?:\.[\d_]*)?(?:[eE][+-]?\d*)?")
_LEADING_ZERO: Final = re.compile(r"[-+]?0\d")
_KEYWORD: Final = re.compile(
    r"(true|false|null|True|False|None|TRUE|FALSE|NULL|Null|undefined|NaN|Infinity)(?![\w$])"
)
_KEYWORD_VALUES: Final[dict[str, Any]] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
    "TRUE": True,
    "FALSE": False,
    "NULL": None,
    "Null": None,
    "undefined": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
}
_KEYWORD_PREFIXES: Final = frozenset(
    w[:k] for w in ("true", "false", "null", "True", "False", "None") for k in range(1, len(w))
)
_UNQUOTED_KEY: Final = re.compile(r"""[^\s:,{}\[\]()"'\u201c\u201d\u2018\u2019`\u00b4/]+""")
# Unquoted values end at a structural character, a newline, a quote or a slash
# (the slash is examined: it may start a comment, or be part of a URL or a date).
_BAREWORD_IN: Final = re.compile(r"""[^,\]}\n"\[{/\u201c\u201d]*""")
_BAREWORD_TOP: Final = re.compile(r"[^\n/]*")
_IDENT: Final = re.compile(r"[A-Za-z_$][\w$.]*")
_REGEX_LITERAL: Final = re.compile(r"/(?:[^/\\\n]|\\.)+/")
_FIRST_DELIM: Final = re.compile(r"[,\]}\n]")
_BACKSLASH_FREE: Final = re.compile(r"[^\\]+")


class _Fail(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


class _Missing:
    """The marker for 'no value here' (a truncated literal, a lone minus sign)."""


_MISSING: Final = _Missing()


class LenientOutcome(NamedTuple):
    """What :func:`parse_lenient` read. (A NamedTuple: a frozen dataclass cost ~8,000
    instructions to build, a tenth of reading a short cut-off call; bench_lenient.)"""

    value: Any
    ok: bool
    repairs: tuple[str, ...]
    truncated: bool
    error: str | None = None


def parse_lenient(
    text: str, *, prefix: bool = False, cut_off: bool | None = None
) -> LenientOutcome:
    """Read ``text`` leniently; ``prefix=True`` reads it as the start of a longer text.

    In prefix mode a string that runs to the end is kept whole (it is a prefix of the
    final string) instead of being cut back at a delimiter. ``cut_off``: False where
    the caller knows that ``text`` is not JSON cut off by its end (strict JSON reading
    stopped before the end, or :func:`read_cut_off_json` found nothing): the fast
    reading of that is not tried; otherwise it tells by itself.
    """
    if cut_off is not False:
        quick = read_cut_off_json(text, prefix)
        if quick is not None:
            value, repairs = quick
            return LenientOutcome(value, True, repairs, True)
    return _parse(text, prefix)


def _parse(text: str, prefix: bool) -> LenientOutcome:
    """The reading of :func:`parse_lenient`, by the general reader alone."""
    parser = _Parser(text, prefix)
    try:
        value = parser.parse()
    except _Fail as exc:
        return LenientOutcome(
            None,
            False,
            tuple(parser.repairs),
            parser.truncated,
            f"{exc.message} at position {exc.pos}",
        )
    except RecursionError:
        return LenientOutcome(
            None, False, tuple(parser.repairs), parser.truncated, "input nested too deeply"
        )
    except Exception as exc:  # the parser must never raise
        return LenientOutcome(
            None,
            False,
            tuple(parser.repairs),
            parser.truncated,
            f"internal error {type(exc).__name__}: {exc}",
        )
    return LenientOutcome(value, True, tuple(parser.repairs), parser.truncated)


def unescape_json_text(text: str) -> str:
    """Undo one level of JSON string escaping (``\\"`` -> ``"``), keeping unknown escapes."""
    parts: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        m = _BACKSLASH_FREE.match(text, i)
        if m:
            parts.append(m.group())
            i = m.end()
            continue
        nxt = text[i + 1] if i + 1 < n else ""
        if nxt in _SIMPLE_ESCAPES and nxt:
            parts.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and _HEX4.match(text, i + 2):
            parts.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
        else:
            parts.append("\\")
            i += 1
    return _join_surrogates("".join(parts))


def _join_surrogates(s: str) -> str:
    # \ud83d\ude00 decoded one escape at a time gives two surrogates; pair them
    # (a lone surrogate stays, as json.loads keeps it).
    return _SURROGATE_PAIR.sub(_pair, s)


def _pair(m: re.Match[str]) -> str:
    text = m.group()
    high, low = text[0], text[1]
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def _unescape_match(m: re.Match[str]) -> str:
    esc = m.group(1)
    if len(esc) == 1:
        return "'" if esc == "'" else _SIMPLE_ESCAPES[esc]
    return chr(int(esc[1:], 16))


def _escapes_apostrophe(chunk: str) -> bool:
    """Does a run hold the escape ``\\'`` (not ``\\\\`` followed by ``'``)?"""
    return _APOSTROPHE_ESCAPE.search(chunk) is not None


def _decode_run(chunk: str, single: bool) -> str:
    """Decode a run matched by one of the ``_RUN_*`` patterns (``single``: of a string
    in single quotes, which may hold a bare ``"`` but no bare ``'``).

    The escapes are decoded by the json module's C string scanner: a callback per
    escape cost ~1,000 instructions per character on escape-heavy text (bench_lenient).
    It knows neither ``\\'`` nor a bare ``"``, so both are written as ``\\u`` escapes
    first: by ``str.replace`` where that is exact, else by a regex (slower: it tries
    every position) that tells an escape from an escaped backslash before the quote."""
    if "\\" not in chunk:
        return chunk
    body = chunk
    if "\\'" in body:
        if single:
            body = body.replace("\\'", "\\u0027")
        else:
            body = _APOSTROPHE_ESCAPE.sub(r"\1\\u0027", body)
    if single and '"' in body:
        exact = '\\"' not in body
        body = body.replace('"', "\\u0022") if exact else _RAW_QUOTE.sub(r"\1\\u0022", body)
    out: str = _scanstring(body + '"', 0, True)[0]
    if "\\u" in chunk and (_SURROGATE_ESCAPE.search(chunk) or has_raw_surrogate(chunk)):
        # The scanner pairs only escaped surrogates; the reading this keeps pairs a
        # surrogate written raw in the text with its escaped neighbour too.
        return _join_surrogates(_ESCAPE.sub(_unescape_match, chunk))
    return out


def has_raw_surrogate(text: str) -> bool:
    """Does ``text`` hold a surrogate character (not an escape)? Without a regex
    search, which costs ~20-150 instructions per character."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")  # only a surrogate fails
    except UnicodeEncodeError:
        return True
    return False


class _Parser:
    __slots__ = (
        "budget",
        "depth",
        "found",
        "i",
        "n",
        "prefix",
        "repairs",
        "s",
        "stack",
        "truncated",
    )

    def __init__(self, text: str, prefix: bool) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.prefix = prefix
        self.repairs: dict[str, None] = {}
        self.truncated = False
        self.stack: list[str] = []  # expected closers of the open containers
        self.depth = 0
        self.budget = 2 * len(text) + 64  # characters we may re-read (module docstring)
        # Last search per needle: (searched from, found at or -1). Comment ends are
        # looked up again and again from nearby positions; without this, `"a" // "a" //`
        # on one long line would cost a scan to the end for every quote.
        self.found: dict[str, tuple[int, int]] = {}

    def find(self, needle: str, i: int) -> int:
        """``self.s.find(needle, i)``, remembering the answer for later, larger ``i``."""
        cached = self.found.get(needle)
        if cached is not None:
            start, at = cached
            if start <= i and (at < 0 or i <= at):
                return at
        at = self.s.find(needle, i)
        self.found[needle] = (i, at)
        return at

    # -- bookkeeping -------------------------------------------------------------

    def rep(self, name: str) -> None:
        self.repairs[name] = None

    def skip(self) -> int:
        """Skip whitespace and comments from ``self.i``; return the new position."""
        s = self.s
        n = self.n
        i = self.i
        if i < n and s[i] not in _SKIP_FIRST:
            return i  # the common case, without the regex call (~1,000 instructions)
        i = _ws_end(s, i)
        while i < n:
            c = s[i]
            if c in _WS:
                i = _ws_end(s, i)
            elif c in _SPECIAL_WS:
                self.rep("special_whitespace")
                i += 1
            elif c == "/" and i + 1 < n and s[i + 1] == "/":
                self.rep("comment")
                j = self.find("\n", i)
                i = n if j < 0 else j
            elif c == "/" and i + 1 < n and s[i + 1] == "*":
                self.rep("comment")
                j = self.find("*/", i + 2)
                i = n if j < 0 else j + 2
            elif c == "#":
                self.rep("comment")
                j = self.find("\n", i)
                i = n if j < 0 else j
            else:
                break
        self.i = i
        return i

    def peek(self, i: int) -> int:
        """Index of the next significant character from ``i`` (no repairs recorded)."""
        s = self.s
        n = self.n
        while i < n:
            c = s[i]
            if c in _WS or c in _SPECIAL_WS:
                i += 1
            elif c == "/" and i + 1 < n and s[i + 1] == "/":
                j = self.find("\n", i)
                i = n if j < 0 else j
            elif c == "/" and i + 1 < n and s[i + 1] == "*":
                j = self.find("*/", i + 2)
                i = n if j < 0 else j + 2
            elif c == "#":
                j = self.find("\n", i)
                i = n if j < 0 else j
            else:
                break
        return i

    # -- entry ---------------------------------------------------------------------

    def parse(self) -> Any:
        s = self.s
        i = self.skip()
        if i >= self.n:
            raise _Fail("no JSON value found", i)
        value = self.value(_TOP)
        if value is _MISSING:
            raise _Fail("no JSON value found", self.i)
        while True:
            i = self.skip()
            if i >= self.n:
                return value
            c = s[i]
            if c == ",":
                # `{"a": 1}, "b": 2}`: an object closed too early goes on.
                j = self.peek(i + 1)
                if isinstance(value, dict) and j < self.n and _KEY_AHEAD.match(s, j):
                    self.rep("mismatched_closer")
                    self.i = j
                    self.enter("}")
                    self.members(value)
                    continue
                self.rep("trailing_comma")
                self.i = i + 1
            elif c in _CLOSERS:
                self.rep("mismatched_closer")
                self.i = i + 1
            elif c == ";" and self.peek(i + 1) >= self.n:
                self.rep("surrounding_text")
                return value
            elif s.startswith("```", i):
                self.rep("code_fence")
                self.i = i + 3
            elif c in "{[" or c in _OPEN_QUOTES or c.isdigit() or c == "-":
                raise _Fail("several top-level values", i)
            else:
                # Prose after the value ("Let me know if ...").
                self.rep("surrounding_text")
                return value

    # -- values ----------------------------------------------------------------

    def value(self, ctx: int) -> Any:
        s = self.s
        i = self.i
        c = s[i]
        if c == "{":
            return self.obj()
        if c in _CLOSERS:
            raise _Fail(f"unexpected {c!r}", i)
        if c == "[":
            return self.arr("]")
        if c == "(":
            self.rep("tuple")
            return self.arr(")")
        if c in _OPEN_QUOTES:
            return self.string_value(ctx)
        if c.isdigit() or c in "-+.":
            return self.number(ctx)
        if c == "/":
            m = _REGEX_LITERAL.match(s, i)
            if m:
                self.rep("unquoted_string")
                self.i = m.end()
                return m.group()
        if c == "\\" and i + 1 < self.n and s[i + 1] in _OPEN_QUOTES:
            # `[\"a\"]`: a stray escape in front of a quote.
            self.rep("escaped_json")
            self.i = i + 1
            return self.string_value(ctx)
        return self.bareword(ctx)

    def string_value(self, ctx: int) -> Any:
        pieces = [self.string(ctx)]
        # "a" + "b": JavaScript string concatenation.
        while True:
            j = self.peek(self.i)
            if j < self.n and self.s[j] == "+":
                k = self.peek(j + 1)
                if k < self.n and self.s[k] in _OPEN_QUOTES:
                    self.rep("string_concatenation")
                    self.i = k
                    pieces.append(self.string(ctx))
                    continue
                if k >= self.n:
                    self.rep("string_concatenation")
                    self.i = k
            return pieces[0] if len(pieces) == 1 else "".join(pieces)

    def enter(self, closer: str) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Fail(f"containers nested deeper than {MAX_DEPTH}", self.i)
        self.stack.append(closer)

    def leave(self) -> None:
        self.depth -= 1
        self.stack.pop()

    def closer_matches_open(self, c: str) -> bool:
        return c in self.stack

    def obj(self) -> dict[str, Any]:
        self.i += 1
        self.enter("}")
        out: dict[str, Any] = {}
        self.members(out)
        return out

    def members(self, out: dict[str, Any]) -> None:
        """Read members into ``out`` until the object's closer (already on the stack)."""
        s = self.s
        n = self.n
        after_comma = False
        while True:
            i = self.skip()
            if i >= n:
                self.truncated = True
                self.rep("missing_closer")
                break
            c = s[i]
            if c == "}":
                if after_comma:
                    self.rep("trailing_comma")
                self.i = i + 1
                break
            if c in _CLOSERS:
                if self.stack.count(c) > 0 and c != "}":
                    # `[{"a": 1]`: the object's closer is missing.
                    self.rep("missing_closer")
                    break
                self.rep("mismatched_closer")
                self.i = i + 1
                break
            if c == ",":
                self.rep("trailing_comma")
                self.i = i + 1
                after_comma = True
                continue
            if s.startswith("...", i):
                self.rep("ellipsis")
                self.i = i + 3
                continue
            if c in "{[":
                if len(self.stack) >= 2 and self.stack[-2] == "]":
                    # `[{"i": 1 {"i": 2}]`: close this object, the array goes on.
                    self.rep("missing_closer")
                    break
                raise _Fail("object key expected", i)
            key = self.key()
            if key is _MISSING:
                continue
            if self.i >= n:
                self.truncated = True  # a dangling key is dropped, but it counts
                self.rep("missing_closer")
                break
            i = self.skip()
            if i >= n:
                self.truncated = True
                self.rep("missing_closer")
                break
            if s[i] == ":":
                i = self.i = i + 1
            elif s[i] in ",}])":
                raise _Fail("colon expected", i)
            else:
                self.rep("missing_colon")
            i = self.skip()
            if i >= n:
                self.truncated = True
                self.rep("missing_closer")
                break
            if s[i] == "," or s[i] in _CLOSERS:
                self.rep("missing_value")  # the key is dropped, not given a made-up value
                after_comma = False
                continue
            value = self.value(_OBJ)
            if value is _MISSING:
                continue
            assert isinstance(key, str)
            if key in out:
                self.rep("duplicate_key")  # the last one wins, as in JSON.parse
            out[key] = value
            i = self.skip()
            if i >= n:
                self.truncated = True
                self.rep("missing_closer")
                break
            c = s[i]
            if c == ",":
                self.i = i + 1
                after_comma = True
                j = self.peek(i + 1)
                if j < n and s[j] == "}":
                    continue
                continue
            after_comma = False
            if c in _CLOSERS:
                continue
            self.rep("missing_comma")
        self.leave()

    def key(self) -> Any:
        s = self.s
        i = self.i
        c = s[i]
        if c in _OPEN_QUOTES:
            return self.string(_KEY)
        m = _UNQUOTED_KEY.match(s, i)
        if not m:
            raise _Fail("object key expected", i)
        word = m.group()
        j = m.end()
        if j >= self.n:
            self.i = j
            self.truncated = True
            return word
        if s[j] == '"' and j + 1 < self.n:
            # {a":"b"}: a key with only its closing quote.
            self.rep("missing_quote")
            self.rep("unquoted_key")
            self.i = j + 1
            return word
        k = self.peek(j)
        if k < self.n and s[k] != ":" and s[k] in _OPEN_QUOTES and _KEY_AHEAD.match(s, k):
            # {"a": 1, COMMENT "b": 2}: a stray word before a real key.
            self.rep("stray_text")
            self.i = k
            return self.key()
        self.rep("unquoted_key")
        self.i = j
        return word

    def arr(self, closer: str) -> Any:
        s = self.s
        n = self.n
        self.i += 1
        self.enter(closer)
        out: list[Any] = []
        after_comma = False
        saw_comma = False
        while True:
            i = self.skip()
            if i >= n:
                self.truncated = True
                self.rep("missing_closer")
                break
            c = s[i]
            if c == closer:
                if after_comma:
                    self.rep("trailing_comma")
                self.i = i + 1
                break
            if c in _CLOSERS:
                if c in self.stack:
                    self.rep("missing_closer")
                    break
                j = self.peek(i + 1)
                self.rep("mismatched_closer")
                self.i = i + 1
                if j < n and s[j] == ",":
                    continue  # a stray closer between elements
                break
            if c == ",":
                if after_comma or not out:
                    self.rep("trailing_comma")  # a doubled or leading comma
                saw_comma = True
                self.i = i + 1
                after_comma = True
                continue
            if s.startswith("...", i):
                self.rep("ellipsis")
                self.i = i + 3
                continue
            if out and not after_comma:
                self.rep("missing_comma")
            value = self.value(_ARR)
            after_comma = False
            if value is _MISSING:
                continue
            i = self.skip()
            if i < n and s[i] == ":" and closer == "]":
                # ["key": "value"]: an object written with array brackets.
                self.rep("mismatched_closer")
                self.i = i + 1
                obj = self.array_as_object(value)
                out.append(obj)
                continue
            out.append(value)
        self.leave()
        if closer == ")" and len(out) == 1 and not saw_comma:
            return out[0]  # (1) is a parenthesized value, not a tuple
        return out

    def array_as_object(self, first_key: Any) -> dict[str, Any]:
        """Read the rest of ``["key": value, ...]`` as an object inside the array."""
        out: dict[str, Any] = {}
        self.enter("}")
        i = self.skip()
        if i >= self.n:
            self.truncated = True
            self.leave()
            return out
        value = self.value(_OBJ)
        if value is not _MISSING:
            out[first_key if isinstance(first_key, str) else str(first_key)] = value
        i = self.skip()
        if i < self.n and self.s[i] == ",":
            self.i = i + 1
        self.members(out)
        return out

    def number(self, ctx: int) -> Any:
        s = self.s
        n = self.n
        i = self.i
        m = _JSON_NUMBER.match(s, i)
        if m and m.end() > i and self.ends_token(m.end(), ctx):
            text = m.group()
            self.i = m.end()
            self.stray_quote_after()
            return self.number_value(text)
        m = _LOOSE_NUMBER.match(s, i)
        end = m.end() if m else i
        if end > i and self.ends_token(end, ctx):
            text = m.group() if m else ""
            if _LEADING_ZERO.match(text):
                # 0789: leading zeros are not a number; keep the digits as written.
                self.rep("unquoted_string")
                self.i = end
                return text
            digits = text.replace("_", "")
            if "_" in text:
                self.rep("invalid_number")
            if digits.startswith("+"):
                digits = digits[1:]
            mantissa = digits.split("e")[0].split("E")[0]
            if not any(ch.isdigit() for ch in mantissa) and len(text) > 2:
                return self.bareword(ctx)  # -e5
            if not any(ch.isdigit() for ch in mantissa):
                self.i = end
                if end >= n:
                    self.truncated = True
                self.rep("invalid_number")
                return _MISSING
            clean = digits
            if clean[-1:] in "eE+-":
                # 2e, 2e-, 2.e: the exponent was cut off.
                clean = clean.rstrip("+-").rstrip("eE").removesuffix(".")
                if end >= n:
                    self.truncated = True
                self.rep("invalid_number")
                self.i = end
                if clean in ("", "-"):
                    return _MISSING
                # 2e → 2.0 (an exponent makes a float); 1.5e → 1.5 (already one)
                return self.number_value(clean if "." in clean else clean + ".0")
            if clean.endswith("."):
                if end >= n:
                    self.truncated = True
                self.rep("invalid_number")
                self.i = end
                return self.number_value(clean + "0")
            self.i = end
            try:
                value = self.number_value(clean)
            except ValueError:
                self.rep("unquoted_string")
                return text
            # Here the text is never a JSON number (the strict match above failed to end
            # the token): .5, +1, 1.e5 are read, and named.
            self.rep("invalid_number")
            return value
        if s.startswith("-Infinity", i) and self.ends_token(i + 9, ctx):
            self.rep("non_finite_number")
            self.i = i + 9
            return float("-inf")
        return self.bareword(ctx)

    def number_value(self, text: str) -> int | float | str:
        """The value of a number written as ``text`` (digits, fraction, exponent)."""
        if "." in text or "e" in text or "E" in text:
            value = float(text)
            if not math.isfinite(value):
                self.rep("non_finite_number")  # 1e999: beyond a double, read as inf
            elif float_underflows(text, value):
                self.rep("float_underflow")  # 1e-999: below a double, read as 0.0
            return value
        try:
            return int(text)
        except ValueError:
            # More digits than Python converts (sys.get_int_max_str_digits): kept as
            # the digits, in a string.
            self.rep("long_integer")
            return text

    def stray_quote_after(self) -> None:
        """``12345",``: a closing quote with no opening one after a value."""
        j = self.i
        if j < self.n and self.s[j] == '"':
            k = self.peek(j + 1)
            if k < self.n and self.s[k] in ",}]":
                self.rep("missing_quote")
                self.i = j + 1

    def ends_token(self, j: int, ctx: int) -> bool:
        """Can a number or literal end right before ``j``?"""
        if j >= self.n:
            return True
        c = self.s[j]
        if c in _WS or c in ",]}):" or c in _OPEN_QUOTES or c in _SPECIAL_WS or c in "{[#":
            return True
        return c == "/" and j + 1 < self.n and self.s[j + 1] in "/*"

    def bareword(self, ctx: int) -> Any:
        s = self.s
        n = self.n
        i = self.i
        m = _KEYWORD.match(s, i)
        if m and self.ends_token(m.end(), ctx):
            word = m.group(1)
            self.i = m.end()
            if word not in ("true", "false", "null"):
                self.rep("non_finite_number" if word in ("NaN", "Infinity") else "python_constant")
            return _KEYWORD_VALUES[word]
        ident = _IDENT.match(s, i)
        if ident:
            j = self.peek(ident.end())
            if j < n and s[j] == "(":
                # NumberLong("2"), callback({...}): a function call around a value.
                self.rep("function_call")
                self.i = j + 1
                self.enter(")")
                k = self.skip()
                inner: Any = _MISSING
                if k < n and s[k] != ")":
                    inner = self.value(_ARR)
                    k = self.skip()
                if k < n and s[k] == ")":
                    self.i = k + 1
                elif k >= n:
                    self.truncated = True
                self.leave()
                return None if inner is _MISSING and k < n else inner
        run = _BAREWORD_TOP if ctx == _TOP else _BAREWORD_IN
        j = i
        while True:
            j = _match_end(run, s, j)
            if j < n and s[j] == "/":
                # A slash starts a comment unless it belongs to a URL (https://).
                if j + 1 < n and s[j + 1] in "/*" and not (j > i and s[j - 1] == ":"):
                    break
                j += 1
                continue
            break
        word = s[i:j].rstrip()
        if not any(ch.isalnum() for ch in word):
            raise _Fail(f"unexpected character {s[i]!r}", i)
        if ctx == _TOP and j >= n and word.endswith('"') and word.count('"') == 1:
            # abc" : a string with only its closing quote.
            self.rep("missing_quote")
            self.rep("unquoted_string")
            self.i = n
            return word[:-1]
        self.i = i + len(word)
        if j >= n and word in _KEYWORD_PREFIXES and ctx != _TOP:
            # `{"a": tr`: a literal cut off; its value is unknown.
            self.truncated = True
            self.i = n
            return _MISSING
        if j >= n and ctx != _TOP:
            self.truncated = True
        self.rep("unquoted_string")
        if j < n and s[j] == '"' and ctx != _TOP:
            k = self.peek(j + 1)
            if k >= n or s[k] in ",}]:":
                # abc", : a string with only its closing quote.
                self.rep("missing_quote")
                self.i = j + 1
        return word

    # -- strings -------------------------------------------------------------------

    def string(self, ctx: int) -> str:
        s = self.s
        n = self.n
        i = self.i
        q = s[i]
        if q == '"':
            closers = '"'
            run = _RUN_DQ
        elif q == "'":
            closers = "'"
            run = _RUN_SQ
            self.rep("single_quote")
        elif q in _DQ_LIKE:
            closers = _DQ_LIKE
            run = _RUN_DQ_LIKE
            self.rep("smart_quote")
        else:
            closers = _SQ_LIKE
            run = _RUN_SQ_LIKE
            self.rep("smart_quote")
        start = i = i + 1
        doubled = False
        if (
            q == '"'
            and i + 2 < n
            and s[i] == '"'
            and (s[i + 1].isalnum() or (s[i + 1] == " " and s[i + 2].isalnum()))
            and not self.ends_string(i + 1, ctx, 0)
        ):
            # ""key"": doubled quotes around a whole string.
            doubled = True
            self.rep("inner_quote")
            start = i = i + 1
        parts: list[str] = []
        # Brackets opened inside the string and not closed: a quote followed by `}`
        # is then more likely content (`"answer is {"a": "b"}, ..."`, `"['"]+"`) --
        # unless the string kept no quote as content yet and the closers end the
        # text or are followed by a delimiter (`"if (x) {"}`). Counted lazily, up to
        # `counted`, only when a quote is followed by a closer.
        inner_open = 0
        counted = start
        kept_quote = False
        while True:
            m = run.match(s, i)
            j = m.end() if m else i
            if j > i:
                chunk = s[i:j]
                if "\\" in chunk:
                    if q == '"' and "\\'" in chunk and _escapes_apostrophe(chunk):
                        self.rep("invalid_escape")  # \' is not JSON; read as an apostrophe
                    chunk = _decode_run(chunk, single=q not in _DQ_LIKE)
                parts.append(chunk)
            i = j
            if i >= n:
                return self.unterminated(parts, start, ctx)
            c = s[i]
            if c == "\\":
                nxt = s[i + 1] if i + 1 < n else ""
                if not nxt:
                    # A backslash at the very end: an escape cut off. Its meaning is
                    # unknown, so it is not part of the value.
                    self.truncated = True
                    i = n
                elif nxt in _SIMPLE_ESCAPES:
                    parts.append(_SIMPLE_ESCAPES[nxt])
                    i += 2
                elif nxt == "u":
                    i = self.unicode_escape(parts, i)
                elif nxt in closers or nxt == "'":
                    # \' is not JSON, but every JS/Python reader means an apostrophe.
                    if q == '"':
                        self.rep("invalid_escape")
                    parts.append(nxt)
                    i += 2
                else:
                    # \d stays \d: the backslash is kept, the next char read as usual.
                    self.rep("invalid_escape")
                    parts.append("\\")
                    i += 1
                continue
            if c in closers:
                if ctx != _TOP:
                    seg = s[counted:i]
                    counted = i
                    inner_open += seg.count("{") + seg.count("[") - seg.count("}") - seg.count("]")
                open_inside = inner_open
                if inner_open > 0 and not kept_quote and self.closers_end(i + 1):
                    open_inside = 0
                if (
                    doubled
                    and i + 1 < n
                    and s[i + 1] == '"'
                    and self.ends_string(i + 2, ctx, open_inside)
                ):
                    self.i = i + 2
                    return "".join(parts)
                if self.ends_string(i + 1, ctx, open_inside):
                    self.i = i + 1
                    return "".join(parts)
                if ctx != _KEY:
                    cut = self.cut_before_quote(parts, start, i, ctx)
                    if cut is not None:
                        return cut
                self.rep("inner_quote")
                kept_quote = True
                parts.append(c)
                i += 1
                continue
            # A raw control character (F13): kept as the character it is.
            self.rep("control_character")
            parts.append(c)
            i += 1

    def cut_before_quote(self, parts: list[str], start: int, i: int, ctx: int) -> str | None:
        """A quote inside a string that opens the next member: close the string earlier.

        ``{"a": "b, "c": 1}`` -> ``"b"`` (cut at the comma);
        ``{"a": "first, b: "second"}`` -> ``"first"`` (cut before ``b:``);
        ``"a + "b"`` -> ``"a"`` then concatenation.
        """
        s = self.s
        k = i - 1
        while k >= start:
            if s[k] in _WS:
                k -= 1
            elif s[k] == "/" and k - 1 > start and s[k - 1] == "*":
                c = s.rfind("/*", start, k - 1)
                if c < 0:
                    break
                k = c - 1
            else:
                break
        if k < start or "\\" in s[k:i]:
            return None
        if s[k] == "+":
            self.rep("missing_quote")
            self.i = k
            return self.trim(parts, i - k)
        if ctx == _TOP:
            return None
        if s[k] == ",":
            ahead = _ITEM_AHEAD if ctx == _ARR else _KEY_AHEAD
            if ahead.match(s, i if ctx == _OBJ else i + 1):
                self.rep("missing_quote")
                self.i = k
                return self.trim(parts, i - k)
            return None
        if ctx == _OBJ and s[k] == ":":
            m = _MEMBER_TAIL.search(s, max(start, i - 80), i)
            if m:
                self.rep("missing_quote")
                self.i = m.start()
                return self.trim(parts, i - m.start())
        return None

    @staticmethod
    def trim(parts: list[str], drop: int) -> str:
        """The decoded string without its last ``drop`` characters (no escapes in them)."""
        value = "".join(parts)
        return value[: len(value) - drop].rstrip()

    def unicode_escape(self, parts: list[str], i: int) -> int:
        s = self.s
        n = self.n
        if _HEX4.match(s, i + 2):
            cp = int(s[i + 2 : i + 6], 16)
            i += 6
            if 0xD800 <= cp < 0xDC00 and s.startswith("\\u", i) and _HEX4.match(s, i + 2):
                low = int(s[i + 2 : i + 6], 16)
                if 0xDC00 <= low < 0xE000:
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
            parts.append(chr(cp))
            return i
        m = _HEX_PREFIX.match(s, i + 2)
        if m and m.end() >= n:
            # \u26 at the very end: an escape cut off.
            self.truncated = True
            return n
        self.rep("invalid_escape")
        parts.append("\\")
        return i + 1

    def closers_end(self, j: int) -> bool:
        """Is ``j`` followed by closers and then a delimiter or the end of the text?"""
        s = self.s
        k = self.peek(j)
        if k >= self.n or s[k] not in _CLOSERS:
            return False
        stop = min(self.n, k + 64)
        while k < stop and (s[k] in _CLOSERS or s[k] in _WS):
            k += 1
        return k >= self.n or s[k] in ",]}"

    def ends_string(self, j: int, ctx: int, inner_open: int) -> bool:
        """Is a quote right before ``j`` the end of a string read in ``ctx``?"""
        s = self.s
        n = self.n
        m = self.peek(j)
        if m >= n:
            return True
        c = s[m]
        if c == "+":
            k = self.peek(m + 1)
            if k >= n or s[k] in _OPEN_QUOTES:
                return True
        if ctx == _TOP:
            return False
        if ctx == _KEY:
            if c == ":" or c in _OPEN_QUOTES or c in ",}]" or c.isdigit() or c in "-{[":
                return True
            return _KEYWORD.match(s, m) is not None
        if c in _CLOSERS:
            return c in self.stack and inner_open <= 0
        if c in _OPEN_QUOTES:
            # The next value follows without a comma -- unless that quote is itself
            # followed by a delimiter, i.e. looks like this string's real end. (Only
            # whitespace is skipped: after an opening quote, `#` or `//` is text.)
            k = _ws_end(s, m + 1)
            return not (k >= n or s[k] in ",}]")
        if ctx == _ARR:
            if c == "," or c == ":" or c.isdigit() or c in "{[":
                return True
            if c == "-":
                return m + 1 < n and s[m + 1].isdigit()  # ["a" -1]
            # ["a" null]: the next item, a literal, without a comma
            word = _KEYWORD.match(s, m)
            k = self.peek(word.end()) if word else -1
            return word is not None and (k >= n or s[k] in ",]")
        # an object member's value
        if c == ",":
            k = self.peek(m + 1)
            return k >= n or s[k] == "}" or _KEY_AHEAD.match(s, k) is not None
        if (c.isalnum() or c in "_$") and "\n" in s[j:m]:
            # "John"\n  lastName: Smith -- the next member, without a comma.
            return _KEY_AHEAD.match(s, m) is not None
        return False

    def unterminated(self, parts: list[str], start: int, ctx: int) -> str:
        """The string ran to the end of the text."""
        s = self.s
        n = self.n
        self.truncated = True
        self.rep("unterminated_string")
        if not self.prefix and ctx != _KEY:
            last = len(s.rstrip()) - 1
            if last >= start and s[last] in ",]}" and self.budget > 0:
                self.budget -= last - start  # the delimiter scan below

                # ["hello, world] ends with a closer: the string's end quote is more
                # likely missing before a delimiter than at the very end.
                for m in _FIRST_DELIM.finditer(s, start, last + 1):
                    d = m.start()
                    if ctx == _OBJ and s[d] in ",\n":
                        k = self.peek(d + 1)
                        if not (k <= last and (s[k] == "}" or _KEY_AHEAD.match(s, k))):
                            continue
                    self.budget -= n - d
                    if self.budget < 0:
                        break
                    self.rep("missing_quote")
                    self.i = d
                    return _decode_plain(s[start:d]).rstrip()
        self.i = n
        return "".join(parts)


def _match_end(pattern: re.Pattern[str], s: str, i: int) -> int:
    m = pattern.match(s, i)  # the patterns used here match the empty string
    return m.end() if m else i


def _ws_end(s: str, i: int) -> int:
    return _match_end(_WS_RUN, s, i)


def _decode_plain(raw: str) -> str:
    """Decode the escapes of a string body with no closing quote in it."""
    out = unescape_json_text(raw)
    return out


# -- strict JSON cut off by the end of the text ----------------------------------------
#
# The common case (a call cut off by max_tokens) read at C speed, with exactly the
# general reader's result: the containers still open are closed, the json scanner
# reads the text so completed (so it is JSON up to what was left out at the end), what
# was left out is checked to go on as JSON (a key, a comma, the start of a string,
# number or literal), and the value cut off at the end is read by the general reader's
# own code (an open string with no escape at its end, as string() reads it: closed
# where the text ends and read with the rest).
# The reading needs no strict read of the whole text first to tell that it is cut-off
# JSON: orjson failing on it costs ~18,000 instructions (raising its error), a third
# of this reading of a short call. The general reader read such text at ~2,000-5,000
# instructions per character (bench/bench_lenient.py).

_JSON_WS: Final = " \t\n\r"
_SCALAR_CHARS: Final = "0123456789+-.eEtrufalsn"
# The start of a JSON number or literal, as far as it goes.
_SCALAR_SO_FAR: Final = re.compile(
    r"-?(?:(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d*)?|(?:0|[1-9]\d*)\.)?"
    r"|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?"
)
# A JSON string's body as far as it goes: no raw control character, only JSON's escapes,
# the last perhaps cut off by the end. (One run per escape: linear, no backtracking.)
_STRING_SO_FAR: Final = re.compile(
    r'[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*'
    r"(?:\\(?:u[0-9a-fA-F]{0,3})?)?"
)
# Every byte but brackets, deleted by bytes.translate at C speed: str.translate with a
# dict looks each distinct character up in Python (~3,000 instructions for a short
# call's text), a regex costs ~180 a character (bench_lenient). Outside strings JSON is
# ASCII: what else is there is left to the json scanner to refuse.
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")
_BRACE: Final = ord("{")
_BRACKET: Final = ord("[")
# (``int in bytes``: ``bytes in bytes`` first tries its argument as an int, and its
# error costs ~2,000 instructions)
_QUOTE: Final = ord('"')
# Where the general reader's look-ahead ends, it may judge a closing quote otherwise
# than JSON does: a key longer than _KEY_AHEAD looks at (200 characters), and, after a
# string holding an unclosed bracket, more closers and white space than closers_end
# looks at. Text with either is left to the general reader.
_LONG_KEY: Final = 200
_LONG_GAP: Final = 64


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        raise ValueError("repeated key")  # the general reader names duplicate_key
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _double(text: str) -> float:
    """A number with a fraction or exponent, read by float() -- unless a double cannot
    hold it (``1e999``, ``1e-999``), which the general reader names."""
    value = float(text)
    if math.isinf(value) or float_underflows(text, value):
        raise ValueError(text)
    return value


# The completed text, read as the general reader reads JSON: integers exact, floats by
# float(), a repeated key or a number beyond a double refused. Its C scanner, called
# without the decoder's Python wrapper (~3,000 instructions): ``(value, end)`` from an
# index. (orjson reads faster, but keeps the last of repeated keys and makes integers
# beyond 64 bits floats: a walk of the value that tells costs ~1,000 instructions a
# value, more than the json scanner spends.)
_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = json.JSONDecoder(
    object_pairs_hook=_no_repeated_keys, parse_constant=_no_constant, parse_float=_double
).scan_once  # type: ignore[attr-defined]


def read_cut_off_json(text: str, prefix: bool = False) -> tuple[Any, tuple[str, ...]] | None:
    """The reading of a JSON object or array cut off by the end of ``text``: the value
    and the repairs (the reading is ``truncated``); or ``None`` where the text is
    something else (or the general reader might read it otherwise than JSON does):
    then the general reader reads it. (A pair, not a LenientOutcome: the ladder makes
    its own result of it, and one more object costs ~3,000 instructions.)"""
    try:
        return _read_cut_off(text, prefix)
    except Exception:  # e.g. `[1]]` (a closer too many), which the general reader reads
        return None


def _split_strings(text: str) -> list[str]:
    """``text`` split at the quotes that open and close strings: the runs between
    strings and the strings' bodies, alternately (an even count: the last string is
    open). For JSON only (between strings, a backslash is an error). Escapes in the
    bodies may be masked: lengths and brackets are kept, the characters not."""
    if '\\"' in text:
        text = _escapes_masked(text)
    return text.split('"')  # C speed: a regex costs ~100 instructions per character


def _escapes_masked(text: str) -> str:
    """``text`` with \\\\ then \\" masked (same length), so that only the quotes that
    delimit strings remain (in JSON)."""
    return text.replace("\\\\", "__").replace('\\"', "__")


def _json_string(body: str) -> bool:
    """Is ``body`` (unmasked) a JSON string's body, with no surrogate? (The C string
    scanner tells.)"""
    if _has_surrogate(body):
        return False
    try:
        # refuses a raw control character, an escape JSON does not have
        _scanstring(body + '"', 0, True)
    except ValueError:
        return False
    return True


def _json_string_start(body: str) -> bool:
    """Is ``body`` the start of a JSON string's body, its last escape perhaps cut off by
    the end? (The regex costs ~10 times what the C string scanner does per character:
    asked only of a key, at most _LONG_KEY long, and of a string the general reader
    reads to its end: an escape cut off, a string perhaps cut back at a delimiter.)"""
    m = _STRING_SO_FAR.match(body)
    return m is not None and m.end() == len(body)


def _has_surrogate(body: str) -> bool:
    """A surrogate, raw or escaped: such strings are left to the general reader. (ASCII
    text, the usual, holds no raw one: told without calling has_raw_surrogate.)"""
    if "\\u" in body and _SURROGATE_ESCAPE.search(body) is not None:
        return True
    return not body.isascii() and has_raw_surrogate(body)


def _comma_ok(gap: str) -> bool:
    """A run between strings, ``gap``, ending in an opener or a comma: if a comma, does
    it follow a value (a string, where nothing but white space is before it)?"""
    return gap[-1] != "," or gap[:-1].rstrip(_JSON_WS)[-1:] not in ("{", "[", ",")


def _read_cut_off(text: str, prefix: bool) -> tuple[Any, tuple[str, ...]] | None:
    parts = _split_strings(text)
    lead = parts[0].lstrip(_JSON_WS)
    if lead[:1] not in ("{", "["):
        return None  # a scalar at the top, or nothing
    n = len(text)
    gaps = parts[0::2]
    open_string = len(parts) % 2 == 0
    outside = "".join(gaps)  # the text outside strings
    if "'" in outside or "/" in outside or "#" in outside:
        # not JSON (a Python literal, a comment): told at once (C speed), where the
        # reading below would find it out at the end
        return None
    # (max() costs ~200 instructions a part: asked only where the answer may be yes)
    if (
        n - len(outside) > _LONG_KEY
        and max(map(len, parts[1::2]), default=0) > _LONG_KEY
        and _long_key(parts, open_string)
    ):
        return None
    if (
        len(outside) >= _LONG_GAP
        and max(map(len, gaps)) >= _LONG_GAP
        and _many_closers_after_bracket(parts)
    ):
        return None
    stack: list[str] = []  # the closers of the containers open at the end
    for c in outside.encode().translate(None, _NOT_BRACKETS):
        if c == _BRACE:
            stack.append("}")
        elif c == _BRACKET:
            stack.append("]")
        else:
            stack.pop()
        if len(stack) > MAX_DEPTH:
            return None
    if not stack:
        return None
    in_object = stack[-1] == "}"
    closers = "".join(stack[::-1])  # reversed(): ~1,000 instructions more (callgrind)
    # What is left out of the completed text, which the json scanner reads (and so
    # checks), is checked here to go on as JSON: text[cut:], and text[tail_at:], a
    # value cut off by the end.
    cut = n
    tail_at = -1
    named: dict[str, None] = {}  # the repairs
    if open_string:
        start = n - len(parts[-1]) - 1
        body = text[start + 1 :]  # unmasked
        if _has_surrogate(body):
            return None
        gap = parts[-2].rstrip(_JSON_WS)
        if in_object and gap[-1:] in ("{", ","):
            # a key cut off: dropped, with its comma
            if len(body) > _LONG_KEY or not _comma_ok(gap) or not _json_string_start(body):
                return None
            cut = start - len(parts[-2]) + len(gap) - (gap[-1] == ",")
            named["unterminated_string"] = None
        elif "\\" not in body[-6:] and (prefix or text.rstrip()[-1:] not in (",", "]", "}")):
            # One run to the end, no escape cut off, not cut back at a delimiter: what
            # string() and unterminated() read, the string closed where the text ends
            # (read, and checked to be JSON, by the json scanner with the rest)
            closers = '"' + closers
            named["unterminated_string"] = None
        elif _json_string_start(body):
            tail_at = start
        else:
            return None
    else:
        trailing = parts[-1]
        body = trailing.rstrip(_JSON_WS)
        end = body[-1:]
        if not body or end == ":":
            # the text ends after a string: a value, or a key without a value (dropped,
            # with its comma)
            key = parts[-2]
            key_at = n - len(trailing) - len(key) - 2
            gap = parts[-3].rstrip(_JSON_WS)
            if in_object and gap[-1:] in ("{", ","):
                if len(key) > _LONG_KEY or body.lstrip(_JSON_WS) not in ("", ":"):
                    return None
                if not _comma_ok(gap):
                    return None
                if not _json_string(text[key_at + 1 : key_at + 1 + len(key)]):
                    return None
                cut = key_at - len(parts[-3]) + len(gap) - (gap[-1] == ",")
            elif end == ":":
                return None
        elif end == ",":
            if not _comma_ok(body):
                return None
            cut = n - len(trailing) + len(body) - 1
        elif end not in ("{", "[", "}", "]") and body is trailing:
            tail_at = n - len(trailing) + len(trailing.rstrip(_SCALAR_CHARS))
            if _SCALAR_SO_FAR.fullmatch(text, tail_at) is None:
                return None
    completed = text[:tail_at] + "null" + closers if tail_at >= 0 else text[:cut] + closers
    try:
        value, stop = _SCAN(completed, len(parts[0]) - len(lead))  # where the value starts
    except (StopIteration, ValueError, RecursionError):
        return None  # not JSON, a repeated key, or a number beyond a double
    if stop != len(completed):
        return None
    if tail_at >= 0:
        reader = _Parser(text, prefix)
        reader.i = tail_at
        reader.stack = stack
        reader.depth = len(stack)
        tail = reader.value(_OBJ if in_object else _ARR)
        if reader.i < n:
            return None  # a string cut back at a delimiter: the text goes on from there
        named = reader.repairs
        inner = value  # the innermost open container: the last value at each level
        for _ in range(len(stack) - 1):
            inner = inner[-1] if type(inner) is list else next(reversed(inner.values()))
        at = len(inner) - 1 if type(inner) is list else next(reversed(inner))
        if tail is _MISSING:
            del inner[at]
        else:
            inner[at] = tail
    named["missing_closer"] = None
    return value, tuple(named)


# Every byte but quotes and brackets, deleted as _NOT_BRACKETS is (see there).
_NOT_QUOTES_OR_BRACKETS: Final = bytes(b for b in range(256) if b not in b'"[]{}')
# A key longer than _LONG_KEY in text whose strings hold no quote (escaped ones
# masked): a quote, more characters that are not quotes, a quote, a colon. (It may
# also take a gap between two strings for one, and step aside where it need not.)
_LONG_KEY_AT: Final = re.compile(rf'"[^"]{{{_LONG_KEY + 1},}}"[ \t\n\r]*:')
# Rounds of taking matched pairs of brackets off before read_cut_string steps aside:
# a round takes one level of each kind (tool arguments are seldom nested deeper).
_PAIR_ROUNDS: Final = 8
_CLOSERS_OF: Final = bytes.maketrans(b"{[", b"}]")
# The closers of the open containers of most calls cut off (nested up to four deep),
# by the brackets that opened them: a lookup, where taking pairs off and reversing
# cost a short call ~3,000 instructions (callgrind, the Anthropic cut-off capture).
_FEW_CLOSERS: Final = {
    bytes(openers): bytes(openers[::-1]).translate(_CLOSERS_OF).decode()
    for depth in range(1, 5)
    for openers in itertools.product(b"{[", repeat=depth)
}
#: The repairs of a reading by ``read_cut_string``.
CUT_STRING_REPAIRS: Final = ("unterminated_string", "missing_closer")


def read_cut_string(text: str) -> Any:
    """``read_cut_off_json(text)``'s value where ``text`` is JSON cut off inside a
    string (a call cut off in a long string value, the usual cut, or in a key, which
    is dropped), no string before that one holds a bracket, and no string a
    surrogate; its repairs are always ``CUT_STRING_REPAIRS``. ``None`` where the text
    is anything else, opens with white space, or ends with a backtick (a closing fence
    is for the ladder's other steps): then ``read_cut_off_json`` reads it. Never
    raises. (Text that opens with neither ``{`` nor ``[`` is not asked: the json
    scanner would refuse it only at the end.)

    read_cut_off_json's reading of such text, less what cannot apply to it: the
    brackets outside strings are those left once each string's pair of quotes is
    gone (``bytes.replace``), and the json scanner reads the text closed, as
    read_cut_off_json does, so checking the guess. No split of the text into its
    strings (~350 instructions a string) and no checks that need them: the ladder
    reads the Anthropic capture cut off in a string in 34,300 instructions, not
    52,900 (bench_lenient; the json scanner is 10,400 of them, RepairResult 5,400).
    """
    try:
        # Most calls hold no escape (the Anthropic cut-off capture's newlines are white
        # space between values): the steps for escapes are skipped for them (with the
        # white space before the string taken off once, 31,600 -> 26,900 instructions
        # of that call's reading, callgrind).
        slashed = "\\" in text
        # read_cut_off_json's conditions for closing a string value where the text
        # ends (an escape cut off, or a string perhaps cut back at a delimiter, it
        # reads otherwise; the six characters may reach before the string: no matter)
        if (slashed and "\\" in text[-6:]) or text.rstrip()[-1:] in (",", "]", "}", "`"):
            return None
        masked = text  # (where it matters, with its escapes masked: _split_strings)
        at = text.rfind('"')  # where the string cut off opens, if the text is cut in one
        if slashed and text[at - 1 : at] == "\\":  # an escaped quote perhaps: masking tells
            masked = _escapes_masked(text)
            at = masked.rfind('"')
        if at < 0:
            return None
        # the JSON before the string, its white space left out (rstrip gives the text
        # itself back where there is none)
        kept = masked[:at].rstrip(_JSON_WS)
        # A string follows a colon (a value), an opening bracket or a comma. Told
        # before the work below, where the text is cut elsewhere (after a string,
        # whose closing quote is then the last).
        before = kept[-1:]
        if before != ":" and before != "," and before != "[" and before != "{":
            return None
        if slashed and masked is text and '\\"' in text:
            masked = _escapes_masked(text)  # (only now, where it did not step aside)
            kept = masked[: len(kept)]
        if (slashed and "\\u" in text and _SURROGATE_ESCAPE.search(text)) or (
            not text.isascii() and has_raw_surrogate(text)
        ):
            return None  # (read_cut_off_json leaves such a string to the general reader)
        outside = kept.encode().translate(None, _NOT_QUOTES_OR_BRACKETS).replace(b'""', b"")
        if _QUOTE in outside:
            # The quote at ``at`` closes a string (the text is cut elsewhere), or a
            # string before holds a bracket. (Where neither, each string before leaves
            # a pair of quotes; where a string holds one, the first such keeps its
            # opening quote, a bracket after it.)
            return None
        # The containers open at the end: the brackets left once matched pairs are
        # gone, innermost first (a Python step per bracket, as read_cut_off_json
        # takes, costs ~700 instructions: 76,000 for the 105 of bench_lenient's
        # nested 2 KB call, where these rounds cost 12,000; callgrind). A round takes
        # at most two levels off (one of each kind), so the text is nested at most as
        # deep as what is left and two levels a round.
        closers = _FEW_CLOSERS.get(outside)  # (no pair to take off: the usual)
        if closers is None:
            rounds = 0
            while True:
                size = len(outside)
                outside = outside.replace(b"{}", b"").replace(b"[]", b"")
                if len(outside) == size:
                    break
                rounds += 1
                if rounds > _PAIR_ROUNDS:
                    return None
            # (a closer left, one too many or of the wrong kind: the scanner refuses it)
            if not outside or len(outside) + 2 * rounds > MAX_DEPTH:
                return None
            closers = outside[::-1].translate(_CLOSERS_OF).decode()
        if at > _LONG_KEY + 2 and _LONG_KEY_AT.search(masked, 0, at) is not None:
            return None  # a key longer than the general reader's look-ahead (_long_key)
        if before == "{" or (before == "," and outside[-1] == _BRACE):
            # a key cut off: dropped with its comma, where the comma follows a value
            # and the key is a JSON string as far as it goes (as read_cut_off_json)
            body = text[at + 1 :]
            if len(body) > _LONG_KEY or not _json_string_start(body):
                return None
            if before == ",":
                kept = kept[:-1]
                if kept.rstrip(_JSON_WS)[-1:] in ("{", "[", ","):
                    return None
            completed = text[: len(kept)] + closers
        else:
            completed = text + '"' + closers
        value, stop = _SCAN(completed, 0)  # JSON, else it raises
        return value if stop == len(completed) else None
    except Exception:  # not JSON: read_cut_off_json decides
        return None


def _long_key(parts: list[str], open_string: bool) -> bool:
    """Is a string longer than _LONG_KEY followed by a colon?"""
    end = len(parts) - 1 if open_string else len(parts)
    for k in range(1, end - 1, 2):
        if len(parts[k]) > _LONG_KEY and parts[k + 1].lstrip(_JSON_WS)[:1] == ":":
            return True
    return False


def _many_closers_after_bracket(parts: list[str]) -> bool:
    """Is a string holding more ``{[`` than ``}]`` followed by _LONG_GAP characters or
    more before the next string, starting with a closer?"""
    for k in range(2, len(parts), 2):
        run = parts[k]
        if len(run) >= _LONG_GAP and run.lstrip(_JSON_WS)[:1] in ("}", "]"):
            body = parts[k - 1]
            if body.count("{") + body.count("[") > body.count("}") + body.count("]"):
                return True
    return False

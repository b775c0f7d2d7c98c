"""Python literals (F12): ``{'a': True, 'b': None}`` read from their syntax tree.

Never ``eval``. Only the literal forms are read -- constants, signed numbers, lists,
tuples and dicts -- one node at a time by :func:`json_from_python`, so nothing runs.
The whole text is still parsed, so the step is tried only on text that looks like
Python, below a size limit, with every exception (including ``RecursionError`` and
``MemoryError``) caught.

A value without a faithful JSON form (a set, whose order Python does not keep, bytes,
a complex number, ``...``, any other expression) makes :func:`json_from_python` raise
:class:`NoJsonForm` (F30). Five changes are named instead: a float beyond a double
(``1e999``) is read as infinity (``non_finite_number``), a nonzero one below it
(``1e-999``) as zero (``float_underflow``); of repeated keys the last one wins
(``duplicate_key``); an integer with more digits than Python converts (its int digit
limit, 4,300 by default) is kept as its digits in a string (``long_integer``); an
integer dict key is written as its digits (``non_string_key``: JSON keys are strings,
so ``{1: 'a'}`` and ``{'1': 'a'}`` become one).

A tuple is read as an array without a name: it is Python's other spelling of an
ordered sequence, and JSON's array is the one form of it, items and order kept (as
``True`` is Python's spelling of ``true``). Where the text should have been JSON, the
ladder's ``python_literal`` names the Python syntax; in a pythonic call Python is the
format itself.
"""

from __future__ import annotations

import ast
import io
import math
import re
import sys
import tokenize
import warnings
from collections.abc import Mapping, MutableMapping
from typing import Any, Final

from .numbers import float_underflows
from .strict import count_in_strings

__all__ = [
    "MAX_PYTHON_LITERAL_CHARS",
    "NoJsonForm",
    "ParsedPython",
    "json_from_python",
    "looks_pythonish",
    "parse_python",
    "parse_python_literal",
]

#: Larger texts skip this step (the lenient parser reads Python style too).
MAX_PYTHON_LITERAL_CHARS: Final = 4_000_000
#: Containers nested deeper than this are declined.
_MAX_DEPTH: Final = 500

# A single quote or True/False/None where a value or key starts: Python syntax, not a
# quote or a word inside a JSON string ("it's True").
_PYTHONISH: Final = re.compile(
    r"(?:\A|[\[{(,:])[ \t\r\n]*(?:[uUrR]{0,2}'|(?:True|False|None)(?![\w$]))"
)
_LINE_END: Final = re.compile(rb"\r\n?|\n")
# Where a trailing comma may be: only then are the gaps in containers looked at.
_MAYBE_TRAILING_COMMA: Final = re.compile(r",\s*[\]})]")
# An escape that writes a "#" into a string without one in the text (when the
# backslash is not itself escaped).
_HASH_ESCAPE: Final = re.compile(
    r"\\(?:x23|u0023|U00000023|043|43(?![0-7])|N\{NUMBER SIGN\})", re.IGNORECASE
)
_COMMENT: Final = re.compile(rb"#[^\r\n]*")
# JSON-only escape that Python would keep with its backslash ("\/" means "/").
_JSON_ONLY_ESCAPE: Final = "\\/"
_CLOSER: Final = {"{": "}", "[": "]", "(": ")"}


class NoJsonForm(ValueError):
    """A Python value with no faithful JSON form; the message says which."""


def looks_pythonish(text: str) -> bool:
    if len(text) > MAX_PYTHON_LITERAL_CHARS:
        return False
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[(\"'" or _JSON_ONLY_ESCAPE in text:
        return False
    closer = _CLOSER.get(stripped[0])
    if closer is not None and stripped[-1] != closer:
        return False  # cut off: parsing would read it all only to fail
    return stripped[0] == "(" or _PYTHONISH.search(text) is not None


def parse_python_literal(text: str) -> tuple[bool, Any, tuple[str, ...]]:
    """``(True, value, repairs)`` when ``text`` is one Python literal with a JSON form."""
    stripped = text.strip()
    try:
        parsed = parse_python(stripped)
        body = parsed.body
        if isinstance(body, ast.Tuple) and not stripped.startswith("("):
            return False, None, ()  # `1, 2` is two values, not a tuple
        repairs: dict[str, None] = {}
        converter = _Converter(repairs, parsed)
        value = converter.value(body, 0)
        if not converter.python_syntax and (
            parsed.long_integers or not _single_quoted(parsed, converter.strings)
        ):
            # JSON with other faults (a trailing comma, a `#` comment) that Python
            # happens to accept: the lenient parser names them.
            return False, None, ()
        if _maybe_lax(stripped, value):
            # Python, but JSON would not have them either: named as the lenient
            # parser names them
            for name in _laxities(parsed):
                repairs[name] = None
        return True, value, tuple(repairs)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return False, None, ()
    except Exception:  # this step must never raise
        return False, None, ()


class ParsedPython:
    """One Python expression parsed: its tree (``body``), the text its positions refer
    to (``source``), and the integers too long for Python to read, each replaced by a
    name and mapped to its digits (``long_integers``)."""

    __slots__ = ("_data", "_lines", "body", "long_integers", "source")

    def __init__(self, body: ast.expr, source: str, long_integers: Mapping[str, str]) -> None:
        self.body = body
        self.source = source
        self.long_integers = long_integers
        self._data = b""
        self._lines: list[int] = []

    def offset(self, line: int, column: int) -> int:
        """The UTF-8 offset in ``data`` of a node position (line from 1, UTF-8 column)."""
        if not self._lines:
            self._data = self.source.encode()
            self._lines = [0]
            self._lines.extend(m.end() for m in _LINE_END.finditer(self._data))
        return self._lines[line - 1] + column

    @property
    def data(self) -> bytes:
        """``source`` in UTF-8 (node columns count its bytes)."""
        self.offset(1, 0)
        return self._data

    def span(self, node: ast.expr) -> tuple[int, int]:
        """Where ``node`` starts and ends in ``data``."""
        end_line = node.end_lineno if node.end_lineno is not None else node.lineno
        end_column = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return self.offset(node.lineno, node.col_offset), self.offset(end_line, end_column)

    def segment(self, node: ast.expr) -> str:
        start, end = self.span(node)
        return self.data[start:end].decode(errors="replace")


def parse_python(source: str) -> ParsedPython:
    """One Python expression, parsed; integers too long for Python to read are
    replaced by names (see :class:`ParsedPython`). Raises SyntaxError."""
    with warnings.catch_warnings():
        # "invalid escape sequence" warnings: the backslash is kept, as intended.
        warnings.simplefilter("ignore")
        try:
            return ParsedPython(ast.parse(source, mode="eval").body, source, {})
        except SyntaxError as exc:
            if "integer string conversion" not in str(exc.msg):
                raise
        long_integers: dict[str, str] = {}
        tokens: list[tuple[int, str]] = []
        limit = sys.get_int_max_str_digits()
        try:
            for token in tokenize.generate_tokens(io.StringIO(source).readline):
                text = token.string
                if token.type == tokenize.NUMBER and text.isdigit() and len(text) > limit:
                    name = f"_long_integer_{len(long_integers)}"
                    long_integers[name] = text
                    tokens.append((tokenize.NAME, name))
                else:
                    tokens.append((token.type, text))
        except tokenize.TokenError as exc:
            raise SyntaxError(str(exc)) from None
        rewritten = tokenize.untokenize(tokens)
        return ParsedPython(ast.parse(rewritten, mode="eval").body, rewritten, long_integers)


def json_from_python(
    node: ast.expr, repairs: MutableMapping[str, None], parsed: ParsedPython
) -> Any:
    """The JSON value of the Python literal ``node``, a part of ``parsed``; names what
    it changed in ``repairs`` (an ordered set). Raises :class:`NoJsonForm` (see the
    module doc)."""
    return _Converter(repairs, parsed).value(node, 0)


class _Converter:
    __slots__ = ("parsed", "python_syntax", "repairs", "strings")

    def __init__(self, repairs: MutableMapping[str, None], parsed: ParsedPython):
        self.repairs = repairs
        self.parsed = parsed
        self.python_syntax = False  # True/False/None or a tuple was read
        # Where strings start (line, UTF-8 column), until python_syntax is known.
        self.strings: list[tuple[int, int]] = []

    def value(self, node: ast.expr, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise NoJsonForm("nested too deeply")
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, str):
                if not self.python_syntax:
                    self.strings.append((node.lineno, node.col_offset))
                return value
            if value is None or isinstance(value, bool):
                self.python_syntax = True
                return value
            if isinstance(value, int):
                return self.integer(value)
            if isinstance(value, float):
                return self.double(value, node)
            raise NoJsonForm(f"a Python {type(value).__name__} has no JSON form")
        if isinstance(node, ast.List | ast.Tuple):
            if isinstance(node, ast.Tuple):
                self.python_syntax = True
            return [self.value(item, depth + 1) for item in node.elts]
        if isinstance(node, ast.Dict):
            out: dict[str, Any] = {}
            for key_node, value_node in zip(node.keys, node.values, strict=True):
                key = self.key(key_node)
                if key in out:
                    self.repairs["duplicate_key"] = None  # the last one wins, as in Python
                out[key] = self.value(value_node, depth + 1)
            return out
        number = self.number(node)
        if isinstance(number, int):
            return self.integer(number)
        if number is not None:
            return number
        raise NoJsonForm(f"{type(node).__name__.lower()} is not a literal with a JSON form")

    def integer(self, value: int) -> int | str:
        """``0xfff…``: written in hex, octal or binary, an integer can be beyond the
        digits Python writes in decimal, JSON's one base; it is kept as hexadecimal
        text (``long_integer``)."""
        if value.bit_length() > 3 * sys.get_int_max_str_digits():  # cheap bound first
            try:
                str(value)
            except ValueError:
                self.repairs["long_integer"] = None
                return hex(value)
        return value

    def double(self, value: float, node: ast.expr) -> float:
        """A float literal's value, naming what a double could not keep."""
        if not math.isfinite(value):
            self.repairs["non_finite_number"] = None  # 1e999: beyond a double, read as inf
        elif value == 0.0 and float_underflows(self.parsed.segment(node), value):
            self.repairs["float_underflow"] = None  # 1e-999: below a double, read as 0.0
        return value

    def number(self, node: ast.expr) -> int | float | str | None:
        """An integer too long to read (as its digits), or a signed number (``-1``,
        ``+2.5``; ``-True`` is not one)."""
        long_integers = self.parsed.long_integers
        if isinstance(node, ast.Name) and node.id in long_integers:
            self.repairs["long_integer"] = None
            return long_integers[node.id]
        if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd)):
            return None
        operand = node.operand
        sign = "-" if isinstance(node.op, ast.USub) else ""
        if isinstance(operand, ast.Name) and operand.id in long_integers:
            self.repairs["long_integer"] = None
            return sign + long_integers[operand.id]
        if not isinstance(operand, ast.Constant):
            return None
        number = operand.value
        if isinstance(number, bool) or not isinstance(number, int | float):
            return None  # -True, -'a', -1j
        if isinstance(number, float):
            number = self.double(number, operand)
        return -number if sign else number

    def key(self, node: ast.expr | None) -> str:
        """A dict key as JSON writes it: a string, or an integer's digits."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return str(self.value(node, 0))
        number: int | float | str | None = None
        if isinstance(node, ast.Constant) and type(node.value) is int:
            number = node.value
        elif node is not None:
            number = self.number(node)
        if isinstance(number, int | str):
            self.repairs["non_string_key"] = None  # {1: 'a'}: the key becomes "1"
            return str(number)
        raise NoJsonForm("a dict key that is not a string or an integer")


def _single_quoted(parsed: ParsedPython, starts: list[tuple[int, int]]) -> bool:
    """Does one of the strings starting at ``starts`` (line, UTF-8 column) open with
    a single quote?"""
    if not starts:
        return False
    data = parsed.data
    for line, column in starts:
        at = parsed.offset(line, column)
        while data[at : at + 1].isalpha():
            at += 1  # a prefix: u'', r''
        if data[at : at + 1] == b"'":
            return True
    return False


def _maybe_lax(text: str, value: Any) -> bool:
    """May ``text``, read as ``value``, hold a trailing comma or a comment? (A cheap
    test: when every ``#`` of the text is in the value's strings, none starts a
    comment.)"""
    if _MAYBE_TRAILING_COMMA.search(text):
        return True
    hashes = text.count("#")
    if not hashes:
        return False
    return _may_escape_a_hash(text) or hashes > count_in_strings(value, "#")


def _may_escape_a_hash(text: str) -> bool:
    for m in _HASH_ESCAPE.finditer(text):
        start = at = m.start()
        while at and text[at - 1] == "\\":
            at -= 1  # each run of backslashes is walked once: it ends at its match
        if (start - at) % 2 == 0:
            return True
    return False


def _laxities(parsed: ParsedPython) -> list[str]:
    """What Python accepts and JSON does not, beyond Python's spellings of values:
    ``trailing_comma`` (after the last item; a one-item tuple needs its comma) and
    ``comment``. Found in the gaps between a container's brackets and its items, which
    hold no strings."""
    data = parsed.data
    found: dict[str, None] = {}
    body_start, body_end = parsed.span(parsed.body)
    if b"#" in data[:body_start] or b"#" in data[body_end:]:
        found["comment"] = None
    stack: list[ast.expr] = [parsed.body]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.List | ast.Tuple):
            items: list[ast.expr] = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = [
                part
                for pair in zip(node.keys, node.values, strict=True)
                for part in pair
                if part is not None
            ]
        else:
            continue
        stack.extend(items)
        start, end = parsed.span(node)
        if isinstance(node, ast.Tuple) and data[start : start + 1] != b"(":
            continue  # a tuple without parentheses is declined anyway
        at = start + 1
        gap = b""
        for item in items:
            item_start, item_end = parsed.span(item)
            gap = data[at:item_start]
            if b"#" in gap:
                found["comment"] = None
            at = item_end
        gap = data[at : end - 1]
        if b"#" in gap:
            found["comment"] = None
            gap = _COMMENT.sub(b"", gap)
        if b"," in gap and items and not (isinstance(node, ast.Tuple) and len(items) == 1):
            found["trailing_comma"] = None
    return list(found)

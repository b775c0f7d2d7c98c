"""Python literals (F12): ``{'a': True, 'b': None}`` read from their syntax tree.

Never ``eval``. Only the literal forms are read -- constants, signed numbers, lists,
tuples and dicts -- one node at a time by :func:`json_from_python`, so nothing runs.
The whole text is still parsed, so the step is tried only on text that looks like
Python, below a size limit, with every exception (including ``RecursionError`` and
``MemoryError``) caught.

A value without a faithful JSON form (a set, whose order Python does not keep, bytes,
a complex number, ``...``, any other expression) makes :func:`json_from_python` raise
:class:`NoJsonForm` (F30). Three changes are named instead: a float beyond a double
(``1e999``) is read as infinity (``non_finite_number``); of repeated keys the last one
wins (``duplicate_key``); an integer with more digits than Python converts (its int
digit limit, 4,300 by default) is kept as its digits in a string (``long_integer``).
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

__all__ = [
    "MAX_PYTHON_LITERAL_CHARS",
    "NoJsonForm",
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
# JSON-only escape that Python would keep with its backslash ("\/" means "/").
_JSON_ONLY_ESCAPE: Final = "\\/"


class NoJsonForm(ValueError):
    """A Python value with no faithful JSON form; the message says which."""


def looks_pythonish(text: str) -> bool:
    stripped = text.lstrip()
    if not stripped or len(text) > MAX_PYTHON_LITERAL_CHARS:
        return False
    if _JSON_ONLY_ESCAPE in text:
        return False
    if stripped[0] not in "{[(\"'":
        return False
    closer = {"{": "}", "[": "]", "(": ")"}.get(stripped[0])
    if closer is not None and not stripped.rstrip().endswith(closer):
        return False  # cut off: parsing would read it all only to fail
    return stripped[0] == "(" or _PYTHONISH.search(text) is not None


def parse_python_literal(text: str) -> tuple[bool, Any, tuple[str, ...]]:
    """``(True, value, repairs)`` when ``text`` is one Python literal with a JSON form."""
    stripped = text.strip()
    try:
        body, long_integers = parse_python(stripped)
        if isinstance(body, ast.Tuple) and not stripped.startswith("("):
            return False, None, ()  # `1, 2` is two values, not a tuple
        repairs: dict[str, None] = {}
        converter = _Converter(repairs, long_integers)
        value = converter.value(body, 0)
        if not converter.python_syntax and (
            long_integers or not _single_quoted(stripped, converter.strings)
        ):
            # JSON with other faults (a trailing comma, a `#` comment) that Python
            # happens to accept: the lenient parser names them.
            return False, None, ()
        return True, value, tuple(repairs)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return False, None, ()
    except Exception:  # this step must never raise
        return False, None, ()


def parse_python(source: str) -> tuple[ast.expr, dict[str, str]]:
    """The syntax tree of one Python expression, and the integers too long for Python
    to read: each is replaced by a name, mapped to its digits. Raises SyntaxError."""
    with warnings.catch_warnings():
        # "invalid escape sequence" warnings: the backslash is kept, as intended.
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source, mode="eval").body, {}
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
        return ast.parse(tokenize.untokenize(tokens), mode="eval").body, long_integers


def json_from_python(
    node: ast.expr, repairs: MutableMapping[str, None], long_integers: Mapping[str, str] = {}
) -> Any:
    """The JSON value of the Python literal ``node``; names what it changed in
    ``repairs`` (an ordered set). ``long_integers``: from :func:`parse_python`.
    Raises :class:`NoJsonForm` (see the module doc)."""
    return _Converter(repairs, long_integers).value(node, 0)


class _Converter:
    __slots__ = ("long_integers", "python_syntax", "repairs", "strings")

    def __init__(self, repairs: MutableMapping[str, None], long_integers: Mapping[str, str]):
        self.repairs = repairs
        self.long_integers = long_integers
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
                return value
            if isinstance(value, float):
                return self.finite(value)
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
        if number is not None:
            return self.finite(number) if isinstance(number, float) else number
        raise NoJsonForm(f"{type(node).__name__.lower()} is not a literal with a JSON form")

    def finite(self, value: float) -> float:
        if not math.isfinite(value):
            self.repairs["non_finite_number"] = None  # 1e999: beyond a double, read as inf
        return value

    def number(self, node: ast.expr) -> int | float | str | None:
        """An integer too long to read (as its digits), or a signed number (``-1``,
        ``+2.5``; ``-True`` is not one)."""
        if isinstance(node, ast.Name) and node.id in self.long_integers:
            self.repairs["long_integer"] = None
            return self.long_integers[node.id]
        if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd)):
            return None
        operand = node.operand
        sign = "-" if isinstance(node.op, ast.USub) else ""
        if isinstance(operand, ast.Name) and operand.id in self.long_integers:
            self.repairs["long_integer"] = None
            return sign + self.long_integers[operand.id]
        if not isinstance(operand, ast.Constant):
            return None
        number = operand.value
        if isinstance(number, bool) or not isinstance(number, int | float):
            return None  # -True, -'a', -1j
        return -number if sign else number

    def key(self, node: ast.expr | None) -> str:
        """A dict key as JSON writes it: a string, or an integer's digits."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return str(self.value(node, 0))
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return str(node.value)
        number = self.number(node) if node is not None else None
        if isinstance(number, int | str):
            return str(number)
        raise NoJsonForm("a dict key that is not a string or an integer")


def _single_quoted(source: str, starts: list[tuple[int, int]]) -> bool:
    """Does one of the strings starting at ``starts`` (line, UTF-8 column) in
    ``source`` open with a single quote?"""
    if not starts:
        return False
    data = source.encode()
    lines = [0]
    lines.extend(m.end() for m in _LINE_END.finditer(data))
    for line, column in starts:
        at = lines[line - 1] + column
        while data[at : at + 1].isalpha():
            at += 1  # a prefix: u'', r''
        if data[at : at + 1] == b"'":
            return True
    return False

"""Pythonic calls: ``[f(a=1, b="x"), g()]`` (Llama 3.2 small, Llama 4, OLMo 3, LFM2).

Bare at the start of the output (or after reasoning), or wrapped: Llama 4
``<|python_start|>…<|python_end|>``, LFM2 ``<|tool_call_start|>…<|tool_call_end|>``.
A bracket/quote scanner finds where each call ends in O(delta); each call is read
with ``ast`` once, when it closes, and reported then. Python is the format here, so
its spellings (tuples, trailing commas, comments) are not repairs; a value that changes
on its way to JSON is named (see :mod:`toolwire.repair.pyliteral`).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from toolwire.names import resolve_tool_name
from toolwire.repair.pyliteral import NoJsonForm, ParsedPython, json_from_python, parse_python
from toolwire.textformats.scanner import NEED, Grammar, TextScanner, _Need

_WRAPPERS = {"<|python_start|>": "<|python_end|>", "<|tool_call_start|>": "<|tool_call_end|>"}
_BARE = re.compile(r"[ \t\r\n]{0,64}(?=\[[ \t\r\n]{0,16}[A-Za-z_][\w.]{0,128}[ \t\r\n]{0,8}\()")
# a list of calls in prose (F31): its first callee, and what could still become one
_LIST_HEAD = re.compile(r"\[[ \t\r\n]{0,16}([A-Za-z_][\w.]{0,128})[ \t\r\n]{0,8}\(")
_LIST_HEAD_PREFIX = re.compile(r"\[[ \t\r\n]{0,16}(?:[A-Za-z_][\w.]{0,128}[ \t\r\n]{0,8})?\Z")
_STRUCTURE = re.compile(r"[\[\](){}'\"]")
_OPENERS = {")": "(", "]": "[", "}": "{"}
_QUOTE_STOP = {"'": re.compile(r"[\\']"), '"': re.compile(r'[\\"]')}
_NAME = re.compile(r"[\s,]*([A-Za-z_][\w.]*)")
_CONSTANTS = {"true": True, "false": False, "null": None, "none": None}


def _literal(node: ast.expr, repairs: dict[str, None], parsed: ParsedPython) -> Any:
    """An argument's JSON value; what it took is named in ``repairs`` (F30)."""
    try:
        return json_from_python(node, repairs, parsed)
    except (NoJsonForm, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.Name) and node.id.lower() in _CONSTANTS:
        repairs["json_constant"] = None  # f(a=true): JSON's spelling in a Python call
        return _CONSTANTS[node.id.lower()]
    # A set, bytes, a complex number or an expression: no JSON value. Its source,
    # for validation to judge.
    repairs["python_source"] = None
    return ast.unparse(node)


def read_call(text: str) -> tuple[str | None, dict[str, Any] | str | None, tuple[str, ...]]:
    """``f(a=1)`` → ("f", {"a": 1}, repairs); unreadable arguments come back as raw text."""
    source = text.strip().lstrip(",").strip()
    guess = _NAME.match(source)
    try:
        parsed = parse_python(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return (guess.group(1) if guess else None), source, ()
    node = parsed.body
    if not isinstance(node, ast.Call) or node.args:
        return (guess.group(1) if guess else None), source, ()
    name = ast.unparse(node.func)
    args: dict[str, Any] = {}
    repairs: dict[str, None] = {}
    for kw in node.keywords:
        if kw.arg is None:
            return name, source, ()  # **kwargs
        args[kw.arg] = _literal(kw.value, repairs, parsed)
    return name, args, tuple(repairs)


class _CallList:
    """Scans a Python list of calls (text starts after ``[``). ``close``: the wrapper's
    end marker, if any."""

    def __init__(self, sc: TextScanner, close: str = "") -> None:
        self.sc = sc
        self.close = close
        self.open = ["["]  # brackets open so far, outermost first
        self.quote = ""
        self.escape = False
        self.parts: list[str] = []

    def _flush(self, pending: str) -> None:
        if pending.strip(" \t\r\n,"):
            self._call(pending)

    def _call(self, source: str) -> None:
        name, args, repairs = read_call(source)
        if isinstance(args, str):  # a syntax error: invalid, never a cut-off
            self.sc.whole_call(name, args, unreadable="not a readable Python call")
        else:
            self.sc.whole_call(name, args, repairs)

    def step(self) -> bool | _Need:
        sc = self.sc
        text, pos = sc._buf, sc._pos  # read in place: the list ends where it closes (F22)
        n = len(text)
        i = start = pos
        if self.escape and i < n:
            self.escape = False
            i += 1
        stack = self.open
        while i < n:
            if self.quote:
                m = _QUOTE_STOP[self.quote].search(text, i)
                if m is None:
                    break
                j = m.start()
                if text[j] == "\\":
                    if j + 1 >= n:
                        self.escape = True
                        break
                    i = j + 2
                else:
                    self.quote = ""
                    i = j + 1
                continue
            m = _STRUCTURE.search(text, i)
            if m is None:
                break
            j = m.start()
            c = text[j]
            i = j + 1
            if c == "'" or c == '"':
                self.quote = c
            elif c in "([{":
                stack.append(c)
            else:
                opener = _OPENERS[c]
                if stack[-1] == opener:
                    stack.pop()
                elif opener in stack:
                    # a closer that skips open brackets (a syntax error, not a cut-off):
                    # it closes its own opener, and the call is read as unreadable
                    del stack[len(stack) - 1 - stack[::-1].index(opener) :]
                else:
                    continue  # a closer with no opener: the call stays unreadable
                if len(stack) == 1 and c == ")":
                    self.parts.append(text[start:i])
                    start = i
                    source = "".join(self.parts)
                    self.parts = []
                    self._call(source)
                elif not stack:
                    self.parts.append(text[start:j])
                    self._flush("".join(self.parts))
                    sc._pos = i
                    return True  # the list closed
        self.parts.append(text[start:])
        sc._pos = n
        if not sc._eof:
            return NEED
        rest = "".join(self.parts).rstrip()
        if self.close and rest.endswith(self.close):
            rest = rest[: -len(self.close)].rstrip()
        if self.quote and rest.endswith("]"):
            # a quote left open in a list that was closed: a syntax error, not a cut-off
            self._flush(rest[:-1])
        elif rest.strip(" \t\r\n,"):
            guess = _NAME.match(rest)
            sc.truncated_call(guess.group(1) if guess else None)  # F1
        return False


def names_a_tool_call(sc: TextScanner) -> bool | _Need:
    """Request: does the text (at ``[``) start a list whose first call names a declared
    tool? Decided as soon as it cannot, so prose brackets are not held back."""
    m = _LIST_HEAD.match(sc._buf, sc._pos)
    if m is not None:
        return resolve_tool_name(m.group(1), sc.tools).name is not None
    if not sc._eof and _LIST_HEAD_PREFIX.match(sc._buf, sc._pos):
        return NEED
    return False


class PythonicExtractor(TextScanner):
    START = tuple(_WRAPPERS)
    STRAY = tuple(_WRAPPERS.values())
    LOOSE = (*TextScanner.LOOSE, "[")

    def loose_call(self, opener: str) -> Grammar:
        """F31: a list of calls after prose, when it calls a declared tool."""
        if opener != "[":
            return (yield from super().loose_call(opener))
        self.push_back(opener)
        found = yield (names_a_tool_call, self)
        self.skip(1)
        if not found:
            return False
        yield (_CallList(self).step,)
        return True

    def at_start(self) -> Grammar:
        found = yield (self.peek, _BARE, 230, "[")
        if found:
            self.skip(found.end() - self._pos + 1)
            yield (_CallList(self).step,)

    def call(self, marker: str) -> Grammar:
        r = yield from self.after_marker(("[",))
        if isinstance(r, bool):
            return r
        self.skip(1)
        closed = yield (_CallList(self, _WRAPPERS[marker]).step,)
        if closed:
            r = yield (self.expect, (_WRAPPERS[marker],))
            if isinstance(r, str):
                self.skip(len(r))
        return True

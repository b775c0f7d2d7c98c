"""Incremental JSON structure scanner: O(len(delta)) per delta.

Carries only depth, in-string and pending-escape state across deltas. With
``python_strings``, a single quote outside any string inside a container opens a
Python-style string (F12: valid JSON has no such quote there), so a brace inside
``'}{'`` is not taken for structure. Runs of ordinary characters are skipped with
compiled regexes, so long strings cost C speed rather than a Python step per
character. It does not validate: the value is parsed once, when it closes (or when a
consumer asks for a partial value).
"""

from __future__ import annotations

import re

_STRUCTURE = re.compile(r'["{}\[\]]')
# where a value may open or close: text without one is for ``JsonScanner.feed_open``
find_bracket = re.compile(r"[{}\[\]]").search
_STRUCTURE_OR_SINGLE_QUOTE = re.compile(r"[\"'{}\[\]]")
# a string's body: ordinary characters, each escape taken whole
_STRING_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)
_SINGLE_QUOTED_BODY = re.compile(r"[^'\\]*(?:\\.[^'\\]*)*", re.DOTALL)


class JsonScanner:
    """Tracks where a JSON value opens and closes across fed deltas."""

    __slots__ = (
        "consumed",
        "depth",
        "escape",
        "in_string",
        "python_strings",
        "single_quoted",
        "started",
        "values_closed",
    )

    def __init__(self, *, python_strings: bool = False) -> None:
        self.python_strings = python_strings
        self.depth = 0
        self.in_string = False
        self.single_quoted = False  # the open string is a Python-style '...' one
        self.escape = False
        self.started = False  # saw the first structural character
        self.values_closed = 0  # top-level containers that closed so far
        self.consumed = 0  # characters fed so far

    @property
    def balanced(self) -> bool:
        """A container opened and every container and string is closed again."""
        return self.started and self.depth == 0 and not self.in_string

    def feed(self, text: str) -> int:
        """Scan ``text``; return the offset just past the first top-level value that
        closed in it, or -1 when none did. Scanning continues to the end either way."""
        return self._scan(text, 0, False)

    def feed_open(self, text: str) -> None:
        """``feed`` for text without a bracket, where no value opens or closes. Text
        without a quote either (a streamed delta of a string, mostly) changes only
        whether an escape is pending: a run of backslashes at its end, after the
        pairs before it, leaves one open when it is odd. For streamed deltas
        (``TextScanner.plain_value``), cheaper than the scan."""
        if '"' in text or "'" in text:
            self._scan(text, 0, False)
            return
        self.consumed += len(text)
        if self.in_string and (self.escape or "\\" in text):
            body = text[1:] if self.escape else text  # a pending escape takes one character
            self.escape = (len(body) - len(body.rstrip("\\"))) % 2 == 1

    def scan_to_close(self, text: str, start: int = 0) -> int:
        """Scan ``text`` from ``start`` and stop just past the first top-level value
        that closes: answer that offset, or -1 when none did (all of it scanned). The
        text after the close is not looked at, so a value costs its own length
        however much text follows it."""
        return self._scan(text, start, True)

    def _scan(self, text: str, pos: int, stop: bool) -> int:
        n = len(text)
        start = pos
        first_close = -1
        if self.escape and pos < n:
            self.escape = False
            pos += 1
        depth = self.depth
        in_string = self.in_string
        single = self.single_quoted
        string_body = (_SINGLE_QUOTED_BODY if single else _STRING_BODY).match
        structure = (_STRUCTURE_OR_SINGLE_QUOTE if self.python_strings else _STRUCTURE).search
        while pos < n:
            if in_string:
                body = string_body(text, pos)  # ordinary characters and escapes
                i = body.end() if body is not None else pos
                if i >= n:
                    break
                if text[i] == "\\":  # a backslash that ends the text: its escape is next
                    self.escape = True
                    break
                in_string = False
                pos = i + 1
            else:
                m = structure(text, pos)
                if m is None:
                    break
                i = m.start()
                c = text[i]
                pos = i + 1
                if c == '"':
                    in_string = True
                    if single:
                        single = False
                        string_body = _STRING_BODY.match
                elif c == "'":
                    if depth > 0:  # (prose before a value may have apostrophes)
                        in_string = single = True
                        string_body = _SINGLE_QUOTED_BODY.match
                elif c == "{" or c == "[":
                    depth += 1
                    self.started = True
                elif depth > 0:
                    depth -= 1
                    if depth == 0:
                        self.values_closed += 1
                        if first_close < 0:
                            first_close = pos
                            if stop:
                                break
        self.depth = depth
        self.in_string = in_string
        self.single_quoted = single
        self.consumed += (pos if first_close >= 0 and stop else n) - start
        return first_close


_TOP_LEVEL = re.compile(r'["{\[]')  # at the top level only a string or a value opens
_STRUCTURE_IN_VALUE = re.compile(r"[\"'{}\[\]]")


def value_cuts(scan: JsonScanner, text: str, renamed: bool = False) -> list[int]:
    """Where ``text``, fed after what ``scan`` has seen, would be cut into fragments
    that each go to one call when a name comes with it (F3, F15): before each value
    that opens at the top level once one has opened before (with the white space
    just before it: it goes with the value), and where white space at the end begins
    after a whole value (it goes where the text after it goes). ``renamed``: the name
    is not the one of the call ``scan`` read, so the first cut is where its value is
    whole (any text after it is another call's), and the text after it is read as
    a new call's. Offsets in ``text``, rising, never 0; ``scan`` is not changed.
    Each character is looked at once, so a text of many values costs its length
    (F22)."""
    n = len(text)
    cuts: list[int] = []
    depth = scan.depth
    in_string = scan.in_string
    # (the scanner keeps the flag of its last string after it closed: only an open
    # string's counts here)
    single = scan.single_quoted and in_string
    started = scan.started
    python = scan.python_strings
    pos = 1 if scan.escape and in_string else 0
    while pos < n:
        if renamed and started and not depth and not in_string and pos:
            cuts.append(pos)
            renamed = started = False
        if in_string:
            body = (_SINGLE_QUOTED_BODY if single else _STRING_BODY).match(text, pos)
            i = body.end() if body is not None else pos
            if i >= n or text[i] == "\\":  # (a backslash that ends the text: open still)
                return cuts
            in_string = single = False
            pos = i + 1
        elif depth:
            m = (_STRUCTURE_IN_VALUE if python else _STRUCTURE).search(text, pos)
            if m is None:
                return cuts
            c = m.group()
            pos = m.end()
            if c == '"' or c == "'":
                in_string = True
                single = c == "'"
            elif c == "{" or c == "[":
                depth += 1
            else:
                depth -= 1
        else:
            m = _TOP_LEVEL.search(text, pos)
            if m is None:
                break
            i = m.start()
            if text[i] == '"':  # a string outside any value: not structure
                in_string, single = True, False
            else:
                if started:
                    cut = pos + len(text[pos:i].rstrip())
                    if cut:
                        cuts.append(cut)
                started = True
                depth = 1
            pos = i + 1
    if started and not depth and not in_string:
        end = len(text.rstrip())
        if 0 < end < n:
            cuts.append(end)
    return cuts

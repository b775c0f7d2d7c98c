"""Where a JSON container that is already all in a text closes, found at C speed.

Text fed whole (a non-streaming response, a file, a large read) usually holds each
call's JSON entire. ``JsonScanner`` finds its close too, but keeps state to resume
across deltas and matches each string with a regex that steps through every escape;
here a string's end is found with ``str.find`` and a count of the backslashes before
the quote, so a long string with many escapes (source code in a ``content``
argument) costs a few C calls. The answer is the same as ``JsonScanner``'s: brackets
by depth only (not checked inside), strings by their unescaped closing quote.
"""

from __future__ import annotations

import re

_STRUCTURE = re.compile(r'["{}\[\]]')


def container_end(text: str, pos: int, stop: int = -1) -> int:
    """The offset just past the container that opens at ``text[pos]`` (``{`` or
    ``[``) and closes before ``stop`` (default: the end of ``text``); -1 when it does
    not close there, or no container opens at ``pos``."""
    if stop < 0:
        stop = len(text)
    if pos >= stop or text[pos] not in "{[":
        return -1
    search = _STRUCTURE.search
    find = text.find
    depth = 0
    i = pos
    while True:
        m = search(text, i, stop)
        if m is None:
            return -1
        i = m.end()
        c = text[i - 1]
        if c == '"':
            while True:  # the first quote not escaped by an odd run of backslashes
                q = find('"', i, stop)
                if q < 0:
                    return -1
                k = q
                while text[k - 1] == "\\":  # stops at the opening quote at the latest
                    k -= 1
                i = q + 1
                if not (q - k) & 1:
                    break
        elif c == "{" or c == "[":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return i

"""The value of JSON text still arriving, read incrementally (what a UI shows per delta).

``PartialJson`` is fed the argument text delta by delta and keeps what it has read: the
containers being filled, the key waiting for its value, the string being written.
Feeding costs the delta's length (plus a short held-back tail); ``value()`` copies
only the containers still open, one level each (their entries are shared, not
copied), so an ask costs the size of the open containers, not of the whole value:
cheap for arguments as models write them, and as dear as a whole re-read only for one
open object or list of many thousands of entries.

What ``value()`` shows is a part of the final value, never a guess:

- a number is shown once the character after it has arrived (``311`` may still become
  ``31191``; ``1e`` is not a number yet); ``true``, ``false`` and ``null`` once whole;
- a string is shown as far as it has arrived, so it is a prefix of the final string;
  a lone surrogate escape (``\\ud83d`` not followed by its low half) is shown as
  U+FFFD, as the final value has it (repair ``lone_surrogate``); an escape is decoded
  only once whole (``\\u00e9`` needs its four digits, and a high
  surrogate waits for the escape after it, which may be its low half);
- an object key is shown once its value has started showing (a string, a container),
  never on its own or cut;
- containers still open show what they hold so far.

So where a shown value and the final value overlap they agree: every entry but the
last of an open container is final, and the last is a prefix of its final value.
That holds for text that is JSON so far, and for the Python-literal spelling models
often use instead (F12: single-quoted strings, ``True``, ``False``, ``None``), which
reads as the repair ladder reads it in the end. Text that stops being either (a stray
character, an escape JSON does not have) stops the reading: ``broken`` says so and the
caller falls back to the repair ladder, whose best-effort reading may change as text
arrives.
Duplicate keys are shown as they come; the final value keeps the last.
"""

from __future__ import annotations

import re
from _json import scanstring  # the C string decoder json.loads uses
from typing import Any, Final

from toolwire.surrogates import replace_surrogates

_SPACE: Final = re.compile(r"[ \t\n\r]*")
# a string's body: ordinary characters and whole escapes (up to a quote or backslash)
_BODY: Final = re.compile(r'[^"\\]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\]*)*')
# the same in a single-quoted (Python) string, where \\' is an escape too
_SINGLE_BODY: Final = re.compile(r"[^'\\]*(?:\\(?:['\"\\/bfnrt]|u[0-9a-fA-F]{4})[^'\\]*)*")
# a single-quoted body spelt as a double-quoted one: \\' loses its backslash, " gains one
_SINGLE_TO_DOUBLE: Final = re.compile(r'\\.|"')
_ESCAPE_BEGUN: Final = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?\Z")
_HIGH_SURROGATE_END: Final = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\Z")
_NUMBER_CHARS: Final = re.compile(r"[0-9.eE+\-]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+\-]?[0-9]+)?\Z")
_LETTERS: Final = re.compile(r"[a-zA-Z]*")
_LITERALS: Final[dict[str, Any]] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,  # Python's spelling (F12)
    "False": False,
    "None": None,
}

# what the reader expects next
_VALUE, _VALUE_OR_CLOSE, _KEY, _KEY_OR_CLOSE, _COLON, _NEXT, _DONE = range(7)
# inside a token
_STRING, _NUMBER_TOKEN, _LITERAL, _BROKEN = range(7, 11)

_NOTHING: Final = object()


class PartialJson:
    """Reads one JSON value from text fed in pieces; ``value()`` is what is known."""

    __slots__ = ("_held", "_is_key", "_pieces", "_quote", "_root", "_stack", "consumed", "state")

    def __init__(self) -> None:
        self.state = _VALUE
        self.consumed = 0  # characters fed so far
        self._root: Any = _NOTHING
        # open containers, outermost first: [container, key of the entry being filled]
        self._stack: list[list[Any]] = []
        self._pieces: list[str] = []  # the open token: decoded string pieces, or raw text
        self._is_key = False  # the open string is an object key
        self._held = ""  # string text held back: an escape not yet whole
        self._quote = '"'  # the open string's quote: ' in Python-style text

    @property
    def broken(self) -> bool:
        """The text stopped being JSON: nothing more is read."""
        return self.state == _BROKEN

    def feed(self, text: str) -> None:
        self.consumed += len(text)
        if self.state == _BROKEN:
            return
        try:
            self._read(text)
        except (ValueError, KeyError, IndexError):  # not JSON after all
            self.state = _BROKEN

    def value(self, *, complete: bool = False) -> Any:
        """The value so far (``None`` before anything shows). ``complete``: the text
        is all in, so a number at its very end is whole. Entries that are complete are
        shared with later answers: treat the answer as read-only."""
        if self.state == _BROKEN:
            return None
        leaf: Any = _NOTHING
        if self.state == _STRING and not self._is_key:
            pieces = self._pieces
            if len(pieces) != 1:
                pieces[:] = ["".join(pieces)]  # joined once, not again on every ask
            leaf = pieces[0]
        elif self.state == _NUMBER_TOKEN and complete:
            raw = "".join(self._pieces)
            if _NUMBER.match(raw):  # not "-" or "1e": no number even at the end
                leaf = _number(raw)
        if not self._stack:
            if self._root is not _NOTHING:
                return self._root
            return None if leaf is _NOTHING else leaf
        # copy the open containers, innermost first, each holding the copy of the next:
        # the open string or number is not in its container yet; an open container is
        # (its last entry), so its copy replaces it
        inner_is_entry = False
        for container, key in reversed(self._stack):
            copy = container.copy()
            if leaf is not _NOTHING:
                if type(copy) is dict:
                    copy[key] = leaf
                elif inner_is_entry:
                    copy[-1] = leaf
                else:
                    copy.append(leaf)
            leaf = copy
            inner_is_entry = True
        return leaf

    # -- reading ----------------------------------------------------------------------

    def _read(self, text: str) -> None:
        pos = 0
        n = len(text)
        state = self.state
        if state == _STRING:
            if self._held:
                text = self._held + text
                n = len(text)
                self._held = ""
            pos = self._string(text, 0)
        elif state == _NUMBER_TOKEN:
            pos = self._token(text, _NUMBER_CHARS)
        elif state == _LITERAL:
            pos = self._token(text, _LETTERS)
        space = _SPACE.match
        while pos < n and self.state < _STRING:
            pos = space(text, pos).end()  # type: ignore[union-attr]  # matches empty
            if pos >= n:
                break
            c = text[pos]
            state = self.state
            if c == '"' or c == "'":
                if state in (_KEY, _KEY_OR_CLOSE):
                    self._is_key = True
                elif state <= _VALUE_OR_CLOSE:
                    self._is_key = False
                else:
                    raise ValueError(c)
                self.state = _STRING
                self._quote = c
                self._pieces = []
                pos = self._string(text, pos + 1)
            elif c == "," and state == _NEXT:
                self.state = _KEY if type(self._stack[-1][0]) is dict else _VALUE
                pos += 1
            elif c == ":" and state == _COLON:
                self.state = _VALUE
                pos += 1
            elif c == "}" or c == "]":
                empty = _KEY_OR_CLOSE if c == "}" else _VALUE_OR_CLOSE
                if state != _NEXT and state != empty:
                    raise ValueError(c)
                container = self._stack.pop()[0]
                if (type(container) is dict) != (c == "}"):
                    raise ValueError(c)
                self.state = _NEXT if self._stack else _DONE
                pos += 1
            elif state > _VALUE_OR_CLOSE:
                raise ValueError(c)
            elif c == "{" or c == "[":
                container = {} if c == "{" else []
                self._attach(container)
                self._stack.append([container, None])
                self.state = _KEY_OR_CLOSE if c == "{" else _VALUE_OR_CLOSE
                pos += 1
            elif c in "-0123456789":
                self.state = _NUMBER_TOKEN
                self._pieces = []
                pos = self._token(text, _NUMBER_CHARS, pos)
            elif c in "tfnTFN":
                self.state = _LITERAL
                self._pieces = []
                pos = self._token(text, _LETTERS, pos)
            else:
                raise ValueError(c)

    def _string(self, text: str, pos: int) -> int:
        """Read string text from ``pos``; the offset after the closing quote, or the
        text's length while the string is open."""
        n = len(text)
        quote = self._quote
        body_pattern = _BODY if quote == '"' else _SINGLE_BODY
        end = body_pattern.match(text, pos).end()  # type: ignore[union-attr]
        closed = end < n and text[end] == quote
        if not closed and end < n:  # a backslash: an escape that is cut off, or invalid
            rest = text[end:]
            if _ESCAPE_BEGUN.match(rest) is None:
                raise ValueError(rest)
            self._held = rest
        body = text[pos:end]
        if not closed and _HIGH_SURROGATE_END.search(body) and _escaped(body, len(body) - 6):
            # its low half may come next: decoded alone it would be another character
            self._held = body[-6:] + self._held
            body = body[:-6]
        if body:
            if quote == "'" and ('"' in body or "\\" in body):
                body = _SINGLE_TO_DOUBLE.sub(_as_double_quoted, body)
            if "\\" in body:
                # a lone surrogate (a high half's partner was waited for above) reads
                # as U+FFFD, as in the final value
                body = replace_surrogates(scanstring(body + '"', 0, False)[0])
            self._pieces.append(body)
        if not closed:
            return n
        text_value = "".join(self._pieces)
        self._pieces = []
        if self._is_key:
            self._stack[-1][1] = text_value
            self.state = _COLON
        else:
            self._attach(text_value)
        return end + 1

    def _token(self, text: str, chars: re.Pattern[str], pos: int = 0) -> int:
        """Read a number or literal from ``pos``; complete it once a character that
        cannot continue it arrives."""
        end = chars.match(text, pos).end()  # type: ignore[union-attr]
        self._pieces.append(text[pos:end])
        if self.state == _LITERAL:
            # whole once spelt out: no literal goes on into another
            word = "".join(self._pieces)
            if word in _LITERALS:
                self._pieces = []
                self._attach(_LITERALS[word])
                return end
            if end < len(text) or not any(w.startswith(word) for w in _LITERALS):
                raise ValueError(word)
            return end
        if end == len(text):
            return end
        raw = "".join(self._pieces)
        self._pieces = []
        self._attach(_number(raw))
        return end

    def _attach(self, value: Any) -> None:
        """A value starts (a container: the caller opens it) or is complete (anything
        else) at the place the text has reached."""
        if self._stack:
            container, key = self._stack[-1]
            if type(container) is dict:
                container[key] = value
            else:
                container.append(value)
            self.state = _NEXT
        else:
            self._root = value
            self.state = _DONE


def _number(raw: str) -> int | float | str:
    m = _NUMBER.match(raw)
    if m is None:
        raise ValueError(raw)
    if m.group(1) or m.group(2):
        return float(raw)
    try:
        return int(raw)
    except ValueError:  # more digits than Python reads: its digits, as the final value
        return raw  # has them (repair ``long_integer``)


def _as_double_quoted(match: re.Match[str]) -> str:
    token = match.group()
    return '\\"' if token == '"' else "'" if token == "\\'" else token


def _escaped(text: str, i: int) -> bool:
    """The backslash at ``i`` starts an escape (an odd run of backslashes ends there)."""
    run = 0
    while i - run >= 0 and text[i - run] == "\\":
        run += 1
    return run % 2 == 1


# -- the rule, as a check (tests and the benchmark hold every shown value to it) ----


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same JSON type all the way down (``1`` is not ``1.0`` nor
    ``True``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def prefix_consistent(shown: Any, final: Any) -> bool:
    """``shown`` is a view of ``final`` as far as the text has come: a string is a
    prefix of the final string; an object holds the first keys of the final object in
    order, and a list the first items, all equal to the final ones except the last,
    which is itself prefix-consistent (it may be the container or string still open);
    any other value is equal to the final one, of the same type."""
    if isinstance(shown, str) and isinstance(final, str):
        return final.startswith(shown)
    if isinstance(shown, dict) and isinstance(final, dict):
        keys = list(shown)
        if keys != list(final)[: len(keys)]:
            return False
        return all(same(shown[k], final[k]) for k in keys[:-1]) and (
            not keys or prefix_consistent(shown[keys[-1]], final[keys[-1]])
        )
    if isinstance(shown, list) and isinstance(final, list):
        if len(shown) > len(final):
            return False
        return all(same(x, y) for x, y in zip(shown[:-1], final, strict=False)) and (
            not shown or prefix_consistent(shown[-1], final[len(shown) - 1])
        )
    return same(shown, final)

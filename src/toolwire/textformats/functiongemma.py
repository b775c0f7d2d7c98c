"""FunctionGemma: ``<start_function_call>call:N{k:<escape>v<escape>,…}<end_function_call>``.

Strings sit between ``<escape>`` tokens; other values are written bare (numbers,
booleans, nested ``{…}`` / ``[…]``)."""

from __future__ import annotations

from typing import Any

from toolwire.textformats.scanner import Grammar, Markers, TextScanner
from toolwire.textformats.values import Repairs, json_or_text

ESC = "<escape>"
END = "<end_function_call>"
_NAME_END = Markers("{", END)
_BODY_END = Markers(END)


class _Unreadable(ValueError):
    pass


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t\r\n":
        i += 1
    return i


def _value(s: str, i: int, repairs: Repairs) -> tuple[Any, int]:
    i = _skip(s, i)
    if s.startswith(ESC, i):
        j = s.find(ESC, i + len(ESC))
        if j < 0:
            raise _Unreadable("an unclosed <escape>")
        return s[i + len(ESC) : j], j + len(ESC)
    if i < len(s) and s[i] in "{[":
        closer = "}" if s[i] == "{" else "]"
        out_obj: dict[str, Any] = {}
        out_list: list[Any] = []
        i += 1
        while True:
            i = _skip(s, i)
            if i >= len(s):
                raise _Unreadable("an unclosed bracket")
            if s[i] == closer:
                return (out_obj if closer == "}" else out_list), i + 1
            item_start = i
            if closer == "}":
                colon = s.find(":", i)
                if colon < 0:
                    raise _Unreadable("a key without a value")
                key = s[i:colon].strip()
                if key in out_obj:
                    repairs["duplicate_key"] = None  # the last one wins, as in JSON.parse
                out_obj[key], i = _value(s, colon + 1, repairs)
            else:
                item, i = _value(s, i, repairs)
                out_list.append(item)
            i = _skip(s, i)
            if i < len(s) and s[i] == ",":
                i += 1
            if i == item_start:  # a closer of the other kind: no item, no progress
                raise _Unreadable(f"a stray {s[i]!r}")
    j = i
    while j < len(s) and s[j] not in ",}]":
        j += 1
    return json_or_text(s[i:j].strip(), repairs), j


def read_arguments(body: str) -> tuple[dict[str, Any] | str, tuple[str, ...]]:
    """``{k:<escape>v<escape>}`` → ({"k": "v"}, what reading it changed); unreadable
    text comes back as is."""
    repairs: dict[str, None] = {}
    try:
        value, end = _value(body, 0, repairs)
    except (_Unreadable, RecursionError):  # deep nesting is unreadable too, not a crash
        return body, ()
    if not isinstance(value, dict) or body[end:].strip():
        return body, ()
    return value, tuple(repairs)


class FunctionGemmaExtractor(TextScanner):
    START = ("<start_function_call>",)
    STRAY = (END,)

    def call(self, marker: str) -> Grammar:
        r = yield from self.after_marker(("call:",))
        if isinstance(r, bool):
            return r
        self.skip(len(r))
        name, m = yield from self.capture(_NAME_END)
        name = name.strip()
        if m != "{":
            if m is None:
                self.truncated_call(name or None)
            else:
                self.whole_call(name or None, None)
            return True
        index = self.begin_call(name or None)
        body, m = yield from self.capture(_BODY_END)
        if m is None:
            self.end_call(index, truncated=True)  # F1
            return True
        self.arguments(index, *read_arguments("{" + body))
        self.end_call(index)
        return True

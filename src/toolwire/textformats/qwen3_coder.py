"""Qwen3-Coder / Qwen3.5 XML: ``<tool_call><function=N><parameter=K>V</parameter>…
</function></tool_call>``. Values are typed by the tool's schema; ``</parameter>`` may
be missing (the next tag ends the value); a bare ``<function=`` without the wrapper
is read too.
"""

from __future__ import annotations

from typing import Any

from toolwire.textformats.scanner import Grammar, Markers, MarkupCall, TextScanner
from toolwire.textformats.values import parameter_schema, type_value


def strip_newlines(value: str) -> str:
    """The format puts the value on its own line: drop one newline each side."""
    if value.startswith("\n"):
        value = value[1:]
    elif value.startswith("\r\n"):
        value = value[2:]
    if value.endswith("\r\n"):
        value = value[:-2]
    elif value.endswith("\n"):
        value = value[:-1]
    return value


class Qwen3CoderExtractor(TextScanner):
    WRAP_OPEN = "<tool_call>"
    WRAP_CLOSE = "</tool_call>"
    START: tuple[str, ...] = (WRAP_OPEN, "<function=")
    STRAY = (WRAP_CLOSE,)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        close = self.WRAP_CLOSE
        self._name_end = Markers(">", "\n", close)
        self._key_end = Markers(">", close)
        self._next_tag = Markers("<parameter=", "</function>", close)
        self._value_end = Markers("</parameter>", "<parameter=", "</function>", close)

    def call(self, marker: str) -> Grammar:
        if marker == self.WRAP_OPEN:
            r = yield from self.after_marker(("<function=",))
            if isinstance(r, bool):
                return r
            self.skip(len(r))
        while True:
            done = yield from self._function()
            if not done:
                return True
            r = yield (self.expect, (self.WRAP_CLOSE, "<function="))
            if r == "<function=":
                self.skip(len(r))
                continue
            if r == self.WRAP_CLOSE:
                self.skip(len(r))
            return True

    def _function(self) -> Grammar:
        """After ``<function=``: one call. Answers True if it closed, False if cut off
        or ended by the wrapper's close."""
        self.keep_markup(len("<function="))
        name, m = yield from self.capture(self._name_end)
        name = name.strip()
        index = self.begin_call(name)
        if m is None or m == self.WRAP_CLOSE:
            # cut off in the name (F1), or <function=f></tool_call>: no parameters (F2)
            self.end_markup_call(index, MarkupCall(), cut=m is None)
            return False
        schema = self.schema_for(name)
        read = MarkupCall()
        m = yield (self.until, self._next_tag, read.gap, False)
        while m == "<parameter=":
            key, m = yield from self.capture(self._key_end)
            if m != ">":
                read.gap(key or m or "")  # a parameter tag that never closed
                break
            raw, m = yield from self.capture(self._value_end)
            if m is None:
                break  # the value was cut off: the markup keeps it
            key = key.strip()
            value = type_value(strip_newlines(raw), parameter_schema(schema, key), read.repairs)
            read.put(key, value)
            if m == "</parameter>":
                m = yield (self.until, self._next_tag, read.gap, False)
        self.end_markup_call(index, read, cut=m is None)
        return m == "</function>"

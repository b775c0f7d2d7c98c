"""GLM-4.5 / 4.6: ``<tool_call>N\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>…
</tool_call>``; values typed by the schema (non-string values are written as JSON).
GLM-4.7 drops the newline after N (see glm47); both are read by the same grammar.
GLM-4.6 output that a server passed on JSON-escaped (``N\\n<arg_key>…``, values with
``\\"``) is read too: its values are unescaped.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from toolwire.textformats.qwen3_coder import strip_newlines
from toolwire.textformats.scanner import Grammar, Markers, MarkupCall, TextScanner
from toolwire.textformats.values import parameter_schema, type_value

# a name, delimited by what may follow it: bounded, so any chunking decides alike
_NAME = re.compile(
    r"[ \t\r\n]{0,8}([\w.:/-]{1,128})(?=[ \t]{0,8}(?:\r?\n|\\n|<arg_key>|</tool_call>))"
)
# GLM-4.6 output passed on JSON-escaped: a literal backslash-n after the name, and
# values whose quotes and newlines are escapes
_ESCAPED = re.compile(r"[ \t]{0,8}\\n")
_NAME_AT_END = re.compile(r"\s*([\w.:/-]{0,128})\s*")
_NAME_LEAD = "".join(chr(c) for c in range(128) if chr(c).isalnum()) + "_.:/-"


def unescape(raw: str) -> str:
    """A value from an escaped block: literal ``\\n`` around it dropped, escapes
    decoded; text that is not a valid escaped string is kept as written."""
    if raw.startswith("\\n"):
        raw = raw[2:]
    if raw.endswith("\\n") and not raw.endswith("\\\\n"):
        raw = raw[:-2]
    try:
        value = orjson.loads(f'"{raw}"')
    except orjson.JSONDecodeError:
        return raw
    return value if isinstance(value, str) else raw


class Glm45Extractor(TextScanner):
    START = ("<tool_call>",)
    STRAY = ("</tool_call>",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._next_tag = Markers("<arg_key>", "</tool_call>")
        self._key_end = Markers("</arg_key>", "</tool_call>")
        self._value_open = Markers("<arg_value>", "<arg_key>", "</tool_call>")
        self._value_end = Markers("</arg_value>", "<arg_key>", "</tool_call>")

    def call(self, marker: str) -> Grammar:
        found = yield (self.peek, _NAME, 160, _NAME_LEAD)
        if found is False:
            cut = _NAME_AT_END.fullmatch(self._buf, self._pos) if self._eof else None
            if cut is None:
                return False
            self.keep_markup(len(marker))
            self._pos = len(self._buf)  # F1: cut off in the name
            index = self.begin_call(cut.group(1) or None)
            self.end_markup_call(index, MarkupCall(), cut=True)
            return True
        self.keep_markup(len(marker))
        name = found.group(1)
        self.skip(found.end() - self._pos)
        escaped = _ESCAPED.match(self._buf, self._pos) is not None
        # decoding the escapes changes what was sent: it is named
        index = self.begin_call(name, repairs=("unescaped_markup",) if escaped else ())
        schema = self.schema_for(name)
        # the newlines between the tags of an escaped block are escaped too
        read = MarkupCall("\\n" if escaped else "")
        m = yield (self.until, self._next_tag, read.gap, False)
        while m == "<arg_key>":
            key, m = yield from self.capture(self._key_end)
            if m != "</arg_key>":
                read.gap(key)  # a key tag that never closed
                break
            m = yield (self.until, self._value_open, read.gap, False)
            if m != "<arg_value>":
                read.gap(key)  # a key without a value
                continue
            raw, m = yield from self.capture(self._value_end)
            if m is None:
                break  # the value was cut off: the markup keeps it
            key = key.strip()
            value = unescape(raw) if escaped else strip_newlines(raw)
            read.put(key, type_value(value, parameter_schema(schema, key), read.repairs))
            if m == "</arg_value>":
                m = yield (self.until, self._next_tag, read.gap, False)
        self.end_markup_call(index, read, cut=m is None)
        return True

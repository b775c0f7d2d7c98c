"""GLM-4.5 / 4.6: ``<tool_call>N\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>…
</tool_call>``; values typed by the schema (non-string values are written as JSON).
GLM-4.7 drops the newline after N (see glm47); both are read by the same grammar.
"""

from __future__ import annotations

import re
from typing import Any

from toolwire.textformats.qwen3_coder import strip_newlines
from toolwire.textformats.scanner import Grammar, Markers, TextScanner
from toolwire.textformats.values import parameter_schema, type_value

# a name, delimited by what may follow it: bounded, so any chunking decides alike
_NAME = re.compile(r"[ \t\r\n]{0,8}([\w.:/-]{1,128})(?=[ \t]{0,8}(?:\r?\n|<arg_key>|</tool_call>))")
_NAME_AT_END = re.compile(r"\s*([\w.:/-]{0,128})\s*")
_NAME_LEAD = "".join(chr(c) for c in range(128) if chr(c).isalnum()) + "_.:/-"


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
            self._pos = len(self._buf)  # F1: cut off in the name
            self.truncated_call(cut.group(1) or None)
            return True
        name = found.group(1)
        self.skip(found.end() - self._pos)
        index = self.begin_call(name)
        schema = self.schema_for(name)
        args: dict[str, Any] = {}
        m = yield (self.until, self._next_tag, None, False)
        while m == "<arg_key>":
            key, m = yield from self.capture(self._key_end)
            if m != "</arg_key>":
                break
            m = yield (self.until, self._value_open, None, False)
            if m != "<arg_value>":
                continue
            raw, m = yield from self.capture(self._value_end)
            if m is None:
                break  # the value was cut off: it is not kept
            key = key.strip()
            args[key] = type_value(strip_newlines(raw), parameter_schema(schema, key))
            if m == "</arg_value>":
                m = yield (self.until, self._next_tag, None, False)
        if args:
            self.arguments(index, args)
        self.end_call(index, truncated=m is None)
        return True

"""Plain-text forms that agents prompt models to write (no native format):

- ``[TOOL_REQUEST] N {args} [TOOL_REQUEST_END]``
- ``<invoke name="N"><parameter name="K">V</parameter></invoke>`` (schema-typed),
  optionally inside ``<function_calls>``
- ``<tool><name>N</name><arguments>{args}</arguments></tool>``
- a ```` ```json ```` fence holding ``{"name", "arguments"}``
"""

from __future__ import annotations

import re
from typing import ClassVar

from toolwire.assemble import JsonScanner
from toolwire.textformats.invoke import InvokeExtractor
from toolwire.textformats.jsoncalls import envelopes
from toolwire.textformats.scanner import Grammar, Markers

_REQUEST_NAME_END = Markers("{", "[TOOL_REQUEST_END]")
_NAME_CLOSE = Markers("</name>", "</tool>")
_ARGS_END = Markers("</arguments>", "</tool>")
_FENCED = re.compile(r'[ \t\r\n]{0,16}\{[ \t\r\n]{0,16}"(?:name|arguments|parameters)"')


class AgentExtractor(InvokeExtractor):
    WRAPPERS: ClassVar[dict[str, str]] = {"<function_calls>": "</function_calls>"}
    START = ("[TOOL_REQUEST]", "<invoke", "<tool>", "```json", "<function_calls>")
    STRAY = ("[TOOL_REQUEST_END]", "</function_calls>")

    def call(self, marker: str) -> Grammar:
        if marker == "[TOOL_REQUEST]":
            handled = yield from self._request()
        elif marker == "<tool>":
            handled = yield from self._tool()
        elif marker == "```json":
            fenced = yield (self.peek, _FENCED, 64, "{")
            if not fenced:
                return False
            handled = yield from envelopes(self, ("```",))
        else:
            handled = yield from super().call(marker)
        return handled

    def _request(self) -> Grammar:
        name, m = yield from self.capture(_REQUEST_NAME_END)
        index = self.begin_call(name.strip() or None)
        if m != "{":
            self.end_call(index, truncated=m is None)
            return True
        self.push_back(m)
        done = yield (self.json, JsonScanner(), lambda t: self.arguments(index, t))
        self.end_call(index, truncated=not done)
        if done:
            r = yield (self.expect, ("[TOOL_REQUEST_END]",))
            if isinstance(r, str):
                self.skip(len(r))
        return True

    def _tool(self) -> Grammar:
        r = yield from self.after_marker(("<name>",))
        if isinstance(r, bool):
            return r
        self.skip(len(r))
        name, m = yield from self.capture(_NAME_CLOSE)
        index = self.begin_call(name.strip() or None)
        if m != "</name>":
            self.end_call(index, truncated=m is None)
            return True
        r = yield (self.expect, ("<arguments>", "</tool>"))
        if r == "<arguments>":
            self.skip(len(r))
            m, scan = yield from self.stream_arguments(index, _ARGS_END)
            self.end_call(index, truncated=m is None and not scan.balanced)
            if m == "</arguments>":
                r = yield (self.expect, ("</tool>",))
        else:
            self.end_call(index, truncated=r is None)
        if r == "</tool>":
            self.skip(len(r))
        return True

"""Plain-text forms that agents prompt models to write (no native format):

- ``[TOOL_REQUEST] N {args} [TOOL_REQUEST_END]`` (or ``[END_TOOL_REQUEST]``)
- ``<invoke name="N"><parameter name="K">V</parameter></invoke>`` (schema-typed),
  optionally inside ``<function_calls>``
- ``<tool><name>N</name><arguments>{args}</arguments></tool>``; the arguments may be
  XML child elements instead, ``<arguments><k>v</k></arguments>`` (schema-typed)
- ``<use N k="v" …>`` (optionally closed by ``</use>``, or written ``<use … />``;
  schema-typed)
- ``✨ tool_call: N for k v k2 v2`` on one line (values may be quoted; schema-typed)
- a ```` ```json ```` fence holding ``{"name", "arguments"}``
"""

from __future__ import annotations

import re
import shlex
from typing import Any, ClassVar

from toolwire.assemble import JsonScanner
from toolwire.textformats.invoke import InvokeExtractor, attributes
from toolwire.textformats.jsoncalls import envelopes
from toolwire.textformats.qwen3_coder import strip_newlines
from toolwire.textformats.scanner import Grammar, Markers, MarkupCall
from toolwire.textformats.values import parameter_schema, type_value

REQUEST_ENDS = ("[TOOL_REQUEST_END]", "[END_TOOL_REQUEST]")
SPARKLE = "✨ tool_call:"
_REQUEST_NAME_END = Markers("{", *REQUEST_ENDS)
_NAME_CLOSE = Markers("</name>", "</tool>")
_ARGS_END = Markers("</arguments>", "</tool>")
_TAG_END = Markers(">")
_LINE_END = Markers("\n")
_FENCED = re.compile(r'[ \t\r\n]{0,16}\{[ \t\r\n]{0,16}"(?:name|arguments|parameters)"')
_USE_NAME = re.compile(r"[ \t]{0,8}[A-Za-z_][\w.-]{0,127}(?=[\s/>])")
_CHILD = re.compile(r"<([A-Za-z_][\w.-]*)\s*>(.*?)</\1\s*>", re.DOTALL)


class AgentExtractor(InvokeExtractor):
    WRAPPERS: ClassVar[dict[str, str]] = {"<function_calls>": "</function_calls>"}
    START = ("[TOOL_REQUEST]", "<invoke", "<tool>", "```json", "<function_calls>", "<use ", SPARKLE)
    STRAY = (*REQUEST_ENDS, "</function_calls>")

    def call(self, marker: str) -> Grammar:
        if marker == "[TOOL_REQUEST]":
            handled = yield from self._request()
        elif marker == "<tool>":
            handled = yield from self._tool()
        elif marker == "<use ":
            handled = yield from self._use()
        elif marker == SPARKLE:
            handled = yield from self._sparkle()
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
            r = yield (self.expect, REQUEST_ENDS)
            if isinstance(r, str):
                self.skip(len(r))
        return True

    def _typed(
        self, name: str, pairs: list[tuple[str, str]]
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        """Raw text values typed by the tool's schema, and what typing them changed."""
        schema = self.schema_for(name)
        repairs: dict[str, None] = {}
        args = {k: type_value(v, parameter_schema(schema, k), repairs) for k, v in pairs}
        return args, tuple(repairs)

    def _use(self) -> Grammar:
        """``<use N k="v" …>``, optionally closed by ``</use>`` or written ``/>``. With
        tools declared, N must name one: ``<use this>`` in prose stays text."""
        found = yield (self.peek, _USE_NAME, 140)
        if not found or (self.tools and self.schema_for(found.group().strip()) is None):
            return False
        tag, m = yield from self.capture(_TAG_END)
        tag = tag.strip().removesuffix("/").strip()
        name, _, rest = tag.partition(" ")
        index = self.begin_call(name)
        if m is None:
            self.end_call(index, truncated=True)
            return True
        pairs = list(attributes(rest).items())
        if pairs:
            self.arguments(index, *self._typed(name, pairs))
        self.end_call(index)
        r = yield (self.expect, ("</use>",))
        if isinstance(r, str):
            self.skip(len(r))
        return True

    def _sparkle(self) -> Grammar:
        """``✨ tool_call: N for k v …``: one line; the end of the output ends it too."""
        line, _ = yield from self.capture(_LINE_END)
        try:
            words = shlex.split(line)
        except ValueError:  # an open quote: not readable
            words = []
        if not words or (len(words) > 1 and words[1] != "for") or len(words) % 2:
            self.whole_call(words[0] if words else None, line.strip(), unreadable="not N for k v")
            return True
        name, values = words[0], words[2:]
        pairs = list(zip(values[::2], values[1::2], strict=True))
        args, repairs = self._typed(name, pairs) if pairs else (None, ())
        self.whole_call(name, args, repairs)
        return True

    def _tool(self) -> Grammar:
        r = yield from self.after_marker(("<name>",))
        if isinstance(r, bool):
            return r
        self.keep_markup(len("<tool>"))
        self.skip(len(r))
        name, m = yield from self.capture(_NAME_CLOSE)
        index = self.begin_call(name.strip() or None)
        if m != "</name>":
            self.end_markup_call(index, MarkupCall(), cut=m is None)
            return True
        r = yield (self.expect, ("<arguments>", "</tool>"))
        if r == "<arguments>":
            self.skip(len(r))
            child = yield (self.expect, ("<",))
            if child == "<":  # XML child elements, one per argument
                raw, m = yield from self.capture(_ARGS_END)
                self.end_markup_call(index, self._children(name.strip(), raw), cut=m is None)
            else:
                self.take_markup()  # JSON arguments stream as sent
                m, scan = yield from self.stream_arguments(index, _ARGS_END)
                self.end_call(index, truncated=m is None and not scan.balanced)
            if m == "</arguments>":
                r = yield (self.expect, ("</tool>",))
        else:
            self.end_markup_call(index, MarkupCall(), cut=r is None)
        if r == "</tool>":
            self.skip(len(r))
        return True

    def _children(self, name: str, raw: str) -> MarkupCall:
        """``<k>v</k>`` elements typed by the tool's schema; text between them is
        not read (G3)."""
        read = MarkupCall()
        schema = self.schema_for(name)
        at = 0
        for child in _CHILD.finditer(raw):
            read.gap(raw[at : child.start()])
            key = child.group(1)
            value = strip_newlines(child.group(2))
            read.put(key, type_value(value, parameter_schema(schema, key), read.repairs))
            at = child.end()
        read.gap(raw[at:])
        return read

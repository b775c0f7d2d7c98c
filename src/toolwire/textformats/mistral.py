"""Mistral: before v11 ``[TOOL_CALLS][{"name": N, "arguments": {args}}, …]``; v11+
``[TOOL_CALLS]N[ARGS]{args}`` per call (some builds omit ``[ARGS]``; some add
``[CALL_ID]id``). Arguments stream as they arrive."""

from __future__ import annotations

import re

from toolwire.assemble import JsonScanner
from toolwire.textformats.jsoncalls import envelope_list, envelopes
from toolwire.textformats.scanner import Grammar, Markers, TextScanner

_NAME_END = Markers("[ARGS]", "[CALL_ID]", "{", "[TOOL_CALLS]")
_ID_END = Markers("[ARGS]", "{", "[TOOL_CALLS]")
_NEXT = Markers("[TOOL_CALLS]")
_NAME = re.compile(r"[A-Za-z_][\w.:/-]{0,255}")


class MistralExtractor(TextScanner):
    START = ("[TOOL_CALLS]",)
    STRAY = ("[ARGS]", "[CALL_ID]")

    def call(self, marker: str) -> Grammar:
        r = yield (self.expect, ("[", "{"))
        if r is None:
            self.truncated_call(None)
            return True
        if r:
            handled = yield from envelopes(self)
            return handled
        name, m = yield from self.capture(_NAME_END)
        if m not in ("[ARGS]", "[CALL_ID]") and not _NAME.fullmatch(name.strip()):
            return (yield from self._no_name(name, m))
        call_id = None
        if m == "[CALL_ID]":
            raw_id, m = yield from self.capture(_ID_END)
            call_id = raw_id.strip() or None
        index = self.begin_call(name.strip() or None, call_id)
        if m in ("{", "[TOOL_CALLS]"):
            self.push_back(m)
        if m is None or m == "[TOOL_CALLS]":
            self.end_call(index, truncated=m is None)
            return True
        r = yield (self.expect, ("{", "["))
        if isinstance(r, str):
            done = yield (self.json, JsonScanner(), lambda t: self.arguments(index, t))
            self.end_call(index, truncated=not done)
            return True
        # not JSON: the text up to the next call is the arguments, as written
        m, scan = yield from self.stream_arguments(index, _NEXT)
        if m is not None:
            self.push_back(m)
        self.end_call(index, truncated=not scan.balanced)
        return True

    def _no_name(self, junk: str, m: str | None) -> Grammar:
        """What follows ``[TOOL_CALLS]`` is not a name. Text before a JSON call list is
        text (the list is read); text that holds no call is an invalid call carrying it,
        never a call named after it."""
        if m == "{":
            self.push_back(m)
            opened = junk.rstrip().endswith("[")
            self.sink.text(junk.rstrip()[:-1] if opened else junk)
            if opened:
                yield from envelope_list(self, opened=True)
            else:
                yield from envelopes(self)
            return True
        if m is not None:
            self.push_back(m)
        self.whole_call(None, junk.strip(), unreadable="no call after [TOOL_CALLS]")
        return True

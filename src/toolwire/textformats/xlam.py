"""Salesforce xLAM: a JSON list of ``{"name", "arguments"}``: bare at the start of the
output (or after reasoning), in a ```` ```json ```` fence, after ``[TOOL_CALLS]``, or
inside ``<tool_call>``."""

from __future__ import annotations

import re

from toolwire.textformats.jsoncalls import envelopes
from toolwire.textformats.scanner import Grammar, TextScanner

_BARE = re.compile(r"[ \t\r\n]{0,64}(?=[\[{])")
# a fence holds calls only if its JSON starts like an envelope
_FENCED = re.compile(
    r'[ \t\r\n]{0,16}\[?[ \t\r\n]{0,16}\{[ \t\r\n]{0,16}"(?:name|arguments|parameters)"'
)


class XlamExtractor(TextScanner):
    START = ("[TOOL_CALLS]", "<tool_call>", "```json")
    STRAY = ("</tool_call>",)

    def at_start(self) -> Grammar:
        found = yield (self.peek, _BARE, 65, "[{")
        if found:
            self.skip(found.end() - self._pos)
            yield from envelopes(self, bare=True)

    def call(self, marker: str) -> Grammar:
        if marker == "```json":
            fenced = yield (self.peek, _FENCED, 80, "[{")
            if not fenced:
                return False
            handled = yield from envelopes(self, ("```",))
            return handled
        closing = ("</tool_call>",) if marker == "<tool_call>" else ()
        handled = yield from envelopes(self, closing)
        return handled

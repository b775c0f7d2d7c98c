"""IBM Granite: ``<|tool_call|>`` (3.0) or ``<tool_call>`` (3.1+) followed by a JSON
list of ``{"name", "arguments"}`` (Granite 4: one object per ``<tool_call>``)."""

from __future__ import annotations

from toolwire.textformats.jsoncalls import envelopes
from toolwire.textformats.scanner import Grammar, TextScanner


class GraniteExtractor(TextScanner):
    START = ("<|tool_call|>", "<tool_call>")
    STRAY = ("</tool_call>",)

    def call(self, marker: str) -> Grammar:
        handled = yield from envelopes(self, ("</tool_call>",))
        return handled

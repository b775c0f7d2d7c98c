"""Hermes / Qwen2.5: ``<tool_call>{"name": N, "arguments": {args}}</tool_call>``.

The closing tag is optional at the end of the output (servers often use it as a stop
string); a call is complete once its JSON object is.
"""

from __future__ import annotations

from toolwire.textformats.jsoncalls import envelopes, read_whole_envelope, whole_envelope
from toolwire.textformats.scanner import Grammar, TextScanner

_CLOSE = ("</tool_call>",)


class HermesExtractor(TextScanner):
    START = ("<tool_call>",)
    STRAY = _CLOSE
    WHOLE_CLOSE = _CLOSE
    whole_calls = read_whole_envelope

    def call(self, marker: str) -> Grammar:
        if whole_envelope(self):
            return True
        handled = yield from envelopes(self, _CLOSE)
        return handled

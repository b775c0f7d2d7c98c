"""Hermes / Qwen2.5: ``<tool_call>{"name": N, "arguments": {args}}</tool_call>``.

The closing tag is optional at the end of the output (servers often use it as a stop
string); a call is complete once its JSON object is.
"""

from __future__ import annotations

from toolwire.textformats.jsoncalls import envelopes, read_whole_envelope, whole_envelope
from toolwire.textformats.scanner import Grammar, TextScanner, WholeCall

_CLOSE = ("</tool_call>",)


class HermesExtractor(TextScanner):
    START = ("<tool_call>",)
    STRAY = _CLOSE

    def whole_calls(self, marker: str) -> list[WholeCall] | None:
        found = read_whole_envelope(self, _CLOSE)
        return None if found is None else [found]

    def call(self, marker: str) -> Grammar:
        if whole_envelope(self, _CLOSE):
            return True
        handled = yield from envelopes(self, _CLOSE)
        return handled

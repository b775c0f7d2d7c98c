"""InternLM 2 / 2.5: ``<|action_start|><|plugin|>{"name": N, "parameters": {args}}
<|action_end|>``."""

from __future__ import annotations

from toolwire.textformats.jsoncalls import envelopes
from toolwire.textformats.scanner import Grammar, TextScanner


class InternLMExtractor(TextScanner):
    START = ("<|action_start|>",)
    STRAY = ("<|action_end|>",)

    def call(self, marker: str) -> Grammar:
        r = yield from self.after_marker(("<|plugin|>",))
        if isinstance(r, bool):
            return r  # False after e.g. <|interpreter|>: code, not a function call
        self.skip(len(r))
        handled = yield from envelopes(self, ("<|action_end|>",))
        if not handled:
            self.push_back("<|plugin|>")
        return handled

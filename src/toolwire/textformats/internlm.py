"""InternLM 2 / 2.5: ``<|action_start|><|plugin|>{"name": N, "parameters": {args}}
<|action_end|>``."""

from __future__ import annotations

from toolwire.textformats.jsoncalls import envelopes
from toolwire.textformats.scanner import Grammar, TextScanner


class InternLMExtractor(TextScanner):
    START = ("<|action_start|>",)
    STRAY = ("<|action_end|>",)

    def call(self, marker: str) -> Grammar:
        r = yield (self.expect, ("<|plugin|>",))
        if r is None:
            self.truncated_call(None)
            return True
        if r is False:
            return False  # e.g. <|interpreter|>: code, not a function call
        self.skip(len(r))
        handled = yield from envelopes(self, ("<|action_end|>",))
        if not handled:
            self.push_back("<|plugin|>")
        return handled

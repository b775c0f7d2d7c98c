"""InternLM 2 / 2.5: ``<|action_start|><|plugin|>{"name": N, "parameters": {args}}
<|action_end|>``."""

from __future__ import annotations

import re

from toolwire.textformats.jsoncalls import envelopes
from toolwire.textformats.scanner import Grammar, TextScanner

PLUGIN = "<|plugin|>"
# decided before anything is consumed: text already consumed cannot be given back
# once a later feed has compacted the buffer
_PLUGIN_CALL = re.compile(r"[ \t\r\n]{0,256}<\|plugin\|>(?=[ \t\r\n]{0,256}[\[{])")
_PLUGIN_AT_END = re.compile(r"[ \t\r\n]*(?:<\|plugin\|>[ \t\r\n]*)?")


class InternLMExtractor(TextScanner):
    START = ("<|action_start|>",)
    STRAY = ("<|action_end|>",)

    def call(self, marker: str) -> Grammar:
        found = yield (self.peek, _PLUGIN_CALL, 530, "<")
        if not found:
            if self._eof and _PLUGIN_AT_END.fullmatch(self._buf, self._pos):
                self._pos = len(self._buf)
                self.truncated_call(None)  # F1: cut off right after the markers
                return True
            return False  # e.g. <|interpreter|>: code, not a function call
        self.skip(found.end() - self._pos)
        handled = yield from envelopes(self, ("<|action_end|>",))
        return handled

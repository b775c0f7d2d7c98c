"""Llama 3.1-3.3 / Llama 4 JSON: optional ``<|python_tag|>``, then
``{"name": N, "parameters"|"arguments": {args}}`` objects separated by ``; ``.

Without the tag, only an object at the start of the output (or right after
reasoning) is a call, and only if it names one; any other JSON stays text.
"""

from __future__ import annotations

import re

from toolwire.textformats.jsoncalls import CALL, envelope
from toolwire.textformats.scanner import Grammar, TextScanner

_OBJECT = re.compile(r"[ \t\r\n]{0,64}(?=\{)")
_SEPARATOR = re.compile(r"[ \t\r\n]{0,16};[ \t\r\n]{0,16}(?=\{)")


class Llama3JsonExtractor(TextScanner):
    START = ("<|python_tag|>",)
    STRAY = ("<|eom_id|>", "<|eot_id|>")

    def at_start(self) -> Grammar:
        found = yield (self.peek, _OBJECT, 65, "{")
        if found:
            self.skip(found.end() - self._pos)
            yield from self._sequence(bare=True)

    def call(self, marker: str) -> Grammar:
        r = yield from self.after_marker(("{",))
        if isinstance(r, bool):
            return r
        yield from self._sequence(bare=False)
        return True

    def _sequence(self, *, bare: bool) -> Grammar:
        while True:
            outcome = yield from envelope(self, bare=bare)
            if outcome != CALL:
                return
            sep = yield (self.peek, _SEPARATOR, 34, ";")
            if not sep:
                return
            self.skip(sep.end() - self._pos)

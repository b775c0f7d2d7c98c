"""Phi-4-mini: ``functools[{"name": N, "arguments": {args}}, …]``."""

from __future__ import annotations

from toolwire.textformats.jsoncalls import envelope_list
from toolwire.textformats.scanner import Grammar, TextScanner


class Phi4MiniExtractor(TextScanner):
    START = ("functools[",)

    def call(self, marker: str) -> Grammar:
        r = yield from self.after_marker(("{", "]"))
        if isinstance(r, bool):
            return r  # False for "functools[" in prose
        yield from envelope_list(self, opened=True)
        return True

"""Jamba and Hunyuan-A13B: ``<tool_calls>[{"name", "arguments"}, …]</tool_calls>``."""

from __future__ import annotations

from toolwire.textformats.jsoncalls import envelopes
from toolwire.textformats.scanner import Grammar, TextScanner


class JambaExtractor(TextScanner):
    START = ("<tool_calls>",)
    STRAY = ("</tool_calls>",)

    def call(self, marker: str) -> Grammar:
        handled = yield from envelopes(self, ("</tool_calls>",))
        return handled

"""Llama 3.1-3.3 / Llama 4 JSON: optional ``<|python_tag|>``, then
``{"name": N, "parameters"|"arguments": {args}}`` objects separated by ``; `` (or by
whitespace alone).

Without the tag, an object at the start of the output (or right after reasoning) is
a call if it names one; after prose, only if it names a declared tool (F31, F35). Any
other JSON stays text.
"""

from __future__ import annotations

import re

from toolwire.textformats.jsoncalls import (
    CALL,
    envelope,
    read_usual_text,
    read_whole_envelope,
    whole_envelope,
)
from toolwire.textformats.scanner import Grammar, TextScanner

_OBJECT = re.compile(r"[ \t\r\n]{0,64}(?=\{)")
# "; " between calls; some models put only whitespace, which counts only before an
# object that starts like a call (so a JSON value after a call keeps its spacing)
_SEPARATOR = re.compile(r'[ \t\r\n]{0,16}(?:;[ \t\r\n]{0,16}(?=\{)|(?=\{[ \t\r\n]{0,16}"name"))')


class Llama3JsonExtractor(TextScanner):
    START = ("<|python_tag|>",)
    STRAY = ("<|eom_id|>", "<|eot_id|>")
    START_LEAD = "{"

    def at_start(self) -> Grammar:
        found = yield (self.peek, _OBJECT, 65, self.START_LEAD)
        if found:
            self.skip(found.end() - self._pos)
            yield from self._sequence(bare=True)

    # ``call``'s calls read at once (see ``TextScanner.whole_calls``): one envelope,
    # read up to its end tag, left in the text. Only whitespace lies between its ``}``
    # and that tag, so ``_sequence``'s ``peek`` would find no separator (the tag's
    # ``<`` decides it) and the call is all ``call`` reads.
    WHOLE_CLOSE = STRAY
    WHOLE_TAKE = False
    whole_calls = read_whole_envelope
    usual_text = read_usual_text

    def call(self, marker: str) -> Grammar:
        r = yield from self.after_marker(("{",))
        if isinstance(r, bool):
            return r
        yield from self._sequence(bare=False)
        return True

    def loose_call(self, opener: str) -> Grammar:
        """A call after prose (F31), and the calls that follow it."""
        handled = yield from super().loose_call(opener)
        if handled:
            yield from self._sequence(bare=False, first_read=True)
        return handled

    def _sequence(self, *, bare: bool, first_read: bool = False) -> Grammar:
        while True:
            if not first_read and not whole_envelope(self):
                outcome = yield from envelope(self, bare=bare)
                if outcome != CALL:
                    return
            first_read = False
            sep = yield (self.peek, _SEPARATOR, 48, ";{")
            if not sep:
                return
            self.skip(sep.end() - self._pos)

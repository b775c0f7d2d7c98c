"""Raw model text (no wire framing): bytes decoded incrementally as UTF-8 (F27).

Bytes that are not UTF-8 become U+FFFD in the text, as in the wires' text; from the
first of them on, a call whose arguments hold a U+FFFD is repaired with
``invalid_utf8`` (F29). Text read as characters has no markers to tell a replaced byte
from a U+FFFD the model sent, so such a call is named repaired even if its U+FFFD was
sent (too many repairs named, never too few: ``toolwire.invalid_utf8``).
"""

from __future__ import annotations

from codecs import utf_8_decode
from collections.abc import Callable

from toolwire.assemble import CallAssembler
from toolwire.invalid_utf8 import REPLACEMENT
from toolwire.providers.base import WireDecoder


class PlainTextDecoder(WireDecoder):
    format_name = "text"

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._rest = b""  # a character's first bytes, cut off by the end of a piece
        self.finished = True  # plain text has no terminal message: its end is the end

    def feed(self, data: bytes | str) -> None:
        if isinstance(data, str):
            text = data
        else:
            text = self._decode(self._rest + data if self._rest else data, final=False)
        if text:
            self.text(text)

    def close(self) -> None:
        rest = self._decode(self._rest, final=True) if self._rest else ""
        if rest:
            self.text(rest)

    def _decode(self, data: bytes, *, final: bool) -> str:
        try:
            text, used = utf_8_decode(data, "strict", final)
        except UnicodeDecodeError as exc:
            # The text before the first bad byte goes on first: what it holds is read
            # before any byte is replaced, as it is when the bad byte comes in a later
            # piece (a call there is not named repaired in one split and not another).
            if exc.start:
                self.text(utf_8_decode(data[: exc.start], "strict", True)[0])
            # (the assembler's marker for replaced bytes: here U+FFFD itself)
            self.sink.invalid_utf8 = REPLACEMENT
            text, used = utf_8_decode(data[exc.start :], "replace", final)
            used += exc.start
        self._rest = data[used:]
        return text

"""Raw model text (no wire framing): bytes decoded incrementally as UTF-8 (F27)."""

from __future__ import annotations

import codecs
from collections.abc import Callable

from toolwire.assemble import CallAssembler
from toolwire.providers.base import WireDecoder


class PlainTextDecoder(WireDecoder):
    format_name = "text"

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self.finished = True  # plain text has no terminal message: its end is the end

    def feed(self, data: bytes | str) -> None:
        text = data if isinstance(data, str) else self._utf8.decode(data)
        if text:
            self.text(text)

    def close(self) -> None:
        rest = self._utf8.decode(b"", final=True)
        if rest:
            self.text(rest)

"""What every wire decoder shares: it is fed bytes and talks to a CallAssembler."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import orjson

from toolwire.assemble import CallAssembler
from toolwire.repair import repair_json
from toolwire.sse import SSEDecoder, SSEMessage


def token_count(value: Any) -> int | None:
    """A count read from the wire (token usage): an int, never a bool, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class WireDecoder(ABC):
    """Decodes one wire format into assembler calls.

    ``text_sink`` receives visible text; it is the assembler's ``text`` unless a
    text-format extractor sits in between (a model server that leaves tool markup in
    the text).
    """

    format_name: str = ""

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        self.sink = sink
        self.text = text_sink if text_sink is not None else sink.text
        self.finished = False  # the wire's own terminal message was seen

    @abstractmethod
    def feed(self, data: bytes | str) -> None: ...

    @abstractmethod
    def close(self) -> None:
        """End of input: flush framing; the owner then ends the assembler."""

    def load_json(self, data: str) -> Any:
        """One wire message's JSON. Unreadable JSON goes through the repair ladder
        (proxies emit Python-style chunks); what still fails becomes an error event."""
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
        else:
            if isinstance(value, dict):
                return value
            self.sink.error(f"{self.format_name} message is not a JSON object", data)
            return None
        result = repair_json(data)
        if result.ok and not result.truncated and isinstance(result.value, dict):
            return result.value
        self.sink.error(f"unreadable {self.format_name} message: {result.error or 'cut off'}", data)
        return None


class SSEWireDecoder(WireDecoder):
    """A wire format framed as Server-Sent Events."""

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._sse = SSEDecoder()

    def feed(self, data: bytes | str) -> None:
        for message in self._sse.feed(data):
            self.dispatch(message)

    def close(self) -> None:
        for message in self._sse.close():
            self.dispatch(message)

    def dispatch(self, message: SSEMessage) -> None:
        try:
            self.on_message(message)
        except Exception as exc:  # a message of an unexpected shape must not end the stream
            self.sink.error(
                f"could not interpret {self.format_name} message: {exc!r}", message.data
            )

    @abstractmethod
    def on_message(self, message: SSEMessage) -> None: ...

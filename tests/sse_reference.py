"""The line-at-a-time SSE decoder toolwire used before block framing: a test oracle.

Fed bytes in any pieces. Lines are split on LF, CRLF or CR as the SSE spec says; a
line is decoded from UTF-8 only once it is complete, so a multi-byte character split
across reads is never corrupted (F27). Work is linear in the input: a long line that
arrives in many pieces is joined once, when its end arrives.
"""

from __future__ import annotations

from typing import NamedTuple


class SSEMessage(NamedTuple):
    """One dispatched event. A tuple: cheap to build, one per wire message."""

    data: str
    event: str | None = None
    id: str | None = None
    retry: int | None = None


_BOM = b"\xef\xbb\xbf"


class SSEDecoder:
    """``feed(bytes) -> messages``; ``close() -> messages`` flushes an unterminated one."""

    __slots__ = ("_data", "_event", "_head", "_id", "_pending", "_retry", "_skip_lf")

    def __init__(self) -> None:
        self._head: bytes | None = b""  # the first bytes, until a BOM is ruled out
        self._pending: list[bytes] = []  # pieces of the current, unfinished line
        self._skip_lf = False  # the previous piece ended in CR: a leading LF belongs to it
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes | str) -> list[SSEMessage]:
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8", "surrogatepass")
        if self._head is not None:
            # the stream may start with a UTF-8 byte order mark, which the spec drops
            head = self._head + chunk
            if len(head) < len(_BOM) and _BOM.startswith(head):
                self._head = head
                return []
            self._head = None
            chunk = head[len(_BOM) :] if head.startswith(_BOM) else head
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if b"\r" in chunk:
            self._skip_lf = chunk.endswith(b"\r")
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if b"\n" not in chunk:
            self._pending.append(chunk)
            return []
        if self._pending:
            self._pending.append(chunk)
            chunk = b"".join(self._pending)
            self._pending = []
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if tail:
            self._pending.append(tail)
        out: list[SSEMessage] = []
        data = self._data
        for line in lines:
            if not line:
                if data and self._event is None:  # the common message, dispatched inline
                    text = data[0] if len(data) == 1 else "\n".join(data)
                    out.append(SSEMessage(text, None, self._id, self._retry))
                    data = self._data = []
                elif data or self._event is not None:
                    out.append(self._dispatch())
                    data = self._data
            elif line[:6] == b"data: ":  # the common line, handled inline
                data.append(line[6:].decode("utf-8", "replace"))
            else:
                self._field(line)
        return out

    def close(self) -> list[SSEMessage]:
        """End of input: a final line and message without their blank line still count."""
        if self._head:
            head, self._head = self._head, None
            out = self.feed(head)
            return out + self.close()
        if self._pending:
            self._field(b"".join(self._pending))
            self._pending = []
        if self._data or self._event is not None:
            return [self._dispatch()]
        return []

    def _dispatch(self) -> SSEMessage:
        msg = SSEMessage("\n".join(self._data), self._event, self._id, self._retry)
        self._data = []
        self._event = None
        return msg

    def _field(self, line: bytes) -> None:
        if line.startswith(b"data:"):
            data = line[6:] if line[5:6] == b" " else line[5:]
            self._data.append(data.decode("utf-8", "replace"))
            return
        if line[:1] == b":":
            return  # comment / keep-alive
        name, _, raw = line.partition(b":")
        value = (raw[1:] if raw[:1] == b" " else raw).decode("utf-8", "replace")
        if name == b"event":
            self._event = value
        elif name == b"data":
            self._data.append(value)  # "data" with no colon: an empty data line
        elif name == b"id":
            if "\0" not in value:
                self._id = value
        elif name == b"retry" and value.isdigit():
            self._retry = int(value)

"""The lean HTTP/1.1 transport ``ModelClient`` uses by default: a keep-alive pool on
httpcore's network layer, h11 for the request and the response head, and the body's
framing read here, one piece per network read.

Why not ``httpx.AsyncClient`` or httpcore's ``AsyncConnectionPool``: an upstream
streams hundreds of small SSE events, each its own HTTP chunk, and both hand them on
one at a time (h11 makes one ``Data`` event per chunk; httpcore passes each through
three async generators, httpx through more). Client CPU per event of a 2,000-event
stream (``bench/bench_client.py``, load 8-14): httpx 7.5-9.2 µs, httpcore's pool
6.9-7.4 µs, this module 1.5-1.9 µs. Even h11 alone, with the events of one read joined,
cost 5.0-5.5 µs: most of it h11's per-chunk event machinery.

What stays with the libraries: connecting, TLS (httpx's own SSL context: certifi,
``SSL_CERT_FILE``/``SSL_CERT_DIR``) and the timeouts of each socket operation
(httpcore's ``AnyIOBackend``), writing the request and checking the response head
(h11). What is read here is only the framing of the body: a length, chunked, or up to
the close.

Not handled here, so ``ModelClient`` sends through httpx instead: proxies, credentials
in the URL, schemes other than http and https.
"""

from __future__ import annotations

import contextlib
import re
import ssl
import time
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal

import anyio
import h11
import httpcore
import httpx

READ_SIZE = 65536  # bytes asked of each read (httpcore's own figure)
KEEPALIVE_EXPIRY = 5.0  # seconds an idle connection is kept (httpx's default)
MAX_IDLE = 64  # idle connections kept, all origins together (as the httpx path)
_MAX_LINE = 4096  # a chunk-size or trailer line longer than this is not HTTP
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")

WireKind = Literal["connect", "timeout", "dropped"]


class WireError(Exception):
    """A failure below HTTP: ``connect`` (no connection), ``timeout`` (a read or a
    write waited too long), ``dropped`` (the connection closed, or the peer did not
    speak HTTP). ``unanswered``: not one byte of a response arrived."""

    def __init__(self, kind: WireKind, detail: str, *, unanswered: bool = False) -> None:
        super().__init__(detail)
        self.kind: WireKind = kind
        self.unanswered = unanswered


@dataclass(frozen=True, slots=True)
class Target:
    """A URL as the transport needs it, parsed once."""

    origin: tuple[str, str, int]  # scheme, host, port
    host_header: bytes
    path: bytes  # path and query


def parse_target(url: str) -> Target | None:
    """``url`` for this transport; None when it needs httpx (another scheme, or
    credentials in the URL)."""
    parsed = httpx.URL(url)
    if parsed.scheme not in ("http", "https") or parsed.userinfo or not parsed.host:
        return None
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    host = parsed.raw_host.decode("ascii")  # IDNA-encoded, IPv6 without brackets
    return Target((parsed.scheme, host, port), parsed.netloc, parsed.raw_path)


@dataclass(slots=True)
class _Idle:
    stream: httpcore.AsyncNetworkStream
    since: float


class Pool:
    """Connections by origin, kept alive between requests; no limit on how many are
    open at once (as the httpx path: ``max_connections=None``), so no pool wait."""

    def __init__(self, *, connect: float, read: float, write: float) -> None:
        self.connect_timeout = connect
        self.read_timeout = read
        self.write_timeout = write
        self._backend = httpcore.AnyIOBackend()
        self._idle: dict[tuple[str, str, int], list[_Idle]] = {}
        self._idle_count = 0
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    async def request(
        self, target: Target, headers: list[tuple[bytes, bytes]], content: bytes
    ) -> Answer:
        """POST ``content``; the answer once its head has arrived (``WireError``
        otherwise)."""
        if self._closed:
            raise RuntimeError("the client has been closed")
        stream = await self._take_idle(target.origin)
        if stream is not None:
            try:
                return await self._exchange(stream, target, headers, content)
            except WireError as exc:
                # the keep-alive race: the server closed the idle connection as the
                # request went out, and answered nothing. Once more on a new one.
                if exc.kind != "dropped" or not exc.unanswered:
                    raise
        return await self._exchange(await self._connect(target), target, headers, content)

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle, self._idle_count = self._idle, {}, 0
        for conns in idle.values():
            for conn in conns:
                await _close(conn.stream)

    async def _take_idle(self, origin: tuple[str, str, int]) -> httpcore.AsyncNetworkStream | None:
        conns = self._idle.get(origin)
        now = time.monotonic()
        while conns:
            conn = conns.pop()
            self._idle_count -= 1
            # readable while idle: the server closed it (or sent what no request asked)
            if now - conn.since <= KEEPALIVE_EXPIRY and not conn.stream.get_extra_info(
                "is_readable"
            ):
                return conn.stream
            await _close(conn.stream)
        return None

    async def release(
        self, origin: tuple[str, str, int], stream: httpcore.AsyncNetworkStream
    ) -> None:
        """A connection whose answer was read to its end, for the next request."""
        if self._closed or self._idle_count >= MAX_IDLE:
            await _close(stream)
            return
        self._idle.setdefault(origin, []).append(_Idle(stream, time.monotonic()))
        self._idle_count += 1

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:  # httpx's: certifi, or SSL_CERT_FILE / SSL_CERT_DIR
            context = httpx.create_ssl_context()
            context.set_alpn_protocols(["http/1.1"])
            self._ssl = context
        return self._ssl

    async def _connect(self, target: Target) -> httpcore.AsyncNetworkStream:
        scheme, host, port = target.origin
        try:
            stream = await self._backend.connect_tcp(host, port, timeout=self.connect_timeout)
            if scheme == "https":
                stream = await stream.start_tls(
                    self._ssl_context(), server_hostname=host, timeout=self.connect_timeout
                )
        except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
            raise WireError("connect", str(exc)) from exc
        return stream

    async def _exchange(
        self,
        stream: httpcore.AsyncNetworkStream,
        target: Target,
        headers: list[tuple[bytes, bytes]],
        content: bytes,
    ) -> Answer:
        try:
            conn = h11.Connection(h11.CLIENT)  # one per exchange; it checks both heads
            head = conn.send(
                h11.Request(
                    method=b"POST",
                    target=target.path,
                    headers=[
                        (b"host", target.host_header),
                        *headers,
                        (b"content-length", b"%d" % len(content)),
                    ],
                )
            )
            conn.send_with_data_passthrough(h11.Data(data=content))  # (no copy)
            conn.send(h11.EndOfMessage())
            try:
                await stream.write((head or b"") + content, timeout=self.write_timeout)
            except httpcore.WriteError:
                pass  # the server may have answered already (a 413) and closed: read it
            except httpcore.WriteTimeout as exc:
                raise WireError("timeout", "write timeout") from exc
            return await self._read_head(conn, stream, target)
        except BaseException:
            await _close(stream)
            raise

    async def _read_head(
        self, conn: h11.Connection, stream: httpcore.AsyncNetworkStream, target: Target
    ) -> Answer:
        received = False
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise WireError("dropped", str(exc), unanswered=not received) from exc
            if event is h11.NEED_DATA:
                data = await _read(stream, self.read_timeout, unanswered=not received)
                received = received or bool(data)
                conn.receive_data(data)
            elif isinstance(event, h11.Response):
                leftover, _ = conn.trailing_data
                return Answer(self, stream, target.origin, event, leftover)
            elif not isinstance(event, h11.InformationalResponse):
                raise WireError("dropped", "no response", unanswered=not received)


async def _read(stream: httpcore.AsyncNetworkStream, timeout: float, *, unanswered: bool) -> bytes:
    try:
        return await stream.read(READ_SIZE, timeout=timeout)
    except httpcore.ReadTimeout as exc:
        raise WireError("timeout", "read timeout", unanswered=unanswered) from exc
    except httpcore.ReadError as exc:
        raise WireError("dropped", str(exc), unanswered=unanswered) from exc


async def _close(stream: httpcore.AsyncNetworkStream) -> None:
    # shielded: a cancelled task still closes its socket; a broken one has nothing to say
    with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
        await stream.aclose()


class Answer:
    """A response whose head has arrived; ``chunks`` reads its body."""

    def __init__(
        self,
        pool: Pool,
        stream: httpcore.AsyncNetworkStream,
        origin: tuple[str, str, int],
        head: h11.Response,
        leftover: bytes,
    ) -> None:
        self.status: int = head.status_code
        self.raw_headers: list[tuple[bytes, bytes]] = list(head.headers)
        self._pool = pool
        self._stream: httpcore.AsyncNetworkStream | None = stream
        self._origin = origin
        self._leftover = leftover
        self._body, self._reusable = _framing(head, self.raw_headers)

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body (not content-decoded), one piece per network read; then the
        connection goes back to the pool when it can serve another request."""
        stream = self._stream
        if stream is None:
            raise WireError("dropped", "the answer was closed")
        body = self._body
        data, self._leftover = self._leftover, b""
        try:
            while not body.done:
                if not data:
                    data = await _read(stream, self._pool.read_timeout, unanswered=False)
                    if not data:
                        body.end()  # the close ends a body read up to it; else WireError
                        break
                piece = body.feed(data)
                data = b""
                if piece:
                    yield piece
        except BaseException:
            await self.aclose()
            raise
        self._stream = None
        if self._reusable and not body.spare:
            await self._pool.release(self._origin, stream)
        else:
            await _close(stream)

    async def aclose(self) -> None:
        """Close the connection unless its answer was read to the end."""
        stream, self._stream = self._stream, None
        if stream is not None:
            await _close(stream)


def _framing(head: h11.Response, headers: list[tuple[bytes, bytes]]) -> tuple[_Body, bool]:
    """How the body ends (RFC 9112 §6.3), and whether the connection can serve another
    request after it. h11 has checked the head: a transfer coding is ``chunked``, a
    length is digits."""
    chunked = False
    length: int | None = None
    reusable = head.http_version == b"1.1"
    for name, value in headers:
        if name == b"transfer-encoding":
            chunked = True
        elif name == b"content-length":
            length = int(value)
        elif name == b"connection" and b"close" in value.lower():
            reusable = False
    if head.status_code in (204, 304):
        return _Length(0), reusable
    if chunked:
        return _Chunked(), reusable
    if length is not None:
        return _Length(length), reusable
    return _UntilClose(), False


class _Body:
    """A body's framing: ``feed`` takes the bytes read and returns the body's bytes
    among them; ``done`` once it is complete; ``spare`` when bytes came after it."""

    done = False
    spare = False

    def feed(self, data: bytes) -> bytes:
        raise NotImplementedError

    def end(self) -> None:
        """The connection closed before ``done``."""
        raise WireError("dropped", "the body was cut short")


class _Length(_Body):
    def __init__(self, length: int) -> None:
        self.left = length
        self.done = length == 0

    def feed(self, data: bytes) -> bytes:
        if len(data) >= self.left:
            self.spare = len(data) > self.left
            data, self.left, self.done = data[: self.left], 0, True
        else:
            self.left -= len(data)
        return data


class _UntilClose(_Body):
    def feed(self, data: bytes) -> bytes:
        return data

    def end(self) -> None:
        self.done = True


class _Chunked(_Body):
    """``Transfer-Encoding: chunked``: size lines, data, trailers. Every chunk of a
    read is joined into one piece (h11 gives one event per chunk: 4-5 times the CPU
    for SSE events of ~100 bytes)."""

    def __init__(self) -> None:
        self._buf = b""  # an incomplete size or trailer line, kept for the next read
        self._left = 0  # bytes of the current chunk's data still to come
        self._crlf = False  # the CRLF after a chunk's data is next
        self._trailers = False  # the last chunk was read: trailer lines until an empty one

    def feed(self, data: bytes) -> bytes:
        if self._buf:
            data, self._buf = self._buf + data, b""
        parts: list[bytes] = []
        pos, size = 0, len(data)
        while pos < size:
            if self._left:
                end = min(pos + self._left, size)
                parts.append(data[pos:end])
                self._left -= end - pos
                pos = end
                self._crlf = not self._left
                continue
            if self._crlf:
                if size - pos < 2:
                    break
                if data[pos : pos + 2] != b"\r\n":
                    raise WireError("dropped", "a chunk's data is not followed by CRLF")
                pos += 2
                self._crlf = False
                continue
            end = data.find(b"\r\n", pos)
            if end < 0:
                break
            line = data[pos:end]
            pos = end + 2
            if self._trailers:
                if not line:
                    self.done = True
                    self.spare = pos < size
                    break
                continue
            if not _HEX.fullmatch(line):  # (checked first: extensions are rare)
                line = line.split(b";", 1)[0].rstrip(b" \t")
                if not _HEX.fullmatch(line):
                    raise WireError("dropped", "a chunk size is not hexadecimal")
            self._left = int(line, 16)
            self._trailers = not self._left
        if not self.done and pos < size:
            self._buf = data[pos:]
            if len(self._buf) > _MAX_LINE:
                raise WireError("dropped", "a chunk size line without its end")
        return b"".join(parts)


class ContentDecoder:
    """A body's content codings undone, as httpx undoes them: gzip and deflate (zlib-
    wrapped as the RFC says, or raw as some servers send it); ``identity`` and codings
    not asked for pass as they are (as httpx passes them)."""

    def __init__(self, header: str) -> None:
        # codings are listed in the order applied: undone last first
        self._codings = [
            coding
            for part in reversed(header.split(","))
            if (coding := part.strip().lower()) in ("gzip", "x-gzip", "deflate")
        ]
        self._inflaters: list[zlib._Decompress | None] = [None] * len(self._codings)
        self._held = [b""] * len(self._codings)  # deflate's first byte, until the second

    def __bool__(self) -> bool:
        return bool(self._codings)

    def decode(self, data: bytes) -> bytes:
        for i, coding in enumerate(self._codings):
            inflater = self._inflaters[i]
            if inflater is None:
                data = self._held[i] + data
                if coding == "deflate" and len(data) < 2:  # two bytes tell zlib from raw
                    self._held[i] = data
                    return b""
                self._held[i] = b""
                inflater = self._inflaters[i] = _inflater(coding, data)
            data = inflater.decompress(data)
            if not data:
                return b""
        return data

    def flush(self) -> bytes:
        """What the decompressors still hold at the body's end."""
        data = b""
        for inflater in self._inflaters:
            if inflater is not None:
                data = inflater.decompress(data) + inflater.flush()
        return data


def _inflater(coding: str, first: bytes) -> zlib._Decompress:
    if coding != "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    # a zlib header (RFC 1950): compression method 8, and a multiple of 31
    wrapped = first[0] & 0x0F == 8 and (first[0] << 8 | first[1]) % 31 == 0
    return zlib.decompressobj() if wrapped else zlib.decompressobj(-zlib.MAX_WBITS)

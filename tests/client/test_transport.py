"""The lean transport under ``ModelClient``, against real servers on loopback: keep-alive,
the framing of bodies, timeouts and drops (the same ``UpstreamError`` as the httpx path
gives), TLS, and the httpx path it leaves to (proxies, an injected client)."""

from __future__ import annotations

import asyncio
import gzip
import shutil
import ssl
import subprocess
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from upstream import Script, ScriptedUpstream, chat_chunk

from toolwire.client import ClientTimeouts, ModelClient, RetryPolicy, UpstreamError
from toolwire.client.transport import ContentDecoder, WireError, _Chunked

pytestmark = pytest.mark.anyio

FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02)
SSE = b'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n'
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedUpstream]:
    scripts = {
        "slow-chunks": Script(
            [chat_chunk({"content": "a"}), chat_chunk({"content": "b"})], chunk_delay=1.0
        )
    }
    with ScriptedUpstream(scripts) as server:
        yield server


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request (head and body); b"" when the client closed."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return b""
    length = next(
        int(line.split(b":")[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    return head + await reader.readexactly(length)


@asynccontextmanager
async def serving(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=tls)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


async def read_all(client: ModelClient, model: str = "m") -> bytes:
    response = await client.open(client.prepare({"model": model, "stream": True}, "openai-chat"))
    try:
        return b"".join([chunk async for chunk in response.iter_bytes()])
    finally:
        await response.aclose()


async def failure(client: ModelClient, **body: object) -> tuple[bytes, UpstreamError]:
    """What arrived before reading an answer failed, and the error; the client closed.
    ``body``: the request's fields beside ``{"model": "m", "stream": True}``."""
    received: list[bytes] = []
    try:
        with pytest.raises(UpstreamError) as caught:
            prepared = client.prepare({"model": "m", "stream": True, **body}, "openai-chat")
            response = await client.open(prepared)
            try:
                async for chunk in response.iter_bytes():
                    received.append(chunk)
            finally:
                await response.aclose()
    finally:
        await client.aclose()
    return b"".join(received), caught.value


def chunked(*pieces: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


OK_CHUNKED = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


async def test_connections_are_kept_alive_and_reused() -> None:
    connections = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        while await read_request(reader):
            writer.write(OK_CHUNKED + chunked(SSE, SSE))
            await writer.drain()
        writer.close()

    async with serving(answer) as port:
        client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
        assert client._pool is not None  # the lean transport
        for _ in range(3):
            assert await read_all(client) == SSE * 2
        await client.aclose()
    assert connections == 1


async def test_a_connection_the_server_closed_while_idle_is_not_a_failure() -> None:
    """A server that closes after each answer without saying so: the next request
    goes out on a new connection (the stale one is seen readable, or fails unanswered
    and is tried once more)."""
    connections = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await read_request(reader)
        writer.write(OK_CHUNKED + chunked(SSE))
        await writer.drain()
        writer.close()

    async with serving(answer) as port:
        client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
        for _ in range(3):
            assert await read_all(client) == SSE
            await asyncio.sleep(0.05)
        await client.aclose()
    assert connections == 3


async def test_a_reused_connection_closed_unanswered_is_tried_once_more() -> None:
    """The keep-alive race: the server drops the kept connection as the next request
    arrives, answering nothing; the request goes once more on a new connection."""
    connections = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        index, answered = connections, 0
        while await read_request(reader):
            if index == 1 and answered == 1:
                break  # the second request on the first connection: closed unanswered
            writer.write(OK_CHUNKED + chunked(SSE))
            await writer.drain()
            answered += 1
        writer.close()

    async with serving(answer) as port:
        client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
        assert await read_all(client) == SSE
        assert await read_all(client) == SSE
        await client.aclose()
    assert connections == 2


@pytest.mark.parametrize(
    ("head", "body"),
    [
        (b"content-length: %d\r\n" % len(SSE * 3), SSE * 3),  # a length
        (b"connection: close\r\n", SSE * 3),  # up to the close
        (b"transfer-encoding: chunked\r\n", b"5;ext=1\r\nhello\r\n0\r\nx-trailer: 1\r\n\r\n"),
    ],
)
async def test_bodies_of_each_framing_arrive_whole(head: bytes, body: bytes) -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\n" + head + b"\r\n")
        for i in range(0, len(body), 7):  # in small writes: pieces split anywhere
            writer.write(body[i : i + 7])
            await writer.drain()
            await asyncio.sleep(0)
        writer.close()

    async with serving(answer) as port:
        client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
        data = await read_all(client)
        await client.aclose()
    assert data == (b"hello" if b"chunked" in head else body)


def test_chunked_bodies_split_at_every_byte_decode_the_same() -> None:
    pieces = [SSE, b"x" * 300, b"", SSE]
    wire = chunked(*[p for p in pieces if p]) + b"HTTP/1.1"  # the next answer's start
    want = b"".join(pieces)
    end = len(wire) - len(b"HTTP/1.1")
    for cut in range(1, len(wire)):
        body = _Chunked()
        got = body.feed(wire[:cut])
        got += body.feed(wire[cut:]) if not body.done else b""
        assert body.done and got == want, cut
        # bytes after the body: the connection is not reused (at ``end`` they are unread)
        assert body.spare is (cut != end), cut
    one = _Chunked()
    assert one.feed(wire[:end]) == want and one.done and not one.spare


@pytest.mark.parametrize(
    "wire", [b"zz\r\nhello\r\n", b"+5\r\nhello\r\n", b"5\r\nhelloXX", b"5" * 5000]
)
def test_a_malformed_chunked_body_is_a_drop_not_a_hang(wire: bytes) -> None:
    with pytest.raises(WireError) as caught:
        _Chunked().feed(wire)
    assert caught.value.kind == "dropped"


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as the RFC says
        ("deflate", _raw_deflate),  # raw, as some servers send it
        ("deflate, gzip", lambda data: gzip.compress(zlib.compress(data))),
        ("identity", lambda data: data),
        ("br", lambda data: data),  # not asked for: passed as it is, as httpx does
    ],
)
def test_content_codings_are_undone_in_any_pieces(
    header: str, code: Callable[[bytes], bytes]
) -> None:
    body = SSE * 40
    coded = code(body)
    for size in (1, 7, len(coded)):
        decoder = ContentDecoder(header)
        out = b"".join(decoder.decode(coded[i : i + size]) for i in range(0, len(coded), size))
        assert out + decoder.flush() == body, (header, size)


async def test_a_drop_mid_stream_gives_the_same_error_as_before() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(OK_CHUNKED + b"%x\r\n%s\r\n" % (len(SSE), SSE) + b"40\r\npartial")
        await writer.drain()
        writer.close()

    async with serving(answer) as port:
        client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
        received, error = await failure(client)
    assert (error.kind, error.message) == (
        "dropped",
        "the upstream closed the connection early",
    )
    assert received == SSE + b"partial"  # all that came before the cut


async def test_a_close_before_any_answer_is_reported_dropped() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.close()

    async with serving(answer) as port:
        client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
        _, error = await failure(client)
    assert (error.kind, error.message) == (
        "dropped",
        "the upstream closed the connection",
    )


async def test_a_stall_mid_stream_is_a_read_timeout(upstream: ScriptedUpstream) -> None:
    client = ModelClient("openai-chat", upstream.url, retry=FAST, timeouts=ClientTimeouts(read=0.3))
    _, error = await failure(client, model="slow-chunks")
    assert (error.kind, error.message) == (
        "timeout",
        "the upstream stopped sending (read timeout)",
    )


async def test_a_server_that_does_not_read_is_a_write_timeout() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(5)
        writer.close()

    async with serving(answer) as port:
        client = ModelClient(
            "openai-chat",
            f"http://127.0.0.1:{port}/v1",
            retry=FAST,
            timeouts=ClientTimeouts(write=0.3),
        )
        _, error = await failure(client, messages=[{"role": "user", "content": "x" * 24_000_000}])
    assert (error.kind, error.message) == (
        "timeout",
        "the upstream did not answer in time",
    )


async def test_connection_refused_is_retried_then_named() -> None:
    client = ModelClient("openai-chat", "http://127.0.0.1:9/v1", retry=FAST)
    _, error = await failure(client)
    assert (error.kind, error.message) == (
        "connect",
        "cannot reach the upstream at http://127.0.0.1:9/v1/chat/completions",
    )


async def test_429_then_503_with_retry_after_then_success() -> None:
    tries: list[float] = []
    answers = [
        b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 0.2\r\ncontent-length: 2\r\n\r\n{}",
        b"HTTP/1.1 503 Unavailable\r\nretry-after: 0\r\ncontent-type: application/json\r\n"
        b'content-length: 32\r\n\r\n{"error": {"message": "warming"}}',
    ]

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await read_request(reader):
            tries.append(asyncio.get_running_loop().time())
            writer.write(answers.pop(0) if answers else OK_CHUNKED + chunked(SSE))
            await writer.drain()
        writer.close()

    async with serving(answer) as port:
        client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
        assert await read_all(client) == SSE
        await client.aclose()
    assert len(tries) == 3
    assert tries[1] - tries[0] >= 0.19


async def test_a_5xx_body_gives_its_message_and_status() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await read_request(reader):
            writer.write(
                b"HTTP/1.1 502 Bad Gateway\r\ntransfer-encoding: chunked\r\n\r\n"
                + chunked(b'{"error": ', b'{"message": "no backend"}}')
            )
            await writer.drain()
        writer.close()

    async with serving(answer) as port:
        client = ModelClient("openai-chat", f"http://127.0.0.1:{port}/v1", retry=FAST)
        _, error = await failure(client)
    assert (error.kind, error.status) == ("status", 502)
    assert error.message == "the upstream answered 502: no backend"


async def test_the_request_carries_the_headers_httpx_sent() -> None:
    seen: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(OK_CHUNKED + chunked(SSE))
        await writer.drain()
        writer.close()

    async with serving(answer) as port:
        client = ModelClient(
            "anthropic",
            f"http://127.0.0.1:{port}/v1",
            api_key="sk-x",
            headers={"X-Extra": "1"},
            retry=FAST,
        )
        await read_all(client)
        await client.aclose()
    head = seen[0].split(b"\r\n\r\n")[0].lower().split(b"\r\n")
    assert head[0] == b"post /v1/messages http/1.1"
    for line in (
        b"host: 127.0.0.1:%d" % port,
        b"content-type: application/json",
        b"accept-encoding: gzip, deflate",
        b"x-extra: 1",
        b"x-api-key: sk-x",
        b"anthropic-version: 2023-06-01",
    ):
        assert line in head


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
async def test_https_verifies_with_the_certificates_httpx_would_trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await read_request(reader):
            writer.write(OK_CHUNKED + chunked(SSE))
            await writer.drain()
        writer.close()

    async with serving(answer, tls) as port:
        url = f"https://127.0.0.1:{port}/v1"
        untrusted = ModelClient("openai-chat", url, retry=RetryPolicy(attempts=1))
        _, error = await failure(untrusted)  # certifi does not know it
        assert error.kind == "connect"
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        trusted = ModelClient("openai-chat", url, retry=FAST)
        assert await read_all(trusted) == SSE
        assert await read_all(trusted) == SSE
        await trusted.aclose()


async def test_a_proxy_in_the_environment_sends_through_httpx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HTTP_PROXY is honoured (by httpx, as before); NO_PROXY still goes direct."""
    through_proxy: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while request := await read_request(reader):
            through_proxy.append(request.split(b"\r\n")[0])
            writer.write(OK_CHUNKED + chunked(SSE))
            await writer.drain()
        writer.close()

    async with serving(proxy) as port:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
            monkeypatch.delenv(name, raising=False)
            monkeypatch.delenv(name.lower(), raising=False)
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
        client = ModelClient("openai-chat", "http://model.invalid/v1", retry=FAST)
        assert client._pool is None  # the httpx path
        assert await read_all(client) == SSE
        await client.aclose()
        assert through_proxy == [b"POST http://model.invalid/v1/chat/completions HTTP/1.1"]
        monkeypatch.setenv("NO_PROXY", "model.invalid")
        assert ModelClient("openai-chat", "http://model.invalid/v1")._pool is not None


async def test_an_injected_httpx_client_is_used() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, stream=httpx.ByteStream(SSE))

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        client = ModelClient("openai-chat", "http://upstream.test/v1", http=http)
        assert client._pool is None
        assert await read_all(client) == SSE
        await client.aclose()
        assert not http.is_closed  # the caller's to close
    assert str(seen[0].url) == "http://upstream.test/v1/chat/completions"

"""``ModelClient``: sends one request to a model server and hands back its raw bytes.

    client = ModelClient("openai-chat", "http://127.0.0.1:8000/v1", api_key_env="VLLM_KEY")
    prepared = client.prepare(anthropic_body, "anthropic")   # translated to the wire
    response = await client.open(prepared)                   # retried until headers arrive
    async for chunk in response.iter_bytes():
        parser.feed(chunk)

``base_url`` is the API base as the vendors' SDKs take it (ending in ``/v1``); the
client appends its wire's path. Retries (connect errors, 429 with ``Retry-After``,
5xx) happen only inside ``open``: once the caller has a response, nothing is resent,
so nothing the caller has passed on can be duplicated. The API key is read from the
argument or from the named environment variable at each request and is never part of
an error message.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
import urllib.parse
import urllib.request
import zlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import httpx
import orjson

from toolwire import __version__
from toolwire.client.transport import (
    Answer,
    ContentDecoder,
    Pool,
    Target,
    WireError,
    parse_target,
)
from toolwire.jsontext import dumps
from toolwire.providers.native_requests import (
    openai_to_gemini,
    openai_to_ollama,
    openai_to_responses,
)
from toolwire.providers.requests import (
    RequestTranslation,
    anthropic_to_openai,
    openai_to_anthropic,
)
from toolwire.providers.responses_request import responses_to_openai
from toolwire.providers.tooldefs import ToolNameMap
from toolwire.spec import ToolSpec

# the path each wire's chat endpoint has under the API base (Gemini's names the model:
# ``gemini_path``); Ollama's base is the server itself (http://host:11434)
WIRE_PATHS: dict[str, str] = {
    "openai-chat": "/chat/completions",
    "anthropic": "/messages",
    "openai-responses": "/responses",
    "ollama": "/api/chat",
    "gemini": "/models/{model}:generateContent",
}
# Chat Completions → each other wire (every request goes by way of Chat)
_FROM_CHAT: dict[str, Callable[[Mapping[str, Any]], RequestTranslation]] = {
    "anthropic": openai_to_anthropic,
    "ollama": openai_to_ollama,
    "gemini": openai_to_gemini,
    "openai-responses": openai_to_responses,
}
ANTHROPIC_VERSION = "2023-06-01"
_ERROR_BODY_LIMIT = 65536  # bytes of an upstream error body kept for the message

ErrorKind = Literal["connect", "timeout", "status", "dropped"]
_STOPPED = "the upstream stopped sending (read timeout)"
_CUT = "the upstream closed the connection early"
_USER_AGENT = f"toolwire/{__version__}"


@dataclass(frozen=True, slots=True)
class ClientTimeouts:
    """Seconds. ``read`` bounds each wait for bytes, the first byte included."""

    connect: float = 10.0
    read: float = 300.0
    write: float = 30.0
    pool: float = 10.0

    def httpx(self) -> httpx.Timeout:
        return httpx.Timeout(connect=self.connect, read=self.read, write=self.write, pool=self.pool)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """``attempts`` tries in all; waits double from ``backoff`` up to ``max_backoff``
    (with jitter); a ``Retry-After`` up to ``max_retry_after`` is honoured as given."""

    attempts: int = 3
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` counts from 1)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        base = min(self.backoff * 2.0 ** (attempt - 1), self.max_backoff)
        return float(base * (0.5 + random.random() / 2))


class UpstreamError(Exception):
    """The upstream could not be reached, refused the request, timed out or dropped.

    ``status`` is the upstream's HTTP status for ``kind == "status"``, else 0."""

    def __init__(
        self, kind: ErrorKind, message: str, *, status: int = 0, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A request body in the client's wire format, and what translating it cost."""

    body: dict[str, Any]
    stream: bool
    lossy: tuple[str, ...] = ()
    names: ToolNameMap | None = None  # set when tool names had to be shortened
    tools: tuple[ToolSpec, ...] = ()  # declared tools, where the body's are not JSON Schema
    url: str | None = None  # where it goes, when the wire puts the model in the URL


class _Answer(Protocol):
    """A response whose head has arrived, from either transport."""

    status: int

    def header(self, name: str) -> str | None: ...
    def all_headers(self) -> httpx.Headers: ...
    def chunks(self) -> AsyncIterator[bytes]: ...  # the body, content-decoded
    async def aclose(self) -> None: ...


class UpstreamResponse:
    """An upstream answer whose headers have arrived (status 2xx)."""

    __slots__ = ("_answer", "attempts", "ttfb")

    def __init__(self, answer: _Answer, attempts: int, ttfb: float) -> None:
        self._answer = answer
        self.attempts = attempts
        self.ttfb = ttfb  # seconds from the first try to the response headers

    @property
    def status_code(self) -> int:
        return self._answer.status

    @property
    def headers(self) -> httpx.Headers:
        return self._answer.all_headers()

    @property
    def content_type(self) -> str:
        return self._answer.header("content-type") or ""

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        """The body as it arrives. A read timeout or a connection cut before the body
        is complete raises ``UpstreamError`` (``timeout`` / ``dropped``)."""
        try:
            async for chunk in self._answer.chunks():
                yield chunk
        except WireError as exc:
            if exc.kind == "timeout":
                raise UpstreamError("timeout", _STOPPED) from exc
            raise UpstreamError("dropped", _CUT) from exc
        except httpx.TimeoutException as exc:
            raise UpstreamError("timeout", _STOPPED) from exc
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise UpstreamError("dropped", _CUT) from exc
        except (httpx.DecodingError, zlib.error) as exc:
            raise UpstreamError("dropped", "the upstream's body does not decode") from exc

    async def aclose(self) -> None:
        await self._answer.aclose()


class _LeanAnswer:
    """An answer read by ``transport.Pool``."""

    __slots__ = ("_answer", "_headers", "status")

    def __init__(self, answer: Answer) -> None:
        self._answer = answer
        self.status = answer.status
        self._headers: httpx.Headers | None = None

    def header(self, name: str) -> str | None:
        key = name.lower().encode("ascii")
        values = [value for header, value in self._answer.raw_headers if header == key]
        return b", ".join(values).decode("latin-1") if values else None

    def all_headers(self) -> httpx.Headers:
        if self._headers is None:  # built when asked: the relay never asks
            self._headers = httpx.Headers(self._answer.raw_headers)
        return self._headers

    async def chunks(self) -> AsyncIterator[bytes]:
        decoder = ContentDecoder(self.header("content-encoding") or "")
        if not decoder:
            async for chunk in self._answer.chunks():
                yield chunk
            return
        async for chunk in self._answer.chunks():
            chunk = decoder.decode(chunk)
            if chunk:
                yield chunk
        rest = decoder.flush()
        if rest:
            yield rest

    async def aclose(self) -> None:
        await self._answer.aclose()


class _HttpxAnswer:
    """An answer read by ``httpx`` (an injected client, or a proxy in the way)."""

    __slots__ = ("response", "status")

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.status = response.status_code

    def header(self, name: str) -> str | None:
        value = self.response.headers.get(name)
        return None if value is None else str(value)

    def all_headers(self) -> httpx.Headers:
        return self.response.headers

    def chunks(self) -> AsyncIterator[bytes]:
        # a body without a content coding is read raw: one layer less for each of an
        # answer's many small chunks (a decoded body's bytes are the same bytes)
        response = self.response
        coded = response.headers.get("content-encoding", "identity").lower() != "identity"
        return response.aiter_bytes() if coded else response.aiter_raw()

    async def aclose(self) -> None:
        await self.response.aclose()


class ModelClient:
    """One upstream: its wire format, base URL, model name and key."""

    def __init__(
        self,
        format: str,
        base_url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        timeouts: ClientTimeouts | None = None,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        if format not in WIRE_PATHS:
            known = ", ".join(WIRE_PATHS)
            raise ValueError(f"no upstream client for {format!r} yet; supported: {known}")
        self.format = format
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + WIRE_PATHS[format]
        self._url = httpx.URL(self.url)  # parsed once: httpx parses a string per request
        self.model = model
        self._api_key = api_key
        self.api_key_env = api_key_env
        self.timeouts = timeouts or ClientTimeouts()
        self.retry = retry or RetryPolicy()
        self._headers = dict(headers or {})
        # the lean transport (``transport.Pool``) unless a client was handed in or the
        # URL needs what only httpx does: a proxy from the environment, credentials in
        # the URL, another scheme
        self._target = None if http is not None or _proxied(self.url) else parse_target(self.url)
        self._targets: dict[str, Target | None] = {}  # Gemini's URLs, by model
        self._pool: Pool | None = None
        self._http: httpx.AsyncClient | None = http
        self._own_http = http is None
        self._wire_headers: list[tuple[bytes, bytes]] = []  # the lean path's, but the key
        if self._target is not None:
            t = self.timeouts
            self._pool = Pool(connect=t.connect, read=t.read, write=t.write)
            self._wire_headers = _wire_headers(self._headers, format)
        elif http is None:
            self._http = self._httpx()

    def _httpx(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self.timeouts.httpx(),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
        )

    def __repr__(self) -> str:  # never the key
        return f"ModelClient({self.format!r}, {self.base_url!r}, model={self.model!r})"

    # -- requests ----------------------------------------------------------------------

    def prepare(
        self, body: Mapping[str, Any], source_format: str, *, stream: bool | None = None
    ) -> PreparedRequest:
        """``body`` (a request in ``source_format``) as a request in this client's
        wire format, with this client's model name when it has one."""
        translation = _translate(body, source_format, self.format)
        out = dict(translation.request)
        if self.model:
            out["model"] = self.model
        wants_stream = bool(body.get("stream")) if stream is None else stream
        out.pop("stream_options", None)
        url = None
        if self.format == "gemini":  # the model and the streaming are in the URL
            out.pop("stream", None)
            model = str(out.pop("model", None) or body.get("model") or "")
            url = self.gemini_url(model, wants_stream)
        elif wants_stream:
            out["stream"] = True
            if self.format == "openai-chat":
                out["stream_options"] = {"include_usage": True}
        else:
            out.pop("stream", None)
            if self.format in ("openai-chat", "ollama"):  # Ollama streams unless told not to
                out["stream"] = False
        return PreparedRequest(
            out, wants_stream, translation.lossy, translation.names, translation.tools, url
        )

    def gemini_url(self, model: str, stream: bool) -> str:
        """Gemini's endpoint for ``model``: streamGenerateContent (SSE) or
        generateContent."""
        name = urllib.parse.quote(model.removeprefix("models/"), safe="-._")
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"{self.base_url}/models/{name}:{method}"

    def _request_headers(self) -> dict[str, str]:
        return {"content-type": "application/json", **self._headers, **self.auth_headers()}

    def auth_headers(self) -> dict[str, str]:
        """What any request to this upstream carries besides its body: the caller's
        headers, Anthropic's version, the key (a model listing needs them too)."""
        headers = dict(self._headers)
        if self.format == "anthropic":
            headers.setdefault("anthropic-version", ANTHROPIC_VERSION)
        key = self._key_header()
        if key is not None:
            headers[key[0]] = key[1]
        return headers

    def _key_header(self) -> tuple[str, str] | None:
        """The API key's header, read at each request (the key may change)."""
        key = self._api_key
        if key is None and self.api_key_env:
            key = os.environ.get(self.api_key_env)
        if not key:
            return None
        if self.format == "anthropic":
            return "x-api-key", key
        if self.format == "gemini":
            return "x-goog-api-key", key
        return "authorization", f"Bearer {key}"

    async def open(self, request: PreparedRequest) -> UpstreamResponse:
        """Send the request; retry connect errors, 429 and 5xx; return once a 2xx
        response's headers arrived. Raises ``UpstreamError`` when it gives up."""
        content = dumps(request.body).encode()  # an integer beyond 64 bits too
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            try:
                answer = await self._send(request.url, content)
            except UpstreamError as failed:
                if failed.kind != "connect" or attempt >= self.retry.attempts:
                    raise
                await asyncio.sleep(self.retry.delay(attempt, None))
                continue
            if answer.status < 400:
                return UpstreamResponse(answer, attempt, time.monotonic() - started)
            error = await _status_error(answer)
            retryable = answer.status == 429 or answer.status >= 500
            if not retryable or attempt >= self.retry.attempts:
                raise error
            await asyncio.sleep(self.retry.delay(attempt, error.retry_after))

    async def _send(self, url: str | None, content: bytes) -> _Answer:
        """One try: the answer once its head arrived, or ``UpstreamError``."""
        where = self.url if url is None else self.base_url
        target = self._target if url is None else self._target_of(url)
        if target is None:
            return await self._send_httpx(url, content, where)
        assert self._pool is not None
        headers = self._wire_headers
        key = self._key_header()
        if key is not None:
            headers = [*headers, (key[0].encode(), key[1].encode("ascii"))]
        try:
            return _LeanAnswer(await self._pool.request(target, headers, content))
        except WireError as exc:
            raise _try_error(exc.kind, where) from exc

    def _target_of(self, url: str) -> Target | None:
        """A Gemini URL (the model is in it) for the lean transport; parsed once."""
        if self._target is None:
            return None
        if url not in self._targets:
            if len(self._targets) > 256:  # models named by callers: keep it bounded
                self._targets.clear()
            self._targets[url] = parse_target(url)
        return self._targets[url]

    async def _send_httpx(self, url: str | None, content: bytes, where: str) -> _Answer:
        if self._http is None:  # (a Gemini URL the lean transport cannot take)
            self._http = self._httpx()
        http = self._http
        try:
            response = await http.send(
                http.build_request(
                    "POST", url or self._url, content=content, headers=self._request_headers()
                ),
                stream=True,
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise _try_error("connect", where) from exc
        except httpx.TimeoutException as exc:
            raise _try_error("timeout", where) from exc
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            raise _try_error("dropped", where) from exc
        return _HttpxAnswer(response)

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
        if self._own_http and self._http is not None:
            await self._http.aclose()


def _try_error(kind: str, where: str) -> UpstreamError:
    """What one try's failure below HTTP tells the caller."""
    if kind == "connect":
        return UpstreamError("connect", f"cannot reach the upstream at {where}")
    if kind == "timeout":
        return UpstreamError("timeout", "the upstream did not answer in time")
    return UpstreamError("dropped", "the upstream closed the connection")


def _proxied(url: str) -> bool:
    """Whether the environment sends ``url`` through a proxy (HTTP_PROXY, HTTPS_PROXY,
    ALL_PROXY less NO_PROXY, read as httpx reads them: the environment only)."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return False
    # (in urllib.request since Python 2, not in typeshed; ``proxy_bypass`` would also
    # read macOS's and Windows' own settings, which httpx does not)
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    return not bypass(parts.hostname or "", proxies)


def _wire_headers(custom: Mapping[str, str], format: str) -> list[tuple[bytes, bytes]]:
    """The lean transport's request headers but the key: httpx's defaults (less
    ``zstd``, which it decodes only with an optional package), then the caller's, as
    ``_request_headers`` has them."""
    headers = {
        "accept": "*/*",
        "accept-encoding": "gzip, deflate",
        "user-agent": _USER_AGENT,
        "content-type": "application/json",
    }
    headers.update((name.lower(), value) for name, value in custom.items())
    if format == "anthropic":
        headers.setdefault("anthropic-version", ANTHROPIC_VERSION)
    return [(name.encode("ascii"), value.encode("ascii")) for name, value in headers.items()]


_TO_CHAT: dict[str, Callable[[Mapping[str, Any]], RequestTranslation]] = {
    "anthropic": anthropic_to_openai,
    "openai-responses": responses_to_openai,
}


def _translate(body: Mapping[str, Any], source: str, target: str) -> RequestTranslation:
    """``body`` from the client's API to the upstream's, by way of Chat Completions."""
    if source == target:
        return RequestTranslation(dict(body))
    if source != "openai-chat" and source not in _TO_CHAT:
        raise ValueError(f"cannot translate a {source} request yet")
    chat = _TO_CHAT[source](body) if source != "openai-chat" else RequestTranslation(dict(body))
    if target == "openai-chat":
        return chat
    onward = _FROM_CHAT[target](chat.request)
    lossy = chat.lossy + onward.lossy
    names = chat.names
    if onward.names is not None:
        if names is not None:  # renamed twice: calls come back under the middle names
            lossy += ("tool names changed for both APIs; calls keep the Chat names",)
        names = onward.names
    return RequestTranslation(onward.request, lossy, names, onward.tools)


async def _status_error(answer: _Answer) -> UpstreamError:
    """An error response, read (bounded) and closed."""
    body = b""
    try:
        async for chunk in answer.chunks():
            body += chunk
            if len(body) >= _ERROR_BODY_LIMIT:
                break
    except (httpx.HTTPError, WireError, zlib.error):
        pass
    finally:
        await answer.aclose()
    return UpstreamError(
        "status",
        f"the upstream answered {answer.status}: {_error_message(body)}",
        status=answer.status,
        retry_after=_retry_after(answer.header("retry-after")),
    )


def _error_message(body: bytes) -> str:
    """The message inside an error body of any of the usual shapes, else its text."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body[:500].decode("utf-8", "replace").strip() or "(no body)"
    if isinstance(value, dict):
        error = value.get("error", value)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])[:500]
        if isinstance(error, str):
            return error[:500]
    return body[:500].decode("utf-8", "replace")


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)

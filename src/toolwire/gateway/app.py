"""The gateway's HTTP app (starlette): routes, keys, limits, errors.

Routes: ``POST /v1/chat/completions`` (OpenAI clients), ``POST /v1/responses`` (OpenAI
Responses clients: Codex CLI), ``POST /v1/messages`` (Anthropic clients, ``?beta=true``
too), ``POST /v1/messages/count_tokens``, ``GET /v1/models``,
``GET|HEAD /``, ``/healthz`` and ``/api/hello`` (Claude Code's preconnect; no key
needed, like the health checks), ``GET /metrics`` (Prometheus; needs a gateway key
when keys are set), ``/ui/`` (the audit page, when the audit is on; behind the
keys). Relayed requests count against their key's limits (``limits``): over one,
the client gets 429 with ``Retry-After``. Every error reaches the client in
its own API's format; nothing escapes as a traceback.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import orjson
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from toolwire.audit.sinks import CountedSink
from toolwire.client import ModelClient, UpstreamError
from toolwire.gateway.config import GatewayConfig, ModelRoute
from toolwire.gateway.errors import Front, error_response, upstream_status
from toolwire.gateway.estimate import estimate_input_tokens
from toolwire.gateway.limits import Limiter, LocalLimiter, key_id
from toolwire.gateway.metrics import GatewayMetrics
from toolwire.gateway.models import ModelNames
from toolwire.gateway.relay import Relay
from toolwire.httpkeys import key_index

log = logging.getLogger("toolwire.gateway")


_T = TypeVar("_T")


class RequestTooLarge(Exception):
    pass


async def cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    """Cancel ``scope`` when the client disconnects (its body was read whole: what
    ``receive`` brings next is the client going away)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()


class RelayStreamResponse(Response):
    """Streams a relay to the client. A client that goes away cancels the relay at
    once (its upstream request is closed), whatever the relay is waiting for."""

    def __init__(
        self, relay: Relay, on_close: Callable[[Relay], Awaitable[None]] | None = None
    ) -> None:
        """``on_close``: awaited (with the relay) once the stream has ended, however it
        ended."""
        super().__init__(
            media_type=relay.encoder.media_type,
            headers={
                "cache-control": "no-cache",
                "x-request-id": relay.request_id,
                **relay.notes_header(),
            },
        )
        self.relay = relay
        self.on_close = on_close
        # a stream has no length (Response would declare the empty body's)
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(cancel_on_disconnect, receive, group.cancel_scope)
            try:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 200,
                        "headers": self.raw_headers,
                    }
                )
                await self._send_pieces(send)
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            except OSError:
                pass  # the client went away while we wrote
            finally:
                group.cancel_scope.cancel()
                with anyio.CancelScope(shield=True):
                    # a client gone before the stream began: the relay never ran, so
                    # nothing else closes its upstream request or writes its audit
                    await self.relay.finish()
                    if self.on_close is not None:
                        await self.on_close(self.relay)

    async def _send_pieces(self, send: Send) -> None:
        """The relay's pieces to the client as it makes them, one write each. A piece
        is what the relay made of one chunk from the upstream client; the client's
        transport hands on one chunk per network read (all the events the read
        brought), so a burst of events costs one system call, not one per event.
        Written from this task: a queue to a second task cost each paced event a
        task switch (about 20% of the gateway's CPU per event at 50 streams × 50
        tokens/s). A client that reads slower than the upstream sends makes
        ``send`` wait, and the relay with it."""
        async for piece in self.relay.stream():
            await send({"type": "http.response.body", "body": piece.encode(), "more_body": True})


async def until_disconnect(receive: Receive, work: Callable[[], Awaitable[_T]]) -> tuple[_T] | None:
    """``(work(),)``, or None when the client disconnects first: ``work`` is then
    cancelled at once, which closes its upstream request (as a stream's client going
    away does) instead of reading the upstream to its end for nobody."""
    done: list[_T] = []
    failed: list[Exception] = []  # raised as it is, not in a task group's ExceptionGroup
    async with anyio.create_task_group() as group:
        group.start_soon(cancel_on_disconnect, receive, group.cancel_scope)
        try:
            done.append(await work())
        except Exception as exc:
            failed.append(exc)
        group.cancel_scope.cancel()
    if failed:
        raise failed[0]
    return (done[0],) if done else None


def create_app(config: GatewayConfig, limiter: Limiter | None = None) -> Starlette:
    """The gateway for ``config``; one upstream client per model, shared by all
    requests. ``limiter``: where the per-key limits are counted (default: in this
    process, when ``config.limits`` sets any)."""
    clients = {
        route.name: ModelClient(
            route.upstream_format,
            route.upstream_url,
            model=route.model,
            api_key_env=route.upstream_key_env,
            timeouts=route.timeouts,
            retry=route.retry,
        )
        for route in config.all_routes()
    }
    keys = [(key.encode(), key_id(key)) for key in config.api_keys]
    metrics = GatewayMetrics()
    if isinstance(config.audit, CountedSink):
        config.audit.on_count = metrics.audit_count
    if limiter is None and config.limits.any:
        if config.redis_url is not None:
            from toolwire.gateway.redis_limits import RedisLimiter

            limiter = RedisLimiter(
                config.redis_url,
                config.limits,
                lease_seconds=config.stream_lease_seconds,
                on_unreachable=lambda decision: metrics.limit_store_unreachable.labels(
                    decision
                ).inc(),
            )
        else:
            limiter = LocalLimiter(config.limits)
    anonymous = key_id("")  # without keys, every client is the same one
    model_names = ModelNames(config, clients)

    def caller(request: Request) -> str | None:
        """The id of the key the request carries; None: not a gateway key."""
        if not keys:
            return anonymous
        found = key_index(request.headers, [key for key, _ in keys])
        return None if found is None else keys[found][1]

    def authorized(request: Request) -> bool:
        return caller(request) is not None

    async def read_json(request: Request, front: Front) -> dict[str, Any] | Response:
        if not authorized(request):
            return error_response(front, 401, "invalid or missing API key")
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > config.max_body_bytes:
            return error_response(front, 413, "request body too large")
        try:
            raw = bytearray()
            async for chunk in request.stream():
                raw += chunk
                if len(raw) > config.max_body_bytes:
                    raise RequestTooLarge
        except RequestTooLarge:
            return error_response(front, 413, "request body too large")
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return error_response(front, 400, "the request body is not JSON")
        if not isinstance(body, dict):
            return error_response(front, 400, "the request body must be a JSON object")
        if front == "openai-responses":
            if not isinstance(body.get("input"), str | list):
                return error_response(front, 400, "input: a string or a list is required")
        elif not isinstance(body.get("messages"), list):
            return error_response(front, 400, "messages: a list is required")
        return body

    async def relay(request: Request, front: Front) -> Response:
        arrived = time.monotonic()
        upstream = "-"
        response: Response | None = None
        try:
            response, upstream = await answer(request, front, arrived)
            return response
        finally:
            status = response.status_code if response is not None else 499
            metrics.requests.labels(request.url.path, upstream, str(status)).inc()

    async def answer(request: Request, front: Front, arrived: float) -> tuple[Response, str]:
        """The response to a relayed request, and the upstream it went to."""
        try:
            body = await read_json(request, front)
        except ClientDisconnect:
            return Response(status_code=499), "-"
        if isinstance(body, Response):
            return body, "-"
        name = body.get("model")
        route = config.resolve(name) if isinstance(name, str) else config.default_route
        if route is None:
            return error_response(front, 404, f"the model {name!r} is not served here"), "-"
        if limiter is None:
            response, upstream, _ = await relay_turn(request, front, body, route, arrived, None)
            return response, upstream
        who = caller(request) or anonymous
        estimate = estimate_input_tokens(body) if config.limits.tokens_per_minute else 0
        refusal = await limiter.acquire(who, estimate)
        if refusal is not None:
            metrics.refusals.labels(refusal.limit).inc()
            headers = {"retry-after": refusal.retry_after_header}
            return error_response(front, 429, refusal.reason, headers), "-"

        async def release(turn: Relay | None) -> None:
            await limiter.release(who, turn.tokens_used if turn is not None else None)

        streaming = False
        turn: Relay | None = None
        try:
            response, upstream, turn = await relay_turn(
                request, front, body, route, arrived, release
            )
            streaming = isinstance(response, RelayStreamResponse)
            return response, upstream
        finally:
            if not streaming:  # a stream releases when it ends
                await release(turn)

    async def relay_turn(
        request: Request,
        front: Front,
        body: dict[str, Any],
        route: ModelRoute,
        arrived: float,
        on_close: Callable[[Relay], Awaitable[None]] | None,
    ) -> tuple[Response, str, Relay | None]:
        """The response, the upstream it went to, and the relay (once one was made)."""
        client = clients[route.name]
        request_id = uuid.uuid4().hex
        try:
            turn = Relay(
                front,
                body,
                client,
                config,
                request_id=request_id,
                route=route,
                metrics=metrics,
                arrived=arrived,
            )
        except ValueError as exc:
            return error_response(front, 400, str(exc)), client.base_url, None
        if "anthropic-beta" in request.headers:  # (the gateway passes no client header on)
            turn.notes.append("the anthropic-beta header was not passed on")
        try:
            opened = await until_disconnect(request.receive, turn.open)
        except UpstreamError as exc:
            headers = {}
            if exc.status == 429 and exc.retry_after is not None:
                headers["retry-after"] = str(int(exc.retry_after + 0.999))
            status = upstream_status(exc)
            # (the message is scrubbed: the upstream's error text may echo its key)
            return error_response(front, status, exc.message, headers), client.base_url, turn
        if opened is None:  # the client left while the upstream was being asked
            await turn.finish()
            return Response(status_code=499), client.base_url, turn
        if turn.streaming:
            return RelayStreamResponse(turn, on_close), client.base_url, turn
        whole = await until_disconnect(request.receive, turn.whole)
        if whole is None:  # the client left; the relay closed its upstream request
            return Response(status_code=499), client.base_url, turn
        status, text = whole[0]
        response = Response(
            text,
            status_code=status,
            media_type="application/json",
            headers={"x-request-id": request_id, **turn.notes_header()},
        )
        return response, client.base_url, turn

    async def chat_completions(request: Request) -> Response:
        return await relay(request, "openai-chat")

    async def messages(request: Request) -> Response:
        return await relay(request, "anthropic")

    async def responses(request: Request) -> Response:
        return await relay(request, "openai-responses")

    async def count_tokens(request: Request) -> Response:
        body = await read_json(request, "anthropic")
        if isinstance(body, Response):
            return body
        return JSONResponse({"input_tokens": estimate_input_tokens(body)})

    async def models(request: Request) -> Response:
        if not authorized(request):
            return error_response("openai-chat", 401, "invalid or missing API key")
        names = await model_names.names()
        # one entry readable by both SDKs: OpenAI's fields and Anthropic's
        data = [
            {
                "id": name,
                "object": "model",
                "type": "model",
                "created": 0,
                "created_at": "1970-01-01T00:00:00Z",
                "owned_by": "toolwire",
                "display_name": name,
            }
            for name in names
        ]
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "has_more": False,
                "first_id": names[0] if names else None,
                "last_id": names[-1] if names else None,
            }
        )

    async def metrics_text(request: Request) -> Response:
        if not authorized(request):
            return error_response("openai-chat", 401, "invalid or missing API key")
        return Response(metrics.render(), media_type=metrics.content_type)

    async def health(request: Request) -> Response:
        if request.method == "HEAD":
            return Response(status_code=200)
        return JSONResponse({"status": "ok"})

    async def not_found(request: Request, exc: Exception) -> Response:
        front: Front = "anthropic" if "anthropic-version" in request.headers else "openai-chat"
        return error_response(front, 404, f"no route {request.method} {request.url.path}")

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("gateway error", exc_info=exc)
        front: Front = "anthropic" if request.url.path.startswith("/v1/messages") else "openai-chat"
        return error_response(front, 500, "internal gateway error")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        for client in clients.values():
            await client.aclose()
        if limiter is not None:
            await limiter.aclose()

    routes: list[BaseRoute] = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/messages", messages, methods=["POST"]),
        Route("/v1/responses", responses, methods=["POST"]),
        Route("/v1/messages/count_tokens", count_tokens, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/", health, methods=["GET", "HEAD"]),
        Route("/healthz", health, methods=["GET", "HEAD"]),
        # Claude Code's preconnect: HEAD {ANTHROPIC_BASE_URL}/api/hello, answer ignored
        Route("/api/hello", health, methods=["GET", "HEAD"]),
        Route("/metrics", metrics_text, methods=["GET"]),
    ]
    if config.audit_location is not None:
        from toolwire.audit.readers import read_audit
        from toolwire.dashboard import create_dashboard_app

        location = config.audit_location
        page = create_dashboard_app(lambda: read_audit(location), keys=config.api_keys)
        routes.append(Mount("/ui", app=page))
    return Starlette(
        routes=routes,
        exception_handlers={404: not_found, 405: not_found, Exception: server_error},
        lifespan=lifespan,
    )

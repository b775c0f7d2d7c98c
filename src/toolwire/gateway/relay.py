"""One request through the gateway: the client's body → the upstream → the client.

    relay = Relay("anthropic", body, client, config, request_id="…")
    await relay.open()                      # upstream headers; retries happen here
    async for piece in relay.stream(): ...  # the client's wire format, as it comes
    # or: status, body = await relay.whole()

Upstream bytes go through ``StreamParser`` (with the request's tools and the
configured text format) → ``CallDelivery`` → the client's encoder. Text and reasoning
pass as they arrive; a call goes out whole, repaired, when it closes. A stream that
the upstream cuts ends with the client format's error, and calls in flight are not
delivered. Every call leaves an audit record when the request ends, however it ends;
an answer that failed part way says why in its calls' records (``upstream_error``), or,
without calls, in a failed task record (task id: the request id) and a warning log.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio

from toolwire.audit.record import TaskRecord
from toolwire.audit.tracing import ChatSpan
from toolwire.client import ModelClient, UpstreamError, UpstreamResponse
from toolwire.encoders import make_encoder
from toolwire.events import Event, StreamError, StreamFinished, Usage
from toolwire.gateway.callids import restore_upstream_ids
from toolwire.gateway.config import GatewayConfig, ModelRoute
from toolwire.gateway.delivery import CallDelivery, call_record
from toolwire.gateway.errors import Front, scrub, upstream_keys
from toolwire.gateway.estimate import estimate_input_tokens
from toolwire.gateway.metrics import GatewayMetrics
from toolwire.parser import StreamParser
from toolwire.providers.responses_request import namespaces_of
from toolwire.providers.tooldefs import spec_from_definition
from toolwire.spec import ToolSpec, ToolSpecError

log = logging.getLogger("toolwire.gateway")
_NOTES_HEADER_CHARS = 2000  # proxies refuse long header lines; the log has them whole


def declared_tools(body: Mapping[str, Any]) -> list[ToolSpec]:
    """The function tools of a request in the upstream's wire format (translated:
    names as the upstream knows them; server tools the translation kept have no
    schema to check against)."""
    specs: list[ToolSpec] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, Mapping) or tool.get("type") not in (None, "custom", "function"):
            continue
        try:
            specs.append(spec_from_definition(tool))
        except ToolSpecError:
            continue
    return specs


# where each client format asks for its output limit
_OUTPUT_LIMITS: dict[Front, tuple[str, ...]] = {
    "anthropic": ("max_tokens",),
    "openai-chat": ("max_tokens", "max_completion_tokens"),
    "openai-responses": ("max_output_tokens",),
}


def cap_output_tokens(body: dict[str, Any], front: Front, limit: int) -> None:
    """Lower a request's output limit to a model's configured ``limit``."""
    for key in _OUTPUT_LIMITS[front]:
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > limit:
            body[key] = limit


class Relay:
    def __init__(
        self,
        front: Front,
        body: Mapping[str, Any],
        client: ModelClient,
        config: GatewayConfig,
        *,
        request_id: str,
        route: ModelRoute | None = None,
        metrics: GatewayMetrics | None = None,
        arrived: float | None = None,
    ) -> None:
        """``route``: the model the client asked for (default: the single upstream).
        ``arrived``: ``time.monotonic()`` when the request came in."""
        self.front = front
        self.client = client
        self.config = config
        self.request_id = request_id
        self.started_at = time.time()
        self.started = time.monotonic()
        self.arrived = arrived if arrived is not None else self.started
        self.metrics = metrics
        self._before_send = 0.0  # seconds from arrival to sending upstream
        self._chunk_at = 0.0  # when the latest upstream chunk arrived
        self._first_out = False
        route = route or config.default_route
        assert route is not None, "a gateway without a single upstream needs a route"
        self._keys = upstream_keys(route.upstream_key_env)
        body = dict(body)
        restore_upstream_ids(body, front)  # ids the gateway gave back to the upstream's
        if route.max_output_tokens is not None:
            cap_output_tokens(body, front, route.max_output_tokens)
        self.prepared = client.prepare(body, front)  # ValueError: cannot be translated
        # what of the request did not reach the upstream as sent, in words: the
        # translation's notes (and the gateway's: headers it does not pass on)
        self.notes = list(self.prepared.lossy)
        self.streaming = self.prepared.stream
        self.model = str(body.get("model") or route.model or "toolwire")
        names = self.prepared.names
        self.parser = StreamParser(
            client.format,
            self.prepared.tools or declared_tools(self.prepared.body),
            text_format=route.text_format,
        )
        self.delivery = CallDelivery(
            arguments_are_objects=front == "anthropic", names=names, front=front, salt=request_id
        )
        options: dict[str, Any] = {}
        if front == "openai-responses":
            options["namespaces"] = namespaces_of(body)
        if front == "anthropic":  # only message_start reports input tokens up front
            options["input_tokens"] = estimate_input_tokens(body)
        self.encoder = make_encoder(
            front,
            whole=not self.streaming,
            model=self.model,
            **options,
        )
        self.errors: list[str] = []
        self.response: UpstreamResponse | None = None
        self.finish_reason: str | None = None  # as the parser read the answer's end
        self.usage: Usage | None = None  # as the upstream reported it
        self.span: ChatSpan | None = None
        self._finished = False

    @property
    def tokens_used(self) -> int | None:
        """Input plus output tokens, as the upstream reported them (None: it did not)."""
        usage = self.usage
        if usage is None or (usage.input_tokens is None and usage.output_tokens is None):
            return None
        return (usage.input_tokens or 0) + (usage.output_tokens or 0)

    async def open(self) -> None:
        """Send the request upstream (``UpstreamError`` when it cannot be had)."""
        if self.notes:
            log.debug("request %s: %s", self.request_id, "; ".join(self.notes))
        self._before_send = time.monotonic() - self.arrived
        self.span = ChatSpan(
            model=str(self.prepared.body.get("model") or self.client.model or self.model),
            wire=self.client.format,
            base_url=self.client.base_url,
            conversation_id=self.request_id,
        )
        try:
            self.response = await self.client.open(self.prepared)
        except UpstreamError as exc:
            # what the client, the span and any traceback get: the upstream's error
            # text may echo its key (the original, unscrubbed, is not chained)
            scrubbed = UpstreamError(
                exc.kind, self.scrub(exc.message), status=exc.status, retry_after=exc.retry_after
            )
            self._upstream_error(scrubbed)
            self.span.finish(error=scrubbed.message, error_type=scrubbed.kind)
            raise scrubbed from None
        self._chunk_at = time.monotonic()
        if self.metrics is not None:
            self.metrics.upstream_ttfb.observe(self.response.ttfb)

    def notes_header(self) -> dict[str, str]:
        """``x-toolwire-notes``: the request's notes, ``; ``-joined (ASCII, bounded)."""
        if not self.notes:
            return {}
        text = "; ".join(self.notes).encode("ascii", "backslashreplace").decode()
        if len(text) > _NOTES_HEADER_CHARS:
            text = text[: _NOTES_HEADER_CHARS - 3] + "..."
        return {"x-toolwire-notes": text}

    def scrub(self, text: str) -> str:
        """Upstream text with the upstream's key (and pattern-found secrets) replaced."""
        return scrub(text, self._keys)

    def _upstream_error(self, exc: UpstreamError) -> None:
        if self.metrics is not None:
            self.metrics.upstream_errors.labels(self.client.base_url, exc.kind).inc()

    def _first_byte_out(self) -> None:
        """The client's first byte of upstream content is going out now."""
        if self._first_out:
            return
        self._first_out = True
        if self.metrics is not None:
            added = self._before_send + (time.monotonic() - self._chunk_at)
            self.metrics.added_latency.observe(added)

    def _encode(self, events: list[Event]) -> str:
        out: list[str] = []
        for event in events:
            if isinstance(event, StreamError):  # upstream text: it may echo the key
                event = StreamError(self.scrub(event.message), self.scrub(event.raw))
                self.errors.append(event.message)
            elif isinstance(event, StreamFinished):
                self.finish_reason, self.usage = event.finish_reason, event.usage
            out.extend(self.encoder.feed(self.delivery(event)))
        return "".join(out)

    async def stream(self) -> AsyncIterator[str]:
        """The client's stream, piece by piece; then the audit."""
        assert self.response is not None, "open() first"
        in_flight = self.metrics.streams_in_flight if self.metrics and self.streaming else None
        if in_flight is not None:
            in_flight.inc()
        try:
            piece = "".join(self.encoder.start())
            if piece:
                yield piece
            try:
                async for chunk in self.response.iter_bytes():
                    self._chunk_at = time.monotonic()
                    piece = self._encode(self.parser.feed(chunk))
                    if piece:
                        if self.streaming:
                            self._first_byte_out()
                        yield piece
            except UpstreamError as exc:
                self._upstream_error(exc)
                self.errors.append(self.scrub(exc.message))  # the parser's close sees the cut
            piece = self._encode(self.parser.close()) + "".join(self.encoder.close())
            if self.streaming:
                self._first_byte_out()  # (when nothing went out before the end)
            yield piece
        finally:
            if in_flight is not None:
                in_flight.dec()
            with anyio.CancelScope(shield=True):
                await self.finish()

    async def whole(self) -> tuple[int, str]:
        """The client's non-streaming body and its status (502 when the upstream
        failed part way)."""
        pieces = [piece async for piece in self.stream()]
        self._first_byte_out()
        status = getattr(self.encoder, "status_code", 200)
        return (502 if status != 200 else 200), "".join(pieces)

    async def finish(self) -> None:
        """Close the upstream request and write the audit (off the event loop); once,
        however often it is called."""
        if self._finished:
            return
        self._finished = True
        if self.response is not None:
            await self.response.aclose()
        error = "; ".join(self.errors) or None
        if self.span is not None:
            self.span.finish(
                usage=self.usage,
                finish_reasons=[self.finish_reason] if self.finish_reason else [],
                error=error,
            )
        if self.metrics is not None:
            for passed in self.delivery.calls:
                self.metrics.call(passed.call)
        # the upstream's answer failed part way (a drop, a timeout, an error event); a
        # client that left is no upstream failure
        failed = error if self.finish_reason in (None, "error") else None
        if failed:
            log.warning("request %s: the upstream's answer failed: %s", self.request_id, failed)
        sink = self.config.audit
        if sink is None:
            return
        if not self.delivery.calls:
            if failed:  # the turn's only trace in the audit
                await anyio.to_thread.run_sync(sink.write_task, self._failed_turn())
            return
        ttfb = round(self.response.ttfb * 1000, 3) if self.response is not None else None
        records = [
            call_record(
                passed,
                model=self.model,
                request_id=self.request_id,
                upstream=self.client.base_url,
                started_at=self.started_at,
                started_monotonic=self.started,
                ttfb_ms=ttfb,
                upstream_error=failed,
                notes=(*self.notes, *self.encoder.lossy),
            )
            for passed in self.delivery.calls
        ]

        def write() -> None:
            for record in records:
                sink.write(record)

        await anyio.to_thread.run_sync(write)

    def _failed_turn(self) -> TaskRecord:
        """A turn that failed without a call, as a failed task (the gateway's task is
        the request)."""
        usage = self.usage
        return TaskRecord(
            task_id=self.request_id,
            status="failed",
            started_at=self.started_at,
            ended_at=time.time(),
            input_tokens=(usage.input_tokens or 0) if usage else 0,
            output_tokens=(usage.output_tokens or 0) if usage else 0,
        )

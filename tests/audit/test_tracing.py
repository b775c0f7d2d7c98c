"""OpenTelemetry spans by the GenAI conventions: ``chat {model}`` per upstream request
(gateway and loop), ``execute_tool {name}`` per call, a run's spans under its
``invoke_agent`` span; in memory, and exported over OTLP/HTTP to a loopback receiver."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import openai
import pytest
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from upstream import DONE, WEATHER_SCHEMA, Script, ScriptedUpstream, call_stream, chat_chunk

from toolwire.agent import Agent, CallParsed
from toolwire.audit.otel import OTelSink
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.gateway import GatewayConfig
from toolwire.gateway.background import BackgroundGateway
from toolwire.replay import Dialogue, ReplayServer, usage_chunk
from toolwire.tools import tool

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}]
WEATHER = [
    *call_stream("get_weather", ["{'city': 'Lima'}"], "tool_calls")[:-1],
    usage_chunk(41, 7),
    DONE,
]
ANSWER = [chat_chunk({"content": "Sunny."}), chat_chunk({}, "stop"), usage_chunk(60, 3), DONE]

_EXPORTER = InMemorySpanExporter()


class WhileTesting(SimpleSpanProcessor):
    """Exports only while this module runs: the global provider outlives it."""

    enabled = True

    def on_end(self, span: ReadableSpan) -> None:
        if self.enabled:
            super().on_end(span)


@pytest.fixture(scope="module", autouse=True)
def provider() -> Iterator[TracerProvider]:
    """The process's tracer provider (set once; the API allows no second one)."""
    current = trace.get_tracer_provider()
    if not isinstance(current, TracerProvider):
        current = TracerProvider()
        trace.set_tracer_provider(current)
    processor = WhileTesting(_EXPORTER)
    current.add_span_processor(processor)
    yield current
    processor.enabled = False


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    _EXPORTER.clear()
    yield _EXPORTER


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def test_gateway_request_is_a_chat_span_with_usage_and_finish_reason(
    spans: InMemorySpanExporter,
) -> None:
    scripts = {"weather": Script(WEATHER), "broken": Script(WEATHER, always_fail=(500, None))}
    with ScriptedUpstream(scripts) as up:
        config = GatewayConfig(upstream_url=up.url, retry=RetryPolicy(attempts=1))
        with BackgroundGateway(config) as gw:
            client = openai.OpenAI(base_url=gw.url + "/v1", api_key="x", max_retries=0)
            answer = client.chat.completions.create(model="weather", messages=[], tools=TOOLS)  # type: ignore[arg-type]
            with pytest.raises(openai.APIStatusError):
                client.chat.completions.create(model="broken", messages=[], tools=TOOLS)  # type: ignore[arg-type]
    assert answer.choices[0].finish_reason == "tool_calls"
    ok, failed = (s for s in spans.get_finished_spans() if s.name.startswith("chat "))
    assert ok.name == "chat weather" and ok.kind == trace.SpanKind.CLIENT
    assert attrs(ok) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "weather",
        "server.address": "127.0.0.1",
        "server.port": int(up.url.rsplit(":", 1)[1].split("/")[0]),
        "gen_ai.conversation.id": attrs(ok)["gen_ai.conversation.id"],
        "gen_ai.usage.input_tokens": 41,
        "gen_ai.usage.output_tokens": 7,
        "gen_ai.response.finish_reasons": ("tool_calls",),
    }
    assert failed.name == "chat broken"
    assert failed.status.status_code == trace.StatusCode.ERROR
    assert attrs(failed)["error.type"] == "status"


@tool
def get_weather(city: str, days: int = 1) -> str:
    return f"{city}: sunny for {days} day(s)"


def test_a_runs_chat_and_tool_spans_sit_under_its_agent_span(spans: InMemorySpanExporter) -> None:
    dialogue = Dialogue([Script(WEATHER), Script(ANSWER)])

    async def run() -> str:
        with ReplayServer({"d": dialogue}, default="d") as up:
            client = ModelClient("openai-chat", up.url, model="m", retry=RetryPolicy(attempts=1))
            engine = ToolEngine([get_weather], sinks=[OTelSink()])
            result = await Agent(client, engine).run("weather in Lima?")
            engine.close()
            await client.aclose()
        return result.text

    assert anyio.run(run) == "Sunny."
    finished = spans.get_finished_spans()
    (run_span,) = (s for s in finished if s.name == "invoke_agent toolwire")
    chats = [s for s in finished if s.name == "chat m"]
    (tool_span,) = (s for s in finished if s.name == "execute_tool get_weather")
    assert len(chats) == 2
    assert run_span.context is not None
    run_id = run_span.context.span_id
    assert all(s.parent is not None and s.parent.span_id == run_id for s in [*chats, tool_span])
    assert {s.context.trace_id for s in finished if s.context} == {run_span.context.trace_id}
    assert [attrs(c)["gen_ai.response.finish_reasons"] for c in chats] == [
        ("tool_calls",),
        ("stop",),
    ]
    assert attrs(run_span)["gen_ai.usage.input_tokens"] == 41 + 60
    assert attrs(tool_span)["toolwire.repairs"] == "python_literal"
    assert attrs(tool_span)["toolwire.turn"] == 1


def test_a_run_closed_early_ends_its_spans_as_cancelled(spans: InMemorySpanExporter) -> None:
    async def run() -> None:
        with ReplayServer({"d": Dialogue([Script(WEATHER)])}, default="d") as up:
            client = ModelClient("openai-chat", up.url, model="m", retry=RetryPolicy(attempts=1))
            engine = ToolEngine([get_weather])
            events = Agent(client, engine).stream("weather?")
            async for event in events:
                if isinstance(event, CallParsed):
                    break
            await events.aclose()
            engine.close()
            await client.aclose()

    anyio.run(run)
    finished = spans.get_finished_spans()
    (run_span,) = (s for s in finished if s.name == "invoke_agent toolwire")
    (chat,) = (s for s in finished if s.name == "chat m")
    assert attrs(run_span)["toolwire.stop"] == "cancelled"
    assert chat.parent is not None and run_span.context is not None
    assert chat.parent.span_id == run_span.context.span_id


class Receiver:
    """An OTLP/HTTP traces endpoint on loopback: keeps every span it is sent."""

    def __init__(self) -> None:
        received: list[Any] = []
        self.spans = received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                for resource in request.resource_spans:
                    for scope in resource.scope_spans:
                        received.extend(scope.spans)
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def names(self) -> list[str]:
        return [span.name for span in self.spans]

    def close(self) -> None:
        self.server.shutdown()


def span_attrs(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        value = kv.value
        kind = value.WhichOneof("value")
        out[kv.key] = (
            [v.string_value for v in value.array_value.values]
            if kind == "array_value"
            else getattr(value, kind)
        )
    return out


def toolwire(*args: str) -> list[str]:
    return [sys.executable, "-m", "toolwire", *args]


@pytest.mark.gateway
def test_serve_exports_chat_spans_over_otlp_http(tmp_path: Path) -> None:
    receiver = Receiver()
    try:
        with ScriptedUpstream({"weather": Script(WEATHER)}) as up:
            port = _free_port()
            proc = subprocess.Popen(
                toolwire(
                    *("serve", "--upstream", up.url, "--port", str(port), "--audit", "none"),
                    *("--otlp-endpoint", receiver.url),
                ),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            url = f"http://127.0.0.1:{port}"
            _wait_healthy(proc, url)
            client = openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0)
            client.chat.completions.create(model="weather", messages=[], tools=TOOLS)  # type: ignore[arg-type]
            proc.send_signal(signal.SIGINT)  # uvicorn stops; the provider flushes at exit
            proc.communicate(timeout=30)
        (span,) = receiver.spans
        assert span.name == "chat weather"
        got = span_attrs(span)
        assert got["gen_ai.usage.input_tokens"] == 41
        assert got["gen_ai.response.finish_reasons"] == ["tool_calls"]
    finally:
        receiver.close()


@pytest.mark.gateway
def test_chat_exports_its_run_over_otlp_http_from_the_standard_variable(tmp_path: Path) -> None:
    receiver = Receiver()
    tools = tmp_path / "weather_tools.py"
    tools.write_text(
        "from toolwire.tools import tool\n\n@tool\n"
        "def get_weather(city: str, days: int = 1) -> str:\n    return city + ': sunny'\n"
    )
    env = {
        **os.environ,
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url.removesuffix("/v1/traces"),
        "PYTHONPATH": str(tmp_path),
    }
    try:
        with ReplayServer({"d": Dialogue([Script(WEATHER), Script(ANSWER)])}, default="d") as up:
            done = subprocess.run(
                toolwire(
                    *("chat", "--base-url", up.url, "--model", "m", "--prompt", "weather?"),
                    *("--tools", "weather_tools:get_weather", "--audit", "none"),
                ),
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
        assert done.returncode == 0, done.stderr
        assert sorted(receiver.names()) == [
            "chat m",
            "chat m",
            "execute_tool get_weather",
            "invoke_agent toolwire",
        ]
    finally:
        receiver.close()


def test_a_bad_endpoint_is_one_line_and_exit_2() -> None:
    done = subprocess.run(
        toolwire("serve", "--upstream", "http://127.0.0.1:9/v1", "--otlp-endpoint", "host:4318"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "toolwire: --otlp-endpoint must be an http(s) URL, got 'host:4318'"
    ]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_healthy(proc: subprocess.Popen[str], url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("the gateway did not start")


def test_an_upstream_password_reaches_neither_the_client_nor_the_span(
    spans: InMemorySpanExporter,
) -> None:
    """Found in review: 'cannot reach the upstream at http://user:PASSWORD@…' went to
    the client's 502 and to the span's status as it was."""
    config = GatewayConfig(
        upstream_url="http://user:hunter2secret@127.0.0.1:9/v1", retry=RetryPolicy(attempts=1)
    )
    with BackgroundGateway(config) as gw:
        got = httpx.post(
            gw.url + "/v1/chat/completions", json={"model": "m", "messages": []}, timeout=30
        )
    assert got.status_code == 502 and "cannot reach" in got.text
    assert "hunter2secret" not in got.text
    (chat,) = (s for s in spans.get_finished_spans() if s.name == "chat m")
    assert chat.status.description and "hunter2secret" not in chat.status.description


def test_a_run_that_fails_ends_its_agent_span_with_the_error(spans: InMemorySpanExporter) -> None:
    """Found in review: a run ended by an exception other than a cancellation (here a
    history the Anthropic translation refuses) left its span open for ever."""
    from toolwire.audit import tracing

    async def run() -> None:
        client = ModelClient("anthropic", "http://127.0.0.1:9", model="m")
        with pytest.raises(ValueError):
            await Agent(client, ToolEngine([])).run(None, history=[{"role": "user", "content": 5}])
        await client.aclose()

    anyio.run(run)
    (run_span,) = (s for s in spans.get_finished_spans() if s.name == "invoke_agent toolwire")
    assert attrs(run_span)["toolwire.stop"] == "error"
    assert run_span.status.status_code == trace.StatusCode.ERROR
    assert tracing._RUNS == {}

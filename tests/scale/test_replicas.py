"""Two gateway processes on two ports share one Redis (limits) and one PostgreSQL
(audit), as replicas behind a load balancer would; and one gateway with --workers 2
reports its metrics summed over the workers."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import orjson
import pytest
from scale.servers import free_port
from upstream import Script, ScriptedUpstream, call_stream

from toolwire.audit import read_audit

pytestmark = pytest.mark.slow

KEYS = [f"key-{i}" for i in range(10)]
LOAD_KEYS = KEYS[:5]  # 32 clients on five keys: more streams wanted than the limit allows
STREAM_SECONDS = 0.3  # the load script: 7 chunks, 0.05 s apart
LEASE_SECONDS = 4.0


class Upstream:
    """The scripted model server, noting when each request arrived and for which key
    (the key's name is the request's message), to check the limit from outside."""

    def __init__(self) -> None:
        self.arrivals: list[tuple[str, float]] = []
        self.lock = threading.Lock()

        def load(body: Any) -> Script:
            with self.lock:
                self.arrivals.append((str(body["messages"][-1]["content"]), time.monotonic()))
            chunks = call_stream("get_weather", ['{"city": ', '"Lima"}'], "tool_calls")
            return Script(chunks, chunk_delay=0.05)

        hold = Script(
            call_stream("get_weather", ["{}"] + [" "] * 100, "tool_calls"), chunk_delay=0.1
        )
        self.server = ScriptedUpstream({"load": load, "hold": hold})

    def max_overlap(self) -> dict[str, int]:
        """Per key, the most requests the upstream was serving at once (a request
        counts for STREAM_SECONDS after it arrived: no longer than it really ran)."""
        per_key: dict[str, list[float]] = defaultdict(list)
        for key, at in self.arrivals:
            per_key[key].append(at)
        most = {}
        for key, starts in per_key.items():
            starts.sort()
            most[key] = max(
                sum(1 for other in starts if s <= other < s + STREAM_SECONDS) for s in starts
            )
        return most


@dataclass
class Gateway:
    proc: subprocess.Popen[str]
    url: str

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


def start_gateway(
    upstream: str, pg_url: str, redis_url: str, tmp: Path, workers: int = 1
) -> Gateway:
    port = free_port()
    config = tmp / f"gateway-{port}.toml"
    config.write_text(
        "[gateway]\n"
        f"api_keys = {orjson.dumps(KEYS).decode()}\n"
        "max_streams_per_key = 4\n"
        f"stream_lease_seconds = {LEASE_SECONDS}\n"
        f'redis = "{redis_url}"\n'
        f'audit = "{pg_url}"\n'
        "[models.load]\n"
        f'upstream = "{upstream}"\n'
        "[models.hold]\n"
        f'upstream = "{upstream}"\n'
    )
    env = {**os.environ, "TOOLWIRE_AUDIT_SPILL_DIR": str(tmp / "spill")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "serve", "--config", str(config), "--port", str(port),
         "--workers", str(workers)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return Gateway(proc, url)
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    proc.kill()
    pytest.fail(f"the gateway did not answer within 60 s: {proc.communicate()}")


def stop(gateway: Gateway) -> str:
    if gateway.proc.poll() is None:
        gateway.proc.send_signal(signal.SIGTERM)
        try:
            gateway.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            gateway.proc.kill()
    _, err = gateway.proc.communicate()
    return err


@dataclass
class Load:
    delivered: dict[str, str] = field(default_factory=dict)  # request id -> key
    refused: int = 0  # 429s, retried
    failed: int = 0  # connection errors (a killed gateway), retried on the other
    lock: threading.Lock = field(default_factory=threading.Lock)


def one_stream(urls: list[str], i: int, load: Load, alive: list[bool]) -> None:
    key = LOAD_KEYS[i % len(LOAD_KEYS)]
    g = i % len(urls)
    body = {
        "model": "load",
        "stream": True,
        "messages": [{"role": "user", "content": key}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
    }
    headers = {"authorization": f"Bearer {key}"}
    while True:
        if not alive[g]:
            g = (g + 1) % len(urls)
        try:
            with (
                httpx.Client(timeout=30) as client,
                client.stream(
                    "POST", urls[g] + "/v1/chat/completions", json=body, headers=headers
                ) as response,
            ):
                if response.status_code == 429:
                    error = orjson.loads(response.read())["error"]
                    assert error["type"] == "rate_limit_exceeded", error
                    assert response.headers["retry-after"] == "1"
                    with load.lock:
                        load.refused += 1
                    g = (g + 1) % len(urls)
                    time.sleep(0.05)
                    continue
                assert response.status_code == 200, response.read()
                text = "".join(response.iter_text())
                request_id = response.headers["x-request-id"]
        except (httpx.TransportError, httpx.StreamError):
            with load.lock:
                load.failed += 1
            g = (g + 1) % len(urls)
            time.sleep(0.05)
            continue
        if not text.rstrip().endswith("data: [DONE]"):
            continue  # cut off by a killed gateway: not delivered, asked again
        arguments = "".join(re.findall(r'"arguments":"((?:[^"\\]|\\.)*)"', text))
        assert orjson.loads(arguments.replace('\\"', '"')) == {"city": "Lima"}
        with load.lock:
            load.delivered[request_id] = key
        return


def run_load(urls: list[str], n: int, alive: list[bool], load: Load | None = None) -> Load:
    load = load or Load()
    with ThreadPoolExecutor(32) as pool:
        for future in [pool.submit(one_stream, urls, i, load, alive) for i in range(n)]:
            future.result()
    return load


def records_by_request(pg_url: str) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for record in read_audit(pg_url)[0]:
        counts[str(record.extra.get("request_id"))] += 1
    return counts


def wait_for_records(pg_url: str, request_ids: set[str], seconds: float = 40) -> dict[str, int]:
    deadline = time.monotonic() + seconds
    while True:
        counts = records_by_request(pg_url)
        if request_ids <= set(counts) or time.monotonic() > deadline:
            return counts
        time.sleep(0.25)


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def test_two_gateways_share_limits_and_audit_and_survive_a_kill(
    upstream: Upstream, pg_url: str, redis_url: str, tmp_path: Path
) -> None:
    a = start_gateway(upstream.server.url, pg_url, redis_url, tmp_path)
    b = start_gateway(upstream.server.url, pg_url, redis_url, tmp_path)
    try:
        # 1. four streams of one key held open, two on each gateway: the fifth is
        # refused by either, in its client's own error format
        held = hold_streams([a.url, b.url, a.url, b.url], "key-0")
        try:
            with pytest.raises(openai.RateLimitError) as refused_openai:
                openai.OpenAI(
                    base_url=a.url + "/v1", api_key="key-0", max_retries=0
                ).chat.completions.create(
                    model="load", messages=[{"role": "user", "content": "key-0"}]
                )
            assert refused_openai.value.response.headers["retry-after"] == "1"
            with pytest.raises(anthropic.RateLimitError) as refused_anthropic:
                anthropic.Anthropic(base_url=b.url, api_key="key-0", max_retries=0).messages.create(
                    model="load", max_tokens=10, messages=[{"role": "user", "content": "key-0"}]
                )
            body = refused_anthropic.value.body
            assert isinstance(body, dict) and body["error"]["type"] == "rate_limit_error"
        finally:
            close_all(held)

        # 2. 200 streams spread over both, five keys of four streams each
        alive = [True, True]
        load = run_load([a.url, b.url], 200, alive)
        assert len(load.delivered) == 200
        assert load.refused > 0  # the limit was reached, and held:
        # Redis answered every check (an unreachable one would let each process count
        # for itself)
        assert metric(a, "toolwire_gateway_limit_store_unreachable_total") == 0
        assert metric(b, "toolwire_gateway_limit_store_unreachable_total") == 0
        assert max(upstream.max_overlap().values()) <= 4
        counts = wait_for_records(pg_url, set(load.delivered))
        # exactly one audit record per delivered call, and none for anything else
        assert all(counts[rid] == 1 for rid in load.delivered)
        assert sum(counts.values()) == 200
        print(
            f"\nload: 200 streams over 2 gateways; {load.refused} refused with 429 and "
            f"retried; records {sum(counts.values())}, lost "
            f"{sum(1 for rid in load.delivered if rid not in counts)}"
        )

        # 3. 100 more streams, and kill -9 of gateway A mid-load while it also holds a
        # key's four slots
        upstream.arrivals.clear()
        held = hold_streams([a.url] * 4, "key-9")
        second = Load()
        loader = threading.Thread(target=run_load, args=([a.url, b.url], 100, alive, second))
        loader.start()
        deadline = time.monotonic() + 60
        while len(second.delivered) < 30:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        a.kill()
        alive[0] = False
        killed_at = len(second.delivered)
        loader.join()
        close_all(held)
        assert len(second.delivered) == 100  # B served the rest
        counts = wait_for_records(pg_url, set(second.delivered))
        lost = [rid for rid in second.delivered if rid not in counts]
        twice = [rid for rid, n in counts.items() if n > 1]
        print(
            f"kill -9 of one gateway after {killed_at} delivered: 100 delivered in all "
            f"({second.failed} requests cut or refused by the dead one, retried on the "
            f"other); records of delivered calls lost {len(lost)}, duplicated {len(twice)}"
        )
        assert not lost and not twice
        # A's slots for key-9 were leases: they ran out, B admits four again
        time.sleep(LEASE_SECONDS + 0.5)
        close_all(hold_streams([b.url] * 4, "key-9"))
    finally:
        for gateway in (a, b):
            err = stop(gateway)
            assert "Traceback" not in err, err


def metric(gateway: Gateway, name: str) -> float:
    text = httpx.get(gateway.url + "/metrics", headers={"x-api-key": KEYS[0]}).text
    return sum(float(v) for v in re.findall(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M))


def hold_streams(urls: list[str], key: str) -> list[tuple[httpx.Client, httpx.Response]]:
    """Streams that stay open (the "hold" script runs for ten seconds), each admitted."""
    held = []
    for url in urls:
        client = httpx.Client(timeout=30)
        request = client.build_request(
            "POST",
            url + "/v1/chat/completions",
            json={"model": "hold", "stream": True, "messages": [{"role": "user", "content": key}]},
            headers={"authorization": f"Bearer {key}"},
        )
        response = client.send(request, stream=True)
        assert response.status_code == 200, response.read()
        held.append((client, response))
    return held


def close_all(held: list[tuple[httpx.Client, httpx.Response]]) -> None:
    for client, response in held:
        response.close()
        client.close()


def test_workers_share_the_audit_and_metrics_are_summed(
    upstream: Upstream, pg_url: str, redis_url: str, tmp_path: Path
) -> None:
    gateway = start_gateway(upstream.server.url, pg_url, redis_url, tmp_path, workers=2)
    try:
        load = run_load([gateway.url], 30, [True])
        for _ in range(6):  # whichever worker answers, the figures are the sum
            response = httpx.get(gateway.url + "/metrics", headers={"x-api-key": KEYS[0]})
            text = response.text
            served = sum(
                float(v) for v in re.findall(
                    r'^toolwire_gateway_requests_total\{[^}]*status="200"[^}]*\} (\S+)$', text, re.M
                )
            )  # fmt: skip
            assert served == 30, text
            calls = re.search(
                r'^toolwire_gateway_calls_total\{status="complete"\} (\S+)$', text, re.M
            )
            assert calls is not None, [x for x in text.splitlines() if "calls" in x]
            assert float(calls.group(1)) == 30
        counts = wait_for_records(pg_url, set(load.delivered))
        assert sum(counts.values()) == 30
        # the audit's own figures, summed too: every record went through the queue
        assert metric(gateway, "toolwire_audit_written_total") == 30
        assert metric(gateway, "toolwire_audit_queue_depth") == 0
        assert metric(gateway, "toolwire_audit_spilled_total") == 0
        metrics_dir = [
            line.split("=", 1)[1]
            for line in Path(f"/proc/{gateway.proc.pid}/environ").read_bytes().decode().split("\0")
            if line.startswith("PROMETHEUS_MULTIPROC_DIR=")
        ]
        assert metrics_dir == []  # set for the workers only, by serve itself
    finally:
        err = stop(gateway)
        assert "Traceback" not in err, err

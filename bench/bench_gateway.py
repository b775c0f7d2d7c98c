"""What a gateway adds to an OpenAI Chat stream: toolwire's, its peers' and a floor's,
measured in one run against one scripted upstream on loopback.

Run: ``python bench/bench_gateway.py [--only toolwire,floor,...] [--quick]
[--peers-dir DIR] [--no-install]`` (also run by ``python3 dev.py bench``).

- Upstream: ``gateway_upstream.py`` (its own process): OpenAI Chat streaming, as vLLM
  sends it. Cases: ``text`` = 2,000 content deltas; ``tool`` = one call with 64 KB of
  arguments in 16-byte deltas.
- Gateways, each its own process, in front of it: **toolwire** (``toolwire serve``,
  audit to SQLite, repair on: it always is), **floor** (``passthrough_proxy.py``:
  ``json.loads``/``dumps`` of each event, nothing more), and the peers, each installed
  by this script into its own directory under ``--peers-dir`` (default
  ``bench/.peers``; never into toolwire's environment): **litellm** (``pip install
  'litellm[proxy]'``), **tensorzero** (its PyPI wheel's embedded Rust gateway,
  ``tensorzero_gateway.py``) and **portkey** (npm ``@portkey-ai/gateway`` with
  ``@hono/node-server`` pinned to 1.13.8 through ``overrides``: newer ones make its chat
  route answer 500 "TypeError: immutable"). A peer that cannot be installed or started
  is reported with the reason.
- The client is a raw HTTP/1.1 client in this process (little CPU of its own).

Figures (``added`` = through the gateway minus direct, as medians over alternating
direct/gateway pairs):
- **CPU s/MB**: the gateway's processes' user+system CPU (``/proc/PID/stat``, children
  included) per MB the upstream sent, for each case, streams one after another;
- **TTFB +ms**: request to the first content byte (a 10-delta text stream);
- **chunk p50/p99 +ms**: one stream, 300 deltas 5 ms apart, each stamped by the
  upstream with its send time; per chunk, arrival minus send;
- **50×50 p99 +ms**: 50 concurrent streams of 100 deltas at 50 per second;
- **100 streams ×direct**: wall time of 100 concurrent 500-delta text streams, from
  the requests to the last byte (checking them comes after);
- **RSS MB**: the gateway's peak resident memory (``VmHWM``, children summed).
Every stream is checked: the text, or the call's arguments, exactly as the upstream
sent them, nothing lost or crossed. The machine is shared: read ratios from one run,
and rerun.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import gateway_upstream as upstream_cases  # noqa: E402

STAMP = re.compile(rb"@(\d{19})\|")
CONTENT = re.compile(rb'"content":\s*"[^"]')
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]
TEXT_DELTAS = 2000
TOOL_BYTES = 65536
TICK = os.sysconf("SC_CLK_TCK")


class Unavailable(Exception):
    """A gateway that could not be installed or started, and why."""


# -- the client -----------------------------------------------------------------------


class Dechunk:
    """Chunked transfer decoding, fed as bytes arrive."""

    def __init__(self) -> None:
        self.buffer = b""
        self.left = 0  # bytes of the current chunk still to come
        self.crlf = False  # a chunk's trailing CRLF still to skip
        self.done = False

    def feed(self, data: bytes) -> bytes:
        self.buffer += data
        out: list[bytes] = []
        while not self.done:
            if self.left:
                taken = self.buffer[: self.left]
                out.append(taken)
                self.buffer = self.buffer[len(taken) :]
                self.left -= len(taken)
                if self.left:
                    break
                self.crlf = True
            if self.crlf:
                if len(self.buffer) < 2:
                    break
                self.buffer = self.buffer[2:]
                self.crlf = False
            end = self.buffer.find(b"\r\n")
            if end < 0:
                break
            size = int(self.buffer[:end].split(b";")[0], 16)
            self.buffer = self.buffer[end + 2 :]
            if size == 0:
                self.done = True
            self.left = size
        return b"".join(out)


@dataclass
class Reply:
    status: int
    body: bytes
    ttfb: float  # seconds to the first content byte
    wall: float
    latencies: list[float] = field(default_factory=list)  # seconds, per stamped chunk


@dataclass
class Target:
    """Where to send a chat request: a gateway, or the upstream itself."""

    name: str
    url: str  # the chat completions URL
    model: str = "bench"
    headers: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    note: str = ""

    async def chat(self, case: str, tools: bool = False) -> Reply:
        body: dict[str, object] = {
            "model": self.model,
            "messages": [{"role": "user", "content": case}],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = TOOLS
        return await post(self.url, json.dumps(body).encode(), self.headers)


async def post(url: str, body: bytes, headers: dict[str, str]) -> Reply:
    rest = url.removeprefix("http://")
    hostport, path = rest.split("/", 1)
    host, port = hostport.split(":")
    started = time.monotonic()
    reader, writer = await asyncio.open_connection(host, int(port))
    head = f"POST /{path} HTTP/1.1\r\nhost: {hostport}\r\ncontent-type: application/json\r\n"
    head += f"content-length: {len(body)}\r\nconnection: close\r\naccept: text/event-stream\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    writer.write(head.encode() + b"\r\n" + body)
    try:
        status_head = await reader.readuntil(b"\r\n\r\n")
        status = int(status_head.split(b" ", 2)[1])
        lowered = status_head.lower()
        dechunk = Dechunk() if b"transfer-encoding: chunked" in lowered else None
        payload = bytearray()
        latencies: list[float] = []
        ttfb = 0.0
        scanned = 0
        while True:
            data = await reader.read(262144)
            now = time.monotonic_ns()
            if not data:
                break
            payload += dechunk.feed(data) if dechunk is not None else data
            if not ttfb and CONTENT.search(payload):
                ttfb = now / 1e9 - started
            for found in STAMP.finditer(payload, scanned):
                latencies.append((now - int(found.group(1))) / 1e9)
                scanned = found.end()
            scanned = max(scanned, len(payload) - 21)
            if dechunk is not None and dechunk.done:
                break
    finally:
        writer.close()
    return Reply(status, bytes(payload), ttfb, time.monotonic() - started, latencies)


def events(body: bytes) -> list[dict[str, object]]:
    out = []
    for message in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        for line in message.split(b"\n"):
            if line.startswith(b"data:") and line[5:].strip() not in (b"", b"[DONE]"):
                out.append(json.loads(line[5:]))
    return out


def text_of(reply: Reply) -> str:
    parts = []
    for event in events(reply.body):
        for choice in event.get("choices") or []:  # type: ignore[attr-defined]
            content = (choice.get("delta") or {}).get("content")
            if content:
                parts.append(content)
    return "".join(parts)


def call_of(reply: Reply) -> tuple[str, object]:
    name, arguments = "", ""
    for event in events(reply.body):
        for choice in event.get("choices") or []:  # type: ignore[attr-defined]
            for call in (choice.get("delta") or {}).get("tool_calls") or []:
                function = call.get("function") or {}
                name = function.get("name") or name
                arguments += function.get("arguments") or ""
    return name, json.loads(arguments) if arguments else None


def expected_text(deltas: int) -> str:
    return "".join(upstream_cases.text_piece(i) for i in range(deltas))


def check(reply: Reply, case: str) -> str | None:
    """What is wrong with a reply to ``case`` (None: exactly what the upstream sent)."""
    if reply.status != 200:
        return f"status {reply.status}: {reply.body[:200]!r}"
    kind, size, pace = case.split(":")[1:]
    if kind == "tool":
        want = json.loads(upstream_cases.tool_arguments(int(size)))
        got = call_of(reply)
        return None if got == ("write_file", want) else "the call's arguments differ"
    text = text_of(reply)
    if int(pace):
        stamps = len(re.findall(r"@\d{19}\|", text))
        return None if stamps == int(size) else f"{stamps} of {size} stamped deltas"
    return None if text == expected_text(int(size)) else "the text differs"


# -- measuring a process --------------------------------------------------------------


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(children.get(current, []))
    return out


def cpu_seconds(pid: int) -> float:
    total = 0
    for each in tree(pid):
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def peak_rss_mb(pid: int) -> float:
    total = 0
    for each in tree(pid):
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        found = re.search(r"VmHWM:\s*(\d+) kB", status)
        total += int(found.group(1)) if found else 0
    return total / 1024


# -- starting the upstream and the gateways --------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Unavailable(f"exited {process.returncode}: {tail(log)}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise Unavailable(f"did not listen within {timeout:.0f} s: {tail(log)}")


def tail(log: Path, lines: int = 3) -> str:
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])[-400:]


def spawn(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )


def install(what: str, cmd: list[str], cwd: Path, log: Path) -> None:
    print(f"  installing {what} into {cwd} (once) …", flush=True)
    with log.open("ab") as out:
        done = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise Unavailable(f"install failed ({' '.join(cmd)}): {tail(log)}")


def venv_with(directory: Path, package: str, marker: str, may_install: bool) -> Path:
    """The Python of a venv in ``directory`` holding ``package`` (installed once)."""
    python = directory / "bin" / "python"
    if (directory / marker).exists():
        return python
    if not may_install:
        raise Unavailable(f"not installed in {directory} (--no-install)")
    directory.mkdir(parents=True, exist_ok=True)
    log = directory.parent / f"{directory.name}-install.log"
    install("a venv", [sys.executable, "-m", "venv", str(directory)], directory.parent, log)
    install(package, [str(python), "-m", "pip", "install", "-q", package], directory, log)
    if not (directory / marker).exists():
        raise Unavailable(f"{package} installed but {marker} is missing")
    return python


def installed_version(python: Path, package: str) -> str | None:
    """The version of ``package`` in the environment of ``python`` (None: not there)."""
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    found = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return found.stdout.strip() if found.returncode == 0 else None


@dataclass
class Setup:
    upstream: str  # http://127.0.0.1:PORT/v1
    work: Path
    peers: Path
    may_install: bool


def start_toolwire(setup: Setup) -> Target:
    port, log = free_port(), setup.work / "toolwire.log"
    audit = setup.work / "audit.db"
    cmd = [sys.executable, "-m", "toolwire", "serve", "--upstream", setup.upstream]
    process = spawn([*cmd, "--port", str(port), "--audit", str(audit)], log)
    wait_for_port(port, process, 60, log)
    return Target("toolwire", f"http://127.0.0.1:{port}/v1/chat/completions", process=process)


def start_floor(setup: Setup) -> Target:
    port, log = free_port(), setup.work / "floor.log"
    script = str(HERE / "passthrough_proxy.py")
    process = spawn([sys.executable, script, setup.upstream, str(port)], log)
    wait_for_port(port, process, 60, log)
    return Target("floor", f"http://127.0.0.1:{port}/v1/chat/completions", process=process)


def start_litellm(setup: Setup) -> Target:
    python = venv_with(setup.peers / "litellm", "litellm[proxy]", "bin/litellm", setup.may_install)
    config = setup.work / "litellm.yaml"
    config.write_text(
        "model_list:\n  - model_name: bench\n    litellm_params:\n"
        f"      model: openai/bench\n      api_base: {setup.upstream}\n      api_key: none\n"
    )
    port, log = free_port(), setup.work / "litellm.log"
    env = {"LITELLM_MASTER_KEY": "sk-bench", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    litellm = str(python.parent / "litellm")
    cmd = [litellm, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)]
    process = spawn(cmd, log, env)
    wait_for_port(port, process, 300, log)  # it takes a minute or more to start
    version = installed_version(python, "litellm")
    return Target(
        "litellm",
        f"http://127.0.0.1:{port}/v1/chat/completions",
        headers={"authorization": "Bearer sk-bench"},
        process=process,
        note=f"litellm {version}",
    )


def start_tensorzero(setup: Setup) -> Target:
    python = venv_with(setup.peers / "tensorzero", "tensorzero", "bin/python", setup.may_install)
    if installed_version(python, "tensorzero") is None:
        if not setup.may_install:
            raise Unavailable("tensorzero is not installed (--no-install)")
        log = setup.peers / "tensorzero-install.log"
        install(
            "tensorzero",
            [str(python), "-m", "pip", "install", "-q", "tensorzero"],
            setup.peers,
            log,
        )
    config = setup.work / "tensorzero.toml"
    config.write_text(
        '[models.bench]\nrouting = ["up"]\n\n[models.bench.providers.up]\ntype = "openai"\n'
        f'api_base = "{setup.upstream}/"\nmodel_name = "bench"\napi_key_location = "none"\n'
    )
    url_file, log = setup.work / "tensorzero.url", setup.work / "tensorzero.log"
    url_file.unlink(missing_ok=True)
    script = str(HERE / "tensorzero_gateway.py")
    process = spawn([str(python), script, str(config), str(url_file)], log)
    deadline = time.monotonic() + 120
    while not url_file.exists() or not url_file.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise Unavailable(f"did not start: {tail(log)}")
        time.sleep(0.2)
    base = url_file.read_text().strip().rstrip("/").removesuffix("/openai/v1")
    version = installed_version(python, "tensorzero")
    return Target(
        "tensorzero",
        f"{base}/openai/v1/chat/completions",
        model="tensorzero::model_name::bench",
        process=process,
        note=f"tensorzero {version}",
    )


PORTKEY_PACKAGE = {
    "name": "toolwire-bench-portkey",
    "private": True,
    "dependencies": {"@portkey-ai/gateway": "^1.15.0"},
    # newer @hono/node-server makes the chat route answer 500 "TypeError: immutable"
    "overrides": {"@hono/node-server": "1.13.8"},
}


def start_portkey(setup: Setup) -> Target:
    directory = setup.peers / "portkey"
    server = directory / "node_modules" / "@portkey-ai" / "gateway" / "build" / "start-server.js"
    if not server.exists():
        if not setup.may_install:
            raise Unavailable("not installed (--no-install)")
        if shutil.which("npm") is None or shutil.which("node") is None:
            raise Unavailable("node/npm are not on PATH")
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "package.json").write_text(json.dumps(PORTKEY_PACKAGE, indent=2))
        install(
            "@portkey-ai/gateway",
            ["npm", "install", "--no-audit", "--no-fund"],
            directory,
            setup.peers / "portkey-install.log",
        )
    port, log = free_port(), setup.work / "portkey.log"
    process = spawn(["node", str(server), f"--port={port}", "--headless"], log)
    wait_for_port(port, process, 60, log)
    version = json.loads((server.parents[1] / "package.json").read_text())["version"]
    return Target(
        "portkey",
        f"http://127.0.0.1:{port}/v1/chat/completions",
        headers={
            "x-portkey-provider": "openai",
            "x-portkey-custom-host": setup.upstream,
            "authorization": "Bearer none",
        },
        process=process,
        note=f"portkey {version}",
    )


STARTERS: dict[str, Callable[[Setup], Target]] = {
    "toolwire": start_toolwire,
    "floor": start_floor,
    "tensorzero": start_tensorzero,
    "portkey": start_portkey,
    "litellm": start_litellm,
}


# -- the figures -----------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def text_case(deltas: int, pace_ms: int = 0) -> str:
    return f"bench:text:{deltas}:{pace_ms}"


def case_bytes(kind: str, size: int) -> int:
    """Bytes of the upstream's SSE body for an unpaced case."""
    if kind == "text":
        pieces = [upstream_cases.opening()]
        pieces += [
            upstream_cases.chunk({"content": upstream_cases.text_piece(i)}) for i in range(size)
        ]
    else:
        pieces = upstream_cases.tool_chunks(size)
    pieces.append(upstream_cases.ending("stop" if kind == "text" else "tool_calls", size))
    return sum(len(p) for p in pieces)


@dataclass
class Figures:
    cpu_text: float | None = None
    cpu_tool: float | None = None
    ttfb: float | None = None
    chunk_p50: float | None = None
    chunk_p99: float | None = None
    load_p99: float | None = None
    hundred: float | None = None
    rss: float | None = None
    errors: list[str] = field(default_factory=list)


class Bench:
    def __init__(self, direct: Target, quick: bool) -> None:
        self.direct = direct
        self.reps = 1 if quick else 3

    async def checked(self, target: Target, case: str, tools: bool = False) -> Reply:
        reply = await target.chat(case, tools)
        problem = check(reply, case)
        if problem:
            raise RuntimeError(f"{target.name}: {case}: {problem}")
        return reply

    async def cpu_per_mb(self, target: Target, kind: str) -> float:
        assert target.process is not None
        size, streams = (TEXT_DELTAS, 12) if kind == "text" else (TOOL_BYTES, 5)
        case = f"bench:{kind}:{size}:0"
        per_round = []
        for _ in range(self.reps):
            before = cpu_seconds(target.process.pid)
            for _ in range(streams):
                await self.checked(target, case, tools=kind == "tool")
            used = cpu_seconds(target.process.pid) - before
            per_round.append(used / (streams * case_bytes(kind, size) / 1e6))
        return statistics.median(per_round)

    async def ttfb(self, target: Target) -> float:
        added = []
        for _ in range(10 * self.reps):
            direct = await self.checked(self.direct, text_case(10))
            through = await self.checked(target, text_case(10))
            added.append(through.ttfb - direct.ttfb)
        return statistics.median(added) * 1000

    async def per_chunk(self, target: Target) -> tuple[float, float]:
        p50s, p99s = [], []
        for _ in range(self.reps):
            direct = await self.checked(self.direct, text_case(300, 5))
            through = await self.checked(target, text_case(300, 5))
            p50s.append(pct(through.latencies, 0.5) - pct(direct.latencies, 0.5))
            p99s.append(pct(through.latencies, 0.99) - pct(direct.latencies, 0.99))
        return statistics.median(p50s) * 1000, statistics.median(p99s) * 1000

    async def concurrent(
        self, target: Target, streams: int, case: str
    ) -> tuple[list[Reply], float]:
        """The replies, checked, and the seconds until the last one had arrived (the
        checks, 0.2 s of this process's CPU for 100 × 500 deltas, come after)."""
        started = time.monotonic()
        replies = await asyncio.gather(*(target.chat(case) for _ in range(streams)))
        wall = time.monotonic() - started
        for reply in replies:
            problem = check(reply, case)
            if problem:
                raise RuntimeError(f"{target.name}: {streams}× {case}: {problem}")
        return list(replies), wall

    async def load_p99(self, target: Target) -> float:
        added = []
        for _ in range(max(2, self.reps - 1)):
            runs = []
            for each in (self.direct, target):
                replies, _ = await self.concurrent(each, 50, text_case(100, 20))
                runs.append(pct([x for r in replies for x in r.latencies], 0.99))
            added.append(runs[1] - runs[0])
        return statistics.median(added) * 1000

    async def hundred(self, target: Target) -> float:
        ratios = []
        for _ in range(max(2, self.reps - 1)):
            walls = []
            for each in (self.direct, target):
                _, wall = await self.concurrent(each, 100, text_case(500))
                walls.append(wall)
            ratios.append(walls[1] / walls[0])
        return statistics.median(ratios)

    async def measure(self, target: Target) -> Figures:
        figures = Figures()
        await self.warm_up(target)
        for name, action in (
            ("cpu_text", lambda: self.cpu_per_mb(target, "text")),
            ("cpu_tool", lambda: self.cpu_per_mb(target, "tool")),
            ("ttfb", lambda: self.ttfb(target)),
            ("chunk", lambda: self.per_chunk(target)),
            ("load_p99", lambda: self.load_p99(target)),
            ("hundred", lambda: self.hundred(target)),
        ):
            try:
                value = await action()  # type: ignore[misc]
            except Exception as exc:  # a gateway that fails a step is reported, not dropped
                figures.errors.append(f"{name}: {exc}"[:300])
                continue
            if name == "chunk":
                figures.chunk_p50, figures.chunk_p99 = value
            else:
                setattr(figures, name, value)
        assert target.process is not None
        figures.rss = peak_rss_mb(target.process.pid)
        return figures

    async def warm_up(self, target: Target) -> None:
        for _ in range(3):
            await target.chat(text_case(50))
        await target.chat(f"bench:tool:{TOOL_BYTES}:0", tools=True)


def fmt(value: float | None, spec: str) -> str:
    width = int(spec.split(".")[0] or 0)
    return "-".rjust(width) if value is None else format(value, spec)


def report(rows: list[tuple[Target | str, Figures | str]]) -> None:
    head = (
        f"{'gateway':12s} {'CPU s/MB':>8s} {'CPU s/MB':>8s} {'TTFB':>7s} {'chunk +ms':>13s} "
        f"{'50×50':>7s} {'100 str.':>8s} {'RSS':>6s}\n"
        f"{'':12s} {'text':>8s} {'tool':>8s} {'+ms':>7s} {'p50 / p99':>13s} "
        f"{'p99 +ms':>7s} {'×direct':>8s} {'MB':>6s}"
    )
    print(head)
    notes = []
    for target, figures in rows:
        name = target.name if isinstance(target, Target) else target
        if isinstance(figures, str):
            print(f"{name:12s} not measured: {figures}")
            continue
        chunk = f"{fmt(figures.chunk_p50, '.2f')} / {fmt(figures.chunk_p99, '.2f')}"
        print(
            f"{name:12s} {fmt(figures.cpu_text, '8.3f')} {fmt(figures.cpu_tool, '8.3f')} "
            f"{fmt(figures.ttfb, '7.2f')} {chunk:>13s} {fmt(figures.load_p99, '7.2f')} "
            f"{fmt(figures.hundred, '8.2f')} {fmt(figures.rss, '6.0f')}"
        )
        if isinstance(target, Target) and target.note:
            notes.append(f"{name}: {target.note}")
        notes += [f"{name}: {error}" for error in figures.errors]
    for note in notes:
        print("  " + note)


async def run(names: list[str], setup: Setup, quick: bool) -> None:
    direct = Target("direct", setup.upstream + "/chat/completions")
    bench = Bench(direct, quick)
    for case, tools in ((text_case(TEXT_DELTAS), False), (f"bench:tool:{TOOL_BYTES}:0", True)):
        await bench.checked(direct, case, tools)  # the upstream itself is right
    rows: list[tuple[Target | str, Figures | str]] = []
    for name in names:
        print(f"{name}: starting …", flush=True)
        try:
            target = STARTERS[name](setup)
        except Unavailable as exc:
            rows.append((name, f"unavailable — {exc}"))
            continue
        try:
            rows.append((target, await bench.measure(target)))
        finally:
            assert target.process is not None
            for pid in reversed(tree(target.process.pid)):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 15)
            target.process.wait(10)
    print(
        f"\nOpenAI chat streaming on loopback; text = {TEXT_DELTAS} deltas "
        f"({case_bytes('text', TEXT_DELTAS) / 1e3:.0f} KB), tool = {TOOL_BYTES // 1024} KB of "
        f"arguments in 16-byte deltas ({case_bytes('tool', TOOL_BYTES) / 1e3:.0f} KB); "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}\n"
    )
    report(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(STARTERS), help="comma-separated gateways")
    parser.add_argument("--quick", action="store_true", help="one repetition of each figure")
    parser.add_argument("--peers-dir", type=Path, default=HERE / ".peers")
    parser.add_argument("--no-install", action="store_true", help="never install a peer")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in STARTERS]
    if unknown:
        sys.exit(f"unknown gateway(s): {', '.join(unknown)}; known: {', '.join(STARTERS)}")
    args.peers_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        port_file = work / "upstream.port"
        upstream = spawn(
            [sys.executable, str(HERE / "gateway_upstream.py"), str(port_file)],
            work / "upstream.log",
        )
        try:
            deadline = time.monotonic() + 20
            while not port_file.exists() or not port_file.read_text():
                if time.monotonic() > deadline:
                    sys.exit(f"the scripted upstream did not start: {tail(work / 'upstream.log')}")
                time.sleep(0.05)
            url = f"http://127.0.0.1:{port_file.read_text()}/v1"
            setup = Setup(url, work, args.peers_dir.resolve(), not args.no_install)
            asyncio.run(run(names, setup, args.quick))
        finally:
            upstream.terminate()
            upstream.wait(10)


if __name__ == "__main__":
    main()

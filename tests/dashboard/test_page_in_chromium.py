"""The audit page in a real headless browser (Debian's chromium): a database filled
by a scripted run (the gateway in front of broken model streams, driven by the
openai SDK, and a conversation loop run marked solved), the page loaded from the
gateway's ``/ui/``, and what its charts and tables show read back from the DOM the
browser built. A screenshot is kept in ``test-artifacts/``."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import anyio
import httpx
import openai
import pytest
from upstream import DONE, WEATHER_SCHEMA, Script, ScriptedUpstream, call_stream, chat_chunk

from toolwire.agent import Agent
from toolwire.audit.sqlite import SQLiteSink
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.gateway import GatewayConfig
from toolwire.gateway.background import BackgroundGateway
from toolwire.replay import Dialogue, ReplayServer, usage_chunk
from toolwire.tools import tool

pytestmark = pytest.mark.gateway

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}]
KEY = "page-key"
# model name -> how many requests the scripted run sends it
TRAFFIC = {"python-dict": 3, "f33-cut-off": 2, "unreadable": 1, "f32-llama-cpp": 1}


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(
            "chromium is not installed: `python3 dev.py test` installs Debian's chromium "
            "(apt-get install chromium) when it runs as root; install it and run again"
        )
    return found


def browse(url: str, profile: Path, *, screenshot: Path | None = None) -> str:
    """The DOM after the page's scripts ran (or, with ``screenshot``, a PNG of it)."""
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=15000",
        "--window-size=1400,2600",
    ]
    what = [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
    done = subprocess.run(
        [chromium(), *flags, *what, url], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class Elements(HTMLParser):
    """Every element's attributes and the text inside it (flat, in document order)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str], list[str]]] = []
        self._open: list[list[str]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        text: list[str] = []
        self.found.append((tag, {k: v or "" for k, v in attrs}, text))
        if tag not in ("meta", "link", "input", "br", "img"):
            self._open.append(text)

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for text in self._open:
            text.append(data)

    def having(self, attr: str, value: str | None = None) -> list[dict[str, str]]:
        return [a for _, a, _ in self.found if attr in a and (value is None or a[attr] == value)]

    def text_of(self, attr: str, value: str) -> str:
        for _, a, text in self.found:
            if a.get(attr) == value:
                return "".join(text)
        raise AssertionError(f"no element with {attr}={value!r}")

    def table_rows(self, testid: str) -> list[list[str]]:
        """The body rows of a table, as cell texts."""
        rows: list[list[str]] = []
        inside = False
        for tag, attrs, text in self.found:
            if tag == "table":
                inside = attrs.get("data-testid") == testid
            elif inside and tag == "tr":
                rows.append([])
            elif inside and tag == "td" and rows:
                rows[-1].append("".join(text).strip())
        return rows[1:] if rows and not rows[0] else [r for r in rows if r]


@tool
def get_weather(city: str, days: int = 1) -> str:
    return f"{city}: sunny for {days} day(s)"


WEATHER = [
    *call_stream("get_weather", ["{'city': 'Lima'}"], "tool_calls")[:-1],
    usage_chunk(400, 20),
    DONE,
]
ANSWER = [chat_chunk({"content": "Sunny."}), chat_chunk({}, "stop"), usage_chunk(500, 10), DONE]


def agent_run(db: Path) -> None:
    """One loop run, two turns, marked solved: 930 tokens for one solved task."""

    async def run() -> None:
        with ReplayServer({"d": Dialogue([Script(WEATHER), Script(ANSWER)])}, default="d") as up:
            client = ModelClient(
                "openai-chat", up.url, model="loop-model", retry=RetryPolicy(attempts=1)
            )
            engine = ToolEngine([get_weather], sinks=[SQLiteSink(db)])
            agent = Agent(client, engine)
            result = await agent.run("weather?")
            agent.finish(result, solved=True)
            engine.close()
            await client.aclose()

    anyio.run(run)


def test_the_page_shows_what_the_run_left(tmp_path: Path) -> None:
    db = tmp_path / "audit.db"
    agent_run(db)
    sink = SQLiteSink(db)
    with ScriptedUpstream() as up:
        config = GatewayConfig(
            upstream_url=up.url, api_keys=(KEY,), audit=sink, audit_location=str(db)
        )
        with BackgroundGateway(config) as gw:
            client = openai.OpenAI(base_url=gw.url + "/v1", api_key=KEY, max_retries=0)
            for model, times in TRAFFIC.items():
                for _ in range(times):
                    client.chat.completions.create(model=model, messages=[], tools=TOOLS)  # type: ignore[arg-type]
            # behind the keys: none is refused, a browser's Basic password is let in
            refused = httpx.get(gw.url + "/ui/")
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"].startswith("Basic ")
            api = httpx.get(gw.url + "/ui/api/dashboard", auth=("any", KEY)).json()
            page_url = gw.url.replace("http://", f"http://user:{KEY}@") + "/ui/"
            dom = Elements(browse(page_url, tmp_path / "profile"))
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / "audit-page.png"
            browse(page_url, tmp_path / "profile", screenshot=shot)
    sink.close()

    assert dom.having("data-loaded", "true"), "the page did not finish loading its data"
    # the tiles: every call, the repaired and invalid ones, the cut-offs held back
    assert api["calls"] == 3 + 2 + 1 + 1 + 1  # the gateway's seven and the loop's one
    assert dom.text_of("data-testid", "tile-calls").startswith("8")
    assert dom.text_of("data-testid", "tile-truncations-held-back").startswith("2")
    assert dom.text_of("data-testid", "tile-invalid").startswith("1")
    # calls per model by status: one chart per model, bars that add up to its calls
    charts = {a["data-model"] for a in dom.having("data-testid", "calls-chart")}
    assert charts == {*TRAFFIC, "loop-model"}
    bars: dict[tuple[str, str], int] = {}
    model = ""
    for tag, attrs, _ in dom.found:
        if attrs.get("data-testid") == "calls-chart":
            model = attrs["data-model"]
        elif tag == "rect" and "data-status" in attrs:
            key = (model, attrs["data-status"])
            bars[key] = bars.get(key, 0) + int(attrs["data-count"])
    assert bars[("python-dict", "repaired")] == 3
    assert bars[("f33-cut-off", "truncated")] == 2
    assert bars[("unreadable", "invalid")] == 1
    assert bars[("loop-model", "repaired")] == 1  # the loop's call, Python dict repaired
    # repair kinds per model: the Python dicts' python_literal, where it happened
    cells = {
        (a["data-model"], a["data-kind"]): int(a["data-count"])
        for a in dom.having("data-kind")
        if a["data-count"] != "0"
    }
    assert cells[("python-dict", "python_literal")] == 3
    assert ("f33-cut-off", "python_literal") not in cells
    # truncations: both cut-offs of that model held back
    assert dom.table_rows("truncations-table") == [["f33-cut-off", "2", "2", ""]]
    # tokens per solved task: the loop's task, 400+20+500+10 tokens, solved
    (by_tool,) = dom.table_rows("tpst-tool-table")
    assert by_tool[:5] == ["get_weather", "1", "1", "930", "930"]
    (by_model,) = dom.table_rows("tpst-model-table")
    assert by_model[:5] == ["loop-model", "1", "1", "930", "930"]
    # the slowest tools table names the tool every call was for
    assert [row[0] for row in dom.table_rows("slowest-table")] == ["get_weather"]
    # the latest problems: newest first, with redacted raw arguments and errors
    problems = dom.table_rows("problems-table")
    assert [row[1:4] for row in problems] == [
        ["unreadable", "get_weather", "invalid"],
        ["f33-cut-off", "get_weather", "truncated"],
        ["f33-cut-off", "get_weather", "truncated"],
    ]
    assert problems[0][4] == "<<<not json>>>"
    assert "JSON" in problems[0][5]  # what is wrong, in words
    assert problems[1][4].startswith("{")  # the cut-off arguments as far as they came
    assert shot.stat().st_size > 10_000


def test_a_range_with_nothing_in_it_says_so(tmp_path: Path) -> None:
    db = tmp_path / "audit.db"
    agent_run(db)
    config = GatewayConfig(upstream_url="http://127.0.0.1:9/v1", audit_location=str(db))
    with BackgroundGateway(config) as gw:
        empty: dict[str, Any] = httpx.get(gw.url + "/ui/api/dashboard?from=0&to=1").json()
        bad = httpx.get(gw.url + "/ui/api/dashboard?from=5&to=1")
    assert empty["calls"] == 0 and empty["models"] == []
    assert bad.status_code == 400 and bad.json() == {"error": "from must come before to"}

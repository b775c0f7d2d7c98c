"""``toolwire audit serve``: the page's app on its own, and the command's errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from starlette.testclient import TestClient

from toolwire.audit.record import ExecutionRecord
from toolwire.audit.sinks import JSONLSink
from toolwire.dashboard import create_dashboard_app


def toolwire(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolwire", *args], capture_output=True, text=True, timeout=60
    )


def test_the_page_and_its_assets_come_from_the_package_and_name_no_other_host() -> None:
    client = TestClient(create_dashboard_app(lambda: ([], {})))
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in ("app.js", "style.css"):
        got = client.get(f"/assets/{asset}")
        assert got.status_code == 200 and got.text
        assert "http://" not in got.text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in got.text
    assert "https://" not in page.text and "http://" not in page.text
    assert client.get("/assets/../app.py").status_code == 404


def test_keys_guard_every_route_and_a_wrong_one_is_refused() -> None:
    client = TestClient(create_dashboard_app(lambda: ([], {}), keys=("k1",)))
    for path in ("/", "/assets/app.js", "/api/dashboard"):
        assert client.get(path).status_code == 401
        assert client.get(path, auth=("u", "wrong")).status_code == 401
        assert client.get(path, auth=("u", "k1")).status_code == 200
        assert client.get(path, headers={"x-api-key": "k1"}).status_code == 200


def test_the_api_reads_the_audit_anew_each_time(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    sink = JSONLSink(path)
    from toolwire.audit.readers import read_audit

    client = TestClient(create_dashboard_app(lambda: read_audit(path)))
    assert client.get("/api/dashboard").json()["calls"] == 0
    sink.write(ExecutionRecord("r1", "c1", "add", "ok", 1_700_000_000.0, 2.0, extra={"model": "m"}))
    sink.close()
    data = client.get("/api/dashboard").json()
    assert data["calls"] == 1 and data["models"] == ["m"]
    assert data["calls_over_time"]["series"] == [
        {"model": "m", "status": "complete", "counts": [1]}
    ]


def test_an_unreadable_audit_is_a_503_with_the_reason(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.db"
    from toolwire.audit.readers import read_audit

    client = TestClient(create_dashboard_app(lambda: read_audit(missing)))
    got = client.get("/api/dashboard")
    assert got.status_code == 503 and "no audit database" in got.json()["error"]


def test_the_command_fails_in_one_line(tmp_path: Path) -> None:
    missing = toolwire("audit", "serve", "--db", str(tmp_path / "nothing.db"))
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        f"toolwire: no audit database at {tmp_path / 'nothing.db'}"
    ]
    exposed = toolwire("audit", "serve", "--host", "0.0.0.0")
    assert exposed.returncode == 2
    assert "without a key" in exposed.stderr and len(exposed.stderr.strip().splitlines()) == 1


def test_an_empty_key_is_refused_everywhere_a_key_is_given() -> None:
    """``--api-key ""`` must not open the door: a request without a key would match it."""
    import pytest

    from toolwire.gateway import GatewayConfig
    from toolwire.gateway.config import ConfigError
    from toolwire.httpkeys import key_index
    from toolwire.mcpfront import HTTPListen

    assert key_index({}, [b""]) is None and key_index({"x-api-key": ""}, [b"", b"k"]) is None
    with pytest.raises(ConfigError, match="empty"):
        GatewayConfig(upstream_url="http://127.0.0.1:9/v1", api_keys=("",))
    assert "empty" in (HTTPListen("0.0.0.0", 1, ("",)).problem() or "")
    with pytest.raises(ValueError, match="empty"):
        create_dashboard_app(lambda: ([], {}), keys=(" ",))
    page = toolwire("audit", "serve", "--host", "0.0.0.0", "--api-key", "")
    assert page.returncode == 2 and "empty" in page.stderr
    gateway = toolwire("serve", "--upstream", "http://127.0.0.1:9/v1", "--api-key", "")
    assert gateway.returncode == 2 and "empty" in gateway.stderr


def test_ranges_of_any_size_give_a_bounded_answer_and_bad_ones_a_400() -> None:
    record = ExecutionRecord("r1", "c1", "add", "ok", 1_700_000_000.0, 2.0)
    client = TestClient(create_dashboard_app(lambda: ([record], {})))
    for query in ("from=0&to=1e11", "from=0&to=2.5e11", "from=1", "to=1e11"):
        got = client.get(f"/api/dashboard?{query}")
        assert got.status_code == 200, query
        data = got.json()
        assert data["calls"] == 1, query
        assert len(data["calls_over_time"]["buckets"]) <= 60, query
    for query in ("from=-inf", "from=nan", "to=inf", "to=1e300", "from=x", "from=5&to=1"):
        got = client.get(f"/api/dashboard?{query}")
        assert got.status_code == 400 and got.json()["error"], query


def test_a_cut_off_call_the_engine_refused_counts_as_truncated_and_held_back() -> None:
    """The loop and the MCP front hand a truncated call to the engine, which records it
    ``invalid_args`` / ``truncated_arguments`` and never runs it."""
    from toolwire.dashboard import dashboard

    cut = ExecutionRecord(
        "r1",
        "c1",
        "add",
        "invalid_args",
        1_700_000_000.0,
        0.1,
        error_type="truncated_arguments",
        extra={"model": "m"},
    )
    data = dashboard([cut], {})
    assert data["truncations"] == [{"model": "m", "truncated": 1, "held_back": 1}]
    assert data["latest_problems"][0]["status"] == "truncated"

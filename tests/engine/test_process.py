"""The subprocess executor: results, errors, and a real kill on timeout."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.engine.helpers import explode, hard_exit, pid, sleepy
from toolwire.audit import MemorySink
from toolwire.engine import ToolEngine

pytestmark = pytest.mark.anyio


async def test_process_tool_runs_in_another_process() -> None:
    import os

    engine = ToolEngine([pid], sinks=[])
    r = await engine.call("pid")
    assert r.ok and r.value != os.getpid()
    assert r.record.executor == "process"


async def test_process_timeout_kills_the_child(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    sink = MemorySink()
    engine = ToolEngine([sleepy], sinks=[sink], timeout=1.0)
    r = await engine.call("sleepy", {"seconds": 3, "marker": str(marker)})
    assert r.status == "timeout"
    time.sleep(3)
    assert not marker.exists()  # a thread would have lived on and written it
    assert [x.status for x in sink.records] == ["timeout"]


async def test_process_errors_keep_their_type() -> None:
    engine = ToolEngine([explode, hard_exit], sinks=[])
    r = await engine.call("explode", {"message": "bad input"})
    assert r.status == "tool_error" and r.record.error_type == "ValueError"
    assert "bad input" in r.content
    died = await engine.call("hard_exit")
    assert died.status == "tool_error" and died.record.error_type == "ProcessDied"
    assert "code 7" in died.content

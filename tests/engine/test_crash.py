"""A process killed during a batch loses no record of a call whose result was returned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from toolwire.audit import read_sqlite

CHILD = Path(__file__).with_name("crash_child.py")
ROOT = Path(__file__).parents[2]


def test_kill_during_batch_keeps_returned_records(tmp_path: Path) -> None:
    db = tmp_path / "audit.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), str(db)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    returned: list[str] = []
    for line in proc.stdout:
        if line.startswith("result "):
            returned.append(line.split()[1])
        if len(returned) == 5:
            break
    proc.send_signal(signal.SIGKILL)  # no cleanup, no flush, no close
    proc.wait()
    records, tasks = read_sqlite(db)
    by_id = {r.call_id: r for r in records}
    assert sorted(returned) == [f"fast-{i}" for i in range(5)]
    for call_id in returned:
        assert by_id[call_id].status == "ok"
    assert "hang-0" not in by_id  # still running when killed: nothing to record yet
    assert "batch" in tasks

"""Read a whole audit trail from wherever a sink wrote it."""

from __future__ import annotations

import os
from pathlib import Path

from toolwire.audit.record import ExecutionRecord, TaskRecord
from toolwire.audit.sinks import read_jsonl
from toolwire.audit.sqlite import read_sqlite


def read_audit(
    location: str | os.PathLike[str],
) -> tuple[list[ExecutionRecord], dict[str, TaskRecord]]:
    """All records (in start order) and tasks at ``location``: a ``.jsonl`` audit file
    or an SQLite audit database. Raises ``FileNotFoundError`` / ``AuditFileError``."""
    path = Path(location)
    return read_jsonl(path) if path.suffix == ".jsonl" else read_sqlite(path)

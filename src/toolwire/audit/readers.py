"""Read a whole audit trail from wherever a sink wrote it."""

from __future__ import annotations

import os
from pathlib import Path

from toolwire.audit.locations import is_postgres_url
from toolwire.audit.record import ExecutionRecord, TaskRecord
from toolwire.audit.sinks import read_jsonl
from toolwire.audit.sqlite import read_sqlite


def read_audit(
    location: str | os.PathLike[str],
) -> tuple[list[ExecutionRecord], dict[str, TaskRecord]]:
    """All records (in start order) and tasks at ``location``: a ``postgresql://``
    URL, a ``.jsonl`` audit file or an SQLite audit database. Raises
    ``FileNotFoundError`` / ``AuditFileError`` (an unreachable database too)."""
    if isinstance(location, str) and is_postgres_url(location):
        from toolwire.audit.postgres import read_postgres  # the driver loads only here

        return read_postgres(location)
    path = Path(location)
    return read_jsonl(path) if path.suffix == ".jsonl" else read_sqlite(path)

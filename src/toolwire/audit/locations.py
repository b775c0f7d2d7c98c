"""Where an audit lives, named by one string (``--audit``, ``--db``, config files):
``postgresql://…`` (or ``postgres://…``) is the shared PostgreSQL database, a path
ending in ``.jsonl`` a JSONL file, ``none`` no audit, any other path an SQLite file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from toolwire.audit.sinks import AuditSink, JSONLSink
from toolwire.audit.sqlite import SQLiteSink, default_audit_path


def is_postgres_url(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def default_location() -> str:
    """``$TOOLWIRE_AUDIT_DB`` (a path or a URL), else ``./toolwire-audit.db``."""
    return str(default_audit_path())


def open_sink(location: str | os.PathLike[str] | None, **options: Any) -> AuditSink | None:
    """The sink ``location`` names (the default when None; None for ``none``).
    ``options`` go to the PostgreSQL sink (``spill_dir``, ``on_count``, …). Raises what
    opening raises: ``sqlite3.Error``, ``OSError``, ``AuditFileError``."""
    where = str(location) if location is not None else default_location()
    if where == "none":
        return None
    if is_postgres_url(where):
        from toolwire.audit.postgres import PostgresSink  # the driver loads only here

        return PostgresSink(where, **options)
    if where.endswith(".jsonl"):
        return JSONLSink(where)
    return SQLiteSink(Path(where))

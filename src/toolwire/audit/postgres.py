"""The shared audit sink: one PostgreSQL database for every process (gateway workers,
replicas, agents), written off the request path.

``write`` appends the record to this process's journal, a local JSONL file (one
flushed append, as the JSONL sink does: it survives the process being killed), and
puts it on a bounded in-memory queue. A writer thread inserts the queue in batches.
When all the journal holds is in the database, the journal is emptied; under steady
load it may never be, so past ``journal_bytes`` a new journal is started and the old
one is removed once everything queued before it is in the database.

When the database cannot be reached (or the queue is full) the sink spills: records
are then only in the journal, which is the spill file. The writer retries every
``retry_seconds``; once the database answers it replays the journal and empties it.
A journal left by a process that died (its file lock is free) is replayed by the next
sink that uses the same spill directory. Inserts are idempotent by ``record_id``
(``ON CONFLICT DO NOTHING``), so a record replayed twice is stored once.

The driver is psycopg 3: typed, a libpq wheel (``psycopg[binary]``) so no system
library, and both a sync API (this writer thread, the report's reader) and an async
one. The writer runs on its own thread because the ``AuditSink`` interface is
synchronous and is called from threads and event loops alike.

The schema is created by the first sink to connect and versioned in
``toolwire_schema``; ``MIGRATIONS`` takes an older database forward, under an advisory
lock so that replicas starting together do not race. A database of a newer version
is refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import psycopg
from psycopg.rows import dict_row

from toolwire.audit.locations import safe_url
from toolwire.audit.record import AuditFileError, ExecutionRecord, TaskRecord
from toolwire.audit.sinks import jsonl_line
from toolwire.audit.sqlite import (
    RECORD_COLUMNS,
    TASK_COLUMNS,
    audit_from_rows,
    record_row,
    sanitized,
    task_row,
)

log = logging.getLogger("toolwire.audit")

SCHEMA_VERSION = 1
DEFAULT_SPILL_DIR = "toolwire-audit-spill"
JOURNAL_PREFIX = "toolwire-audit-journal-"
REJECTED_FILE = "toolwire-audit-rejected.jsonl"
ORPHAN_SWEEP_SECONDS = 5.0  # how often journals of dead processes are looked for
_ADVISORY_LOCK = 0x746F6F6C77697265  # "toolwire": serializes schema changes

_PG_TYPES = {"TEXT": "TEXT", "REAL": "DOUBLE PRECISION", "INTEGER": "BIGINT"}


def _pg_columns(columns: tuple[tuple[str, str], ...]) -> str:
    """The SQLite column list in PostgreSQL's types (same names, same meaning)."""
    out = []
    for name, decl in columns:
        kind, _, rest = decl.partition(" ")
        out.append(f"{name} {_PG_TYPES[kind]}{' ' + rest if rest else ''}")
    return ", ".join(out)


# version -> the statements that take a database from the version before to it
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        f"CREATE TABLE tool_calls (seq BIGSERIAL, {_pg_columns(RECORD_COLUMNS)})",
        f"CREATE TABLE tasks ({_pg_columns(TASK_COLUMNS)})",
        "CREATE INDEX tool_calls_started_at ON tool_calls (started_at)",
    ),
}

_RECORD_NAMES = [c for c, _ in RECORD_COLUMNS]
_TASK_NAMES = [c for c, _ in TASK_COLUMNS]
_INSERT_RECORD = (
    "INSERT INTO tool_calls ({}) VALUES ({}) ON CONFLICT (record_id) DO NOTHING".format(
        ", ".join(_RECORD_NAMES), ", ".join("%s" for _ in _RECORD_NAMES)
    )
)
_UPSERT_TASK = "INSERT INTO tasks ({}) VALUES ({}) ON CONFLICT (task_id) DO UPDATE SET {}".format(
    ", ".join(_TASK_NAMES),
    ", ".join("%s" for _ in _TASK_NAMES),
    ", ".join(f"{c} = EXCLUDED.{c}" for c in _TASK_NAMES[1:]),
)


def _pg_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """PostgreSQL text holds no NUL character and no lone surrogate: both are
    replaced by U+FFFD (the SQLite sink replaces surrogates the same way)."""
    row = sanitized(row)
    return tuple(v.replace("\x00", "\ufffd") if isinstance(v, str) else v for v in row)


def ensure_schema(conn: psycopg.Connection[Any]) -> None:
    """Create or upgrade the tables to ``SCHEMA_VERSION`` (``AuditFileError`` for a
    database a newer toolwire made)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_ADVISORY_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS toolwire_schema (version INTEGER NOT NULL)")
        found = conn.execute("SELECT max(version) FROM toolwire_schema").fetchone()
        version = found[0] if found and found[0] is not None else 0
        if version > SCHEMA_VERSION:
            raise AuditFileError(
                f"the audit database has schema version {version}; this toolwire knows "
                f"up to {SCHEMA_VERSION}: upgrade toolwire"
            )
        for step in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[step]:
                conn.execute(statement)
            conn.execute("INSERT INTO toolwire_schema (version) VALUES (%s)", (step,))


def connect(url: str, timeout: float = 5.0) -> psycopg.Connection[Any]:
    return psycopg.connect(url, connect_timeout=max(1, round(timeout)))


@dataclass(slots=True)
class SinkCounts:
    """What the sink has done in this process (``/metrics`` shows them)."""

    written: int = 0  # records inserted from the queue
    spilled: int = 0  # records that went to the spill file instead of the queue
    replayed: int = 0  # records the database got from a spill file
    write_errors: int = 0  # failed inserts (unreachable database, refused rows)


Item = tuple[str, ExecutionRecord | TaskRecord]  # ("call", record) or ("task", task)


class PostgresSink:
    """``write`` and ``write_task`` return once the record is in the journal; the
    database gets it in the background. ``close`` flushes (waiting up to
    ``close_timeout`` for the database; what it could not take stays in the spill file
    for the next start). ``on_count(name, value)``: told of each change of
    ``queue_depth`` (a level) and of ``spilled``, ``replayed``, ``write_errors`` (by how
    much each grew), for metrics."""

    def __init__(
        self,
        url: str,
        *,
        spill_dir: str | os.PathLike[str] | None = None,
        batch_size: int = 200,
        queue_size: int = 10_000,
        retry_seconds: float = 1.0,
        connect_timeout: float = 5.0,
        close_timeout: float = 30.0,
        journal_bytes: int = 16 * 1024 * 1024,
        on_count: Callable[[str, int], None] | None = None,
    ) -> None:
        self.url = url
        self.spill_dir = Path(
            spill_dir or os.environ.get("TOOLWIRE_AUDIT_SPILL_DIR") or DEFAULT_SPILL_DIR
        )
        self.batch_size = batch_size
        self.queue_size = queue_size
        self.retry_seconds = retry_seconds
        self.connect_timeout = connect_timeout
        self.close_timeout = close_timeout
        self.journal_bytes = journal_bytes
        self.on_count = on_count
        self.counts = SinkCounts()
        # each queued item with the generation of the journal it is in
        self._queue: deque[tuple[Item, int]] = deque()
        self._generation = 0
        # journals replaced by a newer one, kept (and locked) until all is written
        self._sealed: dict[int, tuple[Path, BinaryIO]] = {}
        self._cond = threading.Condition()
        self._spilling = False
        self._closing = False
        self._conn: psycopg.Connection[Any] | None = None
        self.spill_dir.mkdir(parents=True, exist_ok=True)
        self.journal = self._open_journal()
        try:
            self._connection()
        except psycopg.OperationalError as exc:
            log.warning("audit database %s unreachable, spilling: %s", safe_url(url), exc)
            self._spilling = True
        except BaseException:  # a database this toolwire must not write to
            self.journal.unlink()
            self._fh.close()
            raise
        self._thread = threading.Thread(target=self._run, name="toolwire-audit-pg", daemon=True)
        self._thread.start()

    # -- the request side ------------------------------------------------------------

    def write(self, record: ExecutionRecord) -> None:
        self._put(("call", record), jsonl_line({"type": "call", **record.to_dict()}))

    def write_task(self, task: TaskRecord) -> None:
        self._put(("task", task), jsonl_line({"type": "task", **task.to_dict()}))

    def _put(self, item: Item, line: bytes) -> None:
        with self._cond:
            self._fh.write(line)
            self._fh.flush()  # to the OS: a killed process keeps it
            if self._spilling or len(self._queue) >= self.queue_size:
                self._spill_locked(1)
            else:
                self._queue.append((item, self._generation))
                self._depth()
                self._cond.notify()
                if self._journal_size() > self.journal_bytes:
                    self._sealed[self._generation] = (self.journal, self._fh)
                    self._generation += 1
                    self.journal = self._open_journal()

    def close(self) -> None:
        with self._cond:
            if self._closing:
                return
            self._closing = True
            self._cond.notify()
        self._thread.join(self.close_timeout + self.connect_timeout + 5)
        with self._cond:
            if self._journal_size() == 0:
                self.journal.unlink(missing_ok=True)
            else:
                log.warning("audit records left in %s: replayed at the next start", self.journal)
            self._fh.close()
            for _, fh in self._sealed.values():  # left for the next start too
                fh.close()
        if self._conn is not None:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()

    def stats(self) -> dict[str, int]:
        with self._cond:
            depth = len(self._queue)
        return {
            "queue_depth": depth,
            "written": self.counts.written,
            "spilled": self.counts.spilled,
            "replayed": self.counts.replayed,
            "write_errors": self.counts.write_errors,
        }

    # -- bookkeeping -----------------------------------------------------------------

    def _count(self, name: str, grew: int) -> None:
        if grew:
            setattr(self.counts, name, getattr(self.counts, name) + grew)
            if self.on_count is not None:
                self.on_count(name, grew)

    def _depth(self) -> None:
        if self.on_count is not None:
            self.on_count("queue_depth", len(self._queue))

    def _journal_size(self) -> int:
        """Bytes in the journal (every write is flushed; ``tell`` would lag a truncate)."""
        return os.fstat(self._fh.fileno()).st_size

    def _truncate_journal(self) -> None:
        self._fh.truncate(0)
        self._fh.seek(0)

    def _spill_locked(self, new: int) -> None:
        """Stop queueing (lock held): what the queue holds, and ``new`` records, are
        in the journal already and will be replayed from there."""
        self._count("spilled", len(self._queue) + new)
        self._queue.clear()
        self._depth()
        self._spilling = True

    def _open_journal(self) -> Path:
        """This process's journal, locked for as long as it lives: created under a
        temporary name and renamed once locked, so no other sink takes it for a dead
        process's."""
        name = f"{JOURNAL_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}.jsonl"
        temporary = self.spill_dir / f".{name}"
        self._fh = open(temporary, "ab")  # noqa: SIM115 - closed in close()
        fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        path = self.spill_dir / name
        temporary.rename(path)
        return path

    # -- the writer thread -----------------------------------------------------------

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = None
            conn = connect(self.url, self.connect_timeout)
            try:
                ensure_schema(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _run(self) -> None:
        try:
            self._loop()
        except Exception:  # the journal keeps every record for the next start
            log.exception("the audit writer stopped")

    def _loop(self) -> None:
        orphans_checked = 0.0
        while True:
            with self._cond:
                while not self._queue and not self._spilling and not self._closing:
                    self._cond.wait(1.0)
                    if time.monotonic() - orphans_checked > ORPHAN_SWEEP_SECONDS:
                        break
                if self._closing and not self._queue and not self._spilling:
                    break
                batch = [
                    self._queue.popleft()[0] for _ in range(min(self.batch_size, len(self._queue)))
                ]
                self._depth()
                spilling = self._spilling
                closing = self._closing
            if spilling:
                if self._replay_own():
                    continue
                if closing:
                    break  # the database is away: the journal keeps the rest
                with self._cond:
                    self._cond.wait(self.retry_seconds)
                continue
            if time.monotonic() - orphans_checked > ORPHAN_SWEEP_SECONDS:
                orphans_checked = time.monotonic()
                self._replay_orphans()
            if not batch:
                continue
            try:
                self._insert(batch)
            except psycopg.OperationalError as exc:
                log.warning("audit database unreachable, spilling: %s", exc)
                self._count("write_errors", 1)
                with self._cond:
                    self._spill_locked(len(batch))
                continue
            self._count("written", len(batch))
            with self._cond:
                if not self._spilling:
                    self._drop_written_journals()

    def _insert(self, items: Iterable[Item]) -> int:
        """Insert (records idempotently, tasks as upserts) in one transaction; how
        many records were new. ``OperationalError``: the database is unreachable.
        Rows the database refuses are retried one at a time and the refused ones kept
        in the rejected file."""
        records: list[tuple[Any, ...]] = []
        tasks: list[tuple[Any, ...]] = []
        for kind, item in items:
            if kind == "call":
                assert isinstance(item, ExecutionRecord)
                records.append(_pg_row(record_row(item)))
            else:
                assert isinstance(item, TaskRecord)
                tasks.append(_pg_row(task_row(item)))
        conn = self._connection()
        try:
            return self._insert_rows(conn, records, tasks)
        except psycopg.OperationalError:
            raise
        except psycopg.Error as exc:
            if conn.broken:
                raise psycopg.OperationalError(str(exc)) from exc
        new = 0
        for row in records:
            new += self._insert_one(conn, [row], [])
        for row in tasks:
            self._insert_one(conn, [], [row])
        return new

    def _insert_one(
        self,
        conn: psycopg.Connection[Any],
        records: list[tuple[Any, ...]],
        tasks: list[tuple[Any, ...]],
    ) -> int:
        try:
            return self._insert_rows(conn, records, tasks)
        except psycopg.OperationalError:
            raise
        except psycopg.Error as exc:
            self._count("write_errors", 1)
            log.error("the audit database refused a row (kept in %s): %s", REJECTED_FILE, exc)
            names = _RECORD_NAMES if records else _TASK_NAMES
            row = (records or tasks)[0]
            with open(self.spill_dir / REJECTED_FILE, "ab") as fh:
                fh.write(jsonl_line({"error": str(exc), **dict(zip(names, row, strict=True))}))
            return 0

    @staticmethod
    def _insert_rows(
        conn: psycopg.Connection[Any], records: list[tuple[Any, ...]], tasks: list[tuple[Any, ...]]
    ) -> int:
        with conn.transaction(), conn.cursor() as cur:
            new = 0
            if records:
                cur.executemany(_INSERT_RECORD, records)
                new = max(cur.rowcount, 0)
            if tasks:
                cur.executemany(_UPSERT_TASK, tasks)
            return new

    def _drop_written_journals(self) -> None:
        """(Lock held, not spilling.) Remove the sealed journals whose every item is
        in the database (older than the oldest still queued); empty the journal when
        nothing is queued."""
        oldest = self._queue[0][1] if self._queue else self._generation
        for generation in [g for g in self._sealed if g < oldest]:
            path, fh = self._sealed.pop(generation)
            path.unlink(missing_ok=True)
            fh.close()
        if not self._queue:
            self._truncate_journal()  # every line of it is in the database

    def _replay(self, data: bytes) -> int:
        """Insert every record and task of journal lines; how many records were new."""
        items = _journal_items(data)
        new = 0
        for start in range(0, len(items), self.batch_size):
            new += self._insert(items[start : start + self.batch_size])
        return new

    def _replay_own(self) -> bool:
        """Replay this process's journal; True once it is all in the database, emptied,
        and the sink queues again; False while the database is unreachable."""
        while True:  # first the sealed journals, oldest first (no new one while spilling)
            with self._cond:
                if not self._sealed:
                    break
                generation = min(self._sealed)
                path = self._sealed[generation][0]
            try:
                self._count("replayed", self._replay(path.read_bytes()))
            except psycopg.OperationalError:
                return False
            with self._cond:
                path, fh = self._sealed.pop(generation)
                path.unlink(missing_ok=True)
                fh.close()
        done = 0
        while True:
            with self._cond:
                size = self._journal_size()
                if size == done:
                    self._truncate_journal()
                    self._spilling = False
                    break
            with open(self.journal, "rb") as fh:  # whole lines: each was written whole
                fh.seek(done)
                data = fh.read(size - done)
            try:
                self._count("replayed", self._replay(data))
            except psycopg.OperationalError:
                return False
            done = size
        self._replay_orphans()
        return True

    def _replay_orphans(self) -> None:
        """Replay and remove the journals of processes that died (unlocked files)."""
        for path in _journals(self.spill_dir):
            if path == self.journal:
                continue
            try:
                fh = open(path, "rb")  # noqa: SIM115 - closed below
            except OSError:
                continue  # replayed and removed by another sink just now
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                fh.close()
                continue  # its process is alive
            try:
                if not path.exists():
                    continue
                new = self._replay(fh.read())
                self._count("replayed", new)
                path.unlink()
                log.info("replayed %d audit record(s) from %s", new, path)
            except psycopg.OperationalError:
                return
            except (OSError, ValueError) as exc:
                log.error("cannot replay %s: %s", path, exc)
            finally:
                fh.close()


def _journals(spill_dir: Path) -> Iterator[Path]:
    yield from sorted(spill_dir.glob(f"{JOURNAL_PREFIX}*.jsonl"))


def _journal_items(data: bytes) -> list[Item]:
    """The records and tasks of journal lines, in order. A last line cut short (the
    process was killed while writing it: its call never completed) is skipped."""
    items: list[Item] = []
    for line in data.splitlines():
        try:
            obj = orjson.loads(line)
            if obj.pop("type", None) == "task":
                items.append(("task", TaskRecord.from_dict(obj)))
            else:
                items.append(("call", ExecutionRecord.from_dict(obj)))
        except (orjson.JSONDecodeError, TypeError, ValueError, AttributeError):
            continue
    return items


def read_postgres(url: str) -> tuple[list[ExecutionRecord], dict[str, TaskRecord]]:
    """All records (in start order) and tasks of a PostgreSQL audit database
    (``AuditFileError`` when it cannot be reached or holds no toolwire audit)."""
    try:
        conn = connect(url)
    except psycopg.Error as exc:
        raise AuditFileError(f"cannot connect to {safe_url(url)}: {exc}".strip()) from None
    try:
        with conn.cursor(row_factory=dict_row) as cur:
            found = cur.execute(
                "SELECT count(*) AS n FROM information_schema.tables"
                " WHERE table_name IN ('tool_calls', 'tasks', 'toolwire_schema')"
                " AND table_schema = current_schema()"
            ).fetchone()
            if not found or found["n"] != 3:
                raise AuditFileError(
                    f"{safe_url(url)} holds no toolwire audit (no tool_calls table)"
                )
            record_rows = cur.execute(
                "SELECT * FROM tool_calls ORDER BY started_at, seq"
            ).fetchall()
            task_rows = cur.execute("SELECT * FROM tasks").fetchall()
    except psycopg.Error as exc:
        raise AuditFileError(f"cannot read {safe_url(url)}: {exc}") from None
    finally:
        conn.close()
    return audit_from_rows(record_rows, task_rows)


def spilled_records(spill_dir: str | os.PathLike[str]) -> list[ExecutionRecord]:
    """The records waiting in a spill directory's journals (not yet in the database)."""
    return [
        item
        for path in _journals(Path(spill_dir))
        for kind, item in _journal_items(path.read_bytes())
        if isinstance(item, ExecutionRecord)
    ]

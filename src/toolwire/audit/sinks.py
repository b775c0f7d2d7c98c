"""Where records go. A sink's ``write`` returns only once the record is stored: the
engine calls it before it hands a call's result back, so a crash never loses the record
of a call whose result was seen."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import orjson

from toolwire.audit.record import AuditFileError, ExecutionRecord, TaskRecord
from toolwire.jsontext import NotJSONError, dumps, text_of
from toolwire.surrogates import replace_surrogates_in


@runtime_checkable
class AuditSink(Protocol):
    def write(self, record: ExecutionRecord) -> None: ...

    def write_task(self, task: TaskRecord) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class BatchSink(Protocol):
    """A sink that stores several records at once (the engine gives it a batch's),
    stored when ``write_many`` returns, as with ``write``."""

    def write_many(self, records: Sequence[ExecutionRecord]) -> None: ...


@runtime_checkable
class CountedSink(Protocol):
    """A sink that tells what it does, for metrics: ``on_count(name, value)``."""

    on_count: Callable[[str, int], None] | None


class MemorySink:
    """Keeps records in lists; for tests and for callers that inspect records directly."""

    def __init__(self) -> None:
        self.records: list[ExecutionRecord] = []
        self.tasks: dict[str, TaskRecord] = {}

    def write(self, record: ExecutionRecord) -> None:
        self.records.append(record)

    def write_task(self, task: TaskRecord) -> None:
        self.tasks[task.task_id] = task

    def close(self) -> None:
        pass


def jsonl_line(obj: dict[str, object]) -> bytes:
    """One audit line (newline included) for a record's or task's dict."""
    try:
        return orjson.dumps(obj, default=text_of) + b"\n"
    except TypeError:  # a lone surrogate, a huge integer: the slower writer
        try:
            # Replaced, as in the SQLite sink: an escaped one would stop readers.
            text = dumps(replace_surrogates_in(obj)[0], default=text_of)
        except (NotJSONError, RecursionError) as exc:  # e.g. an extra that holds itself
            obj = {**obj, "extra": {"not_json": str(exc)}}
            text = dumps(replace_surrogates_in(obj)[0], default=text_of)
        return text.encode() + b"\n"


class JSONLSink:
    """One JSON object per line: ``{"type": "call", ...}`` or ``{"type": "task", ...}``.

    Each line is flushed to the operating system before ``write`` returns (it survives
    the process being killed); ``fsync=True`` also survives power loss, at a cost.
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self._fsync = fsync
        self._lock = threading.Lock()
        self._fh = open(self.path, "ab")  # noqa: SIM115 - closed in close()

    def _append(self, obj: dict[str, object]) -> None:
        line = jsonl_line(obj)
        with self._lock:
            self._fh.write(line)
            self._fh.flush()
            if self._fsync:
                os.fsync(self._fh.fileno())

    def write(self, record: ExecutionRecord) -> None:
        self._append({"type": "call", **record.to_dict()})

    def write_task(self, task: TaskRecord) -> None:
        self._append({"type": "task", **task.to_dict()})

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()


def read_jsonl(
    path: str | os.PathLike[str],
) -> tuple[list[ExecutionRecord], dict[str, TaskRecord]]:
    """Records and the latest state of each task from a JSONL audit file.

    A line cut short by a crash (it starts like a record) is skipped; any other line
    that is not a record raises ``AuditFileError`` naming it: the file is not an audit
    log, and a report over part of it would mislead.
    """
    records: list[ExecutionRecord] = []
    tasks: dict[str, TaskRecord] = {}
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                if line.lstrip().startswith(b"{"):
                    continue  # a line cut short by a crash
                raise AuditFileError(
                    f"{path}, line {number}: not JSON; this is not a toolwire audit file"
                ) from None
            try:
                kind = obj.pop("type", "call") if isinstance(obj, dict) else None
                if kind == "task":
                    task = TaskRecord.from_dict(obj)
                    tasks[task.task_id] = task
                elif kind == "call":
                    records.append(ExecutionRecord.from_dict(obj))
                else:
                    raise ValueError("neither a call nor a task record")
            except (TypeError, ValueError) as exc:
                raise AuditFileError(
                    f"{path}, line {number}: {exc}; this is not a toolwire audit file"
                ) from None
    return records, tasks

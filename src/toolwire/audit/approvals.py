"""Approvals decided from another process: ``toolwire approve`` / ``toolwire reject``.

A call held for approval is recorded once, as ``pending_approval`` with its approval id
(and its redacted arguments, so that a reviewer sees what they allow). A reviewer's
decision goes in the ``approvals`` table of the same audit database; the held call's
record is never changed (one record per call). The process that held the call does not
run it later, since nobody would receive the result: the client calls the tool again
with the same arguments, and that new call ``take``s the decision, once. The new call's
record says which approval let it run (or refused it).

A decision matches a later call by tool name and the SHA-256 of its *redacted*
arguments (what the reviewer saw): secrets the redaction hides are not part of what
was approved.
"""

from __future__ import annotations

import getpass
import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import orjson

from toolwire.audit.record import AuditFileError
from toolwire.audit.redact import REDACTED

Decision = Literal["approved", "rejected"]

_CREATE = """CREATE TABLE IF NOT EXISTS approvals (
    approval_id TEXT PRIMARY KEY,
    tool_name TEXT NOT NULL,
    arguments_sha256 TEXT,
    decision TEXT NOT NULL,
    reason TEXT,
    decided_at REAL NOT NULL,
    decided_by TEXT,
    used_by_call TEXT,
    used_at REAL
)"""


class ApprovalError(ValueError):
    """An approval id that is unknown, not waiting, or already decided."""


@dataclass(frozen=True, slots=True)
class WaitingCall:
    """A held call nobody has decided on yet, as its record says."""

    approval_id: str
    tool_name: str
    arguments: str | None  # redacted JSON
    reasons: tuple[str, ...]
    started_at: float
    session_id: str | None
    task_id: str | None


@dataclass(frozen=True, slots=True)
class Granted:
    """A reviewer's decision, taken by the one call it answered."""

    approval_id: str
    decision: Decision
    reason: str | None
    decided_at: float
    decided_by: str | None

    def to_dict(self) -> dict[str, object]:
        return {
            "approval_id": self.approval_id,
            "decision": self.decision,
            "reason": self.reason,
            "decided_at": self.decided_at,
            "decided_by": self.decided_by,
        }


def reviewer() -> str:
    """Who decides: ``user@host`` (recorded with the decision)."""
    try:
        user = getpass.getuser()
    except Exception:  # no user name in this environment (a container without passwd)
        user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
    return f"{user}@{socket.gethostname()}"


class ApprovalBook:
    """The decisions in one audit database. ``path`` must hold a toolwire audit log
    (``AuditFileError`` otherwise); the ``approvals`` table is created when missing."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise AuditFileError(f"no audit database at {self.path}")
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master")}
            if "tool_calls" not in tables:
                self._conn.close()
                raise AuditFileError(f"{self.path} is not a toolwire audit database")
            self._conn.execute(_CREATE)
        except sqlite3.DatabaseError as exc:
            raise AuditFileError(f"{self.path} is not an audit database: {exc}") from None

    def close(self) -> None:
        self._conn.close()

    def waiting(self) -> list[WaitingCall]:
        """Held calls without a decision, oldest first."""
        rows = self._conn.execute(
            "SELECT c.approval_id, c.tool_name, c.arguments, c.extra, c.started_at, "
            "c.session_id, c.task_id FROM tool_calls c "
            "LEFT JOIN approvals a ON a.approval_id = c.approval_id "
            "WHERE c.status = 'pending_approval' AND c.approval_id IS NOT NULL "
            "AND a.approval_id IS NULL ORDER BY c.started_at, c.rowid"
        )
        out = []
        for approval_id, name, arguments, extra, started, session, task in rows:
            reasons = orjson.loads(extra).get("approval_reasons", []) if extra else []
            out.append(
                WaitingCall(approval_id, name, arguments, tuple(reasons), started, session, task)
            )
        return out

    def decide(
        self, approval_id: str, decision: Decision, reason: str | None = None
    ) -> WaitingCall:
        """Record a decision on a held call; the call it answers is the next identical one."""
        self._conn.execute("BEGIN IMMEDIATE")  # no other reviewer decides in between
        try:
            held = self._conn.execute(
                "SELECT tool_name, arguments_sha256, arguments, extra, started_at, "
                "session_id, task_id FROM tool_calls "
                "WHERE approval_id = ? AND status = 'pending_approval'",
                (approval_id,),
            ).fetchone()
            if held is None:
                raise ApprovalError(f"no call is waiting for approval under {approval_id!r}")
            earlier = self._conn.execute(
                "SELECT decision FROM approvals WHERE approval_id = ?", (approval_id,)
            ).fetchone()
            if earlier is not None:
                raise ApprovalError(f"{approval_id} was already {earlier[0]}")
            name, sha, arguments, extra, started, session, task = held
            if REDACTED in (arguments or ""):
                raise ApprovalError(
                    f"{approval_id} cannot be decided here: its arguments hold text the audit "
                    "hides as secret, so what would run is not what you can see "
                    "(allow the tool in the policy file instead)"
                )
            self._conn.execute(
                "INSERT INTO approvals (approval_id, tool_name, arguments_sha256, decision, "
                "reason, decided_at, decided_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (approval_id, name, sha, decision, reason, time.time(), reviewer()),
            )
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        reasons = orjson.loads(extra).get("approval_reasons", []) if extra else []
        return WaitingCall(approval_id, name, arguments, tuple(reasons), started, session, task)

    def take(self, tool_name: str, arguments_sha256: str | None, call_id: str) -> Granted | None:
        """The oldest unused decision on an identical held call, now used by ``call_id``."""
        if arguments_sha256 is None:
            return None
        rows = self._conn.execute(
            "SELECT approval_id, decision, reason, decided_at, decided_by FROM approvals "
            "WHERE tool_name = ? AND arguments_sha256 = ? AND used_by_call IS NULL "
            "ORDER BY decided_at",
            (tool_name, arguments_sha256),
        ).fetchall()
        for approval_id, decision, reason, decided_at, decided_by in rows:
            # Another server on the same database may take it first: only one wins.
            used = self._conn.execute(
                "UPDATE approvals SET used_by_call = ?, used_at = ? "
                "WHERE approval_id = ? AND used_by_call IS NULL",
                (call_id, time.time(), approval_id),
            )
            if used.rowcount == 1:
                return Granted(approval_id, decision, reason, decided_at, decided_by)
        return None

"""``toolwire approve`` / ``toolwire reject``: decide on calls held for approval.

The decision goes in the audit database the server records to; the client's next
identical call takes it (see ``toolwire.audit.approvals``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from toolwire.cli.io import fail

if TYPE_CHECKING:  # imported when run: the other commands do not load them
    from toolwire.audit.approvals import ApprovalBook, Decision

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        metavar="FILE",
        help="Audit SQLite file the server records to [default: $TOOLWIRE_AUDIT_DB or "
        "./toolwire-audit.db].",
    ),
]


def _book(db: Path | None) -> ApprovalBook:
    from toolwire.audit.approvals import ApprovalBook
    from toolwire.audit.record import AuditFileError
    from toolwire.audit.sqlite import default_audit_path

    path = db or default_audit_path()
    try:
        return ApprovalBook(path)
    except AuditFileError as exc:
        fail(str(exc))


def _decide(db: Path | None, approval_id: str, decision: Decision, reason: str | None) -> None:
    import sqlite3

    from toolwire.audit.approvals import ApprovalError

    book = _book(db)
    try:
        held = book.decide(approval_id, decision, reason)
    except ApprovalError as exc:
        fail(str(exc))
    except sqlite3.OperationalError as exc:  # locked by a writer for longer than we wait
        fail(f"cannot record the decision in {book.path}: {exc}; try again")
    finally:
        book.close()
    typer.echo(
        f"{approval_id} {decision}: {held.tool_name} {held.arguments or ''}".rstrip()
        + ("; the next identical call runs" if decision == "approved" else "")
    )


def _print_waiting(db: Path | None, json_out: bool) -> None:
    import sqlite3

    book = _book(db)
    try:
        waiting = book.waiting()
    except sqlite3.OperationalError as exc:
        fail(f"cannot read {book.path}: {exc}; try again")
    finally:
        book.close()
    if json_out:
        rows = [
            {
                "approval_id": w.approval_id,
                "tool": w.tool_name,
                "arguments": orjson.loads(w.arguments) if w.arguments else None,
                "reasons": list(w.reasons),
                "held_at": w.started_at,
                "session_id": w.session_id,
                "task_id": w.task_id,
            }
            for w in waiting
        ]
        typer.echo(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
        return
    if not waiting:
        typer.echo("no call is waiting for approval")
        return
    for w in waiting:
        held = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(w.started_at))
        reasons = "; ".join(w.reasons) or "policy"
        typer.echo(f"{w.approval_id}  {held}  {w.tool_name} {w.arguments or '{}'}  ({reasons})")


def approve(
    approval_id: Annotated[
        str | None, typer.Argument(metavar="ID", help="The approval id the held call named.")
    ] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="List the calls waiting for a decision.")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="With --list: print JSON.")] = False,
    db: DbOption = None,
) -> None:
    """Approve a call held for approval: the client's next call of the same tool with
    the same arguments runs (once)."""
    if list_:
        if approval_id is not None:
            fail("give an approval ID or --list, not both")
        _print_waiting(db, json_out)
        return
    if approval_id is None:
        fail("give the approval ID of a held call (or --list to see them)")
    _decide(db, approval_id, "approved", None)


def reject(
    approval_id: Annotated[
        str, typer.Argument(metavar="ID", help="The approval id the held call named.")
    ],
    reason: Annotated[
        str | None,
        typer.Option("--reason", metavar="TEXT", help="Why; the client is told."),
    ] = None,
    db: DbOption = None,
) -> None:
    """Reject a call held for approval: the client's next identical call is refused
    (``denied``) with the reason."""
    _decide(db, approval_id, "rejected", reason)

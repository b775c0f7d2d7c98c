"""``toolwire audit``: reports over the audit trail."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table

from toolwire.audit.report import AuditReport, build_report
from toolwire.audit.sinks import read_jsonl
from toolwire.audit.sqlite import default_audit_path, read_sqlite
from toolwire.cli.io import command_group

app = command_group("Reports over the audit trail of tool calls.")


@app.callback()
def main() -> None:
    """Reports over the audit trail of tool calls."""


@app.command("report")
def report(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            metavar="FILE",
            help="Audit SQLite file (or a .jsonl audit file) [default: "
            "$TOOLWIRE_AUDIT_DB or ./toolwire-audit.db].",
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Per tool: calls, failures by status, p50/p95 duration, repairs, violations, tokens;
    and TPST, tokens per solved task."""
    path = db or default_audit_path()
    try:
        records, tasks = read_jsonl(path) if path.suffix == ".jsonl" else read_sqlite(path)
    except (OSError, ValueError) as exc:
        Console(stderr=True).print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    result = build_report(records, tasks)
    if json_out:
        sys.stdout.write(orjson.dumps(result.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    _print(result)


def _print(result: AuditReport) -> None:
    console = Console()
    table = Table(
        "tool",
        "calls",
        "failures",
        "p50 ms",
        "p95 ms",
        "repaired",
        "violations",
        "result tok",
        "args tok",
        title=f"{result.calls} tool calls",
    )
    for s in result.tools:
        failures = ", ".join(f"{k} {v}" for k, v in s.by_status.items() if k != "ok") or "0"
        table.add_row(
            s.tool,
            str(s.calls),
            failures,
            f"{s.p50_ms:.1f}",
            f"{s.p95_ms:.1f}",
            str(s.repaired_calls),
            str(s.violations),
            str(s.result_tokens),
            str(s.arguments_tokens),
        )
    console.print(table)
    t = result.tasks
    tpst = (
        "n/a (no solved task)"
        if t.tokens_per_solved_task is None
        else (f"{t.tokens_per_solved_task:,.1f}")
    )
    console.print(
        f"tasks: {t.tasks} (solved {t.solved}, failed {t.failed}, open {t.open}); "
        f"tokens: {t.total_tokens:,} (on unsolved tasks {t.unsolved_tokens:,}; "
        f"{t.estimated_tasks} task(s) estimated from tool traffic)\n"
        f"TPST (tokens per solved task): {tpst}",
        highlight=False,
    )

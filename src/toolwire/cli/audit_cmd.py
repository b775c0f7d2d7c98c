"""``toolwire audit``: reports over the audit trail."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table

from toolwire.audit.locations import default_location
from toolwire.audit.readers import read_audit
from toolwire.audit.report import AuditReport, ModelStats, build_model_report, build_report
from toolwire.cli.io import command_group, fail

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="FILE|URL",
        help="Audit SQLite file, .jsonl audit file or postgresql:// URL [default: "
        "$TOOLWIRE_AUDIT_DB or ./toolwire-audit.db].",
    ),
]

app = command_group("Reports over the audit trail of tool calls.")


@app.callback()
def main() -> None:
    """Reports over the audit trail of tool calls."""


@app.command("report")
def report(
    db: DbOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    by: Annotated[
        str,
        typer.Option(
            "--by",
            metavar="tool|model",
            help="tool: per tool, and TPST; model: per model the gateway served.",
        ),
    ] = "tool",
) -> None:
    """Per tool: calls, failures by status, p50/p95 duration, repairs, violations, tokens;
    and TPST, tokens per solved task. With --by model, per model: calls, repaired share,
    truncated and invalid calls, top repairs."""
    if by not in ("tool", "model"):
        fail(f"--by {by!r}: give tool or model")
    try:
        records, tasks = read_audit(db or default_location())
    except (OSError, ValueError) as exc:
        Console(stderr=True).print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    if by == "model":
        models = build_model_report(records)
        if json_out:
            out = {"calls": len(records), "models": [asdict(m) for m in models]}
            sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")
        else:
            _print_models(len(records), models)
        return
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


def _print_models(calls: int, models: list[ModelStats]) -> None:
    table = Table(
        "model",
        "calls",
        "repaired",
        "truncated",
        "invalid",
        "top repairs",
        title=f"{calls} tool calls",
    )
    for m in models:
        table.add_row(
            m.model if m.model is not None else "(none named)",
            str(m.calls),
            f"{m.repaired_calls} ({m.repaired_share:.0%})",
            str(m.truncated),
            str(m.invalid),
            ", ".join(f"{name} {n}" for name, n in m.top_repairs.items()) or "-",
        )
    Console().print(table)


@app.command("serve")
def serve_page(
    db: DbOption = None,
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8790,
    api_key: Annotated[
        list[str] | None,
        typer.Option(
            "--api-key",
            metavar="KEY",
            help="A key the browser must give (as the password when it asks); repeatable. "
            "Without one, only a loopback address is served.",
        ),
    ] = None,
) -> None:
    """Serve the audit page: calls per model by status over time, repair kinds per
    model, truncations held back, tokens per solved task, the slowest tools, the
    latest invalid and truncated calls. Its data is JSON at /api/dashboard."""
    from toolwire.httpkeys import keys_problem

    keys = tuple(api_key or ())
    problem = keys_problem(keys, host)
    if problem is not None:
        fail(problem)
    path = db or default_location()
    try:
        read_audit(path)  # fail now, in one line, rather than on the page
    except (OSError, ValueError) as exc:
        fail(str(exc))
    import uvicorn

    from toolwire.dashboard import create_dashboard_app

    page = create_dashboard_app(lambda: read_audit(path), keys=keys)
    typer.echo(f"toolwire: the audit page of {path} is at http://{host}:{port}/")
    uvicorn.run(page, host=host, port=port, log_level="warning")

"""``toolwire chat``: the conversation loop (``toolwire.agent``) from the command line.

Interactive by default (``chat_repl``, shown by ``chat_render``); ``--prompt`` runs one
task and prints its text, or with ``--json`` one object for the run. What the wire could
not take of a request (``RequestNotes``) is said on stderr, or in ``--json``'s ``notes``."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import typer

from toolwire.cli.io import AuditOption, OtlpOption, ToolsOption, audit_sinks, fail, print_json

if TYPE_CHECKING:  # the agent is imported when the command runs
    from toolwire.agent import Agent, RunResult
    from toolwire.engine.engine import Approver

# the environment variable a format's key is read from unless --api-key-env says
DEFAULT_KEY_ENV = {
    "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
}


def chat(
    base_url: Annotated[
        str,
        typer.Option("--base-url", metavar="URL", help="API base, e.g. http://127.0.0.1:8000/v1."),
    ],
    model: Annotated[str, typer.Option("--model", metavar="NAME", help="The model to ask.")],
    prompt: Annotated[
        str | None,
        typer.Option("--prompt", metavar="TEXT", help="Run this one task, not interactively."),
    ] = None,
    format: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="WIRE",
            help="openai-chat, anthropic, openai-responses, gemini or ollama.",
        ),
    ] = "openai-chat",
    api_key_env: Annotated[
        str | None,
        typer.Option(
            "--api-key-env",
            metavar="VAR",
            help="Environment variable holding the key [default: OPENAI_API_KEY / "
            "ANTHROPIC_API_KEY / GEMINI_API_KEY by format].",
        ),
    ] = None,
    mcp: Annotated[
        Path | None,
        typer.Option("--mcp", metavar="FILE", help="MCP servers JSON file (mcpServers form)."),
    ] = None,
    tools: ToolsOption = None,
    text_format: Annotated[
        str | None,
        typer.Option(
            "--text-format",
            metavar="FAMILY",
            help="Text-format family for servers that leave tool markup in the text.",
        ),
    ] = None,
    max_turns: Annotated[int, typer.Option("--max-turns", metavar="N", min=1)] = 20,
    max_tool_calls: Annotated[
        int | None,
        typer.Option("--max-tool-calls", metavar="N", min=0, help="Tool calls a run may make."),
    ] = None,
    token_budget: Annotated[
        int | None,
        typer.Option(
            "--token-budget",
            metavar="N",
            min=1,
            help="Model tokens (input + output, as the server reports them) a run may spend.",
        ),
    ] = None,
    audit: AuditOption = None,
    otlp_endpoint: OtlpOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object for the run, not its text.")
    ] = False,
) -> None:
    """Drive a model through tool calls until it answers: interactively, or with
    --prompt one task (exit 0 when the model finished, 1 when the run stopped for
    another reason: a limit, an upstream error)."""
    from toolwire.agent import Agent, RequestNotes, RunFinished, TextOut
    from toolwire.client import ModelClient
    from toolwire.engine import ToolEngine
    from toolwire.mcpfront import PythonToolsError, load_python_tools
    from toolwire.tools import MCPConfigError, MCPServerError, load_mcp_config
    from toolwire.tools.base import Tool

    if as_json and prompt is None:
        fail("--json goes with --prompt (the interactive chat prints no JSON)")
    try:
        servers = load_mcp_config(mcp) if mcp is not None else []
        python_tools = load_python_tools(tools or [])
    except (MCPConfigError, PythonToolsError) as exc:
        fail(str(exc))
    try:
        client = ModelClient(
            format,
            base_url,
            model=model,
            api_key_env=api_key_env or DEFAULT_KEY_ENV.get(format),
        )
    except ValueError as exc:
        fail(str(exc))
    sinks = audit_sinks(audit, otlp_endpoint, "toolwire-chat")

    @asynccontextmanager
    async def open_agent(approver: Approver | None = None) -> AsyncIterator[Agent]:
        async with AsyncExitStack() as stack:
            found: list[Tool] = list(python_tools)
            if servers:
                from toolwire.tools import open_toolsets

                for toolset in await stack.enter_async_context(open_toolsets(servers)):
                    found.extend(await toolset.discover())
            engine = ToolEngine(found, sinks=sinks)
            stack.callback(engine.close)
            stack.push_async_callback(client.aclose)
            yield Agent(
                client,
                engine,
                max_turns=max_turns,
                max_tool_calls=max_tool_calls,
                max_total_tokens=token_budget,
                text_format=text_format,
                approver=approver,
            )

    if prompt is None:
        from rich.console import Console

        from toolwire.cli.chat_repl import repl

        try:
            repl(open_agent, Console(highlight=False))
        except (MCPServerError, ValueError) as exc:
            fail(str(exc))
        except KeyboardInterrupt:  # while the tools were opening or closing
            raise typer.Exit(130) from None
        return

    async def run() -> RunResult:
        async with open_agent() as agent:
            async for event in agent.stream(prompt):
                if isinstance(event, TextOut) and not as_json:
                    sys.stdout.write(event.text)
                    sys.stdout.flush()
                elif isinstance(event, RequestNotes) and not as_json:
                    for note in event.notes:
                        typer.echo(f"toolwire: not sent as asked: {note}", err=True)
                elif isinstance(event, RunFinished):
                    return event.result
        raise AssertionError("a run always ends with RunFinished")  # pragma: no cover

    try:
        result = anyio.run(run)
    except (MCPServerError, ValueError) as exc:  # ValueError: a request it cannot build
        fail(str(exc))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if as_json:
        print_json(summary(result))
    elif result.text and not result.text.endswith("\n"):
        sys.stdout.write("\n")
    if result.stop != "done":
        why = f": {result.error}" if result.error else ""
        typer.echo(f"toolwire: the run stopped ({result.stop}){why}", err=True)
        raise typer.Exit(1)


def summary(result: RunResult) -> dict[str, Any]:
    """The ``--json`` object of a run."""
    usage = result.usage
    return {
        "text": result.text,
        "stop": result.stop,
        "turns": result.turns,
        "task_id": result.task_id,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
        "notes": result.notes,
        "calls": [
            {
                "id": c.call.id,
                "name": c.result.name or c.call.name,
                "status": c.status,
                "repairs": list(c.repairs),
                "turn": c.turn,
            }
            for c in result.calls
        ],
    }

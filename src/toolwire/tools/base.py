"""What every tool is, whoever implements it: a spec, hints, and a way to be invoked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from toolwire.spec import ToolSpec

Executor = Literal["async", "thread", "inline", "process", "mcp"]
"""How a call runs: on the event loop (``async``), in the thread pool (``thread``), on
the loop without a thread for trivial sync functions (``inline``), in a child process
that can be killed (``process``), or on an MCP server (``mcp``)."""


class ProgressFn(Protocol):
    """Receives ``(progress, total, message)`` as a tool (or MCP server) reports it."""

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None: ...


@dataclass(frozen=True, slots=True)
class ToolHints:
    """Behaviour hints (MCP tool annotations). None means the tool did not say.

    Hints from an MCP server are claims by that server, not facts: policies may use them
    to be *more* careful (require approval), never to skip a check that would otherwise
    apply.
    """

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    title: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "read_only": self.read_only,
            "destructive": self.destructive,
            "idempotent": self.idempotent,
            "open_world": self.open_world,
            "title": self.title,
        }
        return {k: v for k, v in out.items() if v is not None}


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What one invocation produced, before the engine normalizes and truncates it.

    ``value`` is JSON-able (a string, number, list, dict, …). ``is_error`` marks a failure
    the tool reported itself (an MCP ``isError`` result); the text of ``value`` is what the
    model should read.
    """

    value: Any
    is_error: bool = False
    structured: Any = None


class ArgumentsRejected(Exception):
    """The tool itself refused its arguments (its own typed validation failed)."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


class ToolExited(Exception):
    """A tool's body raised ``SystemExit`` or ``GeneratorExit`` in a worker thread: as
    such it would end the caller (a ``GeneratorExit`` thrown into a coroutine cannot
    be caught there), so it comes back as this. ``type_name`` names the original."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(str(exc))
        self.type_name = type(exc).__name__


@runtime_checkable
class Tool(Protocol):
    """A callable tool. Implementations are frozen dataclasses, renamed with ``rename``."""

    @property
    def spec(self) -> ToolSpec: ...

    @property
    def name(self) -> str: ...

    @property
    def hints(self) -> ToolHints: ...

    @property
    def origin(self) -> str:
        """``function`` for Python functions, ``mcp:<server>`` for MCP tools."""
        ...

    @property
    def executor(self) -> Executor: ...

    @property
    def timeout(self) -> float | None:
        """Per-tool timeout in seconds; None uses the engine's default."""
        ...

    @property
    def max_concurrency(self) -> int | None: ...

    def rename(self, name: str) -> Tool:
        """The same tool exposed under another name (for namespacing)."""
        ...

    async def invoke(
        self, arguments: dict[str, Any], *, progress: ProgressFn | None = None
    ) -> ToolOutput:
        """Run the tool. Failures raise; the engine turns them into ``tool_error`` results."""
        ...

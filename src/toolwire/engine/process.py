"""The subprocess executor: a function tool that runs in a child process it can kill.

Threads cannot be stopped, so a timed-out sync tool in the thread pool runs on. A tool
declared with ``executor="process"`` runs in a fresh ``spawn`` child instead; on timeout
or cancellation the child is killed. The child re-imports the function by module and
qualified name, so it must be importable, and its arguments and result picklable.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import multiprocessing
from multiprocessing.connection import Connection
from typing import Any

import anyio
import anyio.to_thread

from toolwire.tools.function import FunctionTool


class ProcessToolError(Exception):
    """The function raised in the child; ``type_name`` is the original exception type."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name


def _resolve(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    fn = getattr(obj, "fn", obj)  # the module attribute may be the FunctionTool itself
    return fn


def _child(conn: Connection, module: str, qualname: str, kwargs: dict[str, Any]) -> None:
    try:
        fn = _resolve(module, qualname)
        value = fn(**kwargs)
        if inspect.isawaitable(value):
            value = asyncio.run(_await(value))
        reply: tuple[str, Any, Any] = ("ok", value, None)
    except BaseException as exc:  # report everything; the parent decides
        reply = ("error", type(exc).__name__, str(exc))
    try:
        conn.send(reply)
    except Exception as exc:  # an unpicklable result
        conn.send(("error", type(exc).__name__, f"result could not be sent back: {exc}"))
    finally:
        conn.close()


async def _await(value: Any) -> Any:
    return await value


def _receive(conn: Connection) -> tuple[str, Any, Any]:
    try:
        reply: tuple[str, Any, Any] = conn.recv()
        return reply
    except EOFError:
        return ("died", None, None)


async def run_in_process(tool: FunctionTool, kwargs: dict[str, Any]) -> Any:
    """Run ``tool`` with typed ``kwargs`` in a child process; kill it if cancelled."""
    ctx = multiprocessing.get_context("spawn")
    receiver, sender = ctx.Pipe(duplex=False)
    module, qualname = tool.target
    proc = ctx.Process(target=_child, args=(sender, module, qualname, kwargs), daemon=True)
    try:
        await anyio.to_thread.run_sync(proc.start)
        sender.close()
        # If the wait is cancelled the child is killed below, which ends the recv thread.
        kind, a, b = await anyio.to_thread.run_sync(_receive, receiver, abandon_on_cancel=True)
    finally:
        with anyio.CancelScope(shield=True):
            if proc.is_alive():
                proc.kill()
            if proc.pid is not None:
                await anyio.to_thread.run_sync(proc.join, 5)
            receiver.close()
    if kind == "ok":
        return a
    if kind == "died":
        raise ProcessToolError(
            "ProcessDied", f"the tool's process exited with code {proc.exitcode} without a result"
        )
    raise ProcessToolError(str(a), str(b))

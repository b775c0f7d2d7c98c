"""``tools/call`` over the front's stdio answered without the SDK's server machinery.

For each request the SDK's server parses the line into a pydantic message, relays it
through a memory stream (the era-deciding replay) into a dispatcher task, validates
the envelope and the params against the protocol version's surface, builds a
connection, a runner and a request context, and on the way back dumps the
``CallToolResult``, validates it against the surface again and dumps it once more.
Measured with callgrind (``bench/bench_mcp_front_ir.py``), that was most of what was
left of the front's work per call once its backend calls were lean.

Here the commonest call is taken off the line before the SDK sees it: a ``tools/call``
whose params are just ``name``, ``arguments`` and ``_meta`` (the 2026-era envelope
and this front's task key at most) from a client that cannot show an elicitation
form, on a connection whose era is settled as the SDK settles it (by the first
request): a 2026-era one, or a handshake-era one after ``notifications/initialized``
at a version whose result shape the front builds (``ANSWERED_VERSIONS``). What the
front does with it is what its SDK handler does (``MCPFront.run_call``: resolve,
validate, policy, execute, record; the same connection, so the same audit session);
only the parsing and the answer's JSON are done here. Everything else (other
methods, progress tokens, clients that can be asked, approval rounds, older
versions) goes to the SDK as before. A ``notifications/cancelled`` for a call taken
here cancels it, and, as the SDK does, a cancelled call is not answered.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import mcp_types
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from toolwire.mcpfront.front import TASK_META_KEY, MCPFront
from toolwire.mcpfront.stdio import json_line

PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
_META_KEYS = frozenset({PROTOCOL_VERSION, CLIENT_INFO, CLIENT_CAPABILITIES, TASK_META_KEY})
ANSWERED_VERSIONS = ("2025-06-18", "2025-11-25")
"""Handshake-era versions whose ``tools/call`` result has the shape ``result_dict``
builds (earlier ones lack ``structuredContent``: their calls go to the SDK)."""


@dataclass(frozen=True, slots=True)
class _Taken:
    """A call taken off the line, and what its answer needs."""

    request_id: int | str
    name: str
    arguments: dict[str, Any] | None
    task: str | None
    client: dict[str, str]
    version: str
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)


@dataclass(frozen=True, slots=True)
class _Handshake:
    """What a handshake-era client said in ``initialize``."""

    version: str
    client: dict[str, str] | None  # None: clientInfo the front does not read itself
    can_be_asked: bool


class FastCalls:
    """Takes simple ``tools/call`` lines off the front's stdin (``take``) and answers
    them on its stdout (``write``)."""

    def __init__(
        self,
        front: MCPFront,
        tasks: anyio.abc.TaskGroup,
        write: Callable[[bytes], Awaitable[None]],
    ) -> None:
        self._front = front
        self._tasks = tasks
        self._write = write
        self._modern: bool | None = None  # decided by the first request, as the SDK does
        self._handshake: _Handshake | None = None
        self._initialized = False  # the handshake-era client said so
        self._running: dict[int | str, anyio.CancelScope] = {}
        self._server_info = front.server.server_info_stamp

    def take(self, line: bytes) -> bool:
        """Start serving the line's call and return True, or False: the SDK's to handle."""
        if self._modern is None:
            self._decide_era(line)
            return False  # the SDK must see the first request to decide its era too
        if not self._modern and not self._initialized:
            self._initialized = b'"notifications/initialized"' in line and _is_initialized(line)
            return False
        if b'"tools/call"' in line:
            return self._take_call(line)
        if self._running and b'"notifications/cancelled"' in line:
            return self._take_cancel(line)
        return False

    def _decide_era(self, line: bytes) -> None:
        message = _object(line)
        if message is None or "id" not in message or not isinstance(message.get("method"), str):
            return  # not a request: the era is not decided yet
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        initialize = message["method"] == "initialize"
        self._modern = not initialize and isinstance(meta, dict) and PROTOCOL_VERSION in meta
        if initialize and isinstance(params, dict):
            self._handshake = _handshake(params)

    def _take_call(self, line: bytes) -> bool:
        message = _object(line)
        if message is None or message.get("method") != "tools/call":
            return False
        request_id = message.get("id")
        params = message.get("params")
        if (
            message.get("jsonrpc") != "2.0"
            or not isinstance(request_id, int | str)
            or isinstance(request_id, bool)
            or request_id in self._running
            or not isinstance(params, dict)
            or not set(params) <= {"name", "arguments", "_meta"}
        ):
            return False
        name, arguments = params.get("name"), params.get("arguments")
        meta = params.get("_meta", None if self._modern else {})
        if not isinstance(name, str) or not isinstance(arguments, dict | None):
            return False
        if not isinstance(meta, dict) or not set(meta) <= _META_KEYS:
            return False
        said = self._modern_client(meta) if self._modern else self._handshake_client(meta)
        if said is None or self._front.stdio_connection is None:
            return False
        client, version = said
        task = meta.get(TASK_META_KEY)
        call = _Taken(request_id, name, arguments, str(task) if task else None, client, version)
        self._running[request_id] = call.scope
        self._tasks.start_soon(self._serve, call)
        return True

    @staticmethod
    def _modern_client(meta: dict[str, Any]) -> tuple[dict[str, str], str] | None:
        """The client named in a 2026-era envelope and its version, or None: not a
        call taken here."""
        version = meta.get(PROTOCOL_VERSION)
        capabilities = meta.get(CLIENT_CAPABILITIES)
        if version not in MODERN_PROTOCOL_VERSIONS or not isinstance(capabilities, dict):
            return None
        client = _client(meta.get(CLIENT_INFO, {}))
        if client is None or "elicitation" in capabilities:
            return None
        return client, str(version)

    def _handshake_client(self, meta: dict[str, Any]) -> tuple[dict[str, str], str] | None:
        handshake = self._handshake
        if handshake is None or handshake.can_be_asked or PROTOCOL_VERSION in meta:
            return None
        if handshake.client is None or handshake.version not in ANSWERED_VERSIONS:
            return None
        return handshake.client, handshake.version

    def _take_cancel(self, line: bytes) -> bool:
        message = _object(line)
        params = message.get("params") if message is not None else None
        if message is None or message.get("method") != "notifications/cancelled":
            return False
        request_id = params.get("requestId") if isinstance(params, dict) else None
        scope = self._running.get(request_id) if isinstance(request_id, int | str) else None
        if scope is None:
            return False
        scope.cancel()
        return True

    async def _serve(self, call: _Taken) -> None:
        request_id = call.request_id
        answer: bytes | None = None
        try:
            with call.scope:
                try:
                    result = await self._front.run_call(
                        call.name, call.arguments, task=call.task, client=call.client
                    )
                    wire = self._wire(result, call.version)
                    answer = json_line({"jsonrpc": "2.0", "id": request_id, "result": wire})
                except Exception as exc:  # as the SDK answers a handler that raised
                    error = {"code": 0, "message": str(exc)}
                    answer = json_line({"jsonrpc": "2.0", "id": request_id, "error": error})
        except anyio.get_cancelled_exc_class():
            # The server is stopping: the client hears so rather than waiting.
            error = {"code": mcp_types.CONNECTION_CLOSED, "message": "Connection closed"}
            with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                await self._send(json_line({"jsonrpc": "2.0", "id": request_id, "error": error}))
            raise
        finally:
            self._running.pop(request_id, None)
        if answer is not None:  # None: the client cancelled it, and gets no answer
            await self._send(answer)

    def _wire(self, result: Any, version: str) -> dict[str, Any]:
        out = self._front.result_dict(result, version)
        if self._modern:  # what the SDK adds to every 2026-era result
            out["resultType"] = "complete"
            out["_meta"] = {SERVER_INFO: dict(self._server_info)}
        return out

    async def _send(self, line: bytes) -> None:
        # A client gone (its pipe closed, the server stopping) has nobody to answer; as
        # in the SDK, that must not end the server's other work.
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await self._write(line)


def _object(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _is_initialized(line: bytes) -> bool:
    message = _object(line)
    return message is not None and message.get("method") == "notifications/initialized"


def _handshake(params: dict[str, Any]) -> _Handshake | None:
    """An ``initialize`` the SDK accepts as it is (the version asked is the version
    served), or None: no call on this connection is taken here."""
    version, capabilities = params.get("protocolVersion"), params.get("capabilities")
    if version not in HANDSHAKE_PROTOCOL_VERSIONS or not isinstance(capabilities, dict):
        return None
    client = _client(params.get("clientInfo"))
    return _Handshake(str(version), client, can_be_asked="elicitation" in capabilities)


def _client(info: Any) -> dict[str, str] | None:
    """The client's name and version as the audit records them; None when the
    envelope's ``clientInfo`` is not what the SDK would accept."""
    if not isinstance(info, dict):
        return None
    if not info:
        return {}
    name, version = info.get("name"), info.get("version")
    if not isinstance(name, str) or not isinstance(version, str):
        return None
    return {"name": name, "version": version}

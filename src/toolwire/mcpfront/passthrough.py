"""The backends' resources and prompts, passed through read-only.

Listing asks every backend that offers them (one page to the client: the union).
A resource is read from the backend that listed its URI (or whose template it came
from); failing that, each backend is tried in turn. Prompt names keep their names
unless two backends declare one, which are then prefixed as tools are
(``server__name``). Nothing here is audited: no tool runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from toolwire.tools.mcp import MCPToolError, MCPToolset
from toolwire.tools.registry import NAMESPACE_SEPARATOR


def _protocol_error(exc: MCPToolError) -> MCPError:
    return MCPError(exc.code, f"MCP server {exc.server!r}: {exc.message}")


class Passthrough:
    """Handlers for ``resources/*`` and ``prompts/*`` over ``backends``."""

    def __init__(self, backends: Sequence[MCPToolset]) -> None:
        self.backends = list(backends)
        self._by_uri: dict[str, MCPToolset] = {}
        self._prompts: dict[str, tuple[MCPToolset, str]] = {}

    def _offering(self, feature: Any) -> list[MCPToolset]:
        return [b for b in self.backends if b.offers(feature)]

    async def list_resources(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        found: list[types.Resource] = []
        for backend in self._offering("resources"):
            try:
                resources = await backend.resources()
            except MCPToolError:
                continue  # one backend down or refusing: the others still list
            for r in resources:
                self._by_uri[str(r.uri)] = backend
            found.extend(resources)
        return types.ListResourcesResult(resources=found)

    async def list_resource_templates(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        found: list[types.ResourceTemplate] = []
        for backend in self._offering("resources"):
            try:
                found.extend(await backend.resource_templates())
            except MCPToolError:
                continue
        return types.ListResourceTemplatesResult(resource_templates=found)

    async def read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        known = self._by_uri.get(uri)
        candidates = [known] if known is not None else self._offering("resources")
        last: MCPToolError | None = None
        for backend in candidates:
            try:
                return await backend.read_resource(uri)
            except MCPToolError as exc:
                last = exc
        if last is not None:
            raise _protocol_error(last)
        raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {uri}")

    async def list_prompts(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        listed: list[tuple[MCPToolset, types.Prompt]] = []
        for backend in self._offering("prompts"):
            try:
                listed.extend((backend, p) for p in await backend.prompts())
            except MCPToolError:
                continue
        count: dict[str, int] = {}
        for _, p in listed:
            count[p.name] = count.get(p.name, 0) + 1
        table: dict[str, tuple[MCPToolset, str]] = {}
        out: list[types.Prompt] = []
        for backend, p in listed:
            name = p.name
            if count[name] > 1:
                name = f"{backend.name}{NAMESPACE_SEPARATOR}{p.name}"
            table[name] = (backend, p.name)
            out.append(p if name == p.name else p.model_copy(update={"name": name}))
        self._prompts = table
        return types.ListPromptsResult(prompts=out)

    async def get_prompt(
        self, ctx: Any, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name not in self._prompts:
            await self.list_prompts(ctx, None)
        found = self._prompts.get(params.name)
        if found is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")
        backend, name = found
        try:
            return await backend.get_prompt(name, params.arguments)
        except MCPToolError as exc:
            raise _protocol_error(exc) from None

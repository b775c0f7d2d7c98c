"""The names ``GET /v1/models`` lists: the configured models, else (one upstream that
serves any name the client sends) the upstream's own list, asked at most once a
minute. An upstream that cannot say (unreachable, no such endpoint, another shape)
gives an empty list, as a gateway that knows no names."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import httpx

from toolwire.client import ModelClient
from toolwire.gateway.config import GatewayConfig

log = logging.getLogger("toolwire.gateway")

LIST_TTL = 60.0  # seconds a fetched list (or a failure) stands
_TIMEOUT = 5.0


def _listing(client: ModelClient) -> tuple[str, dict[str, str]]:
    """Where the upstream lists its models, and the headers its requests carry."""
    path = "/api/tags" if client.format == "ollama" else "/models"
    return client.base_url + path, client.auth_headers()


def _names(value: Any) -> list[str]:
    """Model names from any of the usual listings: ``data[].id`` (OpenAI, Anthropic),
    ``models[].name`` (Ollama; Gemini's with its ``models/`` prefix)."""
    if not isinstance(value, dict):
        return []
    entries = value.get("data")
    key = "id"
    if not isinstance(entries, list):
        entries, key = value.get("models"), "name"
    if not isinstance(entries, list):
        return []
    names = [e.get(key) for e in entries if isinstance(e, dict)]
    return [n.removeprefix("models/") for n in names if isinstance(n, str) and n]


class ModelNames:
    """The list of one gateway, kept between requests."""

    def __init__(self, config: GatewayConfig, clients: Mapping[str, ModelClient]) -> None:
        self.config = config
        self.clients = clients  # the gateway's, by route name: the same URL and key
        self._fetched: list[str] = []
        self._fetched_at: float | None = None

    async def names(self) -> list[str]:
        configured = self.config.model_names()
        route = self.config.default_route
        if configured or route is None:
            return configured
        now = time.monotonic()
        if self._fetched_at is None or now - self._fetched_at > LIST_TTL:
            self._fetched_at = now
            self._fetched = await self._fetch(self.clients[route.name])
        return self._fetched

    async def _fetch(self, client: ModelClient) -> list[str]:
        url, headers = _listing(client)
        try:
            async with httpx.AsyncClient(timeout=_TIMEOUT) as http:
                response = await http.get(url, headers=headers)
            if response.status_code != 200:
                log.debug("the upstream's model list: %s answered %d", url, response.status_code)
                return []
            return _names(response.json())
        except (httpx.HTTPError, ValueError) as exc:
            log.debug("the upstream's model list: %s: %s", url, type(exc).__name__)
            return []

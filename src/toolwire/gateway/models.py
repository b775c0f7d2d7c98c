"""The names ``GET /v1/models`` lists: the configured models, else (one upstream that
serves any name the client sends) the upstream's own list, asked at most once a
minute. An upstream that cannot say (unreachable, no such endpoint, another shape)
gives an empty list, as a gateway that knows no names."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import httpx

from toolwire.gateway.config import GatewayConfig, ModelRoute

log = logging.getLogger("toolwire.gateway")

LIST_TTL = 60.0  # seconds a fetched list (or a failure) stands
_TIMEOUT = 5.0


def _listing(route: ModelRoute) -> tuple[str, dict[str, str]]:
    """Where the upstream lists its models, and the headers with its key."""
    base = route.upstream_url.rstrip("/")
    key = os.environ.get(route.upstream_key_env)
    headers: dict[str, str] = {}
    if route.upstream_format == "anthropic":
        headers["anthropic-version"] = "2023-06-01"
        if key:
            headers["x-api-key"] = key
    elif route.upstream_format == "gemini":
        if key:
            headers["x-goog-api-key"] = key
    elif key:
        headers["authorization"] = f"Bearer {key}"
    path = "/api/tags" if route.upstream_format == "ollama" else "/models"
    return base + path, headers


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

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
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
            self._fetched = await self._fetch(route)
        return self._fetched

    async def _fetch(self, route: ModelRoute) -> list[str]:
        url, headers = _listing(route)
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

"""What one gateway process serves: its models and their upstreams, its keys, its limits.

Either one upstream (``GatewayConfig(upstream_url=…)``: every model name the client
sends goes there, passed on or replaced by ``model``) or a config file
(``load_config``, TOML) naming several models, each with its own upstream, and
aliases (shell patterns such as ``claude-*sonnet*``, as Claude Code sends) that map
other names to them. A name that matches nothing is the client's 404.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolwire.audit.sinks import AuditSink
from toolwire.client import ClientTimeouts, RetryPolicy
from toolwire.gateway.limits import KeyLimits
from toolwire.httpkeys import keys_problem
from toolwire.textformats import FAMILIES

DEFAULT_UPSTREAM_KEY_ENV = "TOOLWIRE_UPSTREAM_API_KEY"
UPSTREAM_FORMATS = ("openai-chat", "anthropic", "openai-responses", "gemini", "ollama")
DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024


class ConfigError(ValueError):
    """A configuration the gateway refuses to run with."""


@dataclass(frozen=True, slots=True)
class ModelRoute:
    """One client-facing model: where it is served and how.

    ``model``: the upstream's name for it (None: the client's name is passed on).
    ``text_format``: a text-format family (or ``auto``) for servers that leave tool
    markup in the text. ``max_output_tokens``: the most a request may ask for (a
    larger ask is lowered to it)."""

    name: str
    upstream_url: str
    upstream_format: str = "openai-chat"
    model: str | None = None
    upstream_key_env: str = DEFAULT_UPSTREAM_KEY_ENV
    text_format: str | None = None
    max_output_tokens: int | None = None
    timeouts: ClientTimeouts = field(default_factory=ClientTimeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    """``upstream_url``: the API base (``http://host:port/v1``) that serves any model
    name not configured in ``routes`` (None: such names are refused). ``model``,
    ``upstream_format``, ``upstream_key_env``, ``text_format``, ``timeouts`` and
    ``retry`` describe that upstream. ``aliases``: (pattern, route name), first match
    wins. ``api_keys``: the gateway's own keys; none means no check (and loopback
    only). ``limits``: what each key may do (without keys, all clients share them);
    counted in the Redis at ``redis_url`` when one is named, else in this process.
    ``audit_location``: what ``audit`` writes to, read by the audit page at ``/ui``."""

    upstream_url: str | None = None
    upstream_format: str = "openai-chat"
    model: str | None = None
    upstream_key_env: str = DEFAULT_UPSTREAM_KEY_ENV
    text_format: str | None = None
    api_keys: tuple[str, ...] = ()
    audit: AuditSink | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    timeouts: ClientTimeouts = field(default_factory=ClientTimeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    routes: tuple[ModelRoute, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    limits: KeyLimits = field(default_factory=KeyLimits)
    # where the audit sink writes, for the page at /ui (None: no page)
    audit_location: str | None = None
    redis_url: str | None = None  # the limits are shared through this Redis
    stream_lease_seconds: float = 15.0  # a killed process's stream slots free after this

    def __post_init__(self) -> None:
        names = {route.name for route in self.routes}
        for pattern, target in self.aliases:
            if target not in names:
                raise ConfigError(f"alias {pattern!r} names no configured model {target!r}")
        if self.upstream_url is None and not self.routes:
            raise ConfigError("no upstream: give an upstream URL or configure models")
        problem = keys_problem(self.api_keys, what="gateway key")
        if problem is not None:
            raise ConfigError(problem)

    @property
    def default_route(self) -> ModelRoute | None:
        """The single upstream's route (any name), when there is one."""
        if self.upstream_url is None:
            return None
        return ModelRoute(
            name="*",
            upstream_url=self.upstream_url,
            upstream_format=self.upstream_format,
            model=self.model,
            upstream_key_env=self.upstream_key_env,
            text_format=self.text_format,
            timeouts=self.timeouts,
            retry=self.retry,
        )

    def all_routes(self) -> list[ModelRoute]:
        default = self.default_route
        return [*self.routes, *([default] if default is not None else [])]

    def resolve(self, name: str) -> ModelRoute | None:
        """The route serving the client's model ``name``: a configured model of that
        name, else the first alias whose pattern matches, else the single upstream."""
        for route in self.routes:
            if route.name == name:
                return route
        for pattern, target in self.aliases:
            if fnmatch.fnmatchcase(name, pattern):
                return next(r for r in self.routes if r.name == target)
        return self.default_route

    def model_names(self) -> list[str]:
        """The names ``/v1/models`` lists."""
        if self.routes:
            return [route.name for route in self.routes]
        return [self.model] if self.model else []

    def check_listen(self, host: str) -> None:
        """Without keys the gateway answers anyone who reaches it: loopback only."""
        problem = keys_problem(self.api_keys, host, what="gateway key")
        if problem is not None:
            raise ConfigError(problem)


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """A config file as read: the gateway's settings, and where to listen and audit."""

    config: GatewayConfig
    host: str | None = None
    port: int | None = None
    audit: str | None = None  # a path, a postgresql:// URL, or "none"


def _typed(table: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = table.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise ConfigError(f"{where}.{key}: wrong type ({type(value).__name__})")
    return value


def _route(name: str, table: Any) -> ModelRoute:
    where = f"models.{name}"
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: a table is required")
    known = {
        "upstream", "format", "model", "api_key_env", "text_format", "max_output_tokens",
        "connect_timeout", "read_timeout", "retries",
    }  # fmt: skip
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}")
    url = _typed(table, "upstream", str, where)
    if not url or not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}.upstream: an http(s) URL is required")
    fmt = _typed(table, "format", str, where) or "openai-chat"
    if fmt not in UPSTREAM_FORMATS:
        supported = ", ".join(UPSTREAM_FORMATS)
        raise ConfigError(f"{where}.format: {fmt!r} is not supported ({supported})")
    text_format = _typed(table, "text_format", str, where)
    if text_format is not None and text_format not in FAMILIES:
        raise ConfigError(f"{where}.text_format: unknown family {text_format!r}")
    defaults = ClientTimeouts()
    timeouts = ClientTimeouts(
        connect=float(_typed(table, "connect_timeout", (int, float), where) or defaults.connect),
        read=float(_typed(table, "read_timeout", (int, float), where) or defaults.read),
    )
    retries = _typed(table, "retries", int, where)
    return ModelRoute(
        name=name,
        upstream_url=url,
        upstream_format=fmt,
        model=_typed(table, "model", str, where),
        upstream_key_env=_typed(table, "api_key_env", str, where) or DEFAULT_UPSTREAM_KEY_ENV,
        text_format=text_format,
        max_output_tokens=_typed(table, "max_output_tokens", int, where),
        timeouts=timeouts,
        retry=RetryPolicy(attempts=retries + 1) if retries is not None else RetryPolicy(),
    )


def load_config(path: Path) -> ConfigFile:
    """Read a TOML config file (``ConfigError`` with a one-line reason)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"gateway", "models", "aliases"})
    if unknown:
        raise ConfigError(f"{path}: unknown table {unknown[0]!r}")
    gateway = data.get("gateway", {})
    models = data.get("models", {})
    aliases = data.get("aliases", {})
    for name, value in (("gateway", gateway), ("models", models), ("aliases", aliases)):
        if not isinstance(value, Mapping):
            raise ConfigError(f"{path}: [{name}] must be a table")
    known = {
        "host", "port", "api_keys", "api_keys_env", "audit", "max_body_bytes",
        "max_streams_per_key", "requests_per_minute_per_key", "tokens_per_minute_per_key",
        "redis", "stream_lease_seconds",
    }  # fmt: skip
    extra = sorted(set(gateway) - known)
    if extra:
        raise ConfigError(f"gateway: unknown key {extra[0]!r}")
    keys = list(_typed(gateway, "api_keys", list, "gateway") or [])
    keys_env = _typed(gateway, "api_keys_env", str, "gateway")
    if keys_env:  # keys kept out of the file: comma-separated in that variable
        keys += [k.strip() for k in os.environ.get(keys_env, "").split(",") if k.strip()]
    if not all(isinstance(k, str) and k for k in keys):
        raise ConfigError("gateway.api_keys: non-empty strings are required")
    routes = tuple(_route(str(name), table) for name, table in models.items())
    if not routes:
        raise ConfigError(f"{path}: no [models.NAME] table")
    for pattern, target in aliases.items():
        if not isinstance(target, str):
            raise ConfigError(f"aliases.{pattern}: the name of a configured model is required")
    per_key = {}
    for key in ("max_streams_per_key", "requests_per_minute_per_key", "tokens_per_minute_per_key"):
        per_key[key] = _typed(gateway, key, int, "gateway")
        if per_key[key] is not None and per_key[key] < 1:
            raise ConfigError(f"gateway.{key}: at least 1 is required")
    limits = KeyLimits(
        per_key["max_streams_per_key"],
        per_key["requests_per_minute_per_key"],
        per_key["tokens_per_minute_per_key"],
    )
    redis_url = _typed(gateway, "redis", str, "gateway")
    if redis_url is not None and not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError("gateway.redis: a redis:// URL is required")
    lease = _typed(gateway, "stream_lease_seconds", (int, float), "gateway")
    if lease is not None and lease <= 0:
        raise ConfigError("gateway.stream_lease_seconds: more than 0 is required")
    config = GatewayConfig(
        api_keys=tuple(keys),
        max_body_bytes=_typed(gateway, "max_body_bytes", int, "gateway") or DEFAULT_MAX_BODY_BYTES,
        routes=routes,
        aliases=tuple(aliases.items()),
        limits=limits,
        redis_url=redis_url,
        stream_lease_seconds=float(lease) if lease is not None else 15.0,
    )
    return ConfigFile(
        config,
        host=_typed(gateway, "host", str, "gateway"),
        port=_typed(gateway, "port", int, "gateway"),
        audit=_typed(gateway, "audit", str, "gateway"),
    )

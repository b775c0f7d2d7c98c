"""What one gateway process serves: its upstream, its keys, its limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolwire.audit.sinks import AuditSink
from toolwire.client import ClientTimeouts, RetryPolicy

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
DEFAULT_UPSTREAM_KEY_ENV = "TOOLWIRE_UPSTREAM_API_KEY"


class ConfigError(ValueError):
    """A configuration the gateway refuses to run with."""


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    """``upstream_url``: the API base (``http://host:port/v1``). ``model``: the
    upstream model name to send (None: the client's own model name is passed on).
    ``text_format``: a text-format family (or ``auto``) for servers that leave tool
    markup in the text. ``api_keys``: the gateway's own keys; none means no check
    (and loopback only)."""

    upstream_url: str
    upstream_format: str = "openai-chat"
    model: str | None = None
    upstream_key_env: str = DEFAULT_UPSTREAM_KEY_ENV
    text_format: str | None = None
    api_keys: tuple[str, ...] = ()
    audit: AuditSink | None = None
    max_body_bytes: int = 32 * 1024 * 1024
    timeouts: ClientTimeouts = field(default_factory=ClientTimeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    def check_listen(self, host: str) -> None:
        """Without keys the gateway answers anyone who reaches it: loopback only."""
        if not self.api_keys and host not in LOOPBACK_HOSTS:
            raise ConfigError(
                f"refusing to listen on {host} without a gateway key "
                "(give --api-key, or listen on 127.0.0.1)"
            )

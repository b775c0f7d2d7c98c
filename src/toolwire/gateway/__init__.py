"""``toolwire serve``: an HTTP gateway that lets OpenAI and Anthropic clients use any
model server, with every tool call repaired in flight (see ``app`` and ``relay``)."""

from toolwire.gateway.app import create_app
from toolwire.gateway.config import ConfigError, GatewayConfig
from toolwire.gateway.delivery import ERRORS_KEY, UNREADABLE_KEY, CallDelivery

__all__ = [
    "ERRORS_KEY",
    "UNREADABLE_KEY",
    "CallDelivery",
    "ConfigError",
    "GatewayConfig",
    "create_app",
]

"""The gateway on a real socket, in a thread, for tests."""

from toolwire.gateway.background import BackgroundGateway as GatewayServer

KEY = "gw-test-key"  # the gateway key of the test gateways

__all__ = ["KEY", "GatewayServer"]

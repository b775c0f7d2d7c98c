"""The gateway on a real socket, in a thread, for tests (uvicorn)."""

from __future__ import annotations

import threading
import time

import uvicorn

from toolwire.gateway import GatewayConfig, create_app

KEY = "gw-test-key"  # the gateway key of the test gateways


class GatewayServer:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.server = uvicorn.Server(
            uvicorn.Config(create_app(config), host="127.0.0.1", port=0, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __enter__(self) -> GatewayServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the gateway did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)

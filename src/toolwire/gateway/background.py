"""The gateway on a loopback socket in a background thread (uvicorn): for the demo and
the tests, which drive it with real clients from the same process."""

from __future__ import annotations

import threading
import time

import uvicorn

from toolwire.gateway.app import create_app
from toolwire.gateway.config import GatewayConfig


class BackgroundGateway:
    """A context manager; ``url`` is ``http://127.0.0.1:PORT`` once entered."""

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

    def __enter__(self) -> BackgroundGateway:
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

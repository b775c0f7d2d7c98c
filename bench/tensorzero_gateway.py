"""TensorZero's Rust gateway, started in this process from its PyPI wheel, for
``bench_gateway.py``. Run with the Python of an environment that has ``tensorzero``:
``PY bench/tensorzero_gateway.py CONFIG.toml URL_FILE`` (writes the gateway's base URL
there, then serves until killed)."""

from __future__ import annotations

import sys
import time

import tensorzero

if __name__ == "__main__":
    gateway = tensorzero._start_http_gateway(  # type: ignore[attr-defined]
        config_file=sys.argv[1],
        clickhouse_url=None,
        postgres_url=None,
        valkey_url=None,
        async_setup=False,
    )
    with open(sys.argv[2], "w") as f:
        f.write(gateway.base_url)
    while True:
        time.sleep(3600)

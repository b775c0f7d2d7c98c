"""FastMCP 2.x's proxy over an ``mcpServers`` file, prefixes off, over stdio.

Run by ``bench_mcp_front.py --fastmcp-python PY`` with the Python of an environment
that has ``fastmcp<3`` (it needs ``mcp<2``, so it cannot share toolwire's). Usage:
``PY bench/fastmcp_proxy.py mcp.json``.
"""

from __future__ import annotations

import json
import sys

from fastmcp import FastMCP
from fastmcp.client.transports import MCPConfigTransport

if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        config = json.load(f)
    FastMCP.as_proxy(MCPConfigTransport(config, name_as_prefix=False)).run(show_banner=False)

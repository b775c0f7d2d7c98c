"""The floor of ``bench_gateway.py``: the least a Python gateway does. An OpenAI Chat
proxy (starlette + uvicorn + httpx, as toolwire's) that reads each upstream SSE event,
``json.loads`` and ``json.dumps`` it, and passes it on; nothing is checked or
repaired. Run: ``python bench/passthrough_proxy.py UPSTREAM_BASE PORT``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

UPSTREAM = sys.argv[1].rstrip("/")
client = httpx.AsyncClient(timeout=httpx.Timeout(300.0), limits=httpx.Limits(max_connections=None))


async def events(response: httpx.Response) -> AsyncIterator[bytes]:
    """Each SSE message of the upstream, decoded and encoded again."""
    buffer = b""
    try:
        async for data in response.aiter_bytes():
            buffer += data
            *messages, buffer = buffer.split(b"\n\n")
            for message in messages:
                if not message.startswith(b"data: "):
                    continue
                payload = message[6:]
                if payload == b"[DONE]":
                    yield b"data: [DONE]\n\n"
                    continue
                event = json.loads(payload)
                yield b"data: " + json.dumps(event).encode() + b"\n\n"
    finally:
        await response.aclose()


async def chat(request: Request) -> Response:
    body = await request.body()
    upstream = client.build_request(
        "POST",
        UPSTREAM + "/chat/completions",
        content=body,
        headers={"content-type": "application/json"},
    )
    response = await client.send(upstream, stream=True)
    if response.status_code != 200:
        content = await response.aread()
        await response.aclose()
        return Response(content, response.status_code, media_type="application/json")
    return StreamingResponse(events(response), media_type="text/event-stream")


app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")

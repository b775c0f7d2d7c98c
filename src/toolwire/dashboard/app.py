"""The audit page as an ASGI app: the page and its assets (shipped in the package,
nothing from a CDN), and ``GET api/dashboard?from=&to=`` (epoch seconds; both
optional), the JSON it draws (``toolwire.dashboard.data``).

The audit is read anew for each ``api/dashboard`` request, so the page shows what
the sinks wrote up to then. With keys, every route wants one: ``x-api-key``,
``Bearer``, or HTTP Basic with the key as the password (what a browser can send:
it asks once and sends it again for the page's own requests).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Sequence
from importlib.resources import files
from typing import Any

import anyio
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from toolwire.audit.record import ExecutionRecord, TaskRecord
from toolwire.dashboard.data import TimeRange, dashboard
from toolwire.httpkeys import key_index, keys_problem

ASSETS = {
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
LATEST_TIME = 253_402_300_799.0  # 9999-12-31T23:59:59Z
Reader = Callable[[], tuple[list[ExecutionRecord], dict[str, TaskRecord]]]


def _asset(name: str) -> bytes:
    return files("toolwire.dashboard").joinpath("assets", name).read_bytes()


def _json(value: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(value), status_code=status, media_type="application/json")


def basic_password(headers: Any) -> str | None:
    """The password of an HTTP Basic ``authorization`` header, if there is one."""
    auth = headers.get("authorization", "")
    if auth[:6].lower() != "basic ":
        return None
    try:
        decoded = base64.b64decode(auth[6:].strip(), validate=True).decode()
    except ValueError:
        return None
    return decoded.partition(":")[2]


def _time_range(request: Request) -> TimeRange | str | None:
    """The query's range; a string says what is wrong with it."""
    given = {k: request.query_params.get(k) for k in ("from", "to")}
    if not any(given.values()):
        return None
    try:
        start = float(given["from"] or 0)
        end = float(given["to"]) if given["to"] else math.inf
    except ValueError:
        return "from and to are epoch seconds"
    if not (0 <= start <= LATEST_TIME and (end <= LATEST_TIME or not given["to"])):
        return "from and to are epoch seconds, up to the year 9999"
    if not start < end:
        return "from must come before to"
    return TimeRange(start, end)


def create_dashboard_app(read: Reader, *, keys: Sequence[str] = ()) -> Starlette:
    """The page over what ``read`` returns (e.g. ``lambda: read_audit(path)``)."""
    problem = keys_problem(keys)
    if problem is not None:
        raise ValueError(problem)
    secrets = [key.encode() for key in keys]

    def allowed(request: Request) -> bool:
        if not secrets:
            return True
        if key_index(request.headers, secrets) is not None:
            return True
        password = basic_password(request.headers)
        return password is not None and key_index({"x-api-key": password}, secrets) is not None

    def refused() -> Response:
        return Response(
            "a gateway key is needed (as the password)",
            status_code=401,
            headers={"www-authenticate": 'Basic realm="toolwire", charset="UTF-8"'},
        )

    async def page(request: Request) -> Response:
        if not allowed(request):
            return refused()
        return Response(_asset("index.html"), media_type="text/html; charset=utf-8")

    async def asset(request: Request) -> Response:
        if not allowed(request):
            return refused()
        name = request.path_params["name"]
        if name not in ASSETS:
            return Response("not found", status_code=404)
        return Response(_asset(name), media_type=ASSETS[name])

    async def api(request: Request) -> Response:
        if not allowed(request):
            return refused()
        when = _time_range(request)
        if isinstance(when, str):
            return _json({"error": when}, 400)
        try:
            records, tasks = await anyio.to_thread.run_sync(read)
        except (OSError, ValueError) as exc:
            return _json({"error": str(exc)}, 503)
        return _json(await anyio.to_thread.run_sync(dashboard, records, tasks, when))

    return Starlette(
        routes=[
            Route("/", page, methods=["GET"]),
            Route("/assets/{name}", asset, methods=["GET"]),
            Route("/api/dashboard", api, methods=["GET"]),
        ]
    )

"""A small MCP server for tests, on the SDK's low-level server API.

Serves a resource (``test://greeting``), a template (``test://echo/{text}``) and a
prompt (``greet``), and 5 tools over 3 pages of ``tools/list`` (to exercise pagination): ``echo``,
``slow`` (sleeps), ``fail`` (an ``isError`` result), ``progress`` (reports progress),
``wipe`` (annotated destructive). Run: ``python mcp_test_server.py stdio`` or
``python mcp_test_server.py http PORT``. With ``stdio hang-list`` the server never
answers ``tools/list``; with ``stdio crash-once FILE`` it also serves ``crash``, which
kills the server when FILE does not exist yet (and creates it), so that the server
started again answers. With ``stdio down-while FILE`` ``crash`` creates FILE and kills
the server, which will not start again while FILE exists. ``slow`` writes the file
its ``cancelled`` argument names when its call is cancelled. With ``stdio grow`` it
also serves ``grow``, which adds the tool ``grown`` and announces it:
``notifications/tools/list_changed`` on a handshake-era connection, a
``subscriptions/listen`` event on a 2026-era one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

# Before the SDK's imports: a failed restart must fail fast, even on a loaded machine
# (a call waits for a restart only a short time).
if sys.argv[2:3] == ["down-while"] and sys.argv[1] == "stdio" and Path(sys.argv[3]).exists():
    sys.exit(4)

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError

PAGE = 2

TOOLS = [
    types.Tool(
        name="echo",
        description="Echo the text back.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="slow",
        description="Sleep, then answer.",
        input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
    ),
    types.Tool(name="fail", description="Always fails.", input_schema={"type": "object"}),
    types.Tool(
        name="progress",
        description="Report progress three times.",
        input_schema={"type": "object", "properties": {}},
    ),
    types.Tool(
        name="wipe",
        description="Pretend to delete everything.",
        input_schema={"type": "object", "properties": {}},
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True),
    ),
]
MODE = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "stdio" else ""
if MODE in ("crash-once", "down-while"):
    TOOLS.append(
        types.Tool(name="crash", description="Kill the server.", input_schema={"type": "object"})
    )
if MODE == "grow":
    TOOLS.append(
        types.Tool(name="grow", description="Add a tool.", input_schema={"type": "object"})
    )
GROWN = types.Tool(name="grown", description="Added by grow.", input_schema={"type": "object"})
BUS = InMemorySubscriptionBus()


async def list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    if MODE == "hang-list":
        await anyio.sleep_forever()
    start = int(params.cursor) if params and params.cursor else 0
    page = TOOLS[start : start + PAGE]
    nxt = str(start + PAGE) if start + PAGE < len(TOOLS) else None
    return types.ListToolsResult(tools=page, next_cursor=nxt)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "echo":
        text = str(args.get("text", ""))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content={"text": text, "length": len(text)},
        )
    if params.name == "slow":
        try:
            await anyio.sleep(float(args.get("seconds", 1)))
        except anyio.get_cancelled_exc_class():
            if args.get("cancelled"):
                Path(str(args["cancelled"])).write_text("cancelled")
            raise
        return types.CallToolResult(content=[types.TextContent(type="text", text="slept")])
    if params.name == "fail":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="it broke")], is_error=True
        )
    if params.name == "progress":
        for i in range(3):
            await ctx.session.report_progress(i + 1, 3, f"step {i + 1}")
        return types.CallToolResult(content=[types.TextContent(type="text", text="done")])
    if params.name == "wipe":
        return types.CallToolResult(content=[types.TextContent(type="text", text="wiped")])
    if params.name == "crash":
        if MODE == "down-while":
            Path(sys.argv[3]).touch()
            os._exit(3)
        marker = Path(sys.argv[3]) if MODE == "crash-once" else None
        if marker is None or not marker.exists():
            if marker is not None:
                marker.touch()
            os._exit(3)
        return types.CallToolResult(content=[types.TextContent(type="text", text="survived")])
    if params.name == "grow":
        if GROWN not in TOOLS:
            TOOLS.append(GROWN)
        await BUS.publish(ToolsListChanged())  # 2026-era clients listening
        await ctx.session.send_tool_list_changed()  # handshake-era clients
        return types.CallToolResult(content=[types.TextContent(type="text", text="grew")])
    if params.name == "grown" and GROWN in TOOLS:
        return types.CallToolResult(content=[types.TextContent(type="text", text="grown")])
    raise MCPError(-32602, f"Unknown tool: {params.name}")


GREETING = "test://greeting"


async def list_resources(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    resource = types.Resource(uri=GREETING, name="greeting", mime_type="text/plain")
    return types.ListResourcesResult(resources=[resource])


async def list_templates(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    template = types.ResourceTemplate(uri_template="test://echo/{text}", name="echo")
    return types.ListResourceTemplatesResult(resource_templates=[template])


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
    uri = str(params.uri)
    if uri == GREETING:
        text = "hello from the test server"
    elif uri.startswith("test://echo/"):
        text = uri.removeprefix("test://echo/")
    else:
        raise MCPError(-32602, f"Unknown resource: {uri}")
    contents = [types.TextResourceContents(uri=uri, text=text, mime_type="text/plain")]
    return types.ReadResourceResult(contents=contents)


async def list_prompts(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    argument = types.PromptArgument(name="who", required=True)
    prompt = types.Prompt(name="greet", description="Greet someone.", arguments=[argument])
    return types.ListPromptsResult(prompts=[prompt])


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> Any:
    if params.name != "greet":
        raise MCPError(-32602, f"Unknown prompt: {params.name}")
    who = (params.arguments or {}).get("who", "nobody")
    message = types.PromptMessage(
        role="user", content=types.TextContent(type="text", text=f"Say hello to {who}.")
    )
    return types.GetPromptResult(messages=[message])


server: Server[Any] = Server(
    "toolwire-test",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_list_resource_templates=list_templates,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
    on_subscriptions_listen=ListenHandler(BUS) if MODE == "grow" else None,
)


async def run_stdio() -> None:
    async with stdio_server() as (read, write):
        options = server.create_initialization_options(
            NotificationOptions(tools_changed=MODE == "grow")
        )
        await server.run(read, write, options)


def run_http(port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        anyio.run(run_stdio)
    else:
        run_http(int(sys.argv[2]))

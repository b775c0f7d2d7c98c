"""toolwire: reliable LLM tool calling.

The names most programs need, in one place::

    from toolwire import StreamParser, parse_stream, ToolCall, repair_json, ToolEngine, tool

Each name is loaded from its module on first use, so ``import toolwire`` (and the
``toolwire`` command) stays fast, and a program that only parses never loads the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from toolwire.agent import Agent, open_agent
    from toolwire.audit import (
        ExecutionRecord,
        JSONLSink,
        MemorySink,
        SQLiteSink,
        build_report,
    )
    from toolwire.client import ModelClient
    from toolwire.coerce import CoercionResult, coerce_arguments
    from toolwire.encoders import StreamConverter, convert_stream, encode_response
    from toolwire.engine import ToolEngine, ToolResult
    from toolwire.events import (
        ArgumentsDelta,
        CallFinished,
        CallStarted,
        Event,
        ReasoningDelta,
        ReasoningSignature,
        StreamError,
        StreamFinished,
        StreamResult,
        TextDelta,
        ToolCall,
        Usage,
    )
    from toolwire.parser import StreamParser, UnknownFormatError, parse_stream
    from toolwire.repair import RepairResult, repair_json
    from toolwire.sdk import aparse_sdk_stream, parse_sdk_stream
    from toolwire.spec import ToolSpec
    from toolwire.tools import (
        MCPToolset,
        ToolRegistry,
        load_mcp_config,
        tool,
    )

# public name -> the module that defines it
_HOMES = {
    # parsing a stream
    "StreamParser": "toolwire.parser",
    "parse_stream": "toolwire.parser",
    "UnknownFormatError": "toolwire.parser",
    "ToolSpec": "toolwire.spec",
    "parse_sdk_stream": "toolwire.sdk",  # an openai / anthropic SDK stream's objects
    "aparse_sdk_stream": "toolwire.sdk",
    # what comes out of it
    "ToolCall": "toolwire.events",
    "StreamResult": "toolwire.events",
    "Usage": "toolwire.events",
    "Event": "toolwire.events",
    "TextDelta": "toolwire.events",
    "ReasoningDelta": "toolwire.events",
    "ReasoningSignature": "toolwire.events",
    "CallStarted": "toolwire.events",
    "ArgumentsDelta": "toolwire.events",
    "CallFinished": "toolwire.events",
    "StreamFinished": "toolwire.events",
    "StreamError": "toolwire.events",
    # repair and typing on their own
    "repair_json": "toolwire.repair",
    "RepairResult": "toolwire.repair",
    "coerce_arguments": "toolwire.coerce",
    "CoercionResult": "toolwire.coerce",
    # re-encoding
    "convert_stream": "toolwire.encoders",
    "encode_response": "toolwire.encoders",
    "StreamConverter": "toolwire.encoders",
    # running tools
    "ToolEngine": "toolwire.engine",
    "Agent": "toolwire.agent",
    "open_agent": "toolwire.agent",
    "ModelClient": "toolwire.client",
    "ToolResult": "toolwire.engine",
    "tool": "toolwire.tools",
    "ToolRegistry": "toolwire.tools",
    "MCPToolset": "toolwire.tools",
    "load_mcp_config": "toolwire.tools",
    # auditing
    "SQLiteSink": "toolwire.audit",
    "JSONLSink": "toolwire.audit",
    "MemorySink": "toolwire.audit",
    "ExecutionRecord": "toolwire.audit",
    "build_report": "toolwire.audit",
}

__all__ = [
    "Agent",
    "ArgumentsDelta",
    "CallFinished",
    "CallStarted",
    "CoercionResult",
    "Event",
    "ExecutionRecord",
    "JSONLSink",
    "MCPToolset",
    "MemorySink",
    "ModelClient",
    "ReasoningDelta",
    "ReasoningSignature",
    "RepairResult",
    "SQLiteSink",
    "StreamConverter",
    "StreamError",
    "StreamFinished",
    "StreamParser",
    "StreamResult",
    "TextDelta",
    "ToolCall",
    "ToolEngine",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "UnknownFormatError",
    "Usage",
    "aparse_sdk_stream",
    "build_report",
    "coerce_arguments",
    "convert_stream",
    "encode_response",
    "load_mcp_config",
    "open_agent",
    "parse_sdk_stream",
    "parse_stream",
    "repair_json",
    "tool",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'toolwire' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # found once; later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})

"""The scripted model server for tests: ``toolwire.replay.ReplayServer`` with the
recorded streams and fault modes the tests name by model.

    with ScriptedUpstream(SCRIPTS) as upstream:
        client = ModelClient("openai-chat", upstream.url)   # http://127.0.0.1:PORT/v1
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from toolwire.replay import (
    DONE,
    Answer,
    ReplayServer,
    Script,
    call_stream,
    chat_chunk,
    sse_messages,
    text_stream,
    usage_chunk,
)
from toolwire.replay.recorded import read_cases

# the building blocks, for tests that script their own answers
__all__ = [
    "DONE",
    "SCRIPTS",
    "WEATHER_SCHEMA",
    "Script",
    "ScriptedUpstream",
    "call_stream",
    "chat_chunk",
    "text_stream",
    "usage_chunk",
]

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string"},
        "days": {"type": "integer"},
    },
    "required": ["city"],
}

# the recorded streams: what each scripted model answers
RECORDED = {case.name: sse_messages(case.data) for case in read_cases("servers.jsonl")}
F32_LLAMA_CPP = RECORDED["F32-llama-cpp-python"]
F33_CUT_OFF = RECORDED["F33-cut-under-tool-calls"]  # max_tokens cut, finish says tool_calls
PYTHON_DICT = call_stream("get_weather", ["{'city': 'Lima', ", "'days': '2',}"], "tool_calls")
# F34: a stream=false body (the server answers a whole chat.completion)
F34_BODY = orjson.dumps(
    {
        "id": "chatcmpl-body",
        "object": "chat.completion",
        "created": 1717171717,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_body",
                            "type": "function",
                            "function": {
                                "name": "get_weather",
                                "arguments": '{"city": "Oslo", "days": "3"}',
                            },
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39},
    }
)
F35_FENCED = RECORDED["F35-fenced-json"]  # a local model writes its call as fenced JSON
UNREADABLE = call_stream("get_weather", ["<<<not json>>>"], "tool_calls")
PLAIN_TEXT = text_stream(["Hello", ", ", "world."])

SCRIPTS: dict[str, Script] = {
    "f32-llama-cpp": Script(F32_LLAMA_CPP),
    "f33-cut-off": Script(F33_CUT_OFF),
    "f34-body": Script([F34_BODY], content_type="application/json"),
    "f35-fenced": Script(F35_FENCED),
    "python-dict": Script(PYTHON_DICT),
    "unreadable": Script(UNREADABLE),
    "text": Script(PLAIN_TEXT),
    "drop": Script(PYTHON_DICT, drop_after=3),
    "drop-text": Script(PLAIN_TEXT, drop_after=2),  # dropped mid-text, no call
    "slow-first-byte": Script(PLAIN_TEXT, first_byte_delay=2.0),
    "rate-limited": Script(PLAIN_TEXT, fail=[(429, 0.2)]),
    "server-error": Script(PLAIN_TEXT, always_fail=(500, None)),
    "bad-request": Script(PLAIN_TEXT, always_fail=(400, None)),
    "slow-stream": Script(text_stream(["tick "] * 200), chunk_delay=0.05),
}


class ScriptedUpstream(ReplayServer):
    """The replay server answering the scripts above (or the given ones)."""

    def __init__(self, scripts: Mapping[str, Answer] | None = None, default: str | None = None):
        super().__init__(SCRIPTS if scripts is None else scripts, default)

"""``--format auto``: wire streams and bodies are recognised; empty or unreadable input
is an error; anything else is model text, searched for tool calls in any markup."""

from __future__ import annotations

import gzip
import json

import pytest
from typer.testing import CliRunner
from weather import WEATHER

from toolwire.cli import app
from toolwire.events import StreamResult
from toolwire.parser import StreamParser

runner = CliRunner()


def parse_auto(data: bytes | str) -> tuple[StreamParser, StreamResult]:
    parser = StreamParser("auto", [WEATHER])
    events = parser.feed(data)
    events.extend(parser.close())
    return parser, StreamResult.collect(events)


SSE = (
    'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", '
    '"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}}]}}]}\n\n'
    'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}\n\n'
    "data: [DONE]\n\n"
)


@pytest.mark.parametrize("data", ["", "  \n\r\n", "\ufeff\n"])
def test_empty_input_is_an_error(data: str) -> None:
    parser, result = parse_auto(data)
    assert parser.input_error == "the input is empty"
    assert result.finish_reason == "error"
    assert [e.message for e in result.errors] == ["the input is empty"]


def test_input_that_is_not_text_is_an_error_not_garbage_text() -> None:
    # a compressed body saved without its Content-Encoding undone
    parser, result = parse_auto(gzip.compress(SSE.encode()))
    assert parser.input_error is not None and "not UTF-8 text" in parser.input_error
    assert result.text == "" and result.calls == []
    assert result.finish_reason == "error" and len(result.errors) == 1


@pytest.mark.parametrize(
    "text",
    [
        'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
        '{"name": "get_weather", "parameters": {"city": "Oslo"}}',
        '[get_weather(city="Oslo")]',
        '[TOOL_CALLS]get_weather{"city": "Oslo"}',
    ],
)
def test_model_text_under_auto_has_its_tool_calls_extracted(text: str) -> None:
    parser, result = parse_auto(text)
    assert [(c.name, c.arguments, c.status) for c in result.calls] == [
        ("get_weather", {"city": "Oslo"}, "complete")
    ]
    assert parser.format == "text:auto" and result.errors == []
    assert "get_weather" not in result.text


def test_plain_prose_and_json_that_is_no_wire_stay_text() -> None:
    for text in ("Hello there.\nNo tools today.", '{"answer": 42}'):
        parser, result = parse_auto(text)
        assert (result.text, result.calls, result.errors) == (text, [], [])
        assert result.finish_reason == "stop" and parser.input_error is None


def test_streams_are_still_recognised_whatever_the_chunking() -> None:
    raw = SSE.encode()
    for size in (1, 7, len(raw)):
        parser = StreamParser("auto", [WEATHER])
        events = []
        for i in range(0, len(raw), size):
            events.extend(parser.feed(raw[i : i + size]))
        events.extend(parser.close())
        assert parser.format == "openai-chat"
        assert [c.arguments for c in StreamResult.collect(events).calls] == [{"city": "Oslo"}]


def test_cli_parse_exits_2_with_one_line_on_empty_or_binary_input() -> None:
    for data in (b"", gzip.compress(SSE.encode())):
        result = runner.invoke(app, ["parse", "-"], input=data)
        assert result.exit_code == 2
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("toolwire: ")


def test_cli_parse_reads_a_whole_body() -> None:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    result = runner.invoke(app, ["parse", "-"], input=json.dumps(body))
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [c["arguments"] for c in out["calls"]] == [{"city": "Oslo"}]
    assert out["finish_reason"] == "tool_calls"

"""G1: every encoder, used on its own, never delivers a truncated call as a call.

The events are handed straight to the encoders (no parser in between to fix the
finish reason), as a library user or a gateway would; the upstream even claimed
``tool_calls``. Each output is read back by toolwire's own decoder, which sees what
the format's clients would see.
"""

from __future__ import annotations

import json

import pytest

from toolwire.encoders import BODY_ENCODERS, ENCODERS, convert_stream, make_encoder
from toolwire.events import (
    ArgumentsDelta,
    CallFinished,
    CallStarted,
    Event,
    StreamFinished,
    TextDelta,
    ToolCall,
    Usage,
)
from toolwire.parser import parse_stream

TARGETS = [*ENCODERS, "gemini-array"]
FINISHED = ToolCall("call_0", "get_weather", {"city": "Oslo"}, '{"city": "Oslo"}', "complete")
CUT = ToolCall(
    "call_1",
    "delete_files",
    None,
    '{"path": "/tmp/build", "recurs',
    "truncated",
    partial_arguments={"path": "/tmp/build"},
    slot=1,
)


def events(*, with_finished_call: bool) -> list[Event]:
    out: list[Event] = [TextDelta("Working.")]
    if with_finished_call:
        out += [
            CallStarted(0, "call_0", "get_weather"),
            ArgumentsDelta(0, '{"city": "Oslo"}'),
            CallFinished(FINISHED),
        ]
    out += [
        CallStarted(1, "call_1", "delete_files"),
        ArgumentsDelta(1, CUT.raw_arguments),
        CallFinished(CUT),
        StreamFinished("tool_calls", Usage(input_tokens=3, output_tokens=9), "tool_calls"),
    ]
    return out


def decoder_for(target: str) -> str:
    return "gemini" if target == "gemini-array" else target


@pytest.mark.parametrize("whole", [False, True], ids=["stream", "whole"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("with_finished_call", [False, True], ids=["alone", "after-a-call"])
def test_g1_no_encoder_delivers_a_truncated_call(
    target: str, whole: bool, with_finished_call: bool
) -> None:
    if whole and target not in BODY_ENCODERS:
        pytest.skip("gemini-array is one document either way")
    encoder = make_encoder(target, whole=whole, message_id="m")
    output = "".join(encoder.encode(events(with_finished_call=with_finished_call)))
    assert "delete_files" not in output and "recurs" not in output
    back = parse_stream(output, decoder_for(target))
    # the finished call goes out whole, and then the turn ends for it: the client runs
    # the call it got (the cut one is held back and noted)
    sent = [(c.name, json.loads(c.raw_arguments)) for c in back.calls]
    assert sent == ([("get_weather", {"city": "Oslo"})] if with_finished_call else [])
    # alone, the output was cut, whatever was claimed
    assert back.finish_reason == ("tool_calls" if with_finished_call else "length")
    assert any("truncated call to 'delete_files' was held back" in n for n in encoder.lossy)
    assert encoder.calls_held_back == 1


def test_g1_anthropic_stop_reason_is_max_tokens_in_stream_and_body() -> None:
    stream = "".join(make_encoder("anthropic").encode(events(with_finished_call=False)))
    deltas = [line for line in stream.splitlines() if '"message_delta"' in line]
    assert '"stop_reason":"max_tokens"' in deltas[-1].replace(" ", "")
    body_encoder = make_encoder("anthropic", whole=True)
    body = json.loads("".join(body_encoder.encode(events(with_finished_call=False))))
    assert body["stop_reason"] == "max_tokens"
    assert [block["type"] for block in body["content"]] == ["text"]


@pytest.mark.parametrize("target", TARGETS)
def test_g1_convert_stream_holds_back_a_call_cut_under_tool_calls(target: str) -> None:
    """F33 + G1: the upstream cut a call and still said ``tool_calls``."""
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": "On it."}}]},
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_9",
                                "type": "function",
                                "function": {"name": "delete_files", "arguments": '{"path": "/tm'},
                            }
                        ]
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]},
    ]
    data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    conversion = convert_stream(data, "openai-chat", target)
    assert conversion.source.calls[0].status == "truncated"
    back = parse_stream(conversion.output, decoder_for(target))
    assert back.calls == [] and back.finish_reason == "length"
    assert any("held back" in note for note in conversion.lossy)


@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "openai-responses"])
def test_g1_stream_mode_leaves_a_cut_call_unfinished_and_says_so(target: str) -> None:
    """With ``arguments="stream"`` the call's start is out before the cut shows: it
    cannot be taken back, so it is never finished, the stop reason says cut, and
    ``lossy`` says what happened."""
    encoder = make_encoder(target, arguments="stream")
    output = "".join(encoder.encode(events(with_finished_call=True)))
    back = parse_stream(output, target)
    assert back.finish_reason == "length"
    assert [(c.name, c.status) for c in back.calls] == [
        ("get_weather", "complete"),
        ("delete_files", "truncated"),
    ]
    assert encoder.calls_emitted == 1 and encoder.calls_held_back == 1
    assert any("left unfinished" in note for note in encoder.lossy)

"""``toolwire convert`` through typer's CliRunner on a small app of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from corpus import real_captures, stream_cases
from typer.testing import CliRunner

from toolwire.cli.convert_cmd import convert
from toolwire.encoders import StreamConverter
from toolwire.parser import parse_stream

app = typer.Typer()
app.command()(convert)
runner = CliRunner()

OPENAI = (
    "".join(
        f"data: {json.dumps(chunk)}\n\n"
        for chunk in [
            {"choices": [{"index": 0, "delta": {"content": "Hi."}}]},
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "call_1",
                                    "type": "function",
                                    "function": {
                                        "name": "get_weather",
                                        "arguments": "{'city': 'Oslo'}",
                                    },
                                }
                            ]
                        },
                    }
                ]
            },
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ]
    )
    + "data: [DONE]\n\n"
)


def test_convert_stdin_to_anthropic() -> None:
    result = runner.invoke(app, ["--from", "openai-chat", "--to", "anthropic", "-"], input=OPENAI)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("event: message_start\n")
    parsed = parse_stream(result.stdout, "anthropic")
    assert parsed.text == "Hi."
    assert [(c.name, c.arguments) for c in parsed.calls] == [("get_weather", {"city": "Oslo"})]
    assert parsed.finish_reason == "tool_calls"  # F17: upstream said stop
    assert '"stop_reason":"tool_use"' in result.stdout


def test_convert_file_auto_detect_and_every_target(tmp_path: Path) -> None:
    source = tmp_path / "s.sse"
    source.write_text(OPENAI)
    for target, decoder in [
        ("openai-responses", "openai-responses"),
        ("gemini", "gemini"),
        ("gemini-array", "gemini"),
        ("ollama", "ollama"),
        ("openai-chat", "openai-chat"),
    ]:
        result = runner.invoke(app, ["--to", target, str(source)])
        assert result.exit_code == 0, result.output
        parsed = parse_stream(result.stdout, decoder)
        assert [c.arguments for c in parsed.calls] == [{"city": "Oslo"}], target


def test_convert_reports_what_it_cannot_express() -> None:
    cut = OPENAI.replace('"finish_reason": "stop"', '"finish_reason": "length"').replace(
        "{'city': 'Oslo'}", '{\\"city\\": \\"Os'
    )
    result = runner.invoke(app, ["--from", "openai-chat", "--to", "gemini", "-"], input=cut)
    assert result.exit_code == 0
    assert "not expressible in gemini" in result.stderr
    assert "truncated call" in result.stderr


def test_convert_rejects_unknown_formats_and_modes() -> None:
    bad = runner.invoke(app, ["--from", "nope", "--to", "anthropic", "-"], input="")
    assert bad.exit_code == 2 and "unknown format" in bad.stderr
    bad = runner.invoke(app, ["--to", "nope", "-"], input="")
    assert bad.exit_code == 2 and "cannot encode" in bad.stderr
    bad = runner.invoke(app, ["--arguments", "sometimes", "-"], input="")
    assert bad.exit_code == 2
    missing = runner.invoke(app, ["--to", "anthropic", "/no/such/file"])
    assert missing.exit_code == 2 and "cannot read" in missing.stderr


def test_a_wrong_from_is_an_error_on_stderr_not_a_stream_of_errors() -> None:
    """Nothing on stdout and exit 2, with the format the input looks like."""
    result = runner.invoke(app, ["--from", "anthropic", "--to", "openai-chat", "-"], input=OPENAI)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip() == (
        "toolwire: nothing in the input reads as anthropic "
        "(it looks like openai-chat: use --from openai-chat or --from auto)"
    )
    prose = runner.invoke(app, ["--from", "gemini", "-"], input="just some words\n")
    assert prose.exit_code == 2 and prose.stdout == ""
    assert "nothing in the input reads as gemini" in prose.stderr
    empty = runner.invoke(app, ["--from", "ollama", "-"], input="")
    assert empty.exit_code == 2 and "the input is empty" in empty.stderr


def test_every_corpus_stream_converts_from_its_own_format() -> None:
    """The hold-back for a given --from lets every real stream through, cut-off ones too."""
    cases = [c for c in stream_cases() if not c["format"].startswith("text:")]
    cases += [
        {
            "id": p.name,
            "format": p.parent.name.replace("openai", "openai-chat"),
            "input": p.read_text(),
        }
        for p in real_captures()
    ]
    for case in cases:
        result = runner.invoke(
            app, ["--from", case["format"], "--to", "anthropic", "-"], input=case["input"]
        )
        assert result.exit_code == 0, (case["id"], result.stderr)
        assert result.stdout.startswith("event: message_start\n"), case["id"]


def chat_sse(*deltas: dict[str, Any]) -> str:
    chunks = [{"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


SIGNED = {"extra_content": {"google": {"thought_signature": "SIG_A"}}}
HEADER = {"index": 0, "id": "c1", "type": "function", "function": {"name": "search"}}
ARGUMENTS = {"index": 0, "function": {"arguments": '{"q":"a"}'}}


def chat_calls(stdout: str) -> list[dict[str, Any]]:
    """The calls' entries that carry an id or an extra_content, in order."""
    entries = [
        entry
        for line in stdout.splitlines()
        if line.startswith("data: {")
        for choice in json.loads(line[6:])["choices"]
        for entry in choice["delta"].get("tool_calls", [])
    ]
    return [e for e in entries if "id" in e or "extra_content" in e]


@pytest.mark.parametrize("arguments", ["final", "stream"])
def test_convert_chat_to_chat_keeps_a_gemini_signature_on_its_call(arguments: str) -> None:
    """Gemini's OpenAI-compatible API puts a call's signature on its first entry: the
    call's header carries it out, however arguments go, and nothing is noted."""
    whole = {**HEADER, "function": {"name": "search", "arguments": '{"q":"a"}'}, **SIGNED}
    wire = chat_sse({"role": "assistant", "tool_calls": [whole]})
    args = ["--from", "openai-chat", "--to", "openai-chat", "--arguments", arguments, "-"]
    result = runner.invoke(app, args, input=wire)
    assert result.exit_code == 0, result.output
    [call] = chat_calls(result.stdout)
    assert (call["id"], call["extra_content"]) == ("c1", SIGNED["extra_content"])
    assert "not expressible" not in result.stderr


@pytest.mark.parametrize("arguments", ["final", "stream"])
def test_a_signature_on_a_later_entry_of_its_call_goes_out_on_it_or_is_noted(
    arguments: str,
) -> None:
    """A signature on a later entry of its call: read in one piece with the call's
    header (the CLI reads its input whole) or with arguments final, it goes out on the
    call; once a streamed header went out it cannot, and the note says so (not that the
    call was not delivered)."""
    wire = chat_sse({"tool_calls": [HEADER]}, {"tool_calls": [{**ARGUMENTS, **SIGNED}]})
    args = ["--from", "openai-chat", "--to", "openai-chat", "--arguments", arguments, "-"]
    whole = runner.invoke(app, args, input=wire)
    [call] = chat_calls(whole.stdout)
    assert call["extra_content"] == SIGNED["extra_content"]
    assert "not expressible" not in whole.stderr
    converter = StreamConverter("openai-chat", "openai-chat", arguments=arguments)
    out = converter.start()
    for message in wire.split("\n\n"):  # one SSE message at a time
        out += converter.feed(message + "\n\n")
    out += converter.close()
    [call] = chat_calls("".join(out))
    if arguments == "final":
        assert call["extra_content"] == SIGNED["extra_content"]
        assert converter.lossy == []
    else:
        assert "extra_content" not in call
        assert converter.lossy == [
            "a Gemini thought signature arrived after its call was sent; dropped"
        ]


def test_convert_gemini_to_gemini_keeps_a_calls_thought_signature() -> None:
    part = {"functionCall": {"name": "search", "args": {"q": "a"}}, "thoughtSignature": "SIG_G"}
    chunk = {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}]
    }
    result = runner.invoke(
        app, ["--from", "gemini", "--to", "gemini", "-"], input=f"data: {json.dumps(chunk)}\n\n"
    )
    assert result.exit_code == 0, result.output
    parts = [
        p
        for line in result.stdout.splitlines()
        if line.startswith("data: {")
        for c in json.loads(line[6:])["candidates"]
        for p in c["content"]["parts"]
        if "functionCall" in p
    ]
    assert [(p["functionCall"]["args"], p.get("thoughtSignature")) for p in parts] == [
        ({"q": "a"}, "SIG_G")
    ]
    assert "not expressible" not in result.stderr

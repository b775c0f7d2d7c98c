"""``toolwire convert`` through typer's CliRunner on a small app of its own."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from corpus import real_captures, stream_cases
from typer.testing import CliRunner

from toolwire.cli.convert_cmd import convert
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

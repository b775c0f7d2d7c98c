"""The CLI's output contract: `toolwire parse`, `repair` and `demo`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import REAL, real_captures, stream_cases
from typer.testing import CliRunner

import toolwire
from toolwire.cli import app

runner = CliRunner()
SRC = Path(__file__).resolve().parents[1] / "src"
CALL_KEYS = {"id", "name", "arguments", "partial_arguments", "status", "repairs", "errors"}


def case(case_id: str) -> dict:
    return next(c for c in stream_cases() if c["id"] == case_id)


def test_parse_prints_the_json_contract(tmp_path: Path) -> None:
    c = case("F1-truncated-length")
    stream = tmp_path / "s.sse"
    stream.write_text(c["input"])
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": c["tools"][0]}]))
    result = runner.invoke(
        app, ["parse", "--format", "openai-chat", "--tools", str(tools), str(stream)]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) >= {"calls", "text", "finish_reason", "usage"}
    (call,) = out["calls"]
    assert set(call) == CALL_KEYS
    assert call["status"] == "truncated" and call["arguments"] is None
    assert call["partial_arguments"] is not None
    assert out["finish_reason"] == "length"


def test_parse_reads_stdin_and_detects_the_format() -> None:
    data = (REAL / "anthropic/tool_use_response.sse").read_text()
    result = runner.invoke(app, ["parse", "-"], input=data)
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["calls"][0]["name"] == "get_weather"
    assert out["usage"]["input_tokens"] > 0


def test_parse_unknown_format_and_missing_file_fail_clearly(tmp_path: Path) -> None:
    bad = runner.invoke(app, ["parse", "--format", "nope", "-"], input="")
    assert bad.exit_code == 2
    assert "unknown format 'nope'" in bad.stderr
    missing = runner.invoke(app, ["parse", str(tmp_path / "absent.sse")])
    assert missing.exit_code == 2
    assert "cannot read" in missing.stderr


def test_parse_bad_tools_file_fails_clearly(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text('[{"description": "no name"}]')
    result = runner.invoke(app, ["parse", "--tools", str(tools), "-"], input="")
    assert result.exit_code == 2
    assert "name" in result.stderr


def test_parse_garbage_input_still_exits_zero_with_errors() -> None:
    result = runner.invoke(app, ["parse", "--format", "openai-chat", "-"], input="data: {oops\n\n")
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["calls"] == []
    assert out["errors"]


def test_repair_prints_the_value_and_json_form() -> None:
    plain = runner.invoke(app, ["repair", "{'a': True, 'b': None}"])
    assert plain.exit_code == 0
    assert json.loads(plain.stdout) == {"a": True, "b": None}
    detailed = runner.invoke(app, ["repair", "--json", "-"], input="{'a': 1}")
    out = json.loads(detailed.stdout)
    assert out["value"] == {"a": 1}
    assert out["status"] == "repaired"
    assert out["repairs"]


def test_repair_with_schema_coerces_and_validates(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(
        json.dumps(
            {"type": "object", "properties": {"n": {"type": "integer"}, "zip": {"type": "string"}}}
        )
    )
    result = runner.invoke(
        app, ["repair", "--json", "--schema", str(schema), '{"n": "42", "zip": "02134"}']
    )
    out = json.loads(result.stdout)
    assert out["value"] == {"n": 42, "zip": "02134"}
    assert out["status"] == "repaired"


def test_repair_exits_1_when_nothing_can_be_recovered() -> None:
    result = runner.invoke(app, ["repair", ""])
    assert result.exit_code == 1
    assert "nothing could be recovered" in result.stderr


def test_demo_streams_runs_on_bundled_data() -> None:
    result = runner.invoke(app, ["demo", "--streams"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "real openai" in result.stdout
    assert "F1-truncated-length" in result.stdout
    assert "truncated" in result.stdout
    assert "✗" not in result.stdout  # every stream with an expectation meets it


def test_demo_streams_reads_at_80_columns_and_its_counts_agree() -> None:
    result = runner.invoke(app, ["demo", "--streams"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    cases = stream_cases()
    for c in cases:  # conformance stream names are shown whole, not cut to "…"
        assert any(f"│ {c['id']} " in line for line in lines), c["id"]
    table_end = next(i for i, line in enumerate(lines) if line.startswith("└"))
    summary = " ".join(" ".join(lines[table_end + 1 :]).split())
    numbers = re.fullmatch(
        r"(\d+) streams \((\d+) real captures, (\d+) with an expected result\), (\d+) calls: "
        r"(\d+) complete, (\d+) repaired, (\d+) truncated \(.*?\), (\d+) invalid \(.*?\)\. "
        r"As expected: (\d+) of the (\d+) streams with an expected result\.",
        summary,
    )
    assert numbers, summary
    streams, real, expected, calls, complete, repaired, truncated, invalid, ok, of = map(
        int, numbers.groups()
    )
    assert streams == real + expected and expected == of == ok == len(cases)
    assert real == len(real_captures())
    assert calls == complete + repaired + truncated + invalid
    assert truncated >= 2 and invalid >= 1 and repaired >= 5


def test_entry_point_runs_as_a_module() -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire", "repair", "[1, 2,]"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [1, 2]


def test_a_tools_file_with_a_schema_that_is_not_json_schema_is_refused(tmp_path: Path) -> None:
    """Refused when loaded, naming the tool and the schema error, for parse and convert."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "get_weather", "parameters": {"type": "frobnicate"}}]))
    for command in (["parse"], ["convert", "--from", "openai-chat"]):
        result = runner.invoke(app, [*command, "--tools", str(tools), "-"], input="")
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        (line,) = result.stderr.splitlines()
        assert "tool 'get_weather'" in line and "not valid JSON Schema" in line
        assert "'frobnicate'" in line and "(at type)" in line


def test_a_tools_file_of_random_bytes_gets_a_message_about_the_file(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_bytes(bytes(range(128, 256)) * 2)
    result = runner.invoke(app, ["parse", "--tools", str(tools), "-"], input="")
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"toolwire: tools file {tools} is not JSON: it is not UTF-8 text (byte 0)"
    )


def test_version_and_short_help() -> None:
    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0
    assert version.stdout == f"toolwire {toolwire.__version__}\n"
    short = runner.invoke(app, ["-h"])
    assert short.exit_code == 0 and "Commands:" in short.stdout and "parse" in short.stdout


COMMANDS = [
    [],
    ["parse"],
    ["convert"],
    ["repair"],
    ["demo"],
    ["tools"],
    ["tools", "list"],
    ["tools", "call"],
    ["audit"],
    ["audit", "report"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "toolwire")
def test_help_names_values_shows_defaults_and_says_where_input_comes_from(
    command: list[str],
) -> None:
    """No type column (`<bool>`, `<str>` after options); defaults shown; FILE → stdin."""
    result = runner.invoke(app, [*command, "-h"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "<bool>" not in text
    options = " ".join(text.split("Options:", 1)[1].split())  # unwrapped
    assert not re.search(r"--[a-z-]+ <", options), options
    assert max(len(line) for line in text.splitlines()) <= 80
    if command in (["parse"], ["convert"]):
        assert "FILE" in text and "standard input when missing or -" in text
        assert "[default: auto]" in options
    if command == ["demo"]:
        assert "[default: 7" in options


def test_parse_warns_about_untrusted_calls_and_strict_fails_on_them(tmp_path: Path) -> None:
    """F1: a truncated call gets one line on stderr; --strict makes it exit 1."""
    c = case("F1-truncated-length")
    stream = tmp_path / "s.sse"
    stream.write_text(c["input"])
    default = runner.invoke(app, ["parse", "--format", "openai-chat", str(stream)])
    assert default.exit_code == 0
    assert json.loads(default.stdout)["calls"][0]["status"] == "truncated"
    (warning,) = default.stderr.splitlines()
    assert (
        warning
        == "toolwire: warning: call 'run_shell' (call_1) is truncated: its arguments were cut off"
    )
    strict = runner.invoke(app, ["parse", "--strict", "--format", "openai-chat", str(stream)])
    assert strict.exit_code == 1
    assert json.loads(strict.stdout) == json.loads(default.stdout)
    assert "is truncated" in strict.stderr


def test_parse_strict_fails_on_an_invalid_call_and_passes_a_good_one(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps(
            [
                {
                    "name": "get_weather",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                }
            ]
        )
    )

    def stream(arguments: str) -> str:
        delta = {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "c1",
                    "function": {"name": "get_weather", "arguments": arguments},
                }
            ]
        }
        chunks = [
            {"choices": [{"index": 0, "delta": delta}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
        return "".join(f"data: {json.dumps(x)}\n\n" for x in chunks) + "data: [DONE]\n\n"

    args = ["parse", "--strict", "--tools", str(tools), "-"]
    bad = runner.invoke(app, args, input=stream("{}"))
    assert bad.exit_code == 1
    (line,) = bad.stderr.splitlines()
    assert line == "toolwire: call 'get_weather' (c1) is invalid: missing required argument: 'city'"
    good = runner.invoke(app, args, input=stream('{"city": "Oslo"}'))
    assert good.exit_code == 0 and good.stderr == ""

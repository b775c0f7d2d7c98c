"""``toolwire chat --prompt``: one task against the replay server; one line on errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.replay import (
    Dialogue,
    ReplayServer,
    Script,
    anthropic_answer,
    call_stream,
    gemini_answer,
    ollama_answer,
    responses_answer,
    text_stream,
)

runner = CliRunner()
TOOLS = ["--tools", "tests.agent.chat_tools:add", "--audit", "none"]


def dialogue() -> Dialogue:
    broken = call_stream("add", ["{'a': 2, 'b': 3}"], "tool_calls")
    return Dialogue([Script(broken), Script(text_stream(["It is ", "5."]))])


def test_chat_prompt_json_prints_the_run() -> None:
    with ReplayServer({"m": dialogue()}) as up:
        args = ["chat", "--base-url", up.url, "--model", "m", "--prompt", "2+3?", "--json"]
        result = runner.invoke(app, [*args, *TOOLS])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["text"] == "It is 5."
    assert out["stop"] == "done" and out["turns"] == 2 and out["task_id"]
    assert out["usage"] == {"input_tokens": 60, "output_tokens": 14}
    [call] = out["calls"]
    assert {k: call[k] for k in ("id", "name", "status", "turn")} == {
        "id": "call_1",
        "name": "add",
        "status": "ok",
        "turn": 1,
    }
    assert call["repairs"]


def test_chat_prompt_prints_the_text() -> None:
    with ReplayServer({"m": dialogue()}) as up:
        args = ["chat", "--base-url", up.url, "--model", "m", "--prompt", "2+3?"]
        result = runner.invoke(app, [*args, *TOOLS])
    assert result.exit_code == 0, result.output
    assert result.stdout == "It is 5.\n"


def test_chat_prompt_says_what_the_wire_could_not_take() -> None:
    """A schema keyword Gemini lacks is dropped from the request: said on stderr (the
    text stays alone on stdout), and in --json's ``notes``."""
    tools = ["--tools", "tests.agent.chat_tools:look_up", "--audit", "none"]
    dropped = [
        "look_up: additionalProperties was dropped at $",
        "look_up: format 'uuid' was dropped at $.record",
    ]
    for as_json in (False, True):
        with ReplayServer({"m": gemini_answer("hi")}) as up:
            args = ["chat", "--format", "gemini", "--base-url", up.url + "/v1beta"]
            args += ["--model", "m", "--prompt", "x", "--api-key-env", "NO_SUCH_KEY_VAR"]
            result = runner.invoke(app, [*args, *tools, *(["--json"] if as_json else [])])
        assert result.exit_code == 0, result.output
        if as_json:
            assert json.loads(result.stdout)["notes"] == dropped
        else:
            assert result.stdout == "hi\n"
            assert result.stderr == "".join(f"toolwire: not sent as asked: {d}\n" for d in dropped)


def test_chat_upstream_error_is_one_line_and_exit_1() -> None:
    with ReplayServer({"m": Script([], always_fail=(401, None))}) as up:
        args = ["chat", "--base-url", up.url, "--model", "m", "--prompt", "hi"]
        result = runner.invoke(app, [*args, *TOOLS])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "upstream_error" in result.stderr and "401" in result.stderr
    assert "Traceback" not in result.output


def test_chat_usage_errors_are_one_line_and_exit_2() -> None:
    base = ["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    json_alone = runner.invoke(app, [*base, "--json"])
    assert json_alone.exit_code == 2 and "--json goes with --prompt" in json_alone.stderr
    bad_format = runner.invoke(app, [*base, "--prompt", "x", "--format", "nope", *TOOLS])
    assert bad_format.exit_code == 2 and "no upstream client for 'nope'" in bad_format.stderr
    bad_tools = runner.invoke(app, [*base, "--prompt", "x", "--tools", "nosuchmod:f"])
    assert bad_tools.exit_code == 2 and bad_tools.stderr.count("\n") == 1


def test_chat_without_prompt_reads_prompts_from_a_pipe() -> None:
    """Not a terminal: no live display, each panel printed once; EOF quits with 0."""
    with ReplayServer({"m": dialogue()}) as up:
        args = ["chat", "--base-url", up.url, "--model", "m"]
        result = runner.invoke(app, [*args, *TOOLS], input="2+3?\n")
        [request, _] = up.requests
    assert result.exit_code == 0, result.output
    assert request.body["messages"] == [{"role": "user", "content": "2+3?"}]
    out = result.stdout
    assert out.count("╭─ add ") == 1 and "python_literal" in out
    assert "It is 5.\ndone · 2 turns · 1 call · 60 in / 14 out tokens\n" in out


def test_chat_an_mcp_server_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"gone": {"command": "/nonexistent/server"}}}')
    args = ["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--audit", "none"]
    result = runner.invoke(app, [*args, "--mcp", str(config)], input="hi\n")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "gone" in result.stderr
    assert "Traceback" not in result.output


KEY_HEADERS = {  # where each format's server takes the key
    "openai-chat": ("authorization", "Bearer {}"),
    "openai-responses": ("authorization", "Bearer {}"),
    "anthropic": ("x-api-key", "{}"),
    "gemini": ("x-goog-api-key", "{}"),
}
ANSWERS = {
    "openai-chat": lambda: Script(text_stream(["hi"])),
    "openai-responses": lambda: responses_answer("hi"),
    "anthropic": lambda: anthropic_answer("hi"),
    "gemini": lambda: gemini_answer("hi"),
    "ollama": lambda: ollama_answer("hi"),
}
BASES = {"gemini": "/v1beta", "ollama": ""}


@pytest.mark.parametrize("key_env", [None, "MY_KEY"], ids=["default", "--api-key-env"])
@pytest.mark.parametrize("wire", list(ANSWERS))
def test_chat_sends_the_key_from_the_formats_variable_or_the_one_named(
    wire: str, key_env: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By default the key comes from OPENAI_API_KEY / ANTHROPIC_API_KEY / GEMINI_API_KEY
    by format (Ollama takes none); ``--api-key-env`` names another variable."""
    keys = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a", "GEMINI_API_KEY": "g-k"}
    for name, value in {**keys, "MY_KEY": "mine"}.items():
        monkeypatch.setenv(name, value)
    with ReplayServer({"m": ANSWERS[wire]()}, default="m") as up:
        base = f"http://127.0.0.1:{up.port}{BASES.get(wire, '/v1')}"
        args = ["chat", "--base-url", base, "--model", "m", "--prompt", "hi", "--format", wire]
        if key_env is not None:
            args += ["--api-key-env", key_env]
        result = runner.invoke(app, [*args, "--audit", "none"])
        headers = up.requests[-1].headers
    assert (result.exit_code, result.stdout) == (0, "hi\n"), result.output
    sent = {h: headers.get(h) for h in ("authorization", "x-api-key", "x-goog-api-key")}
    if wire == "ollama" and key_env is None:
        assert set(sent.values()) == {None}
        return
    header, shape = KEY_HEADERS.get(wire, ("authorization", "Bearer {}"))
    defaults = {"openai": "sk-o", "anthropic": "sk-a", "gemini": "g-k"}
    key = "mine" if key_env else defaults[wire.split("-")[0]]
    assert sent[header] == shape.format(key)
    assert [h for h, v in sent.items() if v is not None] == [header]

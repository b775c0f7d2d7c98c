"""``--config FILE``: several models, aliases for the names Claude Code sends, limits,
the gateway's own keys; an unknown model is the client's own 404."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from gateway.serving import KEY, GatewayServer
from typer.testing import CliRunner
from upstream import ScriptedUpstream

from toolwire.cli import app
from toolwire.gateway.config import ConfigError, load_config

pytestmark = pytest.mark.gateway

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM_KEY = "upstream-secret"


def readme_example() -> str:
    """The config example in the README's Gateway section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### Config file") :]
    found = re.search(r"```toml\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


def test_the_readme_example_is_a_valid_config(tmp_path: Path) -> None:
    path = tmp_path / "toolwire.toml"
    path.write_text(readme_example())
    loaded = load_config(path)
    config = loaded.config
    assert (loaded.host, loaded.port, loaded.audit) == ("127.0.0.1", 8787, "toolwire-audit.db")
    assert [r.name for r in config.routes] == ["qwen-coder", "small"]
    coder = config.resolve("claude-sonnet-4-6")
    assert coder is not None and coder.model == "Qwen/Qwen3-Coder-30B-A3B-Instruct"
    assert (coder.max_output_tokens, coder.timeouts.read, coder.retry.attempts) == (16384, 300, 3)
    small = config.resolve("claude-haiku-4-5")
    assert small is not None and small.name == "small"
    assert config.resolve("mistral-large") is None  # no --upstream: not served
    assert (config.limits.max_streams, config.limits.requests_per_minute) == (8, 120)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[models.a]\nupstream = 'http://x/v1'\nmodle = 'm'\n", "unknown key 'modle'"),
        ("[models.a]\nupstream = 'ftp://x'\n", "http(s) URL"),
        ("[models.a]\nupstream = 'http://x/v1'\nformat = 'grpc'\n", "not supported"),
        ("[models.a]\nupstream = 'http://x/v1'\n[aliases]\n'claude-*' = 'b'\n", "no configured"),
        ("[models.a]\nupstream = 'http://x/v1'\nmax_output_tokens = '5'\n", "wrong type"),
        ("[gateway]\nport = 1\n", "no [models.NAME]"),
        ("[models.a\n", "not valid TOML"),
    ],
)
def test_bad_config_files_are_refused_in_one_line(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(says)):
        load_config(path)
    result = CliRunner().invoke(app, ["serve", "--config", str(path), "--audit", "none"])
    assert result.exit_code == 2
    assert says in result.output
    assert "Traceback" not in result.output


@pytest.fixture(scope="module")
def routed(
    upstream: ScriptedUpstream, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GatewayServer]:
    path = tmp_path_factory.mktemp("config") / "toolwire.toml"
    path.write_text(
        f"""
[gateway]
api_keys = ["{KEY}"]

[models.coder]
upstream = "{upstream.url}"
model = "python-dict"
api_key_env = "TOOLWIRE_TEST_UPSTREAM_KEY"

[models.small]
upstream = "{upstream.url}"
model = "text"
max_output_tokens = 50
read_timeout = 2

[aliases]
"claude-*sonnet*" = "coder"
"claude-*haiku*" = "small"
"""
    )
    with GatewayServer(load_config(path).config) as server:
        yield server


def test_aliases_route_claude_code_names_to_configured_models(
    routed: GatewayServer, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLWIRE_TEST_UPSTREAM_KEY", UPSTREAM_KEY)
    client = anthropic.Anthropic(base_url=routed.url, api_key=KEY, max_retries=0)
    request: dict[str, Any] = {
        "max_tokens": 4000,
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
    }
    message = client.messages.create(model="claude-sonnet-4-6", **request)
    assert message.model == "claude-sonnet-4-6"  # the name the client asked for
    assert [b.input for b in message.content if b.type == "tool_use"] == [
        {"city": "Lima", "days": "2"}
    ]
    sent = upstream.requests[-1]
    assert sent.body["model"] == "python-dict"
    assert sent.headers["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert sent.body["max_tokens"] == 4000
    small = client.messages.create(model="claude-haiku-4-5", **request)
    assert [b.text for b in small.content if b.type == "text"] == ["Hello, world."]
    assert upstream.requests[-1].body["model"] == "text"
    assert upstream.requests[-1].body["max_tokens"] == 50  # the model's limit


def test_an_unknown_model_is_404_in_each_clients_format(routed: GatewayServer) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        anthropic.Anthropic(base_url=routed.url, api_key=KEY, max_retries=0).messages.create(
            model="claude-opus-4-1", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        )
    assert caught.value.body["error"]["type"] == "not_found_error"  # type: ignore[index]
    openai_client = openai.OpenAI(base_url=routed.url + "/v1", api_key=KEY, max_retries=0)
    with pytest.raises(openai.NotFoundError):
        openai_client.chat.completions.create(
            model="gpt-9", messages=[{"role": "user", "content": "x"}]
        )
    with pytest.raises(openai.NotFoundError):
        openai_client.responses.create(model="gpt-9", input="x")
    listed = httpx.get(routed.url + "/v1/models", headers={"x-api-key": KEY}).json()
    assert [m["id"] for m in listed["data"]] == ["coder", "small"]

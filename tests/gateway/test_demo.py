"""``toolwire demo``: the gateway end to end on the bundled open-model streams, with the
real SDKs. Its table and its counts must agree, at 80 columns."""

from __future__ import annotations

import re
import sys

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.replay.recorded import open_model_streams

pytestmark = pytest.mark.gateway

runner = CliRunner()

SUMMARY = re.compile(
    r"(\d+) broken streams .*? in [\d.]+ s\. "
    r"Directly, the openai SDK got the right calls from (\d+) of (\d+) streams: "
    r"(\d+) calls unusable .*?, (\d+) cut-off calls handed over as calls, (\d+) more streams "
    r".*? Through toolwire: right for the openai SDK on (\d+) of \d+, for the anthropic SDK "
    r"on (\d+) of \d+; (\d+) streams with named repairs, (\d+) cut-off calls held back"
)


def test_demo_shows_each_client_directly_and_through_the_gateway_and_its_counts_agree() -> None:
    result = runner.invoke(app, ["demo"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    streams = open_model_streams()
    # one row a stream: its first line holds the name and both verdicts
    rows = [line.split("│")[1:4] for line in lines if re.match(r"│ \S", line)]
    assert len(rows) == len(streams)
    for (name, _, _), stream in zip(rows, streams, strict=True):
        assert stream.name.startswith(name.strip().rstrip("…"))
    end = next(i for i, line in enumerate(lines) if line.startswith("└"))
    summary = " ".join(" ".join(lines[end + 1 :]).split())
    found = SUMMARY.search(summary)
    assert found, summary
    n, direct_right, n_again, unusable, handed, other, via_openai, via_anthropic, repaired, held = (
        map(int, found.groups())
    )
    assert n == n_again == len(streams)
    assert direct_right == sum(direct.strip().startswith("✓") for _, direct, _ in rows)
    assert via_openai == sum(via.strip().startswith("✓ ") for _, _, via in rows)
    assert via_anthropic == sum(via.strip()[2:3] == "✓" for _, _, via in rows)
    cut = [s for s in streams if any(c.get("status") == "truncated" for c in s.expect["calls"])]
    assert held == len(cut) == sum("cut-off, held back" in via for _, _, via in rows)
    assert handed == sum("cut-off call handed" in direct for _, direct, _ in rows)
    # what the demo exists to show: the gateway gets every stream right for both clients
    assert via_openai == via_anthropic == n
    assert unusable >= 5 and other >= 1
    assert repaired >= 5


def test_demo_without_the_sdks_says_how_to_get_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # import anthropic → ImportError
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 2
    assert "pip install 'toolwire[demo]'" in result.output
    assert "Traceback" not in result.output

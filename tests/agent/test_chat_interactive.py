"""The interactive ``toolwire chat``, driven as a person would: the real program in a
pseudo-terminal (keys in, screen out), against the replay server on loopback. What the
model receives after each prompt is read from the server's request log."""

from __future__ import annotations

import fcntl
import json
import os
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolwire.agent.loop import cancelled_reply
from toolwire.replay import ReplayServer, Script, call_stream, text_stream

ROOT = Path(__file__).resolve().parents[2]
TOOLS = [f"--tools=tests.agent.chat_tools:{name}" for name in ("add", "remove", "wait")]
# the child makes the pseudo-terminal its controlling terminal, so that Ctrl-C (the
# byte 0x03) is turned into SIGINT by the terminal, as for a person at a keyboard
CHILD = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.executable, [sys.executable, '-m', 'toolwire', *sys.argv[1:]])"
)
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-B]|[=>])")
CTRL_C, CTRL_D = b"\x03", b"\x04"


class Terminal:
    """A program in a pseudo-terminal: ``send`` keys, ``expect`` text on the screen
    (escape sequences removed), read from the point the last ``expect`` matched."""

    def __init__(self, args: list[str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 140, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT / "src")}
        env.pop("COLUMNS", None)
        env.pop("NO_COLOR", None)
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.raw = b""
        self.seen = 0  # where the next expect starts looking
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:  # the program ended (EIO on Linux)
                return
            if not data:
                return
            with self._lock:
                self.raw += data

    @property
    def screen(self) -> str:
        with self._lock:
            text = self.raw.decode("utf-8", "replace")
        return ANSI.sub("", text).replace("\r", "")

    def expect(self, pattern: str, timeout: float = 15) -> str:
        """Wait for ``pattern`` (a regex) after the last match; the text up to it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen
            found = re.compile(pattern).search(screen, self.seen)
            if found:
                before = screen[self.seen : found.end()]
                self.seen = found.end()
                return before
            time.sleep(0.02)
        raise AssertionError(
            f"{pattern!r} not on the screen; after the last match:\n{self.screen[self.seen :]}"
        )

    def send(self, keys: bytes | str) -> None:
        os.write(self.master, keys.encode() if isinstance(keys, str) else keys)

    def line(self, text: str) -> None:
        self.send(text + "\r")

    def wait(self, timeout: float = 15) -> int:
        code = self.process.wait(timeout)
        self._reader.join(5)
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        os.close(self.master)


def answer(body: Any) -> Script:
    """The scripted model: it answers by the last prompt (word one), and once the
    prompt's calls have their replies, with text."""
    messages = body["messages"]
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    prompt = str(messages[last]["content"])
    replied = any(m["role"] == "tool" for m in messages[last:])
    if prompt.startswith("add") and not replied:  # Python-style arguments: repaired
        return Script(call_stream("add", ["{'a': 2, 'b': 3}"], "tool_calls"))
    if prompt.startswith("remove") and not replied:  # a destructive tool: held
        call_id = f"call_{prompt.split()[-1]}"
        return Script(call_stream("remove", ['{"path": "/tmp/x"}'], "tool_calls", call_id))
    if prompt.startswith("wait") and not replied:  # a tool that takes 30 s
        return Script(call_stream("wait", ['{"seconds": 30}'], "tool_calls", "call_wait"))
    if prompt.startswith("slow"):  # 40 words, 0.2 s apart: time to press Ctrl-C
        return Script(text_stream([f"word{i} " for i in range(40)]), chunk_delay=0.2)
    return Script(text_stream([f"Answer to {prompt}", "."]))


@pytest.fixture
def upstream() -> Iterator[ReplayServer]:
    with ReplayServer({"m": answer}) as server:
        yield server


def chat(url: str, *more: str) -> Terminal:
    return Terminal(["chat", "--base-url", url, "--model", "m", "--audit", "none", *more])


@pytest.fixture
def term(upstream: ReplayServer) -> Iterator[Terminal]:
    terminal = chat(upstream.url, *TOOLS)
    terminal.expect(r"3 tools .*\n> ")
    yield terminal
    terminal.close()


def last_messages(upstream: ReplayServer) -> list[dict[str, Any]]:
    return list(upstream.requests[-1].body["messages"])


def test_a_turn_of_text_and_a_call_panel_with_its_repair(
    term: Terminal, upstream: ReplayServer
) -> None:
    term.line("add 2 and 3")
    shown = term.expect(r"Answer to add 2 and 3\.\n")
    panel = shown[shown.index("╭") :]
    assert "add" in panel and '{"a":2,"b":3}' in panel
    assert re.search(r"status +ok \(wire: repaired\)", panel)
    assert re.search(r"repairs +python_literal", panel)  # the repair made on the wire
    assert re.search(r"result +5 ", panel) and re.search(r"time +\d+ ms", panel)
    term.expect(r"done · 2 turns · 1 call · 60 in / 14 out tokens\n> ")
    term.send(CTRL_C)  # at the prompt: a hint, and a second one quits
    term.expect(r"Ctrl-C again, Ctrl-D or /exit to quit\.\n> ")
    term.send(CTRL_C)
    assert term.wait() == 0
    assert "Traceback" not in term.screen


def git(repo: Path, *args: str) -> str:
    command = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    return subprocess.run([*command, *args], check=True, capture_output=True, text=True).stdout


def test_a_destructive_mcp_tool_is_asked_about_yes_then_no(tmp_path: Path) -> None:
    """mcp-server-git's ``git_reset`` says it is destructive: the engine holds it and the
    chat asks. Yes: the staged file is unstaged for real; no: it stays staged and the
    model is told the user declined."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "first")
    (repo / "b.txt").write_text("two\n")
    git(repo, "add", "b.txt")
    config = tmp_path / "mcp.json"
    server = {
        "command": sys.executable,
        "args": ["-m", "mcp_server_git", "--repository", str(repo)],
    }
    config.write_text(json.dumps({"mcpServers": {"git": server}}))
    reset = json.dumps({"repo_path": str(repo)})

    def model(body: Any) -> Script:
        messages = body["messages"]
        prompt = str(messages[-1]["content"])
        if messages[-1]["role"] == "user" and prompt.startswith("reset"):
            call_id = f"call_{prompt.split()[-1]}"
            return Script(call_stream("git_reset", [reset], "tool_calls", call_id))
        return Script(text_stream(["Done", "."]))

    with ReplayServer({"m": model}) as up:
        term = chat(up.url, "--mcp", str(config))
        try:
            term.expect(r"tools .*\n> ", timeout=30)
            term.line("reset one")
            held = term.expect(r"Run git_reset\? \[y/N\] ")
            assert re.search(r"status +needs approval", held)
            assert "tool 'git_reset' is marked destructive" in held
            assert git(repo, "diff", "--cached", "--name-only") == "b.txt\n"  # not run yet
            term.line("y")
            ran = term.expect(r"Done\.\n.*\n> ")
            assert re.search(r"status +ok", ran)
            assert git(repo, "diff", "--cached", "--name-only") == ""  # it ran
            git(repo, "add", "b.txt")
            term.line("reset two")
            term.expect(r"Run git_reset\? \[y/N\] ")
            term.line("n")
            refused = term.expect(r"Done\.\n.*\n> ")
            assert re.search(r"status +denied", refused)
            assert git(repo, "diff", "--cached", "--name-only") == "b.txt\n"  # it did not
            [reply] = [m for m in last_messages(up) if m.get("tool_call_id") == "call_two"]
            assert "not approved: the user declined it" in reply["content"]
            term.send(CTRL_D)
            assert term.wait() == 0
        finally:
            term.close()


def test_ctrl_c_cancels_the_turn_and_the_conversation_goes_on(
    term: Terminal, upstream: ReplayServer
) -> None:
    """Ctrl-C while the model streams, while a tool runs, at an approval question:
    each time the turn ends, the prompt comes back, and the next request carries the
    conversation with one reply per call (G5)."""
    term.line("add first")
    term.expect(r"Answer to add first\.\n.*\n> ")
    before = last_messages(upstream)
    term.line("slow story")
    term.expect(r"word2 ")
    term.send(CTRL_C)
    term.expect(r"cancelled · the conversation goes on\n> ")
    assert upstream.disconnects, "the model's stream was closed"
    term.line("wait for it")
    term.expect(r"status +running")  # the live panel of the running call
    term.send(CTRL_C)
    cancelled = term.expect(r"cancelled · the conversation goes on\n> ")
    assert re.search(r"status +cancelled", cancelled)
    term.line("remove three")
    term.expect(r"Run remove\? \[y/N\] ")
    term.send(CTRL_C)
    term.expect(r"cancelled · the conversation goes on\n> ")
    term.line("and now?")
    term.expect(r"Answer to and now\?\.\n.*\n> ")
    sent = last_messages(upstream)
    assert sent[: len(before)] == before  # the earlier turns as they were
    rest = sent[len(before) :]
    # the first prompt's answer, then the cancelled prompt with the text the model
    # had sent before the cancel
    assert rest[0] == {"role": "assistant", "content": "Answer to add first."}
    assert rest[1] == {"role": "user", "content": "slow story"}
    assert rest[2]["role"] == "assistant"
    assert rest[2]["content"].startswith("word0 word1 word2 ")
    assert "word39" not in rest[2]["content"]
    # each cancelled call: the model's call and one reply saying what became of it
    # (the running tool was cut; the call held at its question never ran)
    for at, prompt, call_id, said in (
        (3, "wait for it", "call_wait", cancelled_reply("wait", started=True)),
        (6, "remove three", "call_three", cancelled_reply("remove", started=False)),
    ):
        user, assistant, reply = rest[at : at + 3]
        assert user == {"role": "user", "content": prompt}
        assert [c["id"] for c in assistant["tool_calls"]] == [call_id]
        assert reply == {"role": "tool", "tool_call_id": call_id, "content": said}
    assert rest[9:] == [{"role": "user", "content": "and now?"}]
    term.line("/exit")
    assert term.wait() == 0


def test_an_unreachable_upstream_is_one_line_and_the_prompt_comes_back() -> None:
    terminal = chat("http://127.0.0.1:9/v1")
    try:
        terminal.expect(r"0 tools .*\n> ")
        terminal.line("hi")
        shown = terminal.expect(r"\n> ", timeout=30)
        lines = [line for line in shown.splitlines() if line.strip()]
        assert lines[1:-1] == [
            "toolwire: the run stopped (upstream_error): cannot reach the upstream at "
            "http://127.0.0.1:9/v1/chat/completions"
        ], lines
        terminal.line("/quit")
        assert terminal.wait() == 0
        assert "Traceback" not in terminal.screen
    finally:
        terminal.close()

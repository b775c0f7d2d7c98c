"""Scripted answers for the loop's tests: the replay server (``toolwire.replay``) on
loopback, in the shapes OpenAI-compatible servers send."""

from __future__ import annotations

from typing import Any

from toolwire.client import ModelClient, RetryPolicy
from toolwire.replay import DONE, ReplayServer, Script, chat_chunk, text_stream, usage_chunk


def calls_answer(
    *calls: tuple[str | None, str, str],
    usage: tuple[int, int] = (40, 12),
    finish: str = "tool_calls",
) -> list[bytes]:
    """One answer with parallel calls ``(id, name, arguments as sent)``; no ``id``
    field where the id is None."""
    chunks = [chat_chunk({"role": "assistant", "content": None})]
    for index, (call_id, name, arguments) in enumerate(calls):
        head: dict[str, Any] = {"index": index, "type": "function"}
        if call_id is not None:
            head["id"] = call_id
        function = {"name": name, "arguments": arguments}
        chunks.append(chat_chunk({"tool_calls": [{**head, "function": function}]}))
    return [*chunks, chat_chunk({}, finish), usage_chunk(*usage), DONE]


class ByTurn:
    """Answers by the number of assistant messages in the request (turn n gets
    ``turns[n]``; past the end, a text answer)."""

    def __init__(self, turns: list[Script]) -> None:
        self.turns = turns

    def __call__(self, body: Any) -> Script:
        done = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return self.turns[done] if done < len(self.turns) else Script(text_stream(["end"]))


def serve(*turns: list[bytes] | Script) -> ReplayServer:
    """A server answering turn by turn."""
    scripts = [t if isinstance(t, Script) else Script(t) for t in turns]
    return ReplayServer({"dialogue": ByTurn(scripts)}, default="dialogue")


def client_for(server: ReplayServer) -> ModelClient:
    return ModelClient(
        "openai-chat", server.url, model="m", retry=RetryPolicy(attempts=1, backoff=0.01)
    )


def replies(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The (call id, reply) of every tool message, in order."""
    return [(m["tool_call_id"], m["content"]) for m in messages if m["role"] == "tool"]

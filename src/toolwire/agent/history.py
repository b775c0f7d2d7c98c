"""A run's history: the messages of the conversation, in Chat Completions shape.

Why Chat shape and not each server's own wire format: the upstream client
(``ModelClient.prepare``) already puts a Chat request into every wire format it speaks,
for the gateway as for the loop, so one history serves all five formats, can be
resumed against another server, and holds only JSON (``json.dumps`` / ``json.loads``
round-trip it). The reasoning of a turn with calls is kept in the fields Chat-shaped
APIs use for it, which the translators put back in each wire's own shape:
``reasoning_content`` (its text, as DeepSeek and Qwen take it back; Ollama gets it as
``thinking``), ``thinking_blocks`` (Anthropic's thinking and redacted_thinking blocks
whole, signatures included, as LiteLLM keeps them) and, on a call,
``extra_content.google.thought_signature`` (Gemini's, as its OpenAI-compatible API
puts it). A Responses reasoning item is not kept. The raw text of every call stays in
the audit, not here.

Every call in a history has exactly one reply (a ``tool`` message with its id) before
the next assistant message: ``check_history`` says where a given history breaks that.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from toolwire.events import ToolCall
from toolwire.jsontext import dumps
from toolwire.providers.requests import Notes, pass_back_reasoning


def start_messages(
    history: Sequence[dict[str, Any]] | None, system: str | None, prompt: str | None
) -> list[dict[str, Any]]:
    """The messages a run starts from: a copy of ``history`` (or the system prompt),
    then the user's ``prompt`` (None: none, to resume a history as it stands)."""
    if history:
        check_history(history)
        messages = [dict(m) for m in history]
    else:
        if prompt is None:
            raise ValueError("a run needs a prompt, or a history to resume")
        messages = [{"role": "system", "content": system}] if system else []
    if prompt is not None:
        messages.append({"role": "user", "content": prompt})
    return messages


def check_history(messages: Sequence[Any]) -> None:
    """Raise ValueError unless every call has an id of its own in the conversation and
    exactly one reply, before the next turn."""
    waiting: list[str] = []
    seen: set[str] = set()
    for at, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ValueError(f"history message {at} is not a Chat message object")
        role = message["role"]
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in waiting:
                raise ValueError(f"history message {at} replies to no open call ({call_id!r})")
            waiting.remove(call_id)
            continue
        if waiting:
            raise ValueError(f"history message {at}: calls without a reply: {', '.join(waiting)}")
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
                raise ValueError(f"history message {at}: tool_calls is not a list of objects")
            waiting = [str(c.get("id")) for c in calls]
            repeated = sorted({i for i in waiting if i in seen or waiting.count(i) > 1})
            if repeated:
                twice = ", ".join(repeated)
                raise ValueError(f"history message {at}: call ids used twice: {twice}")
            seen.update(waiting)
    if waiting:
        raise ValueError(f"the history ends with calls without a reply: {', '.join(waiting)}")


def used_ids(messages: Iterable[dict[str, Any]]) -> set[str]:
    return {
        str(call.get("id"))
        for message in messages
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or []
    }


def unique_ids(calls: list[ToolCall], turn: int, taken: set[str]) -> list[ToolCall]:
    """Each call under the id the model sent, unless that id is missing or already in
    the conversation (F32: local servers send ``call_0`` for every call, every turn):
    then under ``<id>_t<turn>_<n>``, since two calls under one id would share replies
    (and Anthropic refuses a repeated ``tool_use`` id anywhere in the messages)."""
    out: list[ToolCall] = []
    for n, call in enumerate(calls):
        if not call.id or call.id in taken:
            fresh = f"{call.id or 'call'}_t{turn}_{n}"
            again = 1
            while fresh in taken:  # the model may have sent that very id before
                fresh, again = f"{call.id or 'call'}_t{turn}_{n}_{again}", again + 1
            call = dataclasses.replace(call, id=fresh)
        taken.add(call.id or "")
        out.append(call)
    return out


def assistant_message(
    text: str,
    calls: Sequence[ToolCall],
    names: Sequence[str] | None = None,
    *,
    reasoning: str = "",
    thinking_blocks: Sequence[dict[str, Any]] = (),
    signatures: Sequence[str | None] | None = None,
) -> dict[str, Any]:
    """The model's turn as the next request carries it: each call under ``names`` (the
    engine's resolved names, else the parser's) with its arguments as the repaired
    JSON (a call with none fit to send, truncated or unreadable, as ``{}``). A turn
    with calls keeps its reasoning (see the module's text): ``reasoning`` (text not in
    a signed block), ``thinking_blocks`` and each call's Gemini ``signatures``; the
    reasoning of a turn without calls is dropped, as the gateway drops it."""
    if not calls:
        return {"role": "assistant", "content": text}
    tool_calls: list[dict[str, Any]] = []
    for n, call in enumerate(calls):
        entry: dict[str, Any] = {
            "id": call.id,
            "type": "function",
            "function": {
                "name": names[n] if names else call.name,
                "arguments": dumps(call.arguments if call.arguments is not None else {}),
            },
        }
        if signatures and signatures[n] is not None:
            entry["extra_content"] = {"google": {"thought_signature": signatures[n]}}
        tool_calls.append(entry)
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    message["tool_calls"] = tool_calls
    if thinking_blocks:
        message["thinking_blocks"] = list(thinking_blocks)
    pass_back_reasoning(message, reasoning, Notes())  # the gateway's rule (DeepSeek's)
    return message


def tool_message(call_id: str | None, reply: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": reply}

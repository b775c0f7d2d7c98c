"""OpenAI Responses API streaming events (``response.*``) → assembler.

Each function call is an output item: ``response.output_item.added`` carries its
``call_id`` and name, ``response.function_call_arguments.delta`` the argument text,
``response.output_item.done`` closes it. The terminal event is ``response.completed``,
``response.incomplete`` (with the reason) or ``response.failed``. Some servers send
only the ``.done`` events; their full text is used when no deltas came before, and
never appended after deltas (that would read as a cumulative snapshot, F7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.assemble import CallAssembler
from toolwire.providers.base import Raw, SSEWireDecoder, raw_text
from toolwire.providers.envelope import ARGUMENTS, REASONING, TEXT, Role
from toolwire.providers.openai_chat import openai_usage, usage_keys
from toolwire.sse import SSEMessage

_CALL_ITEMS = ("function_call",)
_USAGE = usage_keys("input", "output")  # the Responses API's names of the counts

# Every event holds its ``sequence_number``, which no two share and this decoder never
# reads: a delta event's envelope lets it differ (``Envelope.gap``)
_SEQUENCE = b'"sequence_number":'


def _read_delta(event: Any) -> Any:
    """How a delta event's string is read (for envelope learning)."""
    return event["delta"]


class OpenAIResponsesDecoder(SSEWireDecoder):
    format_name = "openai-responses"

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._calls: dict[int, bool] = {}  # output_index of a call → arguments seen
        self._by_item: dict[str, int] = {}  # item id → output_index
        self._texts: set[str] = set()  # message/reasoning items that streamed deltas

    def on_message(self, message: SSEMessage) -> None:
        if not message.data or message.data == "[DONE]":
            return
        event = self.load_json(message.data)
        if not isinstance(event, dict):
            return
        self._read_event(event.get("type") or message.event, event, message.data)

    # Envelopes are learned from a role's first delta (``learn_after`` 0): a stream of
    # 4 argument deltas costs 415 K instructions that way against 448 K never learning,
    # of 8 451 K against 545 K, of 32 894 K against 1,412 K (callgrind, 2026-12-05;
    # waiting for 3 deltas saved 3% at 16 and cost 2-7% elsewhere)
    learn_after = 0

    # the common block (one data line holding a JSON object) is parsed from its bytes
    # and handed to ``on_json``, without the SSE message and its text (with argument
    # deltas appended plainly below: 14,000 events of 16-byte argument deltas 6.8x ->
    # 4.9x the floor's time, bench_stream.py; every event's ``sequence_number``
    # differs, so no envelope reads them)
    reads_json = True

    def on_json(self, value: dict[str, Any], event: bytes | None, data: bytes) -> None:
        """What ``on_message`` does with an event read without repair."""
        kind = value.get("type") or (event.decode("utf-8", "replace") if event else None)
        self._read_event(kind, value, data)

    def on_value(self, value: dict[str, Any]) -> None:
        self._read_event(value.get("type"), value, "")

    def _read_event(self, kind: Any, event: dict[str, Any], raw: Raw) -> None:
        """``on_event``; an event whose shape it cannot read is a message lost."""
        try:
            self.on_event(str(kind), event, raw)
        except (AttributeError, TypeError, ValueError) as exc:  # a malformed event
            self.sink.message_lost(f"unreadable {kind} event: {exc}", raw_text(raw))

    def _learn(self, event: dict[str, Any], role: Role, slot: int | None) -> None:
        """A delta event whose every other member is read as it is in any event of the
        same bytes (its type, item id and output index: what an envelope keeps) or
        never read (its sequence number, which the envelope lets differ): its
        envelope is learned once its role's count of slow readings is down. Argument
        deltas only where their own ``output_index`` names the call: one found by its
        item id alone may belong to another call later (an item added again at
        another index), and an envelope keeps the slot it learned."""
        if type(event.get("delta")) is not str or slot is None:
            return
        if role is ARGUMENTS and type(event.get("output_index")) is not int:
            return
        if self.learning[role]:
            self.learning[role] -= 1
        else:
            self.learn("delta", event["delta"], role, slot, _read_delta, number=_SEQUENCE)

    def _index(self, event: dict[str, Any]) -> int | None:
        index = event.get("output_index")
        if isinstance(index, int):
            return index
        item_id = event.get("item_id")
        return self._by_item.get(item_id) if isinstance(item_id, str) else None

    def on_event(self, kind: str, event: dict[str, Any], raw: Raw) -> None:
        sink = self.sink
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            self._texts.add(str(event.get("item_id")))
            text = self.string_field(event, "delta", "", raw)
            self._learn(event, TEXT, -1)
            self.text(text)
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self._texts.add(str(event.get("item_id")))
            text = self.string_field(event, "delta", "", raw)
            self._learn(event, REASONING, -1)
            sink.reasoning(text)
        elif kind == "response.function_call_arguments.delta":
            index = self._index(event)
            if index in self._calls:
                self._calls[index] = True
                text = self.argument_text(event, "delta", "", raw, index)
                self._learn(event, ARGUMENTS, index)
                # the plain append where it needs no routing (as the other wires do)
                if not sink.fast_arguments(index, text):
                    sink.tool(index, None, None, text)
        elif kind == "response.function_call_arguments.done":
            index = self._index(event)
            if index in self._calls and not self._calls[index]:
                self._calls[index] = True
                sink.tool(index, None, None, self.argument_text(event, "arguments", "", raw, index))
        elif kind == "response.output_item.added":
            self.on_item(event, raw, done=False)
        elif kind == "response.output_item.done":
            self.on_item(event, raw, done=True)
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self.on_terminal(kind, event.get("response") or {}, raw)
        elif kind == "error":
            sink.error(f"the upstream sent an error: {event.get('message', event)}", raw_text(raw))
            sink.set_finish_reason("error")
            self.finished = True

    def on_item(self, event: dict[str, Any], raw: Raw, *, done: bool) -> None:
        sink = self.sink
        item = event.get("item")
        index = event.get("output_index")
        if not isinstance(item, dict) or not isinstance(index, int):
            return
        item_id = item.get("id")
        if isinstance(item_id, str):
            self._by_item[item_id] = index
        itype = item.get("type")
        if itype in _CALL_ITEMS:
            call_id = item.get("call_id") or item_id
            if not done or index not in self._calls:
                self._calls.setdefault(index, False)
                sink.tool(
                    index, call_id if isinstance(call_id, str) else None, item.get("name"), None
                )
            if self._calls[index]:
                # its text came already: the item's copy of it is only checked
                self.string_field(item, "arguments", "item", raw)
            else:
                arguments = self.argument_text(item, "arguments", "item", raw, index)
                if arguments:
                    self._calls[index] = True
                    sink.tool(index, None, None, arguments)
            if done:
                sink.close_call(index=index, wait_for_finish=True)
        elif done and item_id not in self._texts:
            # an item sent whole, without deltas
            if itype == "message":
                for i, part in enumerate(item.get("content") or []):
                    if isinstance(part, dict):
                        output = part.get("type") == "output_text" and "text" in part
                        key = "text" if output and part["text"] is not None else "refusal"
                        self.text(self.string_field(part, key, f"item.content[{i}]", raw))
            elif itype == "reasoning":
                # a summary (OpenAI's models), else the reasoning text itself (open models)
                for key in ("summary", "content"):
                    parts = [
                        (i, part)
                        for i, part in enumerate(item.get(key) or [])
                        if isinstance(part, dict) and part.get("text") is not None
                    ]
                    where = f"item.{key}"
                    texts = [self.string_field(p, "text", f"{where}[{i}]", raw) for i, p in parts]
                    if any(type(part["text"]) is str for _, part in parts):
                        for text in texts:
                            sink.reasoning(text)
                        break

    def on_terminal(self, kind: str, response: dict[str, Any], raw: Raw) -> None:
        sink = self.sink
        usage = response.get("usage")
        if isinstance(usage, dict):
            sink.set_usage(openai_usage(usage, _USAGE))
        if kind == "response.completed":
            sink.set_finish_reason(str(response.get("status") or "completed"))
        elif kind == "response.incomplete":
            details = response.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            sink.set_finish_reason(reason if isinstance(reason, str) else "incomplete")
        else:
            error = response.get("error")
            detail = error.get("message") if isinstance(error, dict) else error
            sink.error(f"the response failed: {detail}", raw_text(raw))
            sink.set_finish_reason("failed")
        self.finished = True

"""Canonical events → OpenAI Responses API streaming events.

``response.created`` / ``response.in_progress``, then output items one at a time:
``message`` (``output_text`` deltas), ``reasoning`` (summary text deltas) and
``function_call`` (``function_call_arguments`` deltas), each opened with
``response.output_item.added`` and closed with its ``.done`` events; then
``response.completed``, ``response.incomplete`` (``max_output_tokens`` /
``content_filter``) or ``response.failed``. Every event has a ``sequence_number``.

A truncated function call is held back (``toolwire.cutoff``) and the response is
``incomplete`` (``completed`` when calls went out before it). With
``arguments="stream"`` its item may already be out when the cut shows: it gets no
``.done`` events, and the final response lists it as ``incomplete``.

``OpenAIResponsesBodyEncoder``: the ``response`` object of a non-streaming request,
the same object the stream's terminal event carries.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toolwire.encoders.base import StreamEncoder, arguments_text, sse, usage_or_empty
from toolwire.encoders.body import WholeBodyEncoder
from toolwire.events import StreamFinished, ToolCall, Usage


def responses_usage_dict(usage: Usage) -> dict[str, Any]:
    prompt = usage.input_tokens or 0
    completion = usage.output_tokens or 0
    return {
        "input_tokens": prompt,
        "input_tokens_details": {
            "cached_tokens": usage.cache_read_tokens or 0,
            "cache_write_tokens": usage.cache_write_tokens or 0,  # the SDK requires it
        },
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens or 0},
        "total_tokens": prompt + completion,
    }


class OpenAIResponsesEncoder(StreamEncoder):
    format_name = "openai-responses"

    def __init__(
        self, *, namespaces: Mapping[str, tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        """``namespaces``: qualified name → (namespace, name) for functions the request
        declared inside ``namespace`` tools; their calls go out split so."""
        super().__init__(**kwargs)
        self.namespaces = dict(namespaces or {})
        self._seq = 0
        self._items: list[dict[str, Any]] = []  # output items, by output_index
        self._open: dict[str, Any] | None = None  # the open message / reasoning item
        self._text_parts: list[str] = []

    def name_fields(self, name: str) -> dict[str, str]:
        """A call item's ``name`` (and ``namespace``, for a namespaced function)."""
        found = self.namespaces.get(name)
        if found is None:
            return {"name": name}
        return {"name": found[1], "namespace": found[0]}

    @property
    def response_id(self) -> str:
        return f"resp_{self.message_id}"

    def _event(self, name: str, data: dict[str, Any]) -> str:
        self._seq += 1
        return sse({"type": name, "sequence_number": self._seq - 1, **data}, event=name)

    def _response(self, status: str, **extra: Any) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "model": self.model,
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "error": None,
            "incomplete_details": None,
            "usage": None,
            "metadata": {},
            "text": {"format": {"type": "text"}},
        }
        body.update(extra)
        return body

    def _preamble(self) -> list[str]:
        return [
            self._event("response.created", {"response": self._response("in_progress")}),
            self._event("response.in_progress", {"response": self._response("in_progress")}),
        ]

    # -- items ------------------------------------------------------------------------

    def _add_item(self, item: dict[str, Any]) -> list[str]:
        self._items.append(item)
        return [
            self._event(
                "response.output_item.added",
                {"output_index": len(self._items) - 1, "item": copy.deepcopy(item)},
            )
        ]

    def _close_open(self) -> list[str]:
        item = self._open
        if item is None:
            return []
        self._open = None
        index = len(self._items) - 1
        text = "".join(self._text_parts)
        self._text_parts = []
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            part = {"type": "output_text", "text": text, "annotations": []}
            item["content"] = [part]
            out = [
                self._event(
                    "response.output_text.done",
                    {**where, "content_index": 0, "text": text, "logprobs": []},
                ),
                self._event(
                    "response.content_part.done", {**where, "content_index": 0, "part": part}
                ),
            ]
        else:
            part = {"type": "summary_text", "text": text}
            item["summary"] = [part]
            out = [
                self._event(
                    "response.reasoning_summary_text.done",
                    {**where, "summary_index": 0, "text": text},
                ),
                self._event(
                    "response.reasoning_summary_part.done",
                    {**where, "summary_index": 0, "part": part},
                ),
            ]
        item["status"] = "completed"
        out.append(
            self._event(
                "response.output_item.done", {"output_index": index, "item": copy.deepcopy(item)}
            )
        )
        return out

    def _text(self, text: str) -> list[str]:
        out: list[str] = []
        if self._open is None or self._open["type"] != "message":
            out.extend(self._close_open())
            item = {
                "type": "message",
                "id": f"msg_{self.message_id}_{len(self._items)}",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }
            out.extend(self._add_item(item))
            self._open = item
            out.append(
                self._event(
                    "response.content_part.added",
                    {
                        "item_id": item["id"],
                        "output_index": len(self._items) - 1,
                        "content_index": 0,
                        "part": {"type": "output_text", "text": "", "annotations": []},
                    },
                )
            )
        self._text_parts.append(text)
        assert self._open is not None
        out.append(
            self._event(
                "response.output_text.delta",
                {
                    "item_id": self._open["id"],
                    "output_index": len(self._items) - 1,
                    "content_index": 0,
                    "delta": text,
                    "logprobs": [],
                },
            )
        )
        return out

    def _reasoning(self, text: str) -> list[str]:
        out: list[str] = []
        if self._open is None or self._open["type"] != "reasoning":
            out.extend(self._close_open())
            item = {
                "type": "reasoning",
                "id": f"rs_{self.message_id}_{len(self._items)}",
                "summary": [],
            }
            out.extend(self._add_item(item))
            self._open = item
            out.append(
                self._event(
                    "response.reasoning_summary_part.added",
                    {
                        "item_id": item["id"],
                        "output_index": len(self._items) - 1,
                        "summary_index": 0,
                        "part": {"type": "summary_text", "text": ""},
                    },
                )
            )
        self._text_parts.append(text)
        assert self._open is not None
        out.append(
            self._event(
                "response.reasoning_summary_text.delta",
                {
                    "item_id": self._open["id"],
                    "output_index": len(self._items) - 1,
                    "summary_index": 0,
                    "delta": text,
                },
            )
        )
        return out

    def _call_start(self, slot: int, call_id: str | None, name: str) -> list[str]:
        out = self._close_open()
        item = {
            "type": "function_call",
            "id": f"fc_{self.message_id}_{len(self._items)}",
            "call_id": self.call_id(call_id, slot, "call_"),
            **self.name_fields(name),
            "arguments": "",
            "status": "in_progress",
        }
        out.extend(self._add_item(item))
        return out

    def _call_args(self, slot: int, text: str) -> list[str]:
        item = self._items[-1]
        item["arguments"] += text
        return [
            self._event(
                "response.function_call_arguments.delta",
                {"item_id": item["id"], "output_index": len(self._items) - 1, "delta": text},
            )
        ]

    def _call_end(self, call: ToolCall) -> list[str]:
        item = self._items[-1]
        index = len(self._items) - 1
        if call.status == "truncated":
            item["status"] = "incomplete"
            return []
        item["status"] = "completed"
        return [
            self._event(
                "response.function_call_arguments.done",
                {
                    "item_id": item["id"],
                    "output_index": index,
                    "name": item["name"],
                    "arguments": item["arguments"],
                },
            ),
            self._event(
                "response.output_item.done", {"output_index": index, "item": copy.deepcopy(item)}
            ),
        ]

    # -- the end ----------------------------------------------------------------------

    def _final_response(
        self, finished: StreamFinished, output: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The finished response: ``incomplete`` when the output was cut or filtered."""
        usage = responses_usage_dict(usage_or_empty(finished.usage))
        reason = finished.finish_reason
        if reason in ("length", "content_filter"):
            details = {"reason": "max_output_tokens" if reason == "length" else "content_filter"}
            return self._response(
                "incomplete", output=output, usage=usage, incomplete_details=details
            )
        return self._response("completed", output=output, usage=usage)

    def _finish(self, finished: StreamFinished) -> list[str]:
        out = self._close_open()
        response = self._final_response(finished, self._items)
        out.append(self._event(f"response.{response['status']}", {"response": response}))
        return out

    def _fail(self, message: str) -> list[str]:
        out = self._close_open()
        error = {"code": "server_error", "message": message}
        response = self._response("failed", output=self._items, error=error)
        out.append(self._event("response.failed", {"response": response}))
        return out


class OpenAIResponsesBodyEncoder(WholeBodyEncoder, OpenAIResponsesEncoder):
    """The ``response`` object: ``reasoning``, ``message`` and ``function_call`` output
    items in the order they came."""

    def _body(self, finished: StreamFinished) -> dict[str, Any]:
        output: list[dict[str, Any]] = []
        for index, part in enumerate(self.parts):
            if part.call is not None:
                call = part.call
                output.append(
                    {
                        "type": "function_call",
                        "id": f"fc_{self.message_id}_{index}",
                        "call_id": self.call_id(call.id, call.slot, "call_"),
                        **self.name_fields(call.name),
                        "arguments": arguments_text(call),
                        "status": "completed",
                    }
                )
            elif part.kind == "text":
                content = {"type": "output_text", "text": part.text, "annotations": []}
                output.append(
                    {
                        "type": "message",
                        "id": f"msg_{self.message_id}_{index}",
                        "status": "completed",
                        "role": "assistant",
                        "content": [content],
                    }
                )
            else:
                summary = {"type": "summary_text", "text": part.text}
                output.append(
                    {
                        "type": "reasoning",
                        "id": f"rs_{self.message_id}_{index}",
                        "summary": [summary],
                    }
                )
        return self._final_response(finished, output)

    def _error_body(self, message: str) -> dict[str, Any]:
        error = {"code": "server_error", "message": message}
        return self._response("failed", error=error)

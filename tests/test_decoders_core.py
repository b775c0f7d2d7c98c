"""OpenAI Chat and Anthropic decoders: unreadable lines, Python-style chunks, usage."""

from __future__ import annotations

from toolwire.events import StreamError, TextDelta
from toolwire.parser import StreamParser, parse_stream


def test_python_style_chunk_goes_through_the_repair_ladder() -> None:
    stream = (
        "data: {'choices': [{'index': 0, 'delta': {'content': 'hi'}, 'finish_reason': None}]}\n\n"
        'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
        "data: [DONE]\n\n"
    )
    result = parse_stream(stream, "openai-chat")
    assert result.text == "hi"
    assert result.finish_reason == "stop"
    assert not result.errors


def test_unreadable_line_becomes_an_error_event_with_its_raw_text() -> None:
    parser = StreamParser("openai-chat")
    events = parser.feed(b'data: {"choices": [{"delta": {"content": "a"\n\n')
    events += parser.feed(b"data: <html>bad gateway</html>\n\n")
    events += parser.close()
    errors = [e for e in events if isinstance(e, StreamError)]
    assert any(e.raw == "<html>bad gateway</html>" for e in errors)
    assert all(e.message for e in errors)


def test_upstream_error_object_is_reported() -> None:
    result = parse_stream('data: {"error": {"message": "rate limited"}}\n\n', "openai-chat")
    assert any("rate limited" in e.message for e in result.errors)


def test_openai_usage_chunk_and_reasoning_content() -> None:
    stream = (
        'data: {"choices": [{"index": 0, "delta": {"reasoning_content": "think"}}]}\n\n'
        'data: {"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}\n\n'
        'data: {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7,'
        ' "prompt_tokens_details": {"cached_tokens": 2}}}\n\n'
        "data: [DONE]\n\n"
    )
    result = parse_stream(stream, "openai-chat")
    assert (result.reasoning, result.text) == ("think", "ok")
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (5, 7)
    assert result.usage.cache_read_tokens == 2


def test_stream_without_done_or_finish_reason_is_a_dropped_connection_F1() -> None:
    stream = (
        'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c",'
        ' "function": {"name": "t", "arguments": "{\\"a\\": 1}"}}]}}]}\n\n'
    )
    result = parse_stream(stream, "openai-chat")
    assert result.calls[0].status == "truncated"
    assert result.finish_reason == "error"


def test_anthropic_thinking_and_text_blocks() -> None:
    stream = (
        'event: message_start\ndata: {"type": "message_start",'
        ' "message": {"usage": {"input_tokens": 3}}}\n\n'
        'event: content_block_start\ndata: {"type": "content_block_start", "index": 0,'
        ' "content_block": {"type": "thinking", "thinking": ""}}\n\n'
        'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0,'
        ' "delta": {"type": "thinking_delta", "thinking": "hmm"}}\n\n'
        'event: content_block_stop\ndata: {"type": "content_block_stop", "index": 0}\n\n'
        'event: content_block_start\ndata: {"type": "content_block_start", "index": 1,'
        ' "content_block": {"type": "text", "text": ""}}\n\n'
        'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 1,'
        ' "delta": {"type": "text_delta", "text": "Hi"}}\n\n'
        'event: message_delta\ndata: {"type": "message_delta",'
        ' "delta": {"stop_reason": "end_turn"},'
        ' "usage": {"output_tokens": 9}}\n\n'
        'event: message_stop\ndata: {"type": "message_stop"}\n\n'
    )
    result = parse_stream(stream, "auto")
    assert (result.reasoning, result.text, result.finish_reason) == ("hmm", "Hi", "stop")
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (3, 9)


def test_each_parser_owns_its_state_F23() -> None:
    a, b = StreamParser("openai-chat"), StreamParser("openai-chat")
    chunk = 'data: {"choices": [{"index": 0, "delta": {"content": "%s"}}]}\n\n'
    ev_a = a.feed((chunk % "A").encode())
    ev_b = b.feed((chunk % "B").encode())
    assert ev_a == [TextDelta("A")] and ev_b == [TextDelta("B")]


def test_anthropic_usage_keeps_the_last_count_over_one_sent_as_a_bool() -> None:
    # JSON true is not a token count (bool is an int in Python): the count before it stays
    stream = (
        "event: message_start\n"
        'data: {"type": "message_start", "message": {"id": "m", "usage":'
        ' {"input_tokens": 12, "output_tokens": 1}}}\n\n'
        "event: message_delta\n"
        'data: {"type": "message_delta", "delta": {"stop_reason": "end_turn"},'
        ' "usage": {"input_tokens": true, "output_tokens": false}}\n\n'
        "event: message_stop\n"
        'data: {"type": "message_stop"}\n\n'
    )
    result = parse_stream(stream, "anthropic")
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (12, 1)
    assert type(result.usage.input_tokens) is int
    assert type(result.usage.output_tokens) is int

"""The lenient reader's fast paths give exactly what its general path gives.

- JSON cut off by the end of the text (``lenient.read_cut_off_json``) against the general
  reader (``lenient._parse``), on strict JSON cut at every offset, in both modes, and
  on JSON prefixes that go on with something JSON does not allow (the fast path tells
  those apart itself), and the repair ladder, which reads an object or array that
  does not end with its closer by that path before its other steps, against the
  ladder going through them all;
- escapes in a run decoded by the C string scanner (``lenient._decode_run``) against
  the per-escape decoding it replaced.
"""

from __future__ import annotations

import json
import re
import time
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from json_strategies import json_tops, json_values

from toolwire.repair import ladder, lenient
from toolwire.repair.lenient import _parse, parse_lenient

# Strings with what the general reader looks at around a quote: brackets (unclosed ones
# make it look for closers), commas, colons, quotes, backslashes, non-ASCII, surrogates.
_CHARS = st.sampled_from(
    [*"abc {}[],:\"\\/'\n\t#", "\u00e9", "\u4e16", "\U0001f600", "\ud800", "\x01"]
)
_STRINGS = st.text(_CHARS, max_size=12) | st.sampled_from(["k" * 201, "k" * 205, "{" * 3])
_VALUES = json_values(_STRINGS)


def _text(value: object, indent: int | None, ascii_only: bool) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=ascii_only)


def _same(text: str) -> bool:
    """Both modes agree with the general reader; True when the fast path read it."""
    for prefix in (False, True):
        assert parse_lenient(text, prefix=prefix) == _parse(text, prefix), (text, prefix)
    return lenient.read_cut_off_json(text, False) is not None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    json_tops(_STRINGS, _VALUES, 4),
    st.sampled_from([None, 0, 2, 40]),
    st.booleans(),
)
def test_cut_off_json_reads_as_the_general_reader(
    value: object, indent: int | None, ascii_only: bool
) -> None:
    text = _text(value, indent, ascii_only)
    # every offset of a short text; of a long one (long keys, deep indents) every
    # offset near the places the reader looks around (quotes), and some others
    near = {i + d for i, ch in enumerate(text) if ch == '"' for d in (-1, 0, 1, 2)}
    for cut in range(len(text)):
        if len(text) < 160 or cut in near or cut % 17 == 0:
            _same(text[:cut])


@example('{"a": "x", "' + "k" * 205)  # a long key: left to the general reader
@example('{"a": "{x"' + "\n" + " " * 80 + "}")  # an unclosed bracket, then many closers
@example('{"a": [1.5e')  # the general reader reports an error here
@example('{"a": 1, "a": 2, "b": "x')  # a repeated key
@example('[1e-400, 2.5e-3, "x')  # a number below a double
@example('[12345678901234567890123, 1.5, "x')  # an integer beyond 64 bits
@example('{"a": "x, y}')  # cut back at a delimiter
@example('["\\ud83d\\ude00", "\\ud83d')
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="{}[]\",:\\ 0123456789.-+eEtrufalsn\n#/'xu", max_size=40))
def test_json_like_text_reads_as_the_general_reader(text: str) -> None:
    _same(text)


# What a text may go on with after a JSON prefix when it is not JSON: the fast path
# tells cut-off JSON from such text itself (no strict read of the whole text first).
_DAMAGE = st.sampled_from(
    [
        *',:"}] \n{[',
        ",,",
        "::",
        ", }",
        "[,",
        "{,",
        '"a"',
        '"a":',
        '"a\x01',
        '"a\\d',
        '"a\\u12"',
        '\\"',
        "+1",
        ".5",
        "01",
        "1.e",
        "1e999",
        "-1E+400",
        "1e-999",
        "12345678901234567890123",
        "tr1",
        "nul",
        "truex",
        "\u00e9",
        "\ud800",
        '"\\ud800',
        '"\\udc00x',
        "\x0b",
        "#",
        "//",
        "'",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    json_tops(_STRINGS, _VALUES, 3),
    st.integers(min_value=0),
    st.lists(_DAMAGE, min_size=1, max_size=3).map("".join),
    st.booleans(),
)
def test_json_prefix_gone_wrong_reads_as_the_general_reader(
    value: object, at: int, damage: str, cut_after: bool
) -> None:
    text = _text(value, None, False)
    head = text[: at % (len(text) + 1)] + damage
    _same(head)
    if cut_after:  # and cut off again after the damage
        _same(head[: len(head) - 1])


# Strings holding what the ladder's steps before the lenient reader look for: fences,
# escaped quotes, Python's words and quotes, prose.
_LADDER_STRINGS = st.lists(
    st.sampled_from(["a", " ", "`", "```", "```json\n", "~~~", "'", "True", '"', "\\", ",", "{"]),
    max_size=6,
).map("".join)
_LADDER_VALUES = st.recursive(
    st.none() | st.integers() | _LADDER_STRINGS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(_LADDER_STRINGS, children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.lists(_LADDER_VALUES, max_size=3),
        st.dictionaries(_LADDER_STRINGS, _LADDER_VALUES, max_size=3),
    ),
    st.integers(min_value=0),
    st.sampled_from(["", " ", "```", "'", "\n"]),
)
def test_ladder_reads_cut_off_json_as_its_every_step_would(
    value: object, at: int, after: str
) -> None:
    # the ladder reads an object or array without its closer by the lenient reader's
    # fast path before its other steps: the same as going through them all
    text = _text(value, None, False)
    text = text[: at % (len(text) + 1)] + after
    fast = ladder.repair_json(text)
    with mock.patch.object(ladder, "read_cut_off_json", lambda text, prefix=False: None):
        assert fast == ladder.repair_json(text), text


def _general_ladder(text: str) -> object:
    """The ladder through all its steps, without the cut-off reading."""
    with mock.patch.object(ladder, "read_cut_off_json", lambda text, prefix=False: None):
        return ladder.repair_json(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    json_tops(_STRINGS, _VALUES, 3),
    st.booleans(),
)
def test_ladder_result_of_cut_off_json_is_the_general_one(value: object, ascii_only: bool) -> None:
    # the ladder builds the result of a cut-off reading itself, without ``_finish``
    # (lone surrogates replaced and named, nothing double-encoded, names distinct):
    # at every cut of JSON texts holding surrogates, escapes and numbers, the same
    # status, repairs and value as the ladder through its general steps
    text = _text(value, None, ascii_only)
    for cut in range(len(text)):
        head = text[:cut]
        assert ladder.repair_json(head) == _general_ladder(head), head


def test_the_ladder_replaces_surrogates_of_cut_off_json() -> None:
    # the test above compares the cut-off reading's own result with a surrogate in it
    text = '{"a": "\\ud800", "b": ["x\\u00e9\ud83d\ude00", "cut'
    assert lenient.read_cut_off_json(text) is not None
    got = ladder.repair_json(text)
    assert got == _general_ladder(text)
    assert got.value == {"a": "\ufffd", "b": ["x\u00e9\U0001f600", "cut"]}
    assert got.repairs == ("unterminated_string", "missing_closer", "lone_surrogate")
    assert got.status == "truncated"


def test_the_fast_path_reads_cut_off_calls() -> None:
    # the differential tests compare something: cut-off JSON takes the fast path
    text = json.dumps({"path": "a.py", "lines": ["x = {1: 2}", 'print("hi")'], "n": [1, 2.5]})
    missed = [cut for cut in range(1, len(text)) if not _same(text[:cut])]
    # the one it leaves: a string that ends in `}` is cut back at a delimiter
    assert missed == [text.index("2}") + 2]


_RUN_TEXT = st.lists(
    st.sampled_from([*"ab'\"\\u0dD8\u00e9", "\\u0027", "\\ud83d", "\\ude00", "\ud83d"]),
    max_size=30,
).map("".join)


def _reference_decode(chunk: str) -> str:
    """The decoding _decode_run replaced: one regex callback per escape."""
    out = lenient._ESCAPE.sub(lenient._unescape_match, chunk)
    return lenient._join_surrogates(out) if "\\u" in chunk else out


@settings(max_examples=500, deadline=None)
@given(_RUN_TEXT)
def test_decoded_runs_read_as_before(text: str) -> None:
    for run, single in (
        (lenient._RUN_DQ, False),
        (lenient._RUN_SQ, True),
        (lenient._RUN_DQ_LIKE, False),
        (lenient._RUN_SQ_LIKE, True),
    ):
        m = run.match(text)
        chunk = m.group() if m else ""
        assert lenient._decode_run(chunk, single) == _reference_decode(chunk), (chunk, single)


_SURROGATE_HINT = re.compile(r"[\ud800-\udfff]|\\(?:u|U0000)[dD][89a-fA-F]")


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([*"ab\\uU0dD8\u00e9{", "\ud800", "\udfff", "\\ud8"]), max_size=20))
def test_surrogate_check_is_the_regex_it_replaced(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert ladder._may_hold_surrogate(text) == (_SURROGATE_HINT.search(text) is not None)


def test_cut_off_json_time_is_linear() -> None:
    def shape(n: int) -> str:
        items = [{"k": i, "s": 'a \\"b\\" {c', "t": [True, None, 1.5]} for i in range(n)]
        return json.dumps({"items": items})[:-3]  # cut inside the last item

    def best(text: str) -> float:
        times = []
        for _ in range(7):  # CPU time, best of 7: other processes share the machine
            start = time.process_time()
            assert lenient.read_cut_off_json(text, False) is not None
            times.append(time.process_time() - start)
        return min(times)

    small, large = best(shape(2_000)), best(shape(8_000))
    assert large < small * 4 * 3  # 4x the input; quadratic would be 16x

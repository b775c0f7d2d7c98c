"""JSON repair for tool-call arguments: a ladder of readers, each tried only when the
previous one could not read the text (see :mod:`toolwire.repair.ladder`).

Sans-IO: text in, :class:`RepairResult` out. Nothing here raises on any ``str``.

Guarantees
----------
- Characters inside strings are never lost or invented: ``"a\\\\b"`` stays ``a\\b``,
  an invalid escape such as ``\\d`` stays backslash + ``d``, raw control characters
  stay the characters they are (F13). Two readings are interpretations, not losses:
  ``\\'`` is an apostrophe (as in JavaScript and Python), and an escape cut off by
  the end of the input (``"ab\\u26``) is left out because its character is unknown.
- A result is ``truncated`` whenever the input ended inside a value -- an open
  string, container or number -- so closers or a string end had to be invented
  (F1). This includes a string that never closes even when a closer later in the
  text lets us guess where it should have ended: a cut stream and a missing quote
  look the same, and a truncated call must not be executed as if it were whole.
- Nothing is made up for a missing value: a key without a value (``{"a": }`` or a
  dangling ``{"a":`` at the end) is dropped, and the drop is recorded.
- ``NaN``, ``Infinity`` and ``-Infinity`` are read as the Python floats they name,
  and a number beyond a double (``1e999``) as infinity, always with the repair
  ``non_finite_number``; schema validation decides whether they are acceptable. A
  nonzero number below the smallest double (``1e-999``) is read as zero, with
  ``float_underflow``. Integers beyond 64 bits are kept exactly.
- An integer longer than Python converts (``sys.get_int_max_str_digits()``, 4,300
  digits by default) is kept as its digits in a string (``long_integer``); a Python
  literal in hex, octal or binary beyond that, as hexadecimal text (``0x…``).
- Of repeated keys in an object the last one wins, as in ``JSON.parse``, and the
  drop is named (``duplicate_key``), valid JSON or not.
- Several top-level values (``{..}{..}``, F3) are refused, not merged or picked.
- The lenient parser is linear in the input size (see :mod:`toolwire.repair.lenient`).

Repair names (``RepairResult.repairs``)
---------------------------------------
``code_fence``           a Markdown code fence around the value (a scalar too) was removed
``surrounding_text``     prose before or after the one value was removed
``escaped_json``         the whole text was JSON with its quotes escaped (``{\\"a\\": 1}``)
``python_literal``       read as a Python literal (single quotes, True/False/None, tuples;
                         a trailing comma or ``#`` comment in it is named as well)
``trailing_comma``       a superfluous comma (trailing, leading or doubled) was removed
``comment``              a ``//``, ``/* */`` or ``#`` comment was removed
``special_whitespace``   a non-ASCII space between tokens was treated as whitespace
``unquoted_key``         an object key had no quotes
``unquoted_string``      a value had no quotes (bareword, URL, date, ``0789``, ``/re/``)
``missing_quote``        a quote of a string was missing; the string was closed at a delimiter
``missing_comma``        a comma between two elements or members was added
``missing_colon``        a colon between key and value was added
``missing_value``        a key with no value was dropped
``control_character``    a raw control character inside a string (kept as the character, F13)
``smart_quote``          typographic quotes (U+201C/D, U+2018/9, backtick, acute) delimit a string
``single_quote``         a single-quoted string
``inner_quote``          a ``"`` inside a string that is not its end was kept as content
``invalid_escape``       an unknown escape (``\\d``) was kept literally (``\\'`` read as ``'``)
``python_constant``      ``True``/``False``/``None`` (``TRUE``, ``NULL``, ``undefined``) read
``non_finite_number``    ``NaN``/``Infinity``/``-Infinity``, or beyond a double (``1e999``), read
``float_underflow``      a nonzero number below the smallest double read as 0.0 (``1e-999``)
``long_integer``         an integer too long for Python to read kept as its digits, in a string
``non_string_key``       a Python dict key that is an integer written as its digits (``{1: 'a'}``)
``duplicate_key``        a key repeated in one object: the last value was kept
``invalid_number``       a number JSON does not allow (``.5``, ``2.``, ``1_000``, ``2e``)
``tuple``                a parenthesized Python tuple read as an array
``function_call``        a call around a value (``NumberLong("2")``, JSONP ``cb({...})``)
``ellipsis``             a ``...`` placeholder inside a container was removed
``string_concatenation`` ``"a" + "b"`` was joined
``stray_text``           a stray word inside an object before a real key was removed
``mismatched_closer``    a closer of the wrong kind or a redundant closer was corrected or removed
``missing_closer``       a container closer was added (at the end of the input: also ``truncated``)
``unterminated_string``  a string ran to the end of the input and was closed (also ``truncated``)
``double_encoded``       the value was a JSON string whose content is a JSON object/array (F9)
``lone_surrogate``       a lone UTF-16 surrogate (``"\\ud800"``), which no UTF-8 text can hold,
                         was replaced by U+FFFD
"""

from .ladder import partial_value, repair_json
from .result import RepairResult, RepairStatus
from .strict import strict_json

__all__ = ["RepairResult", "RepairStatus", "partial_value", "repair_json", "strict_json"]

"""What reading a number as a double may lose, told from the text it was read from."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MAY_UNDERFLOW", "float_underflows"]

# A number that may be below the smallest double (about 2.5e-324): an exponent of three
# digits, or hundreds of zeros after the point. Only a gate: the exact read decides.
MAY_UNDERFLOW: Final = re.compile(r"[eE]-\d{3}|\.0{300}")
_NONZERO_MANTISSA: Final = re.compile(r"[^eE]*?[1-9]")


def float_underflows(text: str, value: float) -> bool:
    """Was ``text``, a nonzero number, read as ``value`` zero? (``1e-999``: below the
    smallest double, so the sign and size are lost -- named ``float_underflow``.)"""
    return value == 0.0 and _NONZERO_MANTISSA.match(text) is not None

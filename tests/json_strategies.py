"""Hypothesis strategies for JSON values, shared by the differential tests of the repair
ladder's fast paths (tests/test_lenient_fast.py, tests/test_cut_string.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

# integers beyond 64 bits too, floats of every size (not NaN: JSON has none)
NUMBERS = st.integers(min_value=-(10**25), max_value=10**25) | st.floats(allow_nan=False)


def json_values(strings: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """Values nested up to 12 leaves deep whose strings (keys too) are ``strings``."""
    return st.recursive(
        st.none() | st.booleans() | NUMBERS | strings,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(strings, children, max_size=4)
        ),
        max_leaves=12,
    )


def json_tops(
    strings: st.SearchStrategy[str], values: st.SearchStrategy[Any], max_size: int
) -> st.SearchStrategy[Any]:
    """An array or object of ``values`` (keys ``strings``), as arguments are."""
    return st.one_of(
        st.lists(values, max_size=max_size),
        st.dictionaries(strings, values, max_size=max_size),
    )

"""games.core.frozen.copied: what a view hands out is a deep copy, as
copy.deepcopy made it, for any event data."""

import copy

from hypothesis import given
from hypothesis import strategies as st

from games.core.frozen import copied

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
data = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(st.dictionaries(st.text(max_size=5), data, max_size=6))
def test_a_copy_equals_deepcopys_and_shares_nothing_mutable(value):
    made = copied(value)
    assert made == copy.deepcopy(value)
    assert type(made) is type(value)

    def mutables(x):
        if isinstance(x, dict):
            yield x
            for v in x.values():
                yield from mutables(v)
        elif isinstance(x, list | tuple):
            if isinstance(x, list):
                yield x
            for v in x:
                yield from mutables(v)

    original = {id(x) for x in mutables(value)}
    assert not original & {id(x) for x in mutables(made)}


def test_a_value_of_another_type_is_deep_copied():
    inner = {"a": [1]}
    value = {"set": {1, 2}, "nested": inner, "bytes": bytearray(b"ab")}
    made = copied(value)
    assert made == value and made["bytes"] is not value["bytes"]
    made["nested"]["a"].append(2)
    assert inner == {"a": [1]}

"""The seal on what the site keeps outside its memory (runtime/seal.py)."""

import pytest

from runtime.seal import seal, unseal


def test_a_sealed_text_comes_back_only_under_its_purpose_and_key():
    sealed = seal("purpose", "key-1", '{"a": 1}')
    assert unseal("purpose", "key-1", sealed) == '{"a": 1}'
    for purpose, key, data in [
        ("another purpose", "key-1", sealed),
        ("purpose", "key-2", sealed),  # moved to another key
        ("purpose", "key-1", {**sealed, "json": '{"a": 2}'}),  # the text changed, seal kept
        ("purpose", "key-1", {"json": '{"a": 1}'}),
        ("purpose", "key-1", "not a dict"),
        ("purpose", "key-1", {"json": ["x"], "mac": sealed["mac"]}),
    ]:
        with pytest.raises(ValueError):
            unseal(purpose, key, data)

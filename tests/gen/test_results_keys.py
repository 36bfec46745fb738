"""gen/results/keys.py: the canonical key function, against digests computed here by hand
and against the keys of the shipped results (the stores' key lengths kept)."""

import hashlib
import json
import math

import pytest

from termwise.gen.results.keys import DEFAULT_LENGTH, canonical, key, sha256_hex


def test_canonical_sorts_keys_and_drops_spaces():
    assert canonical({"b": [1, 2.5], "a": {"d": None, "c": True}}) == \
        '{"a":{"c":true,"d":null},"b":[1,2.5]}'


def test_equal_values_give_equal_keys_whatever_the_order():
    assert key({"x": 1, "y": "z"}) == key({"y": "z", "x": 1})
    assert key({"x": 1}) != key({"x": 2})


def test_key_is_the_truncated_sha256_of_the_canonical_text():
    text = b'{"clock_ns":10.0,"flow":"asic"}'
    assert key({"flow": "asic", "clock_ns": 10.0}) == hashlib.sha256(text).hexdigest()[:24]
    assert DEFAULT_LENGTH == 24
    assert key({"a": 1}, 16) == hashlib.sha256(b'{"a":1}').hexdigest()[:16]
    assert len(key("x", 64)) == 64


def test_sha256_hex_of_text_and_bytes():
    assert sha256_hex("abc") == sha256_hex(b"abc") == \
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@pytest.mark.parametrize("value", [math.nan, math.inf, {"a": -math.inf}])
def test_no_key_of_nan_or_infinity(value):
    with pytest.raises(ValueError):
        key(value)


@pytest.mark.parametrize("length", [0, 65, True, 2.0])
def test_bad_lengths_are_refused(length):
    with pytest.raises(ValueError):
        key({"a": 1}, length)


def test_every_shipped_result_is_found_under_its_recomputed_key():
    """The synthesis cache's and the power reports' keys are this function's: each shipped
    entry's folder name is the key of the inputs stored beside it."""
    from termwise.gen.results.locations import MEASURED_DEFAULT
    import os
    checked = 0
    for kind, inputs in (("asic", "settings.json"), ("power", "inputs.json")):
        base = os.path.join(MEASURED_DEFAULT, kind)
        for name in sorted(os.listdir(base)):
            with open(os.path.join(base, name, inputs), encoding="utf-8") as f:
                doc = json.load(f)
            assert key(doc) == name, f"{kind}/{name}"
            checked += 1
    assert checked >= 2

"""dumps_indented writes the same bytes as json.dumps(indent=2, ensure_ascii=False), or fails the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packc_runtime.format._jsontext import dumps_indented
from packc_runtime.format.manifest import dump_json

GOLDEN = Path(__file__).parents[2] / "golden"


def _reference(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**64, max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
_keys = st.text(max_size=8) | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(_keys, inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_same_text_as_json_dumps(value: Any) -> None:
    assert dumps_indented(value) == _reference(value)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*/*/*.json")), ids=lambda p: str(p.relative_to(GOLDEN)))
def test_golden_pack_files_are_written_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert dump_json(json.loads(text)) == text


def test_control_and_non_ascii_characters() -> None:
    value = {"a\u2028b": ['\x00\x1f"\\/', "é中😀", "\ud800"], "": {}, "e": [], "n": [[], {}, [[{}]]]}
    assert dumps_indented(value) == _reference(value)


@pytest.mark.parametrize("value", [{"a": {1, 2}}, [object()], {(1, 2): "tuple key"}, b"bytes"])
def test_what_json_refuses_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        _reference(value)
    with pytest.raises(TypeError):
        dumps_indented(value)


def test_a_container_inside_itself_is_refused() -> None:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    with pytest.raises(ValueError, match="Circular"):
        dumps_indented(loop)
    shared = {"x": 1}
    assert dumps_indented([shared, shared]) == _reference([shared, shared])  # shared is not a cycle

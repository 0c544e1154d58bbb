"""Indented JSON text, byte for byte what ``json.dumps(value, indent=2, ensure_ascii=False)`` gives.

Python 3.11's ``json`` uses its C encoder only without ``indent``; with it, every token climbs a
chain of nested generators, one per level of depth. This writer appends to one list in a recursive
function and escapes strings with the C function ``json`` uses: 1.7x faster on the generated
5,000-operation document, 2.2x on GitHub's (11.6 MB indented). Tests compare it with ``json.dumps``
on the golden packs and on random values.
"""

from __future__ import annotations

from json.encoder import encode_basestring  # the C function json.dumps(ensure_ascii=False) uses
from typing import Any

__all__ = ["dumps_indented"]

_float_repr = float.__repr__
_int_repr = int.__repr__
_INF = float("inf")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INF:
        return "Infinity"
    if value == -_INF:
        return "-Infinity"
    return _float_repr(value)


def _key(key: Any) -> str:
    """A dict key as json.dumps turns it into a string (it refuses any other type)."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return _int_repr(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _scalar(value: Any) -> str | None:
    """The JSON text of a scalar; None for a container."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return _int_repr(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, list | tuple | dict):
        return None
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _write(
    value: list[Any] | tuple[Any, ...] | dict[Any, Any], out: list[str], newline: str, active: set[int]
) -> None:
    """Append a non-empty container; ``newline`` is the line break and indent of its own level."""
    marker = id(value)
    if marker in active:
        raise ValueError("Circular reference detected")
    active.add(marker)
    inner = newline + "  "
    append = out.append
    if isinstance(value, dict):
        append("{")
        sep = inner
        for key, item in value.items():
            text = key if type(key) is str else _key(key)
            append(sep)
            append(encode_basestring(text))
            append(": ")
            sep = "," + inner
            if type(item) is str:  # most values: skip the general dispatch
                append(encode_basestring(item))
                continue
            scalar = _scalar(item)
            if scalar is not None:
                append(scalar)
            elif item:
                _write(item, out, inner, active)
            else:
                append("{}" if isinstance(item, dict) else "[]")
        append(newline)
        append("}")
    else:
        append("[")
        sep = inner
        for item in value:
            append(sep)
            sep = "," + inner
            scalar = _scalar(item)
            if scalar is not None:
                append(scalar)
            elif item:
                _write(item, out, inner, active)
            else:
                append("{}" if isinstance(item, dict) else "[]")
        append(newline)
        append("]")
    active.discard(marker)


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, faster.

    Raises:
        TypeError: for a value or key JSON cannot hold, as ``json.dumps`` does.
        ValueError: for a container that contains itself.
    """
    scalar = _scalar(value)
    if scalar is not None:
        return scalar
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    out: list[str] = []
    _write(value, out, "\n", set())
    return "".join(out)

"""Issue 10 item 12: every bad argument gives an envelope; redaction outlives close(); enums dedupe in linear time."""

from __future__ import annotations

import gc
import json
import logging
import math
import time
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packc.build import _schemas as schemas
from packc_runtime import load_pack
from packc_runtime.calling.args import MAX_DEPTH
from packc_runtime.credentials.redact import _installed
from servers import PACKS

SEEN: list[httpx.Request] = []


def _handler(request: httpx.Request) -> httpx.Response:
    SEEN.append(request)
    json.loads(request.content or b"null")  # what was sent is valid JSON (NaN would fail here)
    return httpx.Response(200, json={"ok": True})


def _pack() -> Any:
    return load_pack(PACKS / "echo", transport=httpx.MockTransport(_handler))


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


HOSTILE: dict[str, tuple[str, Any]] = {
    "int key": ("items.get", {1: "a"}),
    "None key beside a string key": ("items.get", {"item_id": "1", None: 2}),
    "int over 4,300 digits": ("items.get", {"item_id": "1", "limit": 10**5000}),
    "deep nesting": ("items.create", {"name": "x", "tags": _nested(50_000)}),
    "nested NaN": ("items.create", {"name": "x", "meta": {"a": math.nan}}),
    "nested Infinity": ("items.create", {"name": "x", "tags": ["a", [math.inf]]}),
    "top-level -Infinity": ("items.create", {"name": -math.inf}),
    "lone surrogate": ("items.get", {"item_id": "\ud800"}),
    "nested non-string key": ("items.create", {"name": "x", "meta": {1: "x"}}),
    "a Python object": ("items.get", {"item_id": object()}),
    "bytes": ("items.get", {"item_id": b"1"}),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_argument_gives_an_invalid_argument_envelope(case: str) -> None:
    verb, args = HOSTILE[case]
    SEEN.clear()
    with _pack() as pack:
        envelope = pack.call(verb, args, confirm=True)
    assert envelope["ok"] is False
    assert envelope["error"]["code"] == "invalid_argument", envelope
    assert SEEN == []  # refused before anything was sent
    json.dumps(envelope, allow_nan=False)  # the envelope itself is valid JSON


def test_nesting_up_to_the_limit_is_still_sent() -> None:
    SEEN.clear()
    with _pack() as pack:
        envelope = pack.call("items.create", {"name": "x", "meta": {"k": "v"}, "tags": ["a"]}, confirm=True)
        deep = pack.call("items.create", {"name": "x", "extra": _nested(MAX_DEPTH - 1)}, confirm=True)
    assert envelope["ok"] is True and len(SEEN) == 1
    assert deep["error"]["code"] == "unknown_argument"  # judged by the schema, not by the JSON check


def test_a_huge_string_is_judged_not_choked_on() -> None:
    with _pack() as pack:
        start = time.monotonic()
        envelope = pack.call("items.create", {"name": "x" * 5_000_000}, confirm=True)
    assert envelope["ok"] is True
    assert time.monotonic() - start < 10


json_ish = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.sampled_from([4400, -5000]).map(lambda n: 10 ** abs(n) * (1 if n > 0 else -1))
    | st.sampled_from(["\udfff", b"x", object()]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner)
        | st.dictionaries(st.text(max_size=5) | st.integers() | st.none(), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    verb=st.sampled_from(["items.get", "items.create", "styles.query", "items.form", "nope"]),
    args=st.dictionaries(
        st.sampled_from(["item_id", "name", "tags", "meta", "limit", "q", "x"]) | st.integers() | st.none(),
        json_ish,
        max_size=4,
    )
    | json_ish,
)
def test_pack_call_always_returns_an_envelope(verb: str, args: Any) -> None:
    with _pack() as pack:
        envelope = pack.call(verb, args, confirm=True)
    assert isinstance(envelope, dict) and isinstance(envelope["ok"], bool)
    json.dumps(envelope, allow_nan=False)


def test_a_closed_pack_keeps_redacting_httpx_logs_while_it_can_still_send(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pack = _pack()
    pack.redactor.add_secret("sekrit-token-value")
    pack.close()
    caplog.set_level(logging.INFO, logger="httpx")
    logging.getLogger("httpx").info("GET http://127.0.0.1/?q=sekrit-token-value")
    assert "sekrit-token-value" not in caplog.text and "***" in caplog.text
    assert pack.call("items.get", {"item_id": "1"})["ok"] is True  # still usable after close()
    key = id(pack.redactor)
    assert key in _installed
    del pack
    gc.collect()
    assert key not in _installed  # the filter goes with the pack, not before


def test_enum_deduplication_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = schemas._enum_key
    monkeypatch.setattr(schemas, "_enum_key", lambda v: calls.append(1) or real(v))
    values = [f"v{i}" for i in range(16_000)] * 2
    assert schemas.unique_values(values) == values[:16_000]
    assert len(calls) == len(values)  # one key per member: no member is compared with every other
    start = time.monotonic()
    for _ in range(5):
        schemas._inline(None, {"type": "string", "enum": values}, (), 0, schemas._Budget())  # type: ignore[arg-type]
    assert time.monotonic() - start < 5  # quadratic took 14.5 s here


def test_enum_deduplication_keeps_json_schema_equality() -> None:
    assert schemas.unique_values(
        [1, 1.0, True, "1", {"a": 1, "b": 2}, {"b": 2, "a": 1}, None, None, [1], [1.0]]
    ) == [1, True, "1", {"a": 1, "b": 2}, None, [1]]

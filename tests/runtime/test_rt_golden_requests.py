"""Hypothesis over the golden packs: args a verb's schema accepts build requests its document accepts."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from openapi_core import OpenAPI  # noqa: TID251 - tests may use openapi-core
from rt_helpers import OpenApiRequest

from packc_runtime import load_pack

pytestmark = [
    pytest.mark.filterwarnings("ignore:Unsupported scheme type:UserWarning"),  # openapi-core, oauth2
    pytest.mark.slow,  # openapi-core checks each of 61 requests: `make test` runs it
]
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
PACK_DIRS = sorted(p.parent for p in GOLDEN.glob("*/*/surface.json"))
CASES = [
    (d, verb) for d in PACK_DIRS for verb in sorted(json.loads((d / "surface.json").read_text())["verbs"])
]
# Safe text: values that every style carries unambiguously (see test_rt_properties.PLAIN).
TEXT = st.text(string.ascii_letters + string.digits + "-_.~ é", min_size=1, max_size=12)
UPLOAD = (
    Path(__file__).resolve().parents[1] / "fixtures" / "packs" / "echo" / "README.md"
)  # any readable file


def _format(fmt: str) -> st.SearchStrategy[str] | None:
    if fmt == "date-time":
        return st.datetimes().map(lambda d: d.replace(microsecond=0).isoformat() + "Z")
    if fmt == "date":
        return st.dates().map(lambda d: d.isoformat())
    if fmt == "email":
        return st.from_regex(r"[a-z]{1,8}@[a-z]{1,8}\.org", fullmatch=True)
    if fmt == "uuid":
        return st.uuids().map(str)
    if fmt == "binary":
        return st.just(str(UPLOAD))
    if fmt in ("uri", "url"):
        return st.from_regex(r"https://[a-z]{1,8}\.org/[a-z]{0,8}", fullmatch=True)
    return None


def strategy(schema: Any) -> st.SearchStrategy[Any]:
    """Values a (compiler-made) args property accepts; a subset, biased to values HTTP carries."""
    if not isinstance(schema, Mapping) or not schema:
        return TEXT
    if "enum" in schema:
        return st.sampled_from([e for e in schema["enum"] if e is not None] or [None])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return st.one_of(*(strategy(s) for s in schema[key]))
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for sub in schema["allOf"]:
            merged.update(sub)
        return strategy(merged)
    kinds = schema.get("type")
    kind = next((k for k in kinds if k != "null"), "null") if isinstance(kinds, list) else kinds
    if kind == "string":
        fmt = _format("binary" if "contentMediaType" in schema else str(schema.get("format", "")))
        if fmt is not None:
            return fmt
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(
                lambda s: re.fullmatch(r"[\x20-\x7e]+", s) is not None
            )
        lo, hi = schema.get("minLength", 1), schema.get("maxLength", 12)
        return st.text(
            string.ascii_letters + string.digits + "-_ é", min_size=max(lo, 1), max_size=max(hi, lo, 1)
        )
    if kind == "integer":
        lo = schema.get("minimum", -1000)
        if "exclusiveMinimum" in schema and not isinstance(schema["exclusiveMinimum"], bool):
            lo = schema["exclusiveMinimum"] + 1
        return st.integers(lo, schema.get("maximum", lo + 10_000))
    if kind == "number":
        return st.floats(schema.get("minimum", -1e6), schema.get("maximum", 1e6), allow_nan=False, width=32)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(
            strategy(schema.get("items", {"type": "string"})),
            min_size=max(schema.get("minItems", 1), 1),
            max_size=3,
        )
    if kind == "object":
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        # An optional property with no constraint is where the compiler cut a recursive schema ("see the
        # pack's openapi.json"): the args schema cannot say what the document wants there, so leave it out.
        fields = {
            k: strategy(v)
            for k, v in props.items()
            if k in required or (not v.get("readOnly") and set(v) - {"description", "title", "examples"})
        }
        optional = {k: v for k, v in fields.items() if k not in required}
        return st.fixed_dictionaries({k: v for k, v in fields.items() if k in required}, optional=optional)
    return TEXT


def _file_args(op: Any) -> set[str]:
    """Arguments that name a local file to upload (binary body or binary multipart part)."""
    media = (op.content_type or "").split(";")[0].lower()
    props = (op.body_schema or {}).get("properties", {})
    out = set()
    for arg, binding in op.args.items():
        if binding.location != "body":
            continue
        if binding.name is None:
            if (
                media
                and "json" not in media
                and not media.startswith(("text/", "application/x-www-form", "multipart/"))
            ):
                out.add(arg)
            continue
        prop = props.get(binding.name, {})
        if prop.get("type") == "array":
            prop = prop.get("items", {})
        if prop.get("format") == "binary" or "contentMediaType" in prop:
            out.add(arg)
    return out


def _credentials(pack: Any) -> dict[str, str]:
    """A value for each slot, trusted for the pack's origins (the CI opt-in: origins named explicitly)."""
    origins = sorted({origin for bound in pack.slot_origins().values() for origin in bound})
    return {
        **{slot.env: f"{slot.kind}-value-0{i}" for i, slot in enumerate(pack.slots)},
        "PACKC_TRUSTED_ORIGINS": ",".join(origins),
    }


@pytest.mark.parametrize("pack_dir, verb", CASES, ids=[f"{d.name}:{v}" for d, v in CASES])
def test_golden_verb_requests_validate(pack_dir: Path, verb: str) -> None:
    surface = json.loads((pack_dir / "surface.json").read_text())
    schema = surface["verbs"][verb].get("args") or {"type": "object", "properties": {}}
    document = json.loads((pack_dir / "openapi.json").read_text())
    openapi = OpenAPI.from_dict(document)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/token"):
            return httpx.Response(200, json={"access_token": "tok-value-1", "expires_in": 60})
        return httpx.Response(200, json={})

    with load_pack(pack_dir) as probe:
        environ = _credentials(probe)
        files = _file_args(probe.operations[verb])
    if files:  # the compiler describes upload arguments in words; the binding says which they are
        schema = {
            **schema,
            "properties": {
                k: ({"type": "string", "format": "binary"} if k in files else v)
                for k, v in schema["properties"].items()
            },
        }

    validator = jsonschema.Draft202012Validator(schema)

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(args=strategy({**schema, "type": "object"}))
    def check(args: dict[str, Any]) -> None:
        assume(validator.is_valid(args))  # the property is about args the schema accepts
        seen.clear()
        with load_pack(pack_dir, transport=httpx.MockTransport(handler), environ=environ) as pack:
            envelope = pack.call(verb, args, confirm=True)
        if not envelope["ok"] and envelope["error"]["code"] == "invalid_argument":
            # values the schema allows but HTTP cannot carry (non-ASCII headers): refused, nothing sent
            assert "non-ASCII" in envelope["error"]["message"] or "CR, LF" in envelope["error"]["message"]
            assert seen == []
            return
        assert envelope["ok"], envelope
        openapi.validate_request(OpenApiRequest(seen[-1]))

    check()

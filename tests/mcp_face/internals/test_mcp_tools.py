"""Tool definitions, output schemas, the size cap and host snippets: plain data, no server."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from packc_runtime import load_pack
from packc_runtime.credentials.slots import CredentialSlot
from packc_runtime.errors import InvalidPack
from packc_runtime.faces.mcp._config import HOSTS, config_snippet
from packc_runtime.faces.mcp._tools import (
    build_tools,
    find_pack_dirs,
    fit_and_render,
    fit_envelope,
    output_schema,
    render_text,
)
from packc_runtime.faces.mcp.cli import parse_http, serve_main

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
FAMILY = GOLDEN / "taskboard-split"


def _renamed(src: Path, dest: Path, new_id: str) -> Path:
    shutil.copytree(src, dest)
    for name, key in (("surface.json", "id"), ("policy.json", "surface_id")):
        data = json.loads((dest / name).read_text())
        data[key] = new_id
        (dest / name).write_text(json.dumps(data))
    return dest


def test_a_family_folder_serves_every_pack_and_names_stay_verbs() -> None:
    dirs = find_pack_dirs([FAMILY])
    assert [d.name for d in dirs] == sorted(p.name for p in FAMILY.iterdir() if (p / "surface.json").exists())
    packs = [load_pack(d) for d in dirs]
    tools = build_tools(packs)
    assert sum(len(p.verbs) for p in packs) == len(tools)
    assert all("." not in name or name.split(".")[0] not in {p.id for p in packs} for name in tools)


def test_colliding_verbs_are_prefixed_with_their_pack(tmp_path: Path) -> None:
    src = GOLDEN / "clinic" / "pet-clinic"
    packs = [load_pack(src), load_pack(_renamed(src, tmp_path / "other", "other-clinic"))]
    tools = build_tools(packs)
    assert "pet-clinic.pets.get" in tools and "other-clinic.pets.get" in tools and "pets.get" not in tools
    assert tools["other-clinic.pets.get"].pack is packs[1]


def test_the_same_pack_twice_is_refused() -> None:
    src = GOLDEN / "clinic" / "pet-clinic"
    with pytest.raises(InvalidPack, match="served twice"):
        build_tools([load_pack(src), load_pack(src)])


def test_a_folder_without_packs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidPack, match="holds no pack"):
        find_pack_dirs([tmp_path])


def test_every_golden_tool_has_valid_schemas_and_all_annotations() -> None:
    for directory in sorted(GOLDEN.glob("*/*/surface.json")):
        pack = load_pack(directory.parent)
        for name, spec in build_tools([pack]).items():
            tool = spec.definition
            Draft202012Validator.check_schema(tool["inputSchema"])
            assert set(tool["annotations"]) == {
                "title",
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            }, name
            assert all(isinstance(tool["annotations"][k], bool) for k in tool["annotations"] if k != "title")
            if "outputSchema" in tool:
                Draft202012Validator.check_schema(tool["outputSchema"])
                assert len(json.dumps(tool["outputSchema"], separators=(",", ":"))) <= 4096


def _pack_with_response(tmp_path: Path, schema: dict[str, Any], openapi: str = "3.0.3") -> Any:
    src = GOLDEN / "clinic" / "pet-clinic"
    dest = tmp_path / "p"
    shutil.copytree(src, dest)
    doc = json.loads((dest / "openapi.json").read_text())
    doc["openapi"] = openapi
    doc["paths"]["/pets/{petId}"]["get"]["responses"] = {
        "200": {"description": "ok", "content": {"application/json": {"schema": schema}}}
    }
    doc.setdefault("components", {}).setdefault("schemas", {})["Node"] = {
        "type": "object",
        "properties": {"next": {"$ref": "#/components/schemas/Node"}},
    }
    (dest / "openapi.json").write_text(json.dumps(doc))
    return load_pack(dest)


def test_openapi_30_schemas_become_json_schema(tmp_path: Path) -> None:
    pack = _pack_with_response(
        tmp_path,
        {
            "type": "object",
            "properties": {
                "tag": {"type": "string", "nullable": True, "enum": ["a", "b"]},
                "age": {"type": "integer", "minimum": 0, "exclusiveMinimum": True},
                "node": {"$ref": "#/components/schemas/Node"},
            },
            "example": {"tag": "a"},
        },
    )
    schema = output_schema(pack, "pets.get")
    assert schema is not None
    body = schema["then"]["properties"]["body"]
    assert body["properties"]["tag"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert body["properties"]["age"] == {"type": "integer", "exclusiveMinimum": 0}
    assert body["properties"]["node"]["properties"]["next"] == {}  # the cycle stops
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"ok": True, "status": 200, "body": {"tag": None, "age": 1}})
    assert not validator.is_valid({"ok": True, "status": 200, "body": {"age": 0}})
    assert validator.is_valid({"ok": False, "error": {"code": "not_found"}})  # errors carry no body
    assert validator.is_valid({"ok": True, "body": "cut", "truncated": {"limit": 1}})  # a cut body is text


def test_an_output_schema_too_large_for_tools_list_is_left_out(tmp_path: Path) -> None:
    big = {
        "type": "object",
        "properties": {f"field_{i}": {"type": "string", "description": "d" * 60} for i in range(80)},
    }
    assert output_schema(_pack_with_response(tmp_path, big), "pets.get") is None


@settings(max_examples=60, deadline=None)
@given(
    body=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner, max_size=30) | st.dictionaries(st.text(max_size=8), inner, max_size=8),
        max_leaves=300,
    ),
    limit=st.integers(min_value=4096, max_value=20_000),
)
def test_fit_envelope_always_fits_and_says_what_it_cut(body: Any, limit: int) -> None:
    envelope = {"ok": True, "status": 200, "verb": "v", "title": "t", "body": body}
    fitted = fit_envelope(envelope, limit, how="narrow it")
    assert len(json.dumps(fitted, ensure_ascii=False).encode()) <= limit
    if fitted is envelope:
        assert len(json.dumps(envelope, ensure_ascii=False).encode()) <= limit
    else:
        assert fitted["truncated"]["cut"] and fitted["truncated"]["how"] == "narrow it"


@settings(max_examples=80, deadline=None)
@given(
    body=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda inner: st.lists(inner, max_size=30) | st.dictionaries(st.text(max_size=8), inner, max_size=8),
        max_leaves=300,
    ),
    ok=st.booleans(),
    limit=st.integers(min_value=4096, max_value=20_000),
)
def test_fit_and_render_is_fit_envelope_then_render_text(body: Any, ok: bool, limit: int) -> None:
    envelope = {"ok": ok, "status": 200, "verb": "v", "title": "t\u00e9", "body": body}
    fitted, text = fit_and_render(envelope, limit, how="narrow it")
    assert fitted == fit_envelope(envelope, limit, how="narrow it")
    assert text == render_text(fitted)


def test_fit_envelope_cuts_the_largest_member_of_an_object_and_keeps_the_rest() -> None:
    body = {"has_more": True, "data": [{"id": i, "pad": "p" * 100} for i in range(500)]}
    fitted = fit_envelope({"ok": True, "body": body}, 10_000, how="h")
    assert fitted["body"]["has_more"] is True and 0 < len(fitted["body"]["data"]) < 500
    assert fitted["truncated"]["cut"] == [f"data: kept {len(fitted['body']['data'])} of 500 items"]


SLOT = CredentialSlot("PETSTORE_API_KEY", "apiKey", "api_key", "API key")


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_config_snippets_start_the_server_and_hold_no_secret(host: str) -> None:
    snippet = config_snippet(host, "petstore", ["/py", "-m", "packc.cli", "serve", "/p"], [SLOT])
    servers = snippet["servers" if host == "vscode" else "mcpServers"]
    entry = servers["petstore"]
    assert entry["command"] == "/py" and entry["args"] == ["-m", "packc.cli", "serve", "/p"]
    if host == "vscode":
        assert entry["env"] == {"PETSTORE_API_KEY": "${input:petstore-api-key}"}
        assert snippet["inputs"][0]["password"] is True
    else:
        assert "env" not in entry


def test_print_config_for_a_pack(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert (
        serve_main(
            [str(GOLDEN / "clinic" / "pet-clinic"), "--print-config", "claude-desktop", "--host-confirms"],
            stdout=out,
            stderr=err,
        )
        == 0
    )
    entry = json.loads(out.getvalue())["mcpServers"]["pet-clinic"]
    assert entry["args"][-2:] == [str((GOLDEN / "clinic" / "pet-clinic").resolve()), "--host-confirms"]
    assert "PET_CLINIC_TOKEN" in err.getvalue() and "pet-clinic connect" in err.getvalue()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("8080", ("127.0.0.1", 8080)),
        ("localhost:1", ("localhost", 1)),
        ("[::1]:9000", ("::1", 9000)),
        ("0.0.0.0:0", ("0.0.0.0", 0)),
    ],
)
def test_parse_http(value: str, expected: tuple[str, int]) -> None:
    assert parse_http(value) == expected


@pytest.mark.parametrize("value", ["", "x", "host:", "1:99999", "[::1]9000", ":80"])
def test_parse_http_refuses(value: str) -> None:
    with pytest.raises(ValueError):
        parse_http(value)


def test_usage_errors_are_one_line_with_an_exit_code(tmp_path: Path) -> None:
    err = io.StringIO()
    assert serve_main([str(tmp_path), "--http", "nope"], stderr=err) == 2 and "--http takes" in err.getvalue()
    err = io.StringIO()
    assert serve_main([str(tmp_path)], stderr=err) == 3 and "holds no pack" in err.getvalue()
    err = io.StringIO()
    assert serve_main([str(FAMILY), "--max-result-bytes", "10"], stderr=err) == 2


def test_every_golden_harness_is_an_agent_skills_file_and_lists_mcp() -> None:
    from packc_runtime.format._lint_mcp import front_matter
    from packc_runtime.format.lint import lint_pack

    for surface in sorted(GOLDEN.glob("*/*/surface.json")):
        pack_dir = surface.parent
        assert not [d for d in lint_pack(pack_dir) if d.code in ("M040", "M041")], pack_dir
        fields = front_matter((pack_dir / "HARNESS.md").read_text(encoding="utf-8"))
        assert fields is not None and fields["name"] == pack_dir.name and len(fields["name"]) <= 64
        assert 0 < len(fields["description"]) <= 1024
        assert "mcp" in json.loads(surface.read_text())["transports"]


def test_without_the_mcp_extra_serve_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(
        sys.modules, "packc_runtime.faces.mcp._server", None
    )  # as if `mcp` were not installed
    err = io.StringIO()
    assert serve_main([str(GOLDEN / "clinic" / "pet-clinic")], stderr=err) == 2
    assert "pip install 'packc-runtime[mcp]'" in err.getvalue()


def test_fit_envelope_asks_for_how_only_when_it_cuts() -> None:
    asked: list[int] = []

    def how() -> str:
        asked.append(1)
        return "narrow it"

    small = {"ok": True, "body": {"id": 1}}
    assert fit_envelope(small, 10_000, how=how) is small and asked == []
    fitted = fit_envelope({"ok": True, "body": ["x" * 100] * 500}, 10_000, how=how)
    assert fitted["truncated"]["how"] == "narrow it" and asked == [1]

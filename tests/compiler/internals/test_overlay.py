"""Overlays are a front-end stage on the raw document: what they add reaches args, descriptions
and credentials, and the overlay file is read with the bounded loader (issue 12, item 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from packc import compile
from packc.errors import UsageError
from packc.read._overlay import apply_overlay

ROOT = Path(__file__).resolve().parents[3]
CLINIC = ROOT / "specs" / "clinic.yaml"


def _overlay(tmp_path: Path, *actions: dict[str, Any]) -> Path:
    path = tmp_path / "overlay.yaml"
    path.write_text(
        yaml.safe_dump({"overlay": "1.0.0", "info": {"title": "t", "version": "1"}, "actions": list(actions)})
    )
    return path


def _surface(out: Path) -> dict[str, Any]:
    (pack,) = [p for p in out.iterdir() if p.is_dir()]
    return dict(json.loads((pack / "surface.json").read_text()))


def test_an_added_required_query_parameter_becomes_an_argument(tmp_path: Path) -> None:
    overlay = _overlay(
        tmp_path,
        {
            "target": "$.paths['/owners'].get.parameters",
            "update": {
                "name": "kind",
                "in": "query",
                "required": True,
                "description": "Owner kind to list.",
                "schema": {"type": "string", "enum": ["person", "shelter"]},
            },
        },
        {"target": "$.paths['/owners'].get", "update": {"summary": "List the owners of one kind."}},
    )
    result = compile(CLINIC, tmp_path / "out", overlay=overlay)
    assert result.ok, result.diagnostics
    verb = _surface(tmp_path / "out")["verbs"]["owners.list"]
    assert "kind" in verb["args"]["required"]
    assert verb["args"]["properties"]["kind"]["enum"] == ["person", "shelter"]
    assert verb["description"] == "List the owners of one kind."
    assert "{{kind}}" in verb["cli"]


def test_added_security_gives_the_pack_credentials(tmp_path: Path) -> None:
    doc = yaml.safe_load(CLINIC.read_text())
    del doc["security"], doc["components"]["securitySchemes"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(doc))
    before = compile(bare, tmp_path / "before")
    assert before.ok
    assert "None: the API is public." in (tmp_path / "before" / before.packs[0].id / "README.md").read_text()
    overlay = _overlay(
        tmp_path,
        {
            "target": "$",
            "update": {
                "security": [{"vetKey": []}],
                "components": {
                    "securitySchemes": {"vetKey": {"type": "apiKey", "in": "header", "name": "X-Vet-Key"}}
                },
            },
        },
    )
    after = compile(bare, tmp_path / "after", overlay=overlay)
    assert after.ok
    readme = (tmp_path / "after" / after.packs[0].id / "README.md").read_text()
    assert "PET_CLINIC_API_KEY" in readme and "None: the API is public." not in readme
    document = json.loads((tmp_path / "after" / after.packs[0].id / "openapi.json").read_text())
    assert document["components"]["securitySchemes"]["vetKey"]["name"] == "X-Vet-Key"


def test_the_overlay_is_read_with_the_bounded_loader(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [
        f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
        f"*a{i - 1}, *a{i - 1}, *a{i - 1}]"
        for i in range(1, 9)
    ]
    bomb.write_text("\n".join(["overlay: 1.0.0", "actions: []", *lines]) + "\n")
    with pytest.raises(UsageError) as info:
        compile(CLINIC, tmp_path / "out", overlay=bomb)
    assert "overlay" in str(info.value) and info.value.diagnostics
    dup = tmp_path / "dup.yaml"
    dup.write_text("overlay: 1.0.0\nactions: []\nactions: []\n")
    result = compile(CLINIC, tmp_path / "out2", overlay=dup)
    assert [d.code for d in result.diagnostics if d.pointer.endswith("dup.yaml#/actions")] == ["D008"]


def test_update_appends_to_an_array_and_merges_into_an_object() -> None:
    doc = {"tags": [{"name": "a"}], "info": {"title": "x", "version": "1"}}
    out, diags = apply_overlay(
        doc,
        {
            "overlay": "1.0.0",
            "actions": [
                {"target": "$.tags", "update": {"name": "b"}},
                {"target": "$.tags", "update": [{"name": "c"}]},
                {"target": "$.info", "update": {"title": "y"}},
            ],
        },
    )
    assert diags == [] and out["tags"] == [{"name": "a"}, {"name": "b"}, {"name": "c"}]
    assert out["info"] == {"title": "y", "version": "1"} and doc["info"]["title"] == "x"  # a new value

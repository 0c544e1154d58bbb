"""Control without editing the source: x-packc extensions, OpenAPI Overlays, stub manifests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from packc import compile
from packc.pipeline import plan_source

from .helpers import write_doc


def _doc(n: int = 6, **root: Any) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for i in range(n):
        paths[f"/items{i}"] = {
            "get": {
                "operationId": f"listItems{i}",
                "summary": f"List items {i}.",
                "responses": {"200": {"description": "ok"}},
            }
        }
    paths["/items0/{id}/pay"] = {
        "post": {
            "operationId": "payItem",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}},
        }
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": "https://s.example"}],
        "paths": paths,
        **root,
    }


def _verbs(result_dir: Path, pack: str) -> dict[str, Any]:
    return dict(json.loads((result_dir / pack / "surface.json").read_text())["verbs"])


def test_x_packc_on_operations_and_root(tmp_path: Path) -> None:
    doc = _doc()
    doc["x-packc"] = {"id": "myshop", "name": "My Shop", "exclude": ["listItems5"]}
    doc["paths"]["/items0/{id}/pay"]["post"]["x-packc"] = {
        "verb": "items.checkout",
        "access": "write",
        "preview": "payment",
    }
    doc["paths"]["/items1"]["get"]["x-packc"] = {"exclude": True}
    result = compile(write_doc(tmp_path, doc), tmp_path / "out")
    assert result.ok and [p.id for p in result.packs] == ["myshop"]
    verbs = _verbs(tmp_path / "out", "myshop")
    assert "items.checkout" in verbs and verbs["items.checkout"]["preview"]["kind"] == "payment"
    assert "items1.list" not in verbs and "items5.list" not in verbs
    assert {lo.name for lo in result.left_out} == {"items1.list", "items5.list"}


def test_bad_x_packc_values_are_diagnostics(tmp_path: Path) -> None:
    doc = _doc()
    doc["paths"]["/items0"]["get"]["x-packc"] = {"verb": "Not Valid", "access": "maybe", "colour": "red"}
    plan = plan_source(write_doc(tmp_path, doc))
    codes = sorted(d.code for d in plan.diagnostics)
    assert codes == ["C102", "C103", "C104"]


def test_overlay_adds_x_packc_and_removes_operations(tmp_path: Path) -> None:
    overlay = {
        "overlay": "1.0.0",
        "info": {"title": "tweaks", "version": "1"},
        "actions": [
            {
                "target": "$.paths['/items0/{id}/pay'].post",
                "update": {"x-packc": {"verb": "items.buy", "access": "read"}},
            },
            {"target": "$.paths['/items2']", "remove": True},
            {"target": "$.paths.*.get", "update": {"x-packc": {"group": "everything"}}},
            {"target": "$.nowhere", "update": {}},
        ],
    }
    overlay_file = tmp_path / "overlay.yaml"
    overlay_file.write_text(yaml.safe_dump(overlay))
    result = compile(write_doc(tmp_path, _doc()), tmp_path / "out", overlay=overlay_file)
    verbs = _verbs(tmp_path / "out", "shop")
    assert "items.buy" in verbs and verbs["items.buy"]["policy"] == "read"
    assert "items2.list" not in verbs and len(verbs) == 6
    assert [d.code for d in result.diagnostics] == ["C142", "C158"]  # a POST and no security


def test_stub_manifest_selects_and_names(tmp_path: Path) -> None:
    write_doc(tmp_path, _doc(), name="api.json")
    stub = {
        "id": "tiny",
        "name": "Tiny shop",
        "kind": "openapi",
        "cliBin": "tiny",
        "openapi": {"path": "api.json"},
        "binding": {"mode": "public", "hub": "public"},
        "verbs": {"items0.list": {"description": "Everything in aisle zero."}, "items1.list": {}},
    }
    (tmp_path / "surface.json").write_text(json.dumps(stub))
    result = compile(tmp_path / "surface.json", tmp_path / "out")
    assert (
        result.ok and result.packs[0].id == "tiny" and result.packs[0].verbs == ("items0.list", "items1.list")
    )
    verbs = _verbs(tmp_path / "out", "tiny")
    assert verbs["items0.list"]["description"] == "Everything in aisle zero."
    assert verbs["items0.list"]["cli"][0] == "tiny"
    assert all(lo.reason == "not among the stub manifest's verbs" for lo in result.left_out)


def test_a_stub_field_packc_does_not_carry_is_reported_not_dropped(tmp_path: Path) -> None:
    """Issue 27, item 5: plane, skill_url, transports, stimulusTriggers, hcp, a verb's cli and
    json_flag in a stub used to vanish without a word; each is now a C173 warning at its pointer."""
    write_doc(tmp_path, _doc(), name="api.json")
    stub = {
        "id": "tiny",
        "kind": "openapi",
        "openapi": {"path": "api.json"},
        "plane": "runtime",
        "skill_url": "https://example.com/tiny/HARNESS.md",
        "transports": ["cli"],
        "stimulusTriggers": [{"ref": "binding.degraded"}],
        "hcp": {"hcp": 1, "pack_id": "tiny"},
        "verbs": {
            "items0.list": {"description": "Aisle zero.", "cli": ["tiny", "zero"], "json_flag": []},
            "items1.list": {"title": {"live": "Listing"}},
        },
    }
    (tmp_path / "surface.json").write_text(json.dumps(stub))
    result = compile(tmp_path / "surface.json", tmp_path / "out")
    assert result.ok
    reported = sorted(d.pointer for d in result.diagnostics if d.code == "C173")
    assert reported == [
        "surface.json#/hcp",
        "surface.json#/plane",
        "surface.json#/skill_url",
        "surface.json#/stimulusTriggers",
        "surface.json#/transports",
        "surface.json#/verbs/items0.list/cli",
        "surface.json#/verbs/items0.list/json_flag",
    ]
    assert all(d.level == "warning" for d in result.diagnostics if d.code == "C173")
    # what a stub says and packc keeps is kept, unreported
    assert _verbs(tmp_path / "out", "tiny")["items1.list"]["title"] == {"live": "Listing"}

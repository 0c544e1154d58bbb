"""A small API gets a pack (issue 11, item 7): fewer than 5 operations compile, with a warning that
says why; lint warns (never fails) on a small pack that needs credentials; over 12 stays an error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from packc import compile as packc_compile
from packc.lint import lint_pack


def _doc(n: int, *, secured: bool = True, excluded: int = 0) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for i in range(n + excluded):
        op: dict[str, Any] = {"summary": f"Send thing {i}", "responses": {"200": {"description": "ok"}}}
        if i >= n:
            op["x-packc"] = {"exclude": True}
        paths[f"/things{i}"] = {"post": op}
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Tiny", "version": "1"},
        "servers": [{"url": "https://api.tiny.example"}],
        "paths": paths,
    }
    if secured:
        doc["components"] = {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}}
        doc["security"] = [{"key": []}]
    return doc


def _compile(tmp_path: Path, doc: dict[str, Any], **kw: Any) -> Any:
    tmp_path.mkdir(parents=True, exist_ok=True)
    src = tmp_path / "tiny.json"
    src.write_text(json.dumps(doc))
    return packc_compile(src, tmp_path / "out", **kw)


def test_a_small_credentialed_api_compiles_with_a_warning_that_says_why(tmp_path: Path) -> None:
    result = _compile(tmp_path, _doc(3))
    assert result.ok and [len(p.verbs) for p in result.packs] == [3]
    small = [d for d in result.diagnostics if d.code == "C111"]
    assert len(small) == 1 and small[0].level == "warning"
    assert "only 3 operation(s)" in small[0].message
    findings = lint_pack(result.packs[0].directory)
    assert [(d.code, d.level) for d in findings] == [("M016", "warning")]


def test_the_warning_counts_what_x_packc_excludes(tmp_path: Path) -> None:
    result = _compile(tmp_path, _doc(2, excluded=2))
    small = next(d for d in result.diagnostics if d.code == "C111")
    assert "only 2 operation(s)" in small.message and "2 more excluded" in small.message


def test_split_still_merges_small_groups_and_a_public_read_pack_has_no_warning(tmp_path: Path) -> None:
    doc = _doc(7)
    for i, item in enumerate(doc["paths"].values()):
        item["post"]["tags"] = [f"t{i}"]
    result = _compile(tmp_path, doc, split=True)
    assert result.ok and len(result.packs) == 1 and len(result.packs[0].verbs) == 7
    public = {
        "openapi": "3.0.3",
        "info": {"title": "Tiny", "version": "1"},
        "servers": [{"url": "https://t.example"}],
        "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}},
    }
    result = _compile(tmp_path / "p", public)
    assert result.ok and not [d for d in result.diagnostics if d.code in ("C111", "M016")]

"""compile(): every spec under specs/ gives lint-clean packs; output is deterministic and re-compilable."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from packc import CompileResult, PackcError, compile
from packc.cli import main
from packc.lint import lint_pack

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted(p for p in (ROOT / "specs").rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
OURS = [
    "specs/clinic.yaml",
    "specs/bookshop.swagger.json",
    "specs/taskboard.yaml",
    "specs/demo/petstore.yaml",
]


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: str(p.relative_to(ROOT)))
@pytest.mark.parametrize("split", [False, True], ids=["one", "split"])
def test_every_spec_compiles_to_lint_clean_packs_or_fails_cleanly(
    spec: Path, split: bool, tmp_path: Path
) -> None:
    try:
        result = compile(spec, tmp_path, split=split)
    except PackcError:
        return  # not an API document (a fragment, a bomb): refused with diagnostics, never a traceback
    for pack in result.packs:
        assert pack.directory is not None
        errors = [d for d in lint_pack(pack.directory) if d.level == "error"]
        assert errors == [], errors


@pytest.mark.parametrize("spec", OURS)
def test_our_specs_compile_without_errors(spec: str, tmp_path: Path) -> None:
    result = compile(ROOT / spec, tmp_path)
    assert result.ok, [str(d) for d in result.diagnostics]
    assert len(result.packs) == 1 and 5 <= len(result.packs[0].verbs) <= 12


@pytest.mark.parametrize("split", [False, True])
def test_two_compiles_are_byte_identical(split: bool, tmp_path: Path) -> None:
    a = compile(ROOT / "specs/taskboard.yaml", tmp_path / "a", split=split)
    b = compile(ROOT / "specs/taskboard.yaml", tmp_path / "b", split=split)
    assert [p.id for p in a.packs] == [p.id for p in b.packs]
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    text = b"".join(_tree(tmp_path / "a").values())
    assert str(tmp_path).encode() not in text and str(ROOT).encode() not in text


@pytest.mark.parametrize("spec", OURS)
def test_recompiling_a_pack_gives_the_same_pack(spec: str, tmp_path: Path) -> None:
    first = compile(ROOT / spec, tmp_path / "first")
    pack_dir = first.packs[0].directory
    assert pack_dir is not None
    again = compile(pack_dir / "surface.json", tmp_path / "again")
    assert again.ok and [p.id for p in again.packs] == [first.packs[0].id]
    assert _tree(pack_dir) == _tree(tmp_path / "again" / first.packs[0].id)


def test_split_family_covers_the_api_and_shares_a_family(tmp_path: Path) -> None:
    result = compile(ROOT / "specs/taskboard.yaml", tmp_path, split=True)
    assert result.ok and len(result.packs) >= 2 and result.left_out == ()
    families = set()
    total = 0
    for pack in result.packs:
        assert pack.directory is not None and pack.id.startswith("taskboard-")
        manifest = json.loads((pack.directory / "surface.json").read_text())
        families.add(manifest["binding"]["family"])
        total += len(manifest["verbs"])
    assert families == {"taskboard"} and total == 30


def test_pack_layout_matches_the_contract(tmp_path: Path) -> None:
    result = compile(ROOT / "specs/clinic.yaml", tmp_path)
    pack = result.packs[0].directory
    assert pack is not None
    assert {
        "surface.json",
        "policy.json",
        "openapi.json",
        "HARNESS.md",
        "README.md",
        "bin/pet-clinic",
    } <= set(_tree(pack))
    launcher = pack / "bin" / "pet-clinic"
    assert os.stat(launcher).st_mode & 0o777 == 0o755
    text = launcher.read_text()
    assert text.startswith("#!/usr/bin/env python3") and "from packc_runtime.cli import pack_main" in text
    manifest = json.loads((pack / "surface.json").read_text())
    assert manifest["kind"] == "openapi" and manifest["openapi"] == {"path": "openapi.json"}
    assert manifest["transports"] == ["cli", "json_exec", "mcp"]  # mcp: packc serve / <cliBin> mcp
    document = json.loads((pack / "openapi.json").read_text())
    bound = {
        op["x-packc-binding"]["verb"]
        for item in document["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "x-packc-binding" in op
    }
    assert bound == set(manifest["verbs"])
    assert "'$ref': 'http" not in json.dumps(document)
    refs = json.dumps(document).split('"$ref": "')[1:]
    assert all(r.startswith("#/") for r in refs)
    policy = json.loads((pack / "policy.json").read_text())
    assert policy["commands"]["pets.delete"] == {"access": "write", "destructive": True}
    assert policy["commands"]["pets.search"] == {"access": "read"}


def test_harness_teaches_setup_verbs_confirmation_and_errors(tmp_path: Path) -> None:
    result = compile(ROOT / "specs/clinic.yaml", tmp_path)
    assert result.packs[0].directory is not None
    harness = (result.packs[0].directory / "HARNESS.md").read_text()
    assert harness.startswith("---\nname: pet-clinic\ndescription: ")
    order = [harness.index(h) for h in ("## Setup", "## Verbs", "## Confirmation", "## Errors")]
    assert order == sorted(order)
    assert "PET_CLINIC_TOKEN" in harness and "pet-clinic pets get 1" in harness
    assert "pixel.gif" not in harness and "<img" not in harness and "\u202e" not in harness


def test_cli_compile_json_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compile", str(ROOT / "specs/clinic.yaml"), "-o", str(tmp_path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"] and data["packs"][0]["id"] == "pet-clinic"
    assert main(["compile", str(tmp_path / "missing.yaml"), "-o", str(tmp_path)]) == 1
    assert main(["compile"]) == 2
    capsys.readouterr()
    assert main(["plan", str(ROOT / "specs/taskboard.yaml"), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert len(plan["left_out"]) == 18 and all(lo["reason"] for lo in plan["left_out"])


def test_compile_result_is_the_python_api(tmp_path: Path) -> None:
    result = compile(ROOT / "specs/taskboard.yaml", tmp_path)
    assert isinstance(result, CompileResult)
    data = result.to_json()
    assert set(data) == {"ok", "packs", "left_out", "diagnostics"}
    assert len(result.left_out) == 18


def _all_refs(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in _all_refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _all_refs(v)]
    return []


@pytest.mark.parametrize("spec", OURS)
def test_cut_document_is_self_contained(spec: str, tmp_path: Path) -> None:
    from packc.model import resolve_pointer

    for pack in compile(ROOT / spec, tmp_path, split=True).packs:
        assert pack.directory is not None
        document = json.loads((pack.directory / "openapi.json").read_text())
        assert all(resolve_pointer(document, ref) is not None for ref in _all_refs(document))


def test_refs_into_a_component_copy_the_whole_component(tmp_path: Path) -> None:
    from packc.model import resolve_pointer

    ok = {"200": {"description": "ok"}}
    paths = {
        f"/r{i}": {
            "get": {
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "$ref": "#/components/schemas/Pet/properties/name"
                                    if i == 0
                                    else "#/components/schemas/Pet"
                                }
                            }
                        },
                    }
                }
            }
        }
        for i in range(5)
    }
    paths["/r5"] = {"get": {"responses": ok}}
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Refs", "version": "1"},
        "servers": [{"url": "https://r.example"}],
        "paths": paths,
        "components": {
            "schemas": {
                "Pet": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "o": {"$ref": "#/components/schemas/O"}},
                },
                "O": {"type": "string"},
                "Unused": {"type": "integer"},
            }
        },
    }
    (tmp_path / "api.json").write_text(json.dumps(doc))
    result = compile(tmp_path / "api.json", tmp_path / "out")
    assert result.packs[0].directory is not None
    cut = json.loads((result.packs[0].directory / "openapi.json").read_text())
    assert sorted(cut["components"]["schemas"]) == ["O", "Pet"]
    assert all(resolve_pointer(cut, ref) is not None for ref in _all_refs(cut))


def test_warnings_from_deferred_parts_reach_the_compile_result(tmp_path: Path) -> None:
    # Normalize reads parameters on first use; derive reads the selected operations', and what
    # that reports (here D042 and D045) is in the result, after the front end's warnings (D030).
    ops = "\n".join(
        f"""  /things{i}/{{id}}:
    get:
      operationId: getThing{i}
      parameters: [{{name: id, in: path, schema: {{type: string}}}}, {{name: q, in: query}}]
      responses: {{"200": {{description: ok}}}}"""
        for i in range(5)
    )
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"openapi: 3.0.3\ninfo: {{title: Things, version: '1'}}\npaths:\n{ops}\n", encoding="utf-8"
    )
    result = compile(spec, tmp_path / "out", write=False)
    codes = [d.code for d in result.diagnostics]
    assert codes[0] == "D030"
    assert codes[1:11] == ["D042", "D045"] * 5
    again = compile(spec, tmp_path / "again", write=False)
    assert again.diagnostics == result.diagnostics  # deterministic: the same warnings in the same order


def test_cli_does_not_print_python_warnings_about_document_regexes(tmp_path: Path) -> None:
    # "[[a]" is a legal pattern Python warns about ("Possible nested set"); a user cannot change it.
    ops = {
        f"/r{i}": {
            "get": {
                "summary": "List.",
                "parameters": [
                    {"name": "q", "in": "query", "schema": {"type": "string", "pattern": "^[[a]x$"}}
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
        for i in range(5)
    }
    spec = tmp_path / "odd.json"
    spec.write_text(
        json.dumps(
            {
                "openapi": "3.0.3",
                "info": {"title": "Odd", "version": "1"},
                "servers": [{"url": "https://odd.example"}],
                "paths": ops,
            }
        )
    )
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert main(["compile", str(spec), "-o", str(tmp_path / "out")]) == 0
    assert not [w for w in seen if issubclass(w.category, FutureWarning)]
    with warnings.catch_warnings(record=True) as seen:  # the library leaves warning settings to its caller
        warnings.simplefilter("always")
        compile(spec, tmp_path / "lib")
    assert [w for w in seen if "nested set" in str(w.message)]


def test_a_pattern_that_can_backtrack_for_ever_is_left_out_with_c157(tmp_path: Path) -> None:
    # beezup.com's pattern with an example that almost matches: running it would not end in our lifetime.
    evil = r"^(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?$"
    example = "http://" + "a" * 30 + ".com/" + "x" * 40 + "!"
    body = {
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "url": {"type": "string", "pattern": evil, "example": example},
                        "code": {"type": "string", "pattern": "^[A-Z]{3}$", "example": "EUR"},
                    },
                }
            }
        }
    }
    ops = {
        f"/r{i}": {
            "post": {"summary": "Create.", "requestBody": body, "responses": {"200": {"description": "ok"}}}
        }
        for i in range(5)
    }
    spec = tmp_path / "evil.json"
    spec.write_text(
        json.dumps(
            {
                "openapi": "3.0.3",
                "info": {"title": "Evil", "version": "1"},
                "servers": [{"url": "https://evil.example"}],
                "paths": ops,
            }
        )
    )
    result = compile(spec, tmp_path / "out")
    assert [d.code for d in result.diagnostics if d.level == "error"] == []
    c157 = [d for d in result.diagnostics if d.code == "C157"]
    assert len(c157) == 5 and all("body property 'url'" in d.message for d in c157)
    surface = json.loads((tmp_path / "out" / "evil" / "surface.json").read_text())
    args = surface["verbs"]["r0.create"]["args"]["properties"]
    assert "pattern" not in args["url"] and args["url"]["examples"] == [example]
    assert args["code"]["pattern"] == "^[A-Z]{3}$"  # a safe pattern stays
    assert not [f for f in lint_pack(tmp_path / "out" / "evil") if f.level == "error"]


def test_include_and_exclude_from_the_cli_and_the_python_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = str(ROOT / "specs/taskboard.yaml")
    code = main(
        [
            "compile",
            spec,
            "-o",
            str(tmp_path / "cli"),
            "--json",
            "--include",
            "tasks.update",
            "--include",
            "DELETE /projects/{projectId}",
            "--exclude",
            "users.me",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"]
    manifest = json.loads((tmp_path / "cli" / "taskboard" / "surface.json").read_text(encoding="utf-8"))
    verbs = set(manifest["verbs"])
    assert {"tasks.update", "projects.delete"} <= verbs and "users.me" not in verbs
    assert not [d for d in lint_pack(tmp_path / "cli" / "taskboard") if d.level == "error"]
    # The Python API takes one name or a list; a name of nothing is a usage error with the closest names.
    result = compile(spec, tmp_path / "api", include="tasks.update")
    assert "tasks.update" in result.packs[0].verbs
    assert (
        compile(spec, tmp_path / "set", include={"tasks.update"}, exclude=None).packs[0].verbs
        == result.packs[0].verbs
    )
    # A stub manifest keeps only the verbs it names: an --include beyond them says so.
    (tmp_path / "stub").mkdir()
    (tmp_path / "stub" / "api.yaml").write_bytes((ROOT / "specs/taskboard.yaml").read_bytes())
    (tmp_path / "stub" / "surface.json").write_text(
        json.dumps(
            {
                "id": "tb",
                "name": "Tb",
                "kind": "openapi",
                "cliBin": "tb",
                "openapi": {"path": "api.yaml"},
                "verbs": {
                    name: {}
                    for name in ("tasks.list", "tasks.get", "tasks.create", "tasks.update", "projects.list")
                },
            }
        )
    )
    with pytest.raises(PackcError, match="not among them"):
        compile(tmp_path / "stub" / "surface.json", tmp_path / "again", include=["tasks.delete"])
    with pytest.raises(PackcError, match=r"did you mean 'tasks\.update'"):
        compile(spec, tmp_path / "bad", include=["task.update"])
    with pytest.raises(PackcError, match="takes operation names"):
        compile(spec, tmp_path / "bad", include=[3])  # type: ignore[list-item]
    assert not (tmp_path / "bad").exists()
    assert main(["plan", spec, "--json", "--exclude", "nothing.here"]) == 2
    error = json.loads(capsys.readouterr().out)
    assert error["ok"] is False and "'nothing.here' names no operation" in error["error"]["message"]

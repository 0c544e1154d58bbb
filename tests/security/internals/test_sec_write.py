"""Issue 10 item 1: document text never becomes a path outside OUT_DIR or code, and packc deletes
nothing it did not write. Each test compiles a hostile document from the issue."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from sec_ident_hostile import PY_BREAKOUT, document, tree, write

from packc import compile
from packc.errors import UsageError
from packc.write._files import MARKER, write_tree
from packc.write._repo import LAUNCHER_MODULE, SMOKE_TEST
from packc.write.emit import LAUNCHER
from packc_runtime.format.identifiers import PackId


def _codes(result: object) -> set[str]:
    return {d.code for d in result.diagnostics}  # type: ignore[attr-defined]


def test_clibin_path_traversal_replaces_no_file_outside_out_dir(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "out"
    victim = tmp_path / "a" / "b" / "victim.txt"  # out/zoo/bin/../../../victim.txt
    victim.parent.mkdir(parents=True)
    victim.write_text("precious")
    result = compile(write(tmp_path, document(x_packc={"cliBin": "../../../victim.txt"})), out)
    assert not result.ok and "C108" in _codes(result)
    assert victim.read_text() == "precious" and not os.access(victim, os.X_OK)
    assert not out.exists() or list(out.iterdir()) == []


@pytest.mark.parametrize("field", ["id", "cliBin", "family"])
@pytest.mark.parametrize("repo", [False, True])
def test_python_in_an_identifier_is_refused_before_anything_is_written(
    tmp_path: Path, field: str, repo: bool
) -> None:
    out = tmp_path / "out"
    result = compile(write(tmp_path, document(x_packc={field: PY_BREAKOUT})), out, repo=repo)
    code = {"id": "C107", "cliBin": "C108", "family": "C109"}[field]
    (diag,) = [d for d in result.diagnostics if d.code == code]
    assert diag.level == "error" and diag.pointer == f"#/x-packc/{field}" and "lower-case" in diag.fix
    assert not out.exists() or list(out.iterdir()) == []
    assert not (tmp_path / "PWNED").exists()


def test_absolute_id_whose_directory_holds_a_surface_json_is_left_alone(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "surface.json").write_text("{}")
    (victim / "thesis.tex").write_text("years of work")
    before = tree(victim)
    result = compile(write(tmp_path, document(x_packc={"id": str(victim)})), tmp_path / "out")
    assert not result.ok and "C107" in _codes(result)
    assert tree(victim) == before


def test_stub_manifest_identifiers_are_checked_like_the_document_s(tmp_path: Path) -> None:
    write(tmp_path, document())
    stub = {
        "id": "../../stub",
        "kind": "openapi",
        "cliBin": "a b",
        "openapi": {"path": "api.json"},
        "binding": {"family": "Git\nHub"},
    }
    (tmp_path / "surface.json").write_text(json.dumps(stub))
    result = compile(tmp_path / "surface.json", tmp_path / "out")
    pointers = {d.code: d.pointer for d in result.diagnostics if d.level == "error"}
    assert pointers == {
        "C107": "surface.json#/id",
        "C108": "surface.json#/cliBin",
        "C109": "surface.json#/binding/family",
    }
    assert not (tmp_path / "out").exists()


def test_a_pack_directory_without_the_marker_is_refused_not_cleaned(tmp_path: Path) -> None:
    mine = tmp_path / "out" / "zoo"
    mine.mkdir(parents=True)
    (mine / "surface.json").write_text("{}")
    (mine / "notes.md").write_text("mine")
    before = tree(mine)
    with pytest.raises(UsageError, match="did not write"):
        compile(write(tmp_path, document()), tmp_path / "out")
    assert tree(mine) == before


def test_recompiling_replaces_only_what_packc_wrote(tmp_path: Path) -> None:
    spec = write(tmp_path, document())
    first = compile(spec, tmp_path / "out", repo=True)
    (pack,) = first.packs
    assert pack.directory is not None
    assert (pack.directory / "pyproject.toml").is_file()
    (pack.directory / ".git").mkdir()
    (pack.directory / ".git" / "config").write_text("[core]")
    (pack.directory / "notes.md").write_text("mine")
    second = compile(spec, tmp_path / "out")  # without --repo: the repo files packc wrote go
    assert second.ok
    files = set(tree(pack.directory))
    assert {".git/config", "notes.md", "surface.json", "bin/zoo", MARKER} <= files
    assert "pyproject.toml" not in files and not (pack.directory / "tests").exists()
    listed = [line for line in (pack.directory / MARKER).read_text().splitlines() if not line.startswith("#")]
    assert listed == sorted(files - {".git/config", "notes.md", MARKER})


def test_a_new_file_never_replaces_one_packc_did_not_write(tmp_path: Path) -> None:
    spec = write(tmp_path, document())
    (pack,) = compile(spec, tmp_path / "out").packs
    assert pack.directory is not None
    (pack.directory / "pyproject.toml").write_text("# my own project")
    with pytest.raises(UsageError, match="did not write"):
        compile(spec, tmp_path / "out", repo=True)
    assert (pack.directory / "pyproject.toml").read_text() == "# my own project"
    assert (pack.directory / "surface.json").is_file()  # the old pack is left as it was


def test_symbolic_links_never_lead_a_write_outside(tmp_path: Path) -> None:
    spec = write(tmp_path, document())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / MARKER).write_text("surface.json\n")
    (elsewhere / "surface.json").write_text("{}")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "zoo").symlink_to(elsewhere)
    with pytest.raises(UsageError, match="symbolic link"):
        compile(spec, tmp_path / "out")
    assert (elsewhere / "surface.json").read_text() == "{}"


def test_a_marker_naming_a_path_outside_is_refused(tmp_path: Path) -> None:
    spec = write(tmp_path, document())
    (pack,) = compile(spec, tmp_path / "out").packs
    assert pack.directory is not None
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (pack.directory / MARKER).write_text("../../victim.txt\n")
    with pytest.raises(UsageError, match="outside"):
        compile(spec, tmp_path / "out")
    assert victim.read_text() == "precious"


def test_lint_runs_on_the_new_files_before_they_are_in_place(tmp_path: Path) -> None:
    seen: list[tuple[bool, bool]] = []

    def check(staged: Path) -> int:
        seen.append(((staged / "a.txt").is_file(), (tmp_path / "out" / "zoo").exists()))
        return 7

    directory, found = write_tree(tmp_path / "out", PackId("zoo"), {"a.txt": ("a", 0o644)}, check)
    assert seen == [(True, False)] and found == 7
    assert tree(directory) == {"a.txt": b"a", MARKER: (directory / MARKER).read_bytes()}
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["zoo"]  # no staging folder left


def test_generated_code_is_a_fixed_template_and_toml_is_serialized(tmp_path: Path) -> None:
    name = PY_BREAKOUT + "\x7f DEL"  # item 12: a DEL in a name made pyproject.toml invalid
    # The title gives the (sanitized) id; x-packc.name reaches pyproject.toml as written.
    result = compile(
        write(tmp_path, document(title=name, x_packc={"name": name})), tmp_path / "out", repo=True
    )
    assert result.ok, result.diagnostics
    (pack,) = result.packs
    assert pack.directory is not None
    directory = pack.directory
    (launcher,) = (directory / "bin").iterdir()
    assert launcher.name == directory.name and directory.name.startswith(
        "x-import-os"
    )  # made an id from the title
    assert launcher.read_text() == LAUNCHER
    assert (directory / "tests" / "test_smoke.py").read_text() == SMOKE_TEST
    (module,) = [p for p in directory.glob("*_pack/__init__.py")]
    assert module.read_text() == LAUNCHER_MODULE
    project = tomllib.loads((directory / "pyproject.toml").read_text())["project"]
    assert "\x7f" in project["description"] and '"""' in project["description"]
    done = subprocess.run(
        [sys.executable, str(launcher), "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0 and "pets list" in done.stdout
    assert not (tmp_path / "PWNED").exists()


def test_launcher_without_the_runtime_says_how_to_install_it(tmp_path: Path) -> None:
    (pack,) = compile(write(tmp_path, document()), tmp_path / "out").packs
    assert pack.directory is not None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-S", "-I", str(pack.directory / "bin" / "zoo"), "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 3
    assert "pip install packc-runtime" in done.stderr and "Traceback" not in done.stderr

"""Nothing lost (issue 24, item 8): a compile never replaces a pack folder another compile wrote
(another document, --for or --split) without --force, and a --for pack has an id of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from packc import CompileOptions, UsageError
from packc import compile as packc_compile

TASKBOARD = Path(__file__).resolve().parents[2] / "specs" / "taskboard.yaml"


def _doc(title: str) -> dict[str, Any]:
    ops = {
        f"/notes{i}": {
            "get": {
                "operationId": f"list_notes{i}",
                "summary": "List notes.",
                "responses": {"200": {"description": "ok"}},
            }
        }
        for i in range(5)
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "1"},
        "servers": [{"url": "https://notes.example.com"}],
        "paths": ops,
    }


def _files(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


def test_a_for_pack_has_its_own_id_and_leaves_the_one_pack_alone(tmp_path: Path) -> None:
    out = tmp_path / "packs"
    one = packc_compile(TASKBOARD, out).packs[0]
    before = _files(one.directory)  # type: ignore[arg-type]
    task = packc_compile(TASKBOARD, out, goal="close a task and add a comment").packs[0]
    assert one.id == "taskboard" and task.id == "taskboard-close-task-add"
    assert _files(one.directory) == before  # type: ignore[arg-type]
    again = packc_compile(TASKBOARD, tmp_path / "again", goal="close a task and add a comment").packs[0]
    assert again.id == task.id  # the same task, the same id
    marker = (out / task.id / ".packc-generated").read_text()
    assert (
        '# made by: {"api": "Taskboard", "for": "close a task and add a comment", "split": false}' in marker
    )


def test_another_document_is_refused_the_folder_unless_forced(tmp_path: Path) -> None:
    first, second = tmp_path / "notes.json", tmp_path / "notes-api.json"
    first.write_text(json.dumps(_doc("Notes")))
    second.write_text(json.dumps(_doc("Notes API")))
    out = tmp_path / "packs"
    pack = packc_compile(first, out).packs[0]
    before = _files(pack.directory)  # type: ignore[arg-type]
    assert packc_compile(first, out).packs[0].id == pack.id  # the same compile again replaces its own
    with pytest.raises(UsageError) as refused:
        packc_compile(second, out)
    message = str(refused.value)
    assert "another compile made (the API 'Notes')" in message and "--force" in message
    assert _files(pack.directory) == before  # type: ignore[arg-type]
    # The command line says the same and exits 2; --force (force= in Python) replaces it.
    cli = subprocess.run(
        [sys.executable, "-m", "packc.cli", "compile", str(second), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 2 and "pass --force" in cli.stderr
    packc_compile(second, options=CompileOptions(out_dir=out, force=True))
    assert '"api": "Notes API"' in (out / pack.id / ".packc-generated").read_text()


def test_a_marker_that_records_no_maker_is_replaced_as_before(tmp_path: Path) -> None:
    doc = tmp_path / "notes.json"
    doc.write_text(json.dumps(_doc("Notes")))
    pack = packc_compile(doc, tmp_path / "packs").packs[0]
    marker = pack.directory / ".packc-generated"  # type: ignore[operator]
    marker.write_text(
        "".join(line + "\n" for line in marker.read_text().splitlines() if "made by" not in line)
    )
    packc_compile(doc, tmp_path / "packs")  # written by an older packc: replaced, and now recorded
    assert "# made by:" in marker.read_text()

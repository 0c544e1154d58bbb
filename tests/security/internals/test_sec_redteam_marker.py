"""Red-team regression: a forged ``.packc-generated`` made packc delete files it never wrote.

The marker travels with the pack (a ``--repo`` pack is published with it), so whoever wrote the
directory wrote the marker too. A cloned pack repo whose marker lists ``.git/refs/heads/main`` and
``notes.md`` lost both (and the emptied ``.git/refs/heads``) the first time the user compiled into it.
"""

from __future__ import annotations

import json
from pathlib import Path

from packc import compile as compile_api
from packc.write._files import MARKER

OK = {"200": {"description": "ok"}}
DOCUMENT = {
    "openapi": "3.0.3",
    "info": {"title": "Zoo", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {f"/r{i}": {"get": {"operationId": f"r{i}", "responses": OK}} for i in range(5)},
}


def test_a_forged_marker_cannot_make_packc_delete_files_it_never_writes(tmp_path: Path) -> None:
    spec = tmp_path / "d.json"
    spec.write_text(json.dumps(DOCUMENT), "utf-8")
    directory = compile_api(spec, tmp_path / "out", repo=True).packs[0].directory
    assert directory is not None
    refs = directory / ".git" / "refs" / "heads"
    refs.mkdir(parents=True)
    (refs / "main").write_text("0123abcd\n")
    (directory / "notes.md").write_text("mine")
    (directory / "other_pack").mkdir()
    (directory / "other_pack" / "data.py").write_text("x = 1\n")
    forged = [".git/refs/heads/main", "notes.md", "other_pack/data.py", "bin/zoo"]
    with (directory / MARKER).open("a", encoding="utf-8") as marker:
        marker.write("".join(f"{rel}\n" for rel in forged))
    assert compile_api(spec, tmp_path / "out", repo=True).ok
    assert (refs / "main").read_text() == "0123abcd\n"
    assert (directory / "notes.md").read_text() == "mine"
    assert (directory / "other_pack" / "data.py").is_file()
    listed = (directory / MARKER).read_text().splitlines()
    assert not {".git/refs/heads/main", "notes.md", "other_pack/data.py"} & set(listed)


def test_a_renamed_cli_still_removes_the_old_launcher(tmp_path: Path) -> None:
    spec = tmp_path / "d.json"
    spec.write_text(json.dumps({**DOCUMENT, "x-packc": {"cliBin": "zoo-old"}}), "utf-8")
    directory = compile_api(spec, tmp_path / "out", repo=True).packs[0].directory
    assert directory is not None and (directory / "bin" / "zoo-old").is_file()
    spec.write_text(json.dumps(DOCUMENT), "utf-8")
    assert compile_api(spec, tmp_path / "out", repo=True).ok
    assert not (directory / "bin" / "zoo-old").exists() and (directory / "bin" / "zoo").is_file()

"""Issue 27, item 3: the runtime is strict where the reference is. A pack lint refuses is refused with
``invalid_pack`` (naming the field) on every face before anything runs; a face the pack's
``transports`` does not list refuses it; json_exec refuses another pack's ``pack_id``; every
envelope is one line."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from packc_runtime import load_pack
from packc_runtime.faces.cli import call_main, exec_main, pack_main
from packc_runtime.faces.mcp.cli import serve_main
from servers import PACKS

CREATE = ["items", "create", "--name", "x", "--json"]


def _pack(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    pack = tmp_path / "echo"
    shutil.copytree(PACKS / "echo", pack)
    surface = json.loads((pack / "surface.json").read_text())
    change(surface)
    (pack / "surface.json").write_text(json.dumps(surface, indent=2))
    return pack


def _faces(pack: Path) -> dict[str, tuple[int, str]]:
    """Each face's exit code and what it printed (stdout, then stderr) for one call."""
    seen: dict[str, tuple[int, str]] = {}
    out = io.StringIO()
    seen["call"] = call_main(pack, "items.create", '{"name": "x"}', stdout=out), out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    seen["cli"] = pack_main(pack, CREATE, stdout=out, stderr=err), out.getvalue() + err.getvalue()
    out = io.StringIO()
    request = io.StringIO('{"verb": "items.create", "args": {"name": "x"}}')
    seen["exec"] = exec_main(pack, stdin=request, stdout=out), out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    seen["serve"] = (
        serve_main(["--print-config", "claude-desktop", str(pack)], stdout=out, stderr=err),
        (out.getvalue() + err.getvalue()),
    )
    return seen


def _envelope(printed: str) -> dict[str, Any]:
    assert printed.count("\n") == 1 and printed.endswith("\n"), printed  # one line
    envelope: dict[str, Any] = json.loads(printed)
    return envelope


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        (lambda s: s.update(extra=1), "surface.json#/extra"),
        (lambda s: s.update(hcp={"hcp": 7, "pack_id": "echo"}), "surface.json#/hcp/hcp"),
        (lambda s: s.update(hcp={"hcp": 1, "pack_id": "echo", "bogus": True}), "surface.json#/hcp/bogus"),
        (lambda s: s.update(hcp={"hcp": 1, "pack_id": "other"}), "surface.json#/hcp/pack_id"),
        (
            lambda s: s.update(hcp={"hcp": 1, "pack_id": "echo", "plane": "control"}),
            "surface.json#/hcp/plane",
        ),
        (lambda s: s["verbs"]["items.create"].update(clii=[]), "surface.json#/verbs/items.create/clii"),
        (lambda s: s.update(transports=["cli", "ftp"]), "surface.json#/transports/1"),
    ],
)
def test_a_pack_lint_refuses_is_refused_on_every_face(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], pointer: str
) -> None:
    pack = _pack(tmp_path, change)
    for face, (code, printed) in _faces(pack).items():
        assert code == 3, (face, printed)
        if face == "serve":
            assert f"error invalid_pack: {pointer} " in printed
            continue
        error = _envelope(printed)["error"]
        assert error["code"] == "invalid_pack" and error["pointer"] == pointer, face
        assert error["message"].startswith(pointer)
    with pytest.raises(Exception, match="invalid_pack|" + pointer.replace("/", ".")):
        load_pack(pack)


def test_a_derived_or_agreeing_hcp_object_loads(tmp_path: Path) -> None:
    hcp = {"hcp": 1, "pack_id": "echo", "adapter_kind": "openapi", "transports": ["cli", "json_exec", "mcp"]}
    pack = _pack(tmp_path, lambda s: s.update(hcp=hcp))
    assert load_pack(pack).manifest.hcp is not None


def test_a_face_the_pack_does_not_list_refuses_it(tmp_path: Path) -> None:
    only_cli = _faces(_pack(tmp_path / "a", lambda s: s.update(transports=["cli"])))
    assert only_cli["call"][0] == 4 and only_cli["cli"][0] == 4  # not_confirmed: they ran
    exec_error = _envelope(only_cli["exec"][1])["error"]
    assert only_cli["exec"][0] == 16 and exec_error["code"] == "transport_not_listed"
    assert "does not project to json_exec" in exec_error["message"] and exec_error["transports"] == ["cli"]
    assert only_cli["serve"][0] == 16 and "error transport_not_listed:" in only_cli["serve"][1]

    only_exec = _pack(tmp_path / "b", lambda s: s.update(transports=["json_exec"]))
    seen = _faces(only_exec)
    assert seen["exec"][0] == 4
    for face in ("call", "cli"):
        assert seen[face][0] == 16 and _envelope(seen[face][1])["error"]["code"] == "transport_not_listed"
    out, err = io.StringIO(), io.StringIO()
    assert pack_main(only_exec, ["mcp", "--print-config", "claude-desktop"], stdout=out, stderr=err) == 16
    # The Python API is every face's base: it always runs.
    envelope = load_pack(only_exec).call("items.create", {"name": "x"})
    assert envelope["error"]["code"] == "not_confirmed"


def test_json_exec_takes_a_pack_id_and_refuses_another(tmp_path: Path) -> None:
    def run(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        out = io.StringIO()
        code = exec_main(PACKS / "echo", stdin=io.StringIO(json.dumps(request)), stdout=out)
        return code, _envelope(out.getvalue())

    request = {"verb": "items.create", "args": {"name": "x"}}
    assert run({**request, "pack_id": "echo"})[1]["error"]["code"] == "not_confirmed"
    code, envelope = run({**request, "pack_id": "ledger"})
    assert code == 2 and envelope["error"]["code"] == "invalid_request"
    assert "'ledger'" in envelope["error"]["message"] and "'echo'" in envelope["error"]["message"]
    assert run({**request, "pack_id": 7})[1]["error"]["code"] == "invalid_request"


def test_every_envelope_is_one_line(tmp_path: Path) -> None:
    seen = _faces(PACKS / "echo")
    for face in ("call", "cli", "exec"):  # serve prints a host's config, not an envelope
        assert _envelope(seen[face][1])["error"]["code"] == "not_confirmed"
    out = io.StringIO()
    call_main(tmp_path / "missing", "items.create", None, stdout=out)
    assert _envelope(out.getvalue())["error"]["code"] == "invalid_pack"

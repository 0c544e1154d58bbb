"""binding means what it says: public sends no credential, hub names the one source, mothership is
refused, connect_provider_id is shown by connect."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import keyring
import pytest

from packc_runtime import load_pack
from packc_runtime.credentials import store as credstore
from packc_runtime.credentials.store import approve_env, store_credentials
from packc_runtime.errors import InvalidPack
from packc_runtime.faces.cli import connect_main
from servers.binding_pack import ORIGIN, write_pack
from servers.memory_keyring import MemoryKeyring


@pytest.fixture()
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    monkeypatch.delenv("PACKC_KEYRING")
    monkeypatch.setattr(credstore, "_LOOKUP_BACKENDS", {})
    yield backend
    keyring.set_keyring(previous)


def _recording() -> tuple[list[httpx.Request], httpx.MockTransport]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=[{"id": 1, "name": "real"}])

    return seen, httpx.MockTransport(handler)


def test_public_mode_never_asks_for_or_sends_a_credential(tmp_path: Path) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "public", "hub": "keyring"})
    approve_env(["THINGS_API_KEY"], [ORIGIN])
    store_credentials({"THINGS_API_KEY": "stored-secret"}, [ORIGIN], target="file")
    seen, transport = _recording()
    with load_pack(pack_dir, transport=transport, environ={"THINGS_API_KEY": "env-secret"}) as pack:
        assert pack.slots == []
        envelope = pack.call("things.list")
    assert envelope["ok"] is True, envelope
    assert len(seen) == 1 and "x-key" not in seen[0].headers
    out = io.StringIO()
    assert connect_main(pack_dir, stdout=out) == 0
    assert "needs no credentials" in out.getvalue()


@pytest.mark.parametrize("hub", ["public", "none"])
def test_hub_public_or_none_uses_no_credential(tmp_path: Path, hub: str) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "user", "hub": hub})
    approve_env(["THINGS_API_KEY"], [ORIGIN])
    seen, transport = _recording()
    with load_pack(pack_dir, transport=transport, environ={"THINGS_API_KEY": "env-secret"}) as pack:
        assert pack.call("things.list")["ok"] is True
    assert "x-key" not in seen[0].headers


def test_user_mode_still_asks(tmp_path: Path) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "user", "hub": "local-credential"})
    seen, transport = _recording()
    with load_pack(pack_dir, transport=transport, environ={}) as pack:
        envelope = pack.call("things.list")
    assert envelope["error"]["code"] == "missing_credentials" and not seen


@pytest.mark.parametrize("binding", [None, {"mode": "user", "hub": "local-credential"}, {"mode": "local"}])
def test_local_credential_reads_environment_keyring_and_file(tmp_path: Path, binding: dict | None) -> None:
    pack_dir = write_pack(tmp_path, binding)
    approve_env(["THINGS_API_KEY"], [ORIGIN])
    seen, transport = _recording()
    with load_pack(pack_dir, transport=transport, environ={"THINGS_API_KEY": "env-secret"}) as pack:
        assert pack.call("things.list")["ok"] is True
    assert seen[-1].headers["x-key"] == "env-secret"
    store_credentials({"THINGS_API_KEY": "file-secret"}, [ORIGIN], target="file")
    with load_pack(pack_dir, transport=transport, environ={}) as pack:
        assert pack.call("things.list")["ok"] is True
    assert seen[-1].headers["x-key"] == "file-secret"


def test_keyring_hub_reads_the_keyring_only(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "user", "hub": "keyring"})
    approve_env(["THINGS_API_KEY"], [ORIGIN])
    store_credentials({"THINGS_API_KEY": "file-secret"}, [ORIGIN], target="file")
    seen, transport = _recording()
    with load_pack(pack_dir, transport=transport, environ={"THINGS_API_KEY": "env-secret"}) as pack:
        refused = pack.call("things.list")
    assert refused["error"]["code"] == "missing_credentials" and not seen
    assert "OS keyring only" in refused["error"]["message"]
    assert "env-secret" not in json.dumps(refused) and "file-secret" not in json.dumps(refused)

    memory_keyring.set_password("packc", f"THINGS_API_KEY@{ORIGIN}", "keyring-secret")
    with load_pack(pack_dir, transport=transport, environ={"THINGS_API_KEY": "env-secret"}) as pack:
        assert pack.call("things.list")["ok"] is True
    assert seen[-1].headers["x-key"] == "keyring-secret"


def test_keyring_hub_connect_stores_in_the_keyring_only(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "user", "hub": "keyring"})
    out = io.StringIO()
    assert connect_main(pack_dir, target="file", stdout=out, prompt=lambda _: "typed") != 0
    assert "OS keyring only" in out.getvalue()
    out = io.StringIO()
    assert connect_main(pack_dir, approve_env=True, stdout=out) != 0
    assert "nothing to approve" in out.getvalue()
    assert connect_main(pack_dir, stdout=io.StringIO(), prompt=lambda _: "typed") == 0
    assert memory_keyring.store[("packc", f"THINGS_API_KEY@{ORIGIN}")] == "typed"


@pytest.mark.parametrize(
    "manifest_binding", [{"mode": "mothership", "hub": "local-credential"}, {"mode": "mothership"}]
)
def test_mothership_is_refused_with_a_clear_message(tmp_path: Path, manifest_binding: dict) -> None:
    pack_dir = write_pack(tmp_path, manifest_binding)
    with pytest.raises(InvalidPack, match=r"mothership.*control service.*cannot run here"):
        load_pack(pack_dir)


def test_control_plane_without_binding_is_mothership(tmp_path: Path) -> None:
    pack_dir = write_pack(tmp_path, None)
    manifest = json.loads((pack_dir / "surface.json").read_text())
    (pack_dir / "surface.json").write_text(json.dumps({**manifest, "plane": "control"}))
    with pytest.raises(InvalidPack, match="mothership"):
        load_pack(pack_dir)


def test_connect_shows_the_provider_hint(tmp_path: Path) -> None:
    pack_dir = write_pack(
        tmp_path, {"mode": "user", "hub": "local-credential", "connect_provider_id": "github"}
    )
    out = io.StringIO()
    assert connect_main(pack_dir, stdout=out, prompt=lambda _: "") == 0
    assert "your github account" in out.getvalue()
    out = io.StringIO()
    assert connect_main(pack_dir, list_only=True, as_json=True, stdout=out) == 0
    listed = json.loads(out.getvalue())
    assert listed["provider"] == "github" and listed["hub"] == "local-credential"
    out = io.StringIO()
    assert connect_main(pack_dir, list_only=True, stdout=out) == 0
    assert out.getvalue().startswith("Provider: github\n")

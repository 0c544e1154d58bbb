"""Binary bodies land only in a private per-user folder, in new 0600 files packc names (issue 10, item 9)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packc_runtime import Limits, load_pack
from packc_runtime.calling._downloads import download_dir, safe_name, save_download
from servers import PACKS

BLOB = bytes(range(256))
posix_only = pytest.mark.skipif(os.name == "nt", reason="owners and modes are POSIX")


def _call(
    disposition: str = 'attachment; filename="report.pdf"',
    content: bytes = BLOB,
    media: str = "application/octet-stream",
) -> dict[str, Any]:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content=content, headers={"Content-Type": media, "Content-Disposition": disposition}
        )

    with load_pack(
        PACKS / "flaky", transport=httpx.MockTransport(handler), limits=Limits(deadline=5.0)
    ) as pack:
        return pack.call("files.get", {})


@posix_only
def test_default_folder_is_private_per_user(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PACKC_DOWNLOAD_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder, default = download_dir()
    assert default and folder == tmp_path / f"packc-downloads-{os.geteuid()}"
    body = _call()["body"]
    saved = Path(body["file"])
    assert saved.parent == folder and saved.read_bytes() == BLOB
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.stat().st_uid == os.geteuid()
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


@posix_only
def test_default_folder_with_a_loose_mode_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Another user's squatted folder is simulated by its mode: 0777 (as a shared /tmp folder would be)."""
    monkeypatch.delenv("PACKC_DOWNLOAD_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = tmp_path / f"packc-downloads-{os.geteuid()}"
    folder.mkdir()
    folder.chmod(0o777)
    envelope = _call()
    assert envelope["ok"] is False and envelope["error"]["code"] == "download_failed"
    assert "mode 0777" in envelope["error"]["message"] and envelope["error"]["folder"] == str(folder)
    assert list(folder.iterdir()) == []
    folder.chmod(0o750)  # group access is also too much for the default folder
    assert _call()["error"]["code"] == "download_failed"


@posix_only
def test_folder_owned_by_another_user_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The owner check, simulated: this process pretends to be another uid than the folder's owner."""
    monkeypatch.delenv("PACKC_DOWNLOAD_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    real = os.geteuid()
    folder = tmp_path / f"packc-downloads-{real + 1}"
    folder.mkdir(mode=0o700)
    monkeypatch.setattr(os, "geteuid", lambda: real + 1)
    envelope = _call()
    assert (
        envelope["error"]["code"] == "download_failed"
        and "belongs to another user" in envelope["error"]["message"]
    )


@posix_only
def test_folder_that_is_a_symlink_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PACKC_DOWNLOAD_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o700)
    (tmp_path / f"packc-downloads-{os.geteuid()}").symlink_to(victim)
    envelope = _call()
    assert envelope["error"]["code"] == "download_failed" and "symlink" in envelope["error"]["message"]
    assert list(victim.iterdir()) == []


@posix_only
def test_configured_folder_writable_by_others_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir(mode=0o700)
    folder.chmod(0o777)
    assert _call()["error"]["code"] == "download_failed"
    folder.chmod(0o755)  # readable by others is the user's choice for a folder they named
    assert Path(_call()["body"]["file"]).parent == folder


def test_planted_symlink_in_the_folder_is_never_followed(tmp_path: Path) -> None:
    """A symlink planted under the exact name the body will get: the write goes elsewhere, the target is untouched."""
    folder = tmp_path / "downloads"
    first = _call()["body"]
    name = Path(first["file"]).name
    Path(first["file"]).unlink()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (folder / name).symlink_to(victim)
    body = _call()["body"]
    saved = Path(body["file"])
    assert victim.read_text() == "keep me"
    assert saved != folder / name and saved.parent == folder and not saved.is_symlink()
    assert saved.read_bytes() == BLOB and stat.S_IMODE(saved.stat().st_mode) == 0o600


def test_a_different_file_under_the_name_is_left_alone_and_the_same_body_reuses_its_file(
    tmp_path: Path,
) -> None:
    first = Path(_call()["body"]["file"])
    assert Path(_call()["body"]["file"]) == first  # same bytes, same file
    first.write_bytes(b"someone else's bytes")
    second = Path(_call()["body"]["file"])
    assert second != first and first.read_bytes() == b"someone else's bytes" and second.read_bytes() == BLOB


@pytest.mark.parametrize(
    "disposition",
    [
        'attachment; filename="../../x"',
        "attachment; filename=../../x",
        "attachment; filename*=UTF-8''..%2F..%2Fx",
        'inline; filename="/etc/x"',
        'attachment; filename="..\\\\..\\\\x"',
    ],
)
def test_hostile_content_disposition_never_chooses_the_path(tmp_path: Path, disposition: str) -> None:
    body = _call(disposition)["body"]
    saved = Path(body["file"])
    assert saved.parent == tmp_path / "downloads" and saved.name.startswith("files.get-")
    assert not (tmp_path / "x").exists() and body.get("suggestedName", "x").endswith("x")
    assert "/" not in body.get("suggestedName", "") and not body.get("suggestedName", "").startswith(".")


def test_extension_comes_from_the_media_type_only(tmp_path: Path) -> None:
    assert _call('attachment; filename="evil.sh"', media="application/pdf")["body"]["file"].endswith(".pdf")
    assert _call("", media="application/x-made-up")["body"]["file"].endswith(".bin")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_safe_name_is_always_a_plain_file_name(text: str) -> None:
    name = safe_name(text)
    assert len(name) <= 80 and "/" not in name and "\\" not in name and "\x00" not in name
    assert not name.startswith(".") and name not in (".", "..")
    assert all(c.isascii() and (c.isalnum() or c in "._-") for c in name)


@settings(max_examples=60, deadline=None)
@given(verb=st.text(max_size=80), disposition=st.text(max_size=80), media=st.text(max_size=40))
def test_saved_file_is_always_a_plain_file_inside_the_folder(
    tmp_path_factory: pytest.TempPathFactory, verb: str, disposition: str, media: str
) -> None:
    folder = tmp_path_factory.mktemp("dl")
    body = save_download(verb, b"\x00\x01", media, disposition, environ={"PACKC_DOWNLOAD_DIR": str(folder)})
    saved = Path(body["file"])
    assert saved.parent == folder and saved.is_file() and not saved.is_symlink()
    assert not saved.name.startswith(".") and saved.read_bytes() == b"\x00\x01"


@pytest.mark.parametrize(
    "media",
    [
        "application/hta",
        "application/java-archive",
        "application/x-msi",
        "application/x-sh",
        "application/x-csh",
        "application/x-python-code",
    ],
)
def test_a_server_cannot_give_a_download_an_extension_that_runs(tmp_path: Path, media: str) -> None:
    """Red team: the name is packc's, but the extension came from any media type mimetypes knows
    (.hta runs on a double click on Windows, .jar and .msi install, .sh and .csh are scripts)."""
    saved = _call("", media=media)["body"]["file"]
    assert saved.endswith(".bin"), saved
    assert _call("", media="image/png")["body"]["file"].endswith(".png")  # data keeps its extension

"""`packc install PACK` puts the pack's command on PATH bound to an interpreter that has the runtime:
it runs from a plain `env -i` shell (issue 12, item 5)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from packc import compile
from packc.errors import InputError, UsageError
from packc.install import bin_dir, data_dir, install_pack

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "demo" / "petstore.yaml"


def _packc(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "packc.cli", *argv], capture_output=True, text=True, env=env, timeout=120
    )


def test_where_things_go_honours_packc_home_and_xdg(tmp_path: Path) -> None:
    assert data_dir({"HOME": "/h"}) == Path("/h/.local/share/packc")
    assert data_dir({"HOME": "/h", "XDG_DATA_HOME": "/x"}) == Path("/x/packc")
    assert data_dir({"HOME": "/h", "XDG_DATA_HOME": "/x", "PACKC_HOME": "/p"}) == Path("/p")
    assert bin_dir({"HOME": "/h"}) == Path("/h/.local/bin")
    assert bin_dir({"HOME": "/h", "XDG_BIN_HOME": "/xb"}) == Path("/xb")
    assert bin_dir({"HOME": "/h", "PACKC_BIN_DIR": "/b"}) == Path("/b")


@pytest.mark.e2e
def test_installed_command_runs_from_an_empty_environment(tmp_path: Path, demo_server: Any) -> None:
    result = compile(SPEC, tmp_path / "out")
    assert result.ok, result.diagnostics
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    for key in ("PACKC_HOME", "PACKC_BIN_DIR", "XDG_DATA_HOME", "XDG_BIN_HOME", "PYTHONPATH"):
        env.pop(key, None)
    done = _packc("install", str(tmp_path / "out" / "petstore"), env=env)
    assert done.returncode == 0, done.stderr
    assert "is not on PATH" in done.stdout  # ~/.local/bin of a fresh HOME is not
    shim = home / ".local" / "bin" / "petstore"
    assert shim.is_file() and os.access(shim, os.X_OK)
    assert (home / ".local" / "share" / "packc" / "packs" / "petstore" / "surface.json").is_file()
    shutil.rmtree(tmp_path / "out")  # the command runs from its installed copy
    env_i = shutil.which("env")
    assert env_i is not None
    plain = [
        env_i,
        "-i",
        f"HOME={home}",
        f"PATH={home / '.local' / 'bin'}:/usr/bin:/bin",
        f"PETSTORE_API_KEY={demo_server.api_key}",
        f"PACKC_TRUSTED_ORIGINS={demo_server.url}",
        "PACKC_KEYRING=off",
        f"PACKC_CREDENTIALS_FILE={home / 'credentials.json'}",
    ]
    ran = subprocess.run(
        [*plain, "petstore", "pets", "list", "--json", "--server", demo_server.url],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    envelope = json.loads(ran.stdout)
    assert envelope["ok"] is True and {pet["name"] for pet in envelope["body"]} >= {"Rex", "Mittens"}
    again = _packc("install", str(home / ".local" / "share" / "packc" / "packs" / "petstore"), env=env)
    assert again.returncode == 0, again.stderr  # re-installing (even from the installed copy) is fine


def test_install_refuses_what_it_should_not_touch(tmp_path: Path) -> None:
    result = compile(SPEC, tmp_path / "out")
    pack = tmp_path / "out" / "petstore"
    env = {"HOME": str(tmp_path), "PATH": ""}
    (tmp_path / ".local" / "bin").mkdir(parents=True)
    (tmp_path / ".local" / "bin" / "petstore").write_text("#!/bin/sh\necho mine\n")
    with pytest.raises(UsageError, match="not installed by packc"):
        install_pack(pack, environ=env)
    assert result.ok
    surface = json.loads((pack / "surface.json").read_text())
    surface["cliBin"] = "../../evil"
    (pack / "surface.json").write_text(json.dumps(surface))
    with pytest.raises(InputError, match="not a plain command name"):
        install_pack(pack, environ=env)
    with pytest.raises(InputError):
        install_pack(tmp_path / "nowhere", environ=env)


@pytest.mark.e2e
@pytest.mark.slow
def test_install_venv_gives_the_pack_its_own_interpreter(tmp_path: Path) -> None:
    result = compile(SPEC, tmp_path / "out")
    assert result.ok
    done = install_pack(tmp_path / "out" / "petstore", venv=True, environ={"HOME": str(tmp_path), "PATH": ""})
    assert done.python == tmp_path / ".local" / "share" / "packc" / "venvs" / "petstore" / "bin" / "python"
    probe = subprocess.run([str(done.python), "-c", "import packc"], capture_output=True, timeout=60)
    assert probe.returncode != 0  # the runtime alone, not the compiler
    ran = subprocess.run(
        [
            shutil.which("env") or "/usr/bin/env",
            "-i",
            f"HOME={tmp_path}",
            "PATH=/usr/bin:/bin",
            str(done.command),
            "--help",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0 and "usage: petstore VERB" in ran.stdout

"""Issue 23: `packc install` and a pack from elsewhere. Installing and running the command never
executes a file from the pack: not an edited launcher, not a module planted beside it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sec_ident_hostile import document, write

from packc import compile
from packc.errors import CommandShadows, UsageError
from packc.install import install_pack
from packc.lint import lint_pack
from packc_runtime.format.launcher import LAUNCHER

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "demo" / "petstore.yaml"


def _hostile(proof: Path) -> str:
    return f"import pathlib; pathlib.Path({str(proof)!r}).write_text('ran')\n"


@pytest.mark.e2e
def test_install_never_runs_a_file_from_the_pack(tmp_path: Path) -> None:
    """A cloned pack whose launcher was edited, with a ``packc_runtime`` planted in its ``bin/`` (the
    old launcher's folder was first on ``sys.path``) and in the working directory."""
    assert compile(SPEC, tmp_path / "out").ok
    pack = tmp_path / "out" / "petstore"
    proofs = {name: tmp_path / f"PWNED-{name}" for name in ("launcher", "bin-module", "cwd-module")}
    (pack / "bin" / "petstore").write_text("#!/usr/bin/env python3\n" + _hostile(proofs["launcher"]))
    planted = pack / "bin" / "packc_runtime"
    planted.mkdir()
    (planted / "__init__.py").write_text(_hostile(proofs["bin-module"]))
    (planted / "cli.py").write_text("def pack_main(*a):\n    return 0\n")
    assert "M034" in {d.code for d in lint_pack(pack)}  # lint flags the edited launcher

    env = {"HOME": str(tmp_path / "home"), "PATH": ""}
    done = install_pack(pack, environ=env)
    assert (done.pack_dir / "bin" / "petstore").read_text() == LAUNCHER  # the copy holds packc's launcher
    assert not any(proof.exists() for proof in proofs.values())  # install ran nothing of the pack

    workdir = tmp_path / "work"
    (workdir / "packc_runtime").mkdir(parents=True)
    (workdir / "packc_runtime" / "__init__.py").write_text(_hostile(proofs["cwd-module"]))
    ran = subprocess.run(
        [str(done.command), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=workdir,
        env={"HOME": env["HOME"], "PATH": "/usr/bin:/bin", "PACKC_KEYRING": "off"},
    )
    assert ran.returncode == 0, ran.stderr
    assert "usage: petstore VERB" in ran.stdout
    assert [name for name, proof in proofs.items() if proof.exists()] == []


@pytest.mark.e2e
def test_the_shim_says_so_when_the_runtime_is_gone(tmp_path: Path) -> None:
    assert compile(SPEC, tmp_path / "out").ok
    done = install_pack(tmp_path / "out" / "petstore", environ={"HOME": str(tmp_path), "PATH": ""})
    shim = done.command.read_text()
    assert str(done.pack_dir) in shim and " -P -c " in shim
    broken = tmp_path / "python"
    broken.write_text('#!/bin/sh\nexec /usr/bin/env python3 -S "$@"\n')
    broken.chmod(0o755)
    done.command.write_text(shim.replace(str(done.python), str(broken), 1))
    ran = subprocess.run(
        [str(done.command)], capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"}
    )
    assert ran.returncode != 0 and "needs the packc runtime" in ran.stderr


def _packc(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "packc.cli", *argv], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["git", "stripe"])  # a system command, and a vendor's CLI
def test_install_refuses_a_command_that_shadows_one_on_path(tmp_path: Path, name: str) -> None:
    """The issue's reproduction: a document sets ``cliBin: git``; the bin folder comes first on PATH,
    and the user's next ``git clone`` went to the document's server."""
    pack = compile(write(tmp_path, document(x_packc={"cliBin": name})), tmp_path / "out").packs[0].directory
    assert pack is not None
    system = tmp_path / "usr-bin"
    system.mkdir()
    (system / name).write_text(f"#!/bin/sh\necho the real {name}\n")
    (system / name).chmod(0o755)
    commands = tmp_path / "home" / ".local" / "bin"
    env = {"HOME": str(tmp_path / "home"), "PATH": f"{commands}{os.pathsep}{system}"}

    with pytest.raises(CommandShadows) as refused:
        install_pack(pack, environ=env)
    assert refused.value.command == name and refused.value.shadows == system / name
    assert not (commands / name).exists()

    cli_env = {**os.environ, **env, "PATH": f"{env['PATH']}{os.pathsep}{os.environ['PATH']}"}
    cli_env.pop("PYTHONPATH", None)
    said = _packc("install", str(pack), env=cli_env)
    assert said.returncode == 2, said.stderr
    for part in ("command_shadows", str(system / name), "--name", "--force"):
        assert part in said.stderr, said.stderr
    assert not (commands / name).exists()
    ran = subprocess.run([name], capture_output=True, text=True, env={"PATH": env["PATH"]}, timeout=30)
    assert ran.stdout == f"the real {name}\n"  # still the user's command

    renamed = install_pack(pack, environ=env, name=f"{name}-api")
    assert renamed.command == commands / f"{name}-api" and not (commands / name).exists()
    with pytest.raises(UsageError, match="a command name"):
        install_pack(pack, environ=env, name="../evil")
    forced = _packc("install", str(pack), "--force", env=cli_env)
    assert forced.returncode == 0, forced.stderr
    assert (commands / name).is_file()
    with pytest.raises(CommandShadows):  # the user's program is still there: each install asks again
        install_pack(pack, environ=env)
    (system / name).unlink()
    again = install_pack(pack, environ=env)  # packc's own shim is not something to protect
    assert again.command == commands / name

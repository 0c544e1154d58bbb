"""``packc install PACK``: put a pack's command on PATH, bound to an interpreter that has the runtime.

As pipx does: the pack is copied to ``<data>/packs/<id>``, and a shim ``<bin>/<cliBin>`` runs the
runtime's ``pack_main`` on that copy with a fixed interpreter, so the command works from any shell,
whatever ``python3`` is first on PATH. No file from the pack is ever executed: the shim runs fixed
code with ``python -P`` (so neither the pack's folders nor the working directory are on
``sys.path``), and the copy's ``bin/<cliBin>`` is replaced by packc's own launcher (a cloned pack's
edited launcher is lint's M034). A wrap pack's programs are code by definition: they run only when
one of its verbs is called, never at install. The interpreter is the one running packc (it has ``packc_runtime``), or with
``venv=True`` a virtual environment of the pack's own under ``<data>/venvs/<id>`` into which the
runtime is installed from its source folder.

``<data>`` is ``$PACKC_HOME``, else ``$XDG_DATA_HOME/packc``, else ``~/.local/share/packc``;
``<bin>`` is ``$PACKC_BIN_DIR``, else ``$XDG_BIN_HOME``, else ``~/.local/bin``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from packc.errors import CommandShadows, InputError, UsageError
from packc_runtime.format.identifiers import CliBin
from packc_runtime.format.launcher import LAUNCHER
from packc_runtime.format.manifest import parse_manifest

__all__ = ["Installed", "bin_dir", "data_dir", "install_pack"]

# A command and a folder name: no path separators, no leading dot or dash (a pack from elsewhere is data).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# The second line marks a shim as packc's (shims of earlier versions share its start).
_MARK = "# Installed by `packc install`"
_SHIM = """#!/bin/sh
# Installed by `packc install`: runs the pack below with an interpreter that has packc_runtime; it runs no file from the pack.
exec {python} -P -c {entry} {pack} "$@"
"""
# What the shim runs: fixed code, the pack's folder as its first argument (never a file of the pack).
_ENTRY = """import sys
try:
    from packc_runtime.cli import pack_main
except ImportError as exc:
    sys.exit(f"This command needs the packc runtime, which {sys.executable} cannot import ({exc}); run packc install again.")
from pathlib import Path
sys.exit(pack_main(Path(sys.argv[1]), sys.argv[2:]))
"""


@dataclass(frozen=True, slots=True)
class Installed:
    """Where an installed pack went: its copy, its command, its interpreter, and whether the
    command's folder is on PATH."""

    pack_id: str
    pack_dir: Path
    command: Path
    python: Path
    on_path: bool


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$PACKC_HOME``, else ``$XDG_DATA_HOME/packc``, else ``~/.local/share/packc``."""
    env = os.environ if environ is None else environ
    if env.get("PACKC_HOME"):
        return Path(env["PACKC_HOME"])
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]) / "packc"
    return _home(env) / ".local" / "share" / "packc"


def bin_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$PACKC_BIN_DIR``, else ``$XDG_BIN_HOME``, else ``~/.local/bin``."""
    env = os.environ if environ is None else environ
    for key in ("PACKC_BIN_DIR", "XDG_BIN_HOME"):
        if env.get(key):
            return Path(env[key])
    return _home(env) / ".local" / "bin"


def _home(env: Mapping[str, str]) -> Path:
    return Path(env["HOME"]) if env.get("HOME") else Path.home()


def _has_runtime(python: Path) -> bool:
    probe = subprocess.run(
        [str(python), "-c", "import packc_runtime.cli"],
        capture_output=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    return probe.returncode == 0


def _runtime_source() -> Path | None:
    """The folder holding the runtime's ``pyproject.toml`` (a checkout or an editable install)."""
    import packc_runtime

    folder = Path(packc_runtime.__file__).resolve().parent.parent
    return folder if (folder / "pyproject.toml").is_file() else None


def _make_venv(where: Path) -> Path:
    python = where / "bin" / "python"
    if python.exists() and _has_runtime(python):
        return python
    source = _runtime_source()
    if source is None:
        raise UsageError(
            "--venv needs the runtime's source folder (a packc checkout); install without --venv to "
            "use packc's own interpreter."
        )
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True, timeout=600)
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise UsageError(f"installing packc-runtime into {where} failed: {done.stderr.strip()[-500:]}")
    return python


def _is_shim(path: Path) -> bool:
    """Whether ``path`` is a shim ``packc install`` wrote (a regular file with its mark on line 2)."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        with path.open(encoding="utf-8", errors="replace") as text:
            text.readline()
            return text.readline().startswith(_MARK)
    except OSError:
        return False


def _write_launcher(path: Path) -> None:
    """Put packc's launcher at ``path`` in the installed copy, in place of whatever the pack had there
    (so a ``connect`` hint naming it never points at a pack's own code)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)
    path.write_text(LAUNCHER, encoding="utf-8")
    path.chmod(0o755)


def _shadowed(name: str, command: Path, path: str) -> Path | None:
    """The first program on ``path`` named ``name`` that packc did not write (``command`` aside)."""
    for folder in path.split(os.pathsep):
        if not folder:
            continue
        found = Path(folder) / name
        if found == command or not found.is_file() or not os.access(found, os.X_OK):
            continue
        if not _is_shim(found):
            return found
    return None


def install_pack(
    pack: str | Path,
    *,
    venv: bool = False,
    environ: Mapping[str, str] | None = None,
    name: str | None = None,
    force: bool = False,
) -> Installed:
    """Install the pack at ``pack`` as a command on PATH (see the module docstring).

    Args:
        pack: the pack directory.
        venv: give the pack a virtual environment of its own.
        environ: the environment (``HOME``, ``PATH``, ``PACKC_*``); default ``os.environ``.
        name: the command's name instead of the pack's ``cliBin``.
        force: install even when the name already runs another program on PATH.

    Raises:
        InputError: ``pack`` is not a valid pack directory.
        CommandShadows: the name already resolves on PATH to a program packc did not write.
        UsageError: the command would replace a file that packc did not install, ``name`` is not a
            command name, or --venv failed.
    """
    source = Path(pack).resolve()
    try:
        import json

        manifest, problems = parse_manifest(json.loads((source / "surface.json").read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise InputError(f"{source} is not a pack directory (surface.json: {exc})") from None
    if manifest is None:
        raise InputError(f"{source}/surface.json is not a valid manifest", problems)
    cli_bin = manifest.cliBin or manifest.id
    for what, value in (("cliBin", cli_bin), ("id", manifest.id)):
        if not _NAME.fullmatch(value):
            raise InputError(
                f"{source}: the pack's {what} {value!r} is not a plain command name "
                "(letters, digits, '.', '_', '-'; at most 64)"
            )
    if name is not None and not CliBin.is_valid(name):
        raise UsageError(f"--name {name!r}: a command name is {CliBin.rule}.")
    command_name = name or cli_bin
    env = os.environ if environ is None else environ
    data, commands = data_dir(environ), bin_dir(environ)
    target = data / "packs" / manifest.id
    command = commands / command_name
    if (command.exists() or command.is_symlink()) and not _is_shim(command):
        raise UsageError(f"{command} exists and was not installed by packc; remove it or set PACKC_BIN_DIR.")
    shadowed = _shadowed(command_name, command, env.get("PATH", ""))
    if shadowed is not None and not force:
        raise CommandShadows(command_name, shadowed, commands)
    python = _make_venv(data / "venvs" / manifest.id) if venv else Path(sys.executable)
    if not venv and not _has_runtime(python):
        raise UsageError(
            f"{python} cannot import packc_runtime; install it (pip install ./runtime) or use --venv."
        )
    if target != source:
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", ".git", ".venv"))
    if manifest.kind != "wrap":  # a wrap pack's bin/ holds its programs, code by definition
        _write_launcher(target / "bin" / cli_bin)
    commands.mkdir(parents=True, exist_ok=True)
    temporary = command.with_name(f".{command_name}.packc-tmp")
    temporary.write_text(
        _SHIM.format(
            python=shlex.quote(str(python)), entry=shlex.quote(_ENTRY), pack=shlex.quote(str(target))
        ),
        encoding="utf-8",
    )
    temporary.chmod(0o755)
    temporary.replace(command)
    on_path = str(commands) in env.get("PATH", "").split(os.pathsep)
    return Installed(manifest.id, target, command, python, on_path)

"""Where and how a wrapped CLI runs: its bin, its working directory and environment, and one run of
it under the call's deadline and output cap (a real child process; never a shell)."""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from packc_runtime.errors import InvalidPack, NoProject, Timeout
from packc_runtime.format.identifiers import PackId, UnsafePath, safe_child
from packc_runtime.format.view import WorkspaceMode

__all__ = ["STDERR_TAIL", "Finished", "environment", "resolve_bin", "run", "working_dir"]

STDERR_TAIL = 2000  # characters of stderr an error envelope keeps (its end: where a CLI says why)
_CHUNK = 65536
# Names agent_env may not set: the loader's and the ones the runtime itself decides.
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED_ENV = frozenset({"PATH", "HOME", "PWD", "IFS", "HCP_PROJECT_DIR"})
_LOADER_ENV = ("LD_", "DYLD_")


def resolve_bin(directory: Path, name: str, environ: Mapping[str, str]) -> str:
    """``wrap.bin`` as the path to execute: a bare name is looked up on ``PATH``; a name with a
    slash is a file inside the pack, symbolic links resolved, refused when it leads outside.

    Raises:
        InvalidPack: the bin is missing, outside the pack, or not an executable file.
    """
    if not name or "\x00" in name:
        raise InvalidPack("wrap.bin is empty.")
    if "/" not in name:
        found = shutil.which(name, path=environ.get("PATH", os.defpath))
        if found is None:
            raise InvalidPack(f"wrap.bin {name!r} is not on PATH: install it, then call again.")
        return found
    relative = name
    while relative.startswith("./"):
        relative = relative[2:]
    try:
        target = safe_child(directory, relative)
    except UnsafePath:
        raise InvalidPack(
            f"wrap.bin {name!r} leads outside the pack directory; it must stay inside it."
        ) from None
    try:
        mode = target.stat().st_mode
    except OSError:
        raise InvalidPack(f"wrap.bin {name!r} is missing from the pack directory.") from None
    if not stat.S_ISREG(mode) or not os.access(target, os.X_OK):
        raise InvalidPack(f"wrap.bin {name!r} is not an executable file.")
    return str(target)


def environment(environ: Mapping[str, str], agent_env: Mapping[str, str] | None) -> dict[str, str]:
    """The wrapped CLI's environment: the caller's, with ``agent_env`` filling what is unset.

    Raises:
        InvalidPack: ``agent_env`` names a variable the runtime decides (``PATH``, ``HOME``...), one
            the dynamic loader reads (``LD_*``, ``DYLD_*``), or an invalid name or value.
    """
    env = dict(environ)
    for key, value in (agent_env or {}).items():
        if (
            not _ENV_NAME.fullmatch(key)
            or key in _RESERVED_ENV
            or key.startswith(_LOADER_ENV)
            or "\x00" in value
        ):
            raise InvalidPack(f"wrap.agent_env may not set {key!r}.")
        env.setdefault(key, value)
    return env


def _private_dir(path: Path) -> Path:
    """``path`` created 0700, refused unless it is a real directory of this user's, not a link."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise InvalidPack(f"The pack workspace {path} is not a private directory of this user.")
    return path


def workspace_root(environ: Mapping[str, str]) -> Path:
    """``$PACKC_WORKSPACES``, else ``$XDG_STATE_HOME/packc/workspaces`` (``~/.local/state``)."""
    if environ.get("PACKC_WORKSPACES"):
        return Path(environ["PACKC_WORKSPACES"])
    state = environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "packc" / "workspaces"


@contextlib.contextmanager
def working_dir(
    mode: WorkspaceMode,
    *,
    pack_dir: Path,
    pack_id: str,
    project: Path | None,
    environ: Mapping[str, str],
    env: dict[str, str],
) -> Iterator[Path]:
    """The directory the command runs in (``wrap.workspace.mode``); ``env`` gets ``HOME`` for a
    ``workspace``. An ``ephemeral`` directory is removed when the block ends.

    Raises:
        NoProject: ``project`` mode where the runtime has no project (``project`` is None), or the
            project directory does not exist.
    """
    if mode == "none":
        yield pack_dir
    elif mode == "project":
        where = environ.get("HCP_PROJECT_DIR") or (str(project) if project is not None else "")
        if project is None and not where:
            raise NoProject(
                "This command runs in the caller's project, and this runtime has none "
                "(set HCP_PROJECT_DIR, or run it from the pack CLI, packc call or MCP over stdio)."
            )
        if not Path(where).is_dir():
            raise NoProject(f"The project directory {where!r} does not exist.")
        yield Path(where).resolve()
    elif mode == "workspace":
        home = _private_dir(workspace_root(environ))
        own = _private_dir(home / (PackId(pack_id) if PackId.is_valid(pack_id) else "_pack"))
        env["HOME"] = str(own)
        yield own
    else:
        fresh = Path(tempfile.mkdtemp(prefix="packc-run-"))
        try:
            yield fresh
        finally:
            shutil.rmtree(fresh, ignore_errors=True)


class Finished(NamedTuple):
    """One run: its exit status (negative: killed by that signal), stdout (cut at the cap), whether
    it was cut, and the end of stderr."""

    returncode: int
    stdout: bytes
    truncated: bool
    stderr_tail: str


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the whole group: what it started dies with it


def run(argv: list[str], *, cwd: Path, env: Mapping[str, str], deadline: float, max_bytes: int) -> Finished:
    """Run ``argv`` (no shell, stdin closed, a session of its own) until it exits or ``deadline``
    (``time.monotonic()`` seconds) passes; stdout past ``max_bytes`` is not kept, and the command is
    stopped once it has printed that much (its result is what it printed before).

    Raises:
        Timeout: the deadline passed; the command and its children were killed.
        InvalidPack: the bin could not be started.
    """
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        raise InvalidPack(f"The wrapped CLI could not be started ({type(exc).__name__}).") from None
    assert proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()
    truncated = False
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ, out)
            sel.register(proc.stderr, selectors.EVENT_READ, err)
            while sel.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout(
                        "The wrapped CLI did not finish before the call's deadline; it was stopped."
                    )
                for key, _ in sel.select(timeout=left):
                    chunk = os.read(key.fd, _CHUNK)
                    if not chunk:
                        sel.unregister(key.fileobj)
                        continue
                    buf: bytearray = key.data
                    buf += chunk
                    if buf is err and len(err) > 4 * STDERR_TAIL:
                        del err[: len(err) - 4 * STDERR_TAIL]  # only its end is ever shown
                if len(out) > max_bytes:
                    del out[max_bytes:]
                    truncated = True
                    break
        if truncated:
            _kill(proc)
        try:
            returncode = proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            raise Timeout(
                "The wrapped CLI did not finish before the call's deadline; it was stopped."
            ) from None
    finally:
        _kill(proc)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    tail = err.decode("utf-8", "replace")[-STDERR_TAIL:]
    return Finished(0 if truncated else returncode, bytes(out), truncated, tail)

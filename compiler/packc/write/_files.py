"""Write a pack directory: every path checked to stay under OUT_DIR, and nothing touched that packc did not write.

A pack directory carries a marker file, ``.packc-generated``, listing the files packc wrote there.
Compiling again replaces exactly those files; a file someone else put in the directory (``.git``,
notes, a virtual environment) is left alone, and a directory without the marker is refused, never
cleaned. The marker also records what made the pack (``# made by: {"api", "for", "split"}``): a
compile of another document, task or split is refused that folder unless forced, so one compile
never silently replaces another's pack. The new files are written to a fresh private folder beside the target first, checked
there (lint), and only then moved into place, so a failure leaves the old pack as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from packc.errors import UsageError
from packc_runtime.format.identifiers import PackId, UnsafePath, safe_child

__all__ = ["MARKER", "check_maker", "marker_text", "read_marker", "recorded_maker", "write_tree"]

MARKER = ".packc-generated"
_HEAD = (
    "# Written by packc: the files of this pack that packc wrote. Compiling again replaces exactly\n"
    "# these (and this list); anything else in the directory is left as it is.\n"
)
_MADE_BY = "# made by: "
_T = TypeVar("_T")


def marker_text(names: Iterable[str], made: Mapping[str, Any] | None = None) -> str:
    """The marker file: a comment, what made the pack (one JSON line, ASCII), then one relative path
    per line, sorted."""
    head = _HEAD + (f"{_MADE_BY}{json.dumps(dict(made), sort_keys=True)}\n" if made is not None else "")
    return head + "".join(f"{name}\n" for name in sorted(set(names)))


def recorded_maker(directory: Path) -> dict[str, Any] | None:
    """What made the pack in ``directory``, as its marker records it; None when it says nothing
    (no marker, or one written before packc recorded it)."""
    path = directory / MARKER
    if path.is_symlink() or not path.is_file():
        return None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(_MADE_BY):
            try:
                found = json.loads(line[len(_MADE_BY) :])
            except ValueError:
                return None
            return found if isinstance(found, dict) else None
    return None


def _said(made: Mapping[str, Any]) -> str:
    """A compile as a person names it: ``the API 'Slack Web API' --for "post messages"``."""
    words = f"the API {str(made.get('api'))!r}"
    if made.get("for"):
        words += f" --for {json.dumps(str(made['for']))}"
    return words + (" --split" if made.get("split") else "")


def read_marker(directory: Path) -> list[str] | None:
    """The paths a marker lists, or None when the directory has no marker (a regular file)."""
    path = directory / MARKER
    if path.is_symlink() or not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def _refuse(target: Path, why: str) -> UsageError:
    return UsageError(
        f"{target} {why}; packc only replaces a directory it wrote itself (it has a {MARKER} "
        "file). Choose another output directory, or move that directory away yourself."
    )


def _previous(out_dir: Path, name: PackId) -> tuple[Path, list[str] | None]:
    """The target directory and what packc wrote there before (None: nothing is there)."""
    link = out_dir / name
    if link.is_symlink():
        raise _refuse(link, "is a symbolic link")
    target = safe_child(out_dir, name)
    if not os.path.lexists(target):
        return target, None
    if not target.is_dir():
        raise _refuse(target, "exists and is not a directory")
    listed = read_marker(target)
    if listed is None:
        held = (
            "holds a pack that packc did not write (no marker)"
            if (target / "surface.json").exists()
            else "exists and was not written by packc"
        )
        raise _refuse(target, held)
    for rel in listed:
        safe_child(target, rel)  # a marker naming a path outside is refused like any other
    return target, listed


def _write_files(root: Path, files: Mapping[str, tuple[str, int]]) -> None:
    for rel, (text, mode) in sorted(files.items()):
        path = safe_child(root, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        # A new file in a fresh private folder: never through an existing file or link.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(path, mode)  # the mode given, whatever the umask
    for directory in sorted({p for p in root.rglob("*") if p.is_dir()} | {root}):
        directory.chmod(0o755)


# The only paths packc ever writes in a pack directory (emit.py, _repo.py). A marker travels with
# the pack (a --repo pack is published with it), so whoever wrote the directory wrote the marker
# too: an entry outside these shapes (.git/refs/heads/main, .env, notes.md) is never removed.
_OURS = re.compile(
    r"(?:surface\.json|policy\.json|openapi\.json|HARNESS\.md|README\.md|pyproject\.toml|\.gitignore"
    r"|tests/test_smoke\.py|bin/[a-z][a-z0-9]*(?:-[a-z0-9]+)*|[a-z][a-z0-9_]*_pack/__init__\.py)"
)


def _replace_previous(target: Path, listed: list[str], staging: Path, names: list[str]) -> None:
    """Remove the files packc wrote before (only paths of the shapes packc writes), then move the new ones in."""
    listed = [rel for rel in listed if _OURS.fullmatch(rel)]
    for rel in listed:
        path = safe_child(target, rel)
        if os.path.lexists(path) and not path.is_dir():
            path.unlink()
    # Folders that held only packc's files (bin/, tests/) go when they are left empty.
    parents = {safe_child(target, rel).parent for rel in listed}
    for directory in sorted(parents, key=lambda p: len(p.parts), reverse=True):
        if directory != target:
            with contextlib.suppress(OSError):
                directory.rmdir()
    for rel in names:
        dest = safe_child(target, rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / rel, dest)


def check_maker(out_dir: Path, name: PackId, made_by: Mapping[str, Any] | None, *, force: bool) -> None:
    """Refuse ``out_dir/name`` when its marker records another compile than ``made_by`` (unless ``force``).

    Raises:
        UsageError: what made the folder, what this compile is, and what to do.
    """
    target = out_dir / name
    if force or made_by is None or target.is_symlink() or not target.is_dir():
        return  # nothing there, or not a pack folder: write_tree's own checks say why
    before = recorded_maker(target)
    if before is not None and before != dict(made_by):
        raise UsageError(
            f"{target} holds the pack another compile made ({_said(before)}), and this compile "
            f"({_said(made_by)}) would replace it. Nothing was written. Compile into another folder "
            "(-o DIR), or pass --force (force=True in Python) to replace it."
        )


def write_tree(
    out_dir: Path,
    name: PackId,
    files: Mapping[str, tuple[str, int]],
    check: Callable[[Path], _T] | None = None,
    *,
    made_by: Mapping[str, Any] | None = None,
    force: bool = False,
) -> tuple[Path, _T | None]:
    """Write ``files`` (relative path → (text, mode)) as the directory ``out_dir/name``.

    ``check`` runs on the complete new directory before it replaces anything (lint); its result is
    returned beside the directory. ``made_by`` is recorded in the marker; a pack whose marker records
    another is replaced only with ``force``.

    Raises:
        UsageError: when a path would leave ``out_dir``, the target is not a directory packc wrote,
            another compile wrote it (without ``force``), a new file would replace one packc did not
            write, or the disk refuses.
    """
    names = sorted({*files, MARKER})
    all_files = {**files, MARKER: (marker_text((n for n in names if n != MARKER), made_by), 0o644)}
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        target, listed = _previous(out_dir, name)
        if listed is not None:
            check_maker(out_dir, name, made_by, force=force)
        for rel in names:
            dest = safe_child(target, rel)
            if os.path.lexists(dest) and rel not in (listed or []) and rel != MARKER:
                raise _refuse(dest, "is a file packc did not write, and the new pack has a file of that name")
        private = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".packc-tmp", dir=out_dir))
        staging = private / name  # named as the pack: lint compares HARNESS.md's name with it
        try:
            staging.mkdir()
            _write_files(staging, all_files)
            result = check(staging) if check is not None else None
            if listed is None:
                os.rename(staging, target)
            else:
                _replace_previous(target, listed, staging, names)
        finally:
            shutil.rmtree(private, ignore_errors=True)
    except UnsafePath as exc:
        raise UsageError(f"refusing to write outside the output directory: {exc}") from None
    except OSError as exc:
        raise UsageError(f"cannot write the pack to {out_dir / name}: {exc.strerror or exc}") from None
    return target, result

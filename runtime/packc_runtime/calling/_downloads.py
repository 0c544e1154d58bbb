"""Binary response bodies to files: a private per-user folder, and files only this code creates.

The folder is ``$PACKC_DOWNLOAD_DIR``, else ``<tmp>/packc-downloads-<uid>``. In a shared temporary
folder another local user could create that name first (as a symlink to a folder of the victim's,
or a folder of their own holding symlinks), so the folder is opened without following a symlink
and checked: a directory, owned by the user, not writable by anyone else (the default folder: no
access by anyone else at all). Files are created new (``O_CREAT|O_EXCL|O_NOFOLLOW``, mode 0600)
relative to the opened folder, so nothing planted there, and no swap of the folder after the
check, can redirect a write. Names come from the verb and a hash of the body, never from the
server: a ``Content-Disposition`` filename is only reported, cleaned, as ``suggestedName``.
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packc_runtime.errors import DownloadFailed

__all__ = ["download_dir", "safe_name", "save_download"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# Extensions a file may get from the server's media type: data a viewer opens, never anything a
# desktop runs or a browser scripts when the person (or an agent) opens the file (``.hta``, ``.jar``,
# ``.msi``, ``.sh`` all come from ``mimetypes``); anything else is ``.bin``.
_PASSIVE = frozenset(
    {
        ".bin",
        ".pdf",
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".webp",
        ".bmp",
        ".tif",
        ".tiff",
        ".ico",
        ".avif",
        ".heic",
        ".zip",
        ".gz",
        ".tgz",
        ".tar",
        ".bz2",
        ".xz",
        ".zst",
        ".7z",
        ".csv",
        ".tsv",
        ".json",
        ".txt",
        ".mp3",
        ".mp4",
        ".m4a",
        ".wav",
        ".ogg",
        ".oga",
        ".ogv",
        ".webm",
        ".flac",
        ".mov",
        ".avi",
        ".mpeg",
        ".mpg",
        ".xlsx",
        ".docx",
        ".pptx",
        ".odt",
        ".ods",
        ".odp",
        ".rtf",
        ".epub",
        ".parquet",
        ".avro",
        ".ics",
        ".vcf",
        ".pem",
        ".der",
        ".cer",
        ".crt",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
    }
)
_DISPOSITION = re.compile(r"""filename\*?\s*=\s*(?:[A-Za-z0-9_-]*'[^']*')?"?([^";]*)""", re.I)
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_PRIVATE = os.name != "nt"  # owners and modes are POSIX; Windows' temp folder is per user already


def safe_name(text: str, limit: int = 80) -> str:
    """``text`` as a plain file name: no separators, no leading dot, only ``[A-Za-z0-9._-]``."""
    name = _UNSAFE.sub("_", text.replace("\\", "/").rsplit("/", 1)[-1]).lstrip("._")[:limit].rstrip("_")
    return name if name not in ("", ".", "..") else ""


def download_dir(environ: Mapping[str, str] | None = None) -> tuple[Path, bool]:
    """The download folder and whether it is the default one (the stricter check applies)."""
    env = os.environ if environ is None else environ
    configured = env.get("PACKC_DOWNLOAD_DIR")
    if configured:
        return Path(configured).expanduser(), False
    suffix = f"-{os.geteuid()}" if _PRIVATE else ""
    return Path(tempfile.gettempdir()) / f"packc-downloads{suffix}", True


def _open_folder(folder: Path, default: bool) -> int:
    """Create the folder if missing (0700) and open it, refusing one that another user could touch."""
    try:
        folder.mkdir(mode=0o700, parents=not default)
    except FileExistsError:
        pass
    except OSError as exc:
        raise DownloadFailed(
            f"The download folder {folder} cannot be created ({exc.strerror or exc}).", folder=str(folder)
        ) from None
    flags = (
        os.O_RDONLY
        | getattr(os, "O_DIRECTORY", 0)
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    try:
        fd = os.open(folder, flags)
    except OSError as exc:
        why = "is a symlink" if folder.is_symlink() else f"cannot be opened ({exc.strerror or exc})"
        raise DownloadFailed(
            f"The download folder {folder} {why}; nothing was saved.", folder=str(folder)
        ) from None
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISDIR(info.st_mode):
        problem = "is not a folder"
    elif _PRIVATE and info.st_uid != os.geteuid():
        problem = "belongs to another user"
    elif _PRIVATE and info.st_mode & (0o077 if default else 0o022):
        problem = (
            f"has mode {stat.S_IMODE(info.st_mode):04o}; it must be 0700"
            if default
            else f"is writable by others (mode {stat.S_IMODE(info.st_mode):04o})"
        )
    if problem is not None:
        os.close(fd)
        raise DownloadFailed(
            f"The download folder {folder} {problem}; nothing was saved.", folder=str(folder)
        )
    return fd


def _extension(media: str) -> str:
    guessed = mimetypes.guess_extension(media, strict=False) if media else None
    return guessed if guessed in _PASSIVE else ".bin"


def _same_file(fd: int | None, name: str, content: bytes) -> bool:
    """An existing regular file of ours under ``name`` already holds exactly ``content``."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        existing = os.open(name, flags, dir_fd=fd) if fd is not None else os.open(name, flags)
    except OSError:
        return False
    try:
        info = os.fstat(existing)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_size != len(content)
            or (_PRIVATE and info.st_uid != os.geteuid())
        ):
            return False
        with os.fdopen(os.dup(existing), "rb") as handle:
            return handle.read() == content
    finally:
        os.close(existing)


def _write_new(fd: int | None, name: str, content: bytes) -> None:
    out = os.open(name, _NEW_FILE, 0o600, dir_fd=fd) if fd is not None else os.open(name, _NEW_FILE, 0o600)
    with os.fdopen(out, "wb") as handle:
        handle.write(content)


def save_download(
    verb: str, content: bytes, media: str, disposition: str = "", environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Save a binary body; returns the envelope's body ``{"file", "bytes", "contentType"[, "suggestedName"]}``.

    Raises:
        DownloadFailed: the folder is not private to the user, or the file cannot be written.
    """
    folder, default = download_dir(environ)
    fd = _open_folder(folder, default)
    relative = fd if os.open in os.supports_dir_fd else None
    try:
        stem = f"{safe_name(verb, 64) or 'body'}-{hashlib.sha256(content).hexdigest()[:16]}"
        ext = _extension(media)
        name = stem + ext
        for _ in range(8):
            target = name if relative is not None else str(folder / name)
            try:
                _write_new(relative, target, content)
                break
            except FileExistsError:
                if _same_file(relative, target, content):
                    break  # the same body saved before: reuse it
                name = f"{stem}-{secrets.token_hex(4)}{ext}"  # something else holds the name: never touch it
            except OSError as exc:
                raise DownloadFailed(
                    f"The download could not be saved in {folder} ({exc.strerror or exc}).",
                    folder=str(folder),
                ) from None
        else:
            raise DownloadFailed(f"No free file name for the download in {folder}.", folder=str(folder))
    finally:
        os.close(fd)
    body: dict[str, Any] = {"file": str(folder / name), "bytes": len(content), "contentType": media or None}
    match = _DISPOSITION.search(disposition)
    suggested = safe_name(match.group(1)) if match else ""
    if suggested:
        body["suggestedName"] = suggested
    return body

"""Where credentials and approvals are kept: the OS keyring and owner-only files, each entry bound to an origin.

- A stored value is kept per (name, origin): the keyring entry ``packc`` / ``NAME@ORIGIN``, or
  ``{"ORIGIN": {"NAME": "value"}}`` in the credentials file. It is only ever read back for that
  origin, so a document that names its slot like another API's gets nothing from it.
- An approval says that an environment variable may be sent to an origin (``{"NAME": ["ORIGIN"]}``
  in ``env-approvals.json`` beside the credentials file), like SSH's known hosts.

Both files must be the user's own and unreadable by others (mode 0600), else they are refused.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from packc_runtime.credentials.origins import origin_of
from packc_runtime.errors import CredentialStoreError

__all__ = [
    "KEYRING_SERVICE",
    "approvals_file",
    "approve_env",
    "credentials_file",
    "keyring_status",
    "keyring_user",
    "lookup_backend",
    "read_approvals",
    "read_stored",
    "remove_credentials",
    "store_credentials",
]

KEYRING_SERVICE = "packc"
# Backends that keep secrets in plain files or nowhere; refused unless PACKC_KEYRING=allow-insecure.
_INSECURE_MODULES = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")
_OFF = ("off", "0", "no", "false")


def credentials_file() -> Path:
    """``$PACKC_CREDENTIALS_FILE``, else ``$XDG_CONFIG_HOME/packc/credentials.json`` (``~/.config``)."""
    override = os.environ.get("PACKC_CREDENTIALS_FILE")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "packc" / "credentials.json"


def approvals_file() -> Path:
    """``env-approvals.json`` in the credentials file's folder: which variable may go to which origin."""
    return credentials_file().with_name("env-approvals.json")


def keyring_user(name: str, origin: str) -> str:
    """The keyring entry (``username`` under service ``packc``) of ``name`` bound to ``origin``."""
    return f"{name}@{origin}"


def _read_owner_only(path: Path, what: str) -> dict[str, Any]:
    try:
        info = path.stat()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CredentialStoreError(f"The {what} {path} cannot be read ({exc.strerror}).") from None
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO) or info.st_uid != os.getuid():
        raise CredentialStoreError(
            f"The {what} {path} is readable by others or not owned by you; it is refused.",
            fix=f"Run: chmod 600 {path}",
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CredentialStoreError(f"The {what} {path} is not a JSON object.") from exc
    if not isinstance(data, dict):
        raise CredentialStoreError(f"The {what} {path} is not a JSON object.")
    return data


def _write_owner_only(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    import tempfile  # lazily: only storing needs it

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_stored(path: Path | None = None) -> dict[str, dict[str, str]]:
    """The credentials file as ``{origin: {name: value}}``.

    Entries of the old, unbound form (``{"NAME": "value"}`` at the top) are never used: nothing
    says which origin they were meant for. ``connect`` stores them again, bound.
    """
    raw = _read_owner_only(path or credentials_file(), "credentials file")
    out: dict[str, dict[str, str]] = {}
    for origin, values in raw.items():
        if origin_of(origin) == origin and isinstance(values, dict):
            out[origin] = {str(k): v for k, v in values.items() if isinstance(v, str) and v}
    return out


def read_approvals() -> dict[str, frozenset[str]]:
    """The approvals file as ``{variable name: origins it may be sent to}``."""
    raw = _read_owner_only(approvals_file(), "approvals file")
    return {
        str(name): frozenset(o for o in origins if isinstance(o, str) and origin_of(o) == o)
        for name, origins in raw.items()
        if isinstance(origins, list)
    }


def approve_env(names: Iterable[str], origins: Iterable[str]) -> Path:
    """Record that each environment variable in ``names`` may be sent to each of ``origins``."""
    path = approvals_file()
    current = {name: set(found) for name, found in read_approvals().items()}
    wanted = sorted({o for o in (origin_of(x) for x in origins) if o})
    for name in names:
        current.setdefault(name, set()).update(wanted)
    _write_owner_only(path, {name: sorted(found) for name, found in current.items()})
    return path


def keyring_status() -> tuple[Any | None, str]:
    """The keyring backend to use (or None) and a sentence saying why.

    ``PACKC_KEYRING=off`` disables it; plaintext and fail backends are refused unless
    ``PACKC_KEYRING=allow-insecure``.
    """
    setting = os.environ.get("PACKC_KEYRING", "").lower()
    if setting in _OFF:
        return None, "the keyring is switched off (PACKC_KEYRING=off)"
    try:
        import keyring  # imported lazily: it is slow to import and rarely needed

        backend = keyring.get_keyring()
    except Exception as exc:  # any backend failure means: no keyring
        return None, f"no keyring is available ({type(exc).__name__})"
    module = type(backend).__module__
    # A chainer reads from every backend it holds: one plaintext backend makes the whole insecure.
    parts = list(getattr(backend, "backends", None) or [backend])
    insecure = not parts or any(type(b).__module__.startswith(_INSECURE_MODULES) for b in parts)
    if insecure and setting != "allow-insecure":
        return (
            None,
            f"the keyring backend {module} is not a secure store (set PACKC_KEYRING=allow-insecure to use it)",
        )
    return backend, f"keyring backend {module}"


# The keyring backend for lookups, per PACKC_KEYRING setting: importing keyring and finding its
# backend costs far more than a call, so it is done at most once per process (never when "off").
_LOOKUP_BACKENDS: dict[str, Any | None] = {}


def lookup_backend() -> Any | None:
    """The keyring backend lookups use (found once per process and setting), or None."""
    setting = os.environ.get("PACKC_KEYRING", "").lower()
    if setting in _OFF:
        return None
    if setting not in _LOOKUP_BACKENDS:
        _LOOKUP_BACKENDS[setting] = keyring_status()[0]
    return _LOOKUP_BACKENDS[setting]


def store_credentials(
    values: Mapping[str, str], origins: Iterable[str], *, target: Literal["keyring", "file"] | None = None
) -> str:
    """Store credential values bound to ``origins``; returns where (``keyring`` or the file path).

    Without a target: the keyring when it is a secure backend, else the owner-only credentials file.

    Raises:
        CredentialStoreError: no origin to bind to, the keyring refused, or the file is not yours.
    """
    bound = sorted({o for o in (origin_of(x) for x in origins) if o})
    if not bound:
        raise CredentialStoreError(
            "The pack names no http(s) server origin to bind the credentials to.",
            fix="Pass the server the credentials are for: connect --server URL.",
        )
    backend = None
    if target in (None, "keyring"):
        backend, why = keyring_status()
        if backend is None and target == "keyring":
            raise CredentialStoreError(f"Cannot store in the keyring: {why}.")
    if backend is not None:
        try:
            for origin in bound:
                for name, value in values.items():
                    backend.set_password(KEYRING_SERVICE, keyring_user(name, origin), value)
        except Exception as exc:
            raise CredentialStoreError(
                f"The keyring refused to store the credentials ({type(exc).__name__})."
            ) from None
        return "keyring"
    path = credentials_file()
    current: dict[str, Any] = _read_owner_only(path, "credentials file")
    for origin in bound:
        entry = current.get(origin)
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry.update(values)
        current[origin] = entry
    _write_owner_only(path, current)
    return str(path)


def remove_credentials(names: Iterable[str], origins: Iterable[str]) -> list[str]:
    """Remove the values of ``names`` stored for ``origins`` (keyring and file); the ``NAME@ORIGIN`` removed."""
    names, bound = sorted(set(names)), sorted({o for o in (origin_of(x) for x in origins) if o})
    removed: list[str] = []
    backend = lookup_backend()
    for origin in bound:
        for name in names:
            try:
                if backend is not None and backend.get_password(KEYRING_SERVICE, keyring_user(name, origin)):
                    backend.delete_password(KEYRING_SERVICE, keyring_user(name, origin))
                    removed.append(keyring_user(name, origin))
            except Exception:  # a locked keyring: the file is still cleaned
                pass
    path = credentials_file()
    current: dict[str, Any] = _read_owner_only(path, "credentials file")
    changed = False
    for origin in bound:
        entry = current.get(origin)
        if isinstance(entry, dict):
            for name in names:
                if entry.pop(name, None) is not None:
                    changed = True
                    removed.append(keyring_user(name, origin))
            if not entry:
                current.pop(origin)
    if changed:
        _write_owner_only(path, current)
    return sorted(set(removed))

"""Credentials: the slots a pack needs, where values come from (env, keyring, file), and storing them."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from .errors import CredentialStoreError
from .openapi import BINDING_KEY, METHODS, resolve

__all__ = [
    "CredentialSlot",
    "CredentialSources",
    "credential_slots",
    "credentials_file",
    "keyring_status",
    "prompt_and_store",
    "store_credentials",
    "upper_snake",
]

SlotKind = Literal["api_key", "token", "username", "password", "client_id", "client_secret"]
KEYRING_SERVICE = "packc"
_SUFFIX: dict[SlotKind, str] = {
    "api_key": "API_KEY",
    "token": "TOKEN",
    "username": "USERNAME",
    "password": "PASSWORD",
    "client_id": "CLIENT_ID",
    "client_secret": "CLIENT_SECRET",
}
# Backends that keep secrets in plain files or nowhere; refused unless PACKC_KEYRING=allow-insecure.
_INSECURE_MODULES = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")


if TYPE_CHECKING:  # a Protocol class costs import time on the CLI path; type checkers only need it
    from typing import Protocol

    class ManifestLike(Protocol):
        """What :func:`credential_slots` reads of a manifest (``packc_runtime.manifest.Manifest`` fits)."""

        @property
        def id(self) -> str: ...

        @property
        def binding(self) -> Any: ...


class CredentialSlot(NamedTuple):
    """One credential value a pack needs: its environment variable and the scheme it feeds."""

    env: str
    scheme: str
    kind: SlotKind
    description: str

    def to_json(self) -> dict[str, str]:
        return {"env": self.env, "scheme": self.scheme, "kind": self.kind, "description": self.description}


def upper_snake(text: str) -> str:
    """``petStore-v2`` -> ``PET_STORE_V2``."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()
    return text if text and not text[0].isdigit() else f"P_{text}"


def _scheme_kinds(scheme: Mapping[str, Any]) -> list[SlotKind]:
    kind = scheme.get("type")
    if kind == "apiKey":
        return ["api_key"]
    if kind == "http":
        return ["username", "password"] if str(scheme.get("scheme", "")).lower() == "basic" else ["token"]
    if kind == "oauth2":
        flows = scheme.get("flows")
        if isinstance(flows, Mapping) and "clientCredentials" in flows:
            return ["client_id", "client_secret"]
        return ["token"]
    if kind == "openIdConnect":
        return ["token"]
    return []  # mutualTLS and unknown types need no value from the user


def _describe(key: str, scheme: Mapping[str, Any], kind: SlotKind) -> str:
    stype = scheme.get("type")
    if stype == "apiKey":
        return f"API key for scheme {key!r}, sent in the {scheme.get('in')} as {scheme.get('name')!r}."
    if stype == "http" and kind in ("username", "password"):
        return f"HTTP basic {kind} for scheme {key!r}."
    if stype == "http":
        return f"HTTP {str(scheme.get('scheme', 'bearer')).lower()} token for scheme {key!r}."
    if kind in ("client_id", "client_secret"):
        return f"OAuth2 client-credentials {kind.replace('_', ' ')} for scheme {key!r}."
    return f"Access token obtained beforehand for scheme {key!r} ({stype})."


def used_scheme_keys(document: Mapping[str, Any]) -> list[str]:
    """Security scheme keys required by the document's bound operations, sorted."""
    keys: set[str] = set()
    top = document.get("security")
    for item in document.get("paths", {}).values():
        item = resolve(document, item)
        if not isinstance(item, Mapping):
            continue
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, Mapping) or BINDING_KEY not in op:
                continue
            security = op.get("security", top)
            for requirement in security if isinstance(security, list) else []:
                if isinstance(requirement, Mapping):
                    keys.update(str(k) for k in requirement)
    return sorted(keys)


def credential_slots(manifest: ManifestLike, document: Mapping[str, Any]) -> list[CredentialSlot]:
    """The credentials a pack needs, one slot per value, in scheme-key order.

    The prefix is the upper-snake of ``binding.family`` (else the pack ``id``). When two schemes
    would share a variable name (two API keys, a bearer token and an OAuth2 token), the scheme key
    is added for each of them: ``PETSTORE_<SCHEMEKEY>_API_KEY``.
    """
    family = manifest.binding.family if manifest.binding and manifest.binding.family else manifest.id
    prefix = upper_snake(family)
    components = document.get("components")
    schemes = components.get("securitySchemes", {}) if isinstance(components, Mapping) else {}
    planned: list[tuple[str, Mapping[str, Any], SlotKind]] = []
    for key in used_scheme_keys(document):
        scheme = resolve(document, schemes.get(key)) if isinstance(schemes, Mapping) else None
        if isinstance(scheme, Mapping):
            planned.extend((key, scheme, kind) for kind in _scheme_kinds(scheme))
    counts: dict[str, set[str]] = {}
    for key, _, kind in planned:
        counts.setdefault(_SUFFIX[kind], set()).add(key)
    slots = []
    for key, scheme, kind in planned:
        suffix = _SUFFIX[kind]
        env = f"{prefix}_{upper_snake(key)}_{suffix}" if len(counts[suffix]) > 1 else f"{prefix}_{suffix}"
        slots.append(CredentialSlot(env, key, kind, _describe(key, scheme, kind)))
    return slots


def credentials_file() -> Path:
    """``$PACKC_CREDENTIALS_FILE``, else ``$XDG_CONFIG_HOME/packc/credentials.json`` (``~/.config``)."""
    override = os.environ.get("PACKC_CREDENTIALS_FILE")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "packc" / "credentials.json"


def _read_file(path: Path) -> dict[str, str]:
    try:
        info = path.stat()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CredentialStoreError(f"The credentials file {path} cannot be read ({exc.strerror}).") from None
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO) or info.st_uid != os.getuid():
        raise CredentialStoreError(
            f"The credentials file {path} is readable by others or not owned by you; it is refused.",
            fix=f"Run: chmod 600 {path}",
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CredentialStoreError(f"The credentials file {path} is not a JSON object.") from exc
    if not isinstance(data, dict):
        raise CredentialStoreError(f"The credentials file {path} is not a JSON object.")
    return {str(k): v for k, v in data.items() if isinstance(v, str)}


def keyring_status() -> tuple[Any | None, str]:
    """The keyring backend to use (or None) and a sentence saying why.

    ``PACKC_KEYRING=off`` disables it; plaintext and fail backends are refused unless
    ``PACKC_KEYRING=allow-insecure``.
    """
    setting = os.environ.get("PACKC_KEYRING", "").lower()
    if setting in ("off", "0", "no", "false"):
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
        return None, f"the keyring backend {module} is not a secure store (set PACKC_KEYRING=allow-insecure to use it)"
    return backend, f"keyring backend {module}"


# The keyring backend for lookups, per PACKC_KEYRING setting: importing keyring and finding its
# backend costs far more than a call, so it is done at most once per process (never when "off").
_LOOKUP_BACKENDS: dict[str, Any | None] = {}


def _lookup_backend() -> Any | None:
    setting = os.environ.get("PACKC_KEYRING", "").lower()
    if setting in ("off", "0", "no", "false"):
        return None
    if setting not in _LOOKUP_BACKENDS:
        _LOOKUP_BACKENDS[setting] = keyring_status()[0]
    return _LOOKUP_BACKENDS[setting]


class CredentialSources:
    """Looks a variable up in the environment, then the OS keyring, then the credentials file.

    The keyring and the file are read at most once per variable (per instance, i.e. per pack); the
    environment is read on every lookup.
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ if environ is not None else os.environ
        self._keyring_values: dict[str, str | None] = {}
        self._file: dict[str, str] | None = None

    def __repr__(self) -> str:
        return "CredentialSources(env, keyring, file)"

    def from_env(self, name: str) -> str | None:
        """The value of ``name`` in the environment only (no keyring, no file), else None."""
        return self._environ.get(name) or None

    def get(self, name: str) -> str | None:
        """The value of ``name`` from the first source that has it, else None."""
        value = self._environ.get(name)
        if value:
            return value
        if name not in self._keyring_values:
            backend = _lookup_backend()
            found = None
            if backend is not None:
                try:
                    found = backend.get_password(KEYRING_SERVICE, name)
                except Exception:  # a locked or broken keyring is treated as empty
                    found = None
            self._keyring_values[name] = str(found) if found else None
        if self._keyring_values[name]:
            return self._keyring_values[name]
        if self._file is None:
            self._file = _read_file(credentials_file())
        return self._file.get(name) or None


def _write_file(path: Path, values: Mapping[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    current = _read_file(path)
    current.update(values)
    import tempfile  # lazily: only storing needs it

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".credentials-")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(dict(sorted(current.items())), handle, indent=2)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def store_credentials(values: Mapping[str, str], *, target: Literal["keyring", "file"] | None = None) -> str:
    """Store credential values; returns where (``keyring`` or the file path).

    Without a target: the keyring when it is a secure backend, else the owner-only credentials file.
    """
    backend = None
    if target in (None, "keyring"):
        backend, why = keyring_status()
        if backend is None and target == "keyring":
            raise CredentialStoreError(f"Cannot store in the keyring: {why}.")
    if backend is not None:
        try:
            for name, value in values.items():
                backend.set_password(KEYRING_SERVICE, name, value)
        except Exception as exc:
            raise CredentialStoreError(f"The keyring refused to store the credentials ({type(exc).__name__}).") from None
        return "keyring"
    path = credentials_file()
    _write_file(path, values)
    return str(path)


def prompt_and_store(
    slots: Iterable[CredentialSlot],
    prompt: Callable[[str], str],
    *,
    target: Literal["keyring", "file"] | None = None,
) -> tuple[list[str], str | None]:
    """Ask for each slot's value (no echo; empty skips) and store the given ones."""
    values = {}
    for slot in slots:
        value = prompt(f"{slot.env} ({slot.description}): ").strip()
        if value:
            values[slot.env] = value
    if not values:
        return [], None
    return sorted(values), store_credentials(values, target=target)

"""Credentials: the slots a pack needs, the origins each is bound to, and finding a value for an origin.

Storage (keyring, owner-only files, approvals of environment variables) is ``store.py``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple
from urllib.parse import urljoin

from packc_runtime.calling.openapi.operations import BINDING_KEY, resolve
from packc_runtime.credentials.binding import CredentialHub, asks_credentials
from packc_runtime.credentials.origins import origin_of, parse_origins
from packc_runtime.credentials.store import (
    KEYRING_SERVICE,
    approvals_file,
    keyring_user,
    lookup_backend,
    read_approvals,
    read_stored,
    store_credentials,
)
from packc_runtime.rules import HTTP_METHODS

__all__ = [
    "CredentialSlot",
    "CredentialSources",
    "bound_requirements",
    "credential_slots",
    "prompt_and_store",
    "slot_origins",
    "upper_snake",
]

SlotKind = Literal["api_key", "token", "username", "password", "client_id", "client_secret"]
_SUFFIX: dict[SlotKind, str] = {
    "api_key": "API_KEY",
    "token": "TOKEN",
    "username": "USERNAME",
    "password": "PASSWORD",
    "client_id": "CLIENT_ID",
    "client_secret": "CLIENT_SECRET",
}


if TYPE_CHECKING:  # a Protocol class costs import time on the CLI path; type checkers only need it
    from typing import Protocol

    class ManifestLike(Protocol):
        """What :func:`credential_slots` reads of a manifest (``format.view.ManifestView`` and ``format.manifest.Manifest`` fit)."""

        @property
        def id(self) -> str: ...

        @property
        def binding(self) -> Any: ...


class CredentialSlot(NamedTuple):
    """One credential value a pack needs: its environment variable and the scheme it feeds (with
    ``also``, the other schemes the same value feeds: one API key sent in two places)."""

    env: str
    scheme: str
    kind: SlotKind
    description: str
    also: tuple[str, ...] = ()

    @property
    def schemes(self) -> tuple[str, ...]:
        """Every scheme this value feeds."""
        return (self.scheme, *self.also)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "env": self.env,
            "scheme": self.scheme,
            "kind": self.kind,
            "description": self.description,
        }
        if self.also:
            out["also"] = list(self.also)
        return out


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
    flows = scheme.get("flows")
    if stype == "openIdConnect" or (
        isinstance(flows, Mapping) and ("authorizationCode" in flows or "deviceAuthorization" in flows)
    ):
        return (
            f"OAuth2 access token for scheme {key!r} ({stype}): a person signs in with connect --client-id ID "
            "(the client id of an app registered with the provider), or enters one obtained beforehand."
        )
    return f"Access token obtained beforehand for scheme {key!r} ({stype})."


def bound_requirements(document: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The distinct security requirements of the document's bound operations (each an AND of
    scheme keys, sorted), in document order; ``()`` is "no credential needed"."""
    top = document.get("security")
    out: list[tuple[str, ...]] = []
    paths = document.get("paths")
    for item in paths.values() if isinstance(paths, Mapping) else []:
        item = resolve(document, item)
        if not isinstance(item, Mapping):
            continue
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, Mapping) or BINDING_KEY not in op:
                continue
            security = op.get("security", top)
            for requirement in security if isinstance(security, list) else []:
                if isinstance(requirement, Mapping):
                    key = tuple(sorted(str(k) for k in requirement))
                    if key not in out:
                        out.append(key)
    return out


def used_scheme_keys(document: Mapping[str, Any]) -> list[str]:
    """Security scheme keys required by the document's bound operations, sorted."""
    return sorted({key for requirement in bound_requirements(document) for key in requirement})


def credential_slots(manifest: ManifestLike, document: Mapping[str, Any]) -> list[CredentialSlot]:
    """The credentials a pack needs, one slot per value, in scheme-key order.

    The prefix is the upper-snake of ``binding.family`` (else the pack ``id``). When two schemes
    would share a variable name (two API keys, a bearer token and an OAuth2 token), the scheme key
    is added for each of them: ``PETSTORE_<SCHEMEKEY>_API_KEY``. A pack whose binding uses no
    credential (``mode`` public or mock, ``hub`` public or none) has none.
    """
    if not asks_credentials(manifest):  # binding.mode public or mock, hub public or none
        return []
    family = manifest.binding.family if manifest.binding and manifest.binding.family else manifest.id
    prefix = upper_snake(family)
    components = document.get("components")
    schemes = components.get("securitySchemes", {}) if isinstance(components, Mapping) else {}
    planned: list[tuple[str, Mapping[str, Any], SlotKind]] = []
    # apiKey schemes of one name in different places (Slack's ``token`` in the query of one
    # operation, in a header of another) carry one key: one slot, the first scheme's, feeds them all.
    same_key: dict[str, list[str]] = {}
    for key in used_scheme_keys(document):
        scheme = resolve(document, schemes.get(key)) if isinstance(schemes, Mapping) else None
        if not isinstance(scheme, Mapping):
            continue
        if scheme.get("type") == "apiKey" and isinstance(scheme.get("name"), str):
            group = same_key.setdefault(scheme["name"].casefold(), [])
            group.append(key)
            if len(group) > 1:
                continue
        planned.extend((key, scheme, kind) for kind in _scheme_kinds(scheme))
    also = {group[0]: tuple(group[1:]) for group in same_key.values()}
    counts: dict[str, set[str]] = {}
    for key, _, kind in planned:
        counts.setdefault(_SUFFIX[kind], set()).add(key)
    slots = []
    for key, scheme, kind in planned:
        suffix = _SUFFIX[kind]
        env = f"{prefix}_{upper_snake(key)}_{suffix}" if len(counts[suffix]) > 1 else f"{prefix}_{suffix}"
        description = _describe(key, scheme, kind)
        if also.get(key):
            description += f" The same key is sent for {', '.join(repr(k) for k in also[key])}."
        slots.append(CredentialSlot(env, key, kind, description, also.get(key, ())))
    return slots


class CredentialSources:
    """Finds a credential's value for the origin it will be sent to.

    In order: the environment, only when the variable is approved for that origin (the approvals
    file, or the origin listed in ``PACKC_TRUSTED_ORIGINS``); then the OS keyring and the
    credentials file, only entries stored for that origin. The keyring and the file are read at most
    once per name and origin per instance (i.e. per pack); the approvals again only when a lookup
    misses and the file changed since (an approval just given); the environment on every lookup.

    With ``hub="keyring"`` (a pack whose ``binding.hub`` is ``keyring``) only the OS keyring is read:
    the environment and the credentials file are never consulted.
    """

    def __init__(
        self, environ: Mapping[str, str] | None = None, *, hub: CredentialHub = "local-credential"
    ) -> None:
        self.hub: CredentialHub = hub
        environ = environ if environ is not None else os.environ
        self._trusted = parse_origins(environ.get("PACKC_TRUSTED_ORIGINS", ""))
        # The keyring hub reads no credential from the environment: none set there is used or asked about.
        self._environ: Mapping[str, str] = {} if hub == "keyring" else environ
        self._keyring_values: dict[tuple[str, str], str | None] = {}
        self._file: dict[str, dict[str, str]] | None = None
        self._approvals: dict[str, frozenset[str]] | None = None
        self._approvals_stamp: int | None = None

    def __repr__(self) -> str:
        return (
            "CredentialSources(keyring)" if self.hub == "keyring" else "CredentialSources(env, keyring, file)"
        )

    def trusts(self, origin: str) -> bool:
        """Whether ``PACKC_TRUSTED_ORIGINS`` lists ``origin`` (trusted with every credential)."""
        return origin in self._trusted

    def env_approved(self, name: str, origin: str) -> bool:
        """Whether the environment variable ``name`` may be sent to ``origin``."""
        if origin in self._trusted:
            return True
        if self._approvals is not None and origin in self._approvals.get(name, frozenset()):
            return True
        try:  # on a miss, read the file again if it changed: an approval given since (the CLI's question)
            stamp: int | None = approvals_file().stat().st_mtime_ns
        except OSError:
            stamp = None
        if self._approvals is None or stamp != self._approvals_stamp:
            self._approvals, self._approvals_stamp = read_approvals(), stamp
        return origin in self._approvals.get(name, frozenset())

    def env_set(self, name: str) -> bool:
        """Whether the environment variable ``name`` is set (approved for anywhere or not)."""
        return bool(self._environ.get(name))

    def unapproved_env(self, name: str, origin: str) -> bool:
        """Whether ``name`` is set in the environment but not approved for ``origin``."""
        return bool(self._environ.get(name)) and not self.env_approved(name, origin)

    def from_env(self, name: str, origin: str) -> str | None:
        """The environment's value of ``name`` when it is approved for ``origin``, else None."""
        value = self._environ.get(name)
        return value if value and self.env_approved(name, origin) else None

    def stored(self, name: str, origins: Sequence[str]) -> str | None:
        """The value stored for ``name`` under the first of ``origins`` that has one (keyring, then file)."""
        backend = None
        for origin in origins:
            key = (name, origin)
            if key not in self._keyring_values:
                backend = backend or lookup_backend()
                found = None
                if backend is not None:
                    try:
                        found = backend.get_password(KEYRING_SERVICE, keyring_user(name, origin))
                    except Exception:  # a locked or broken keyring is treated as empty
                        found = None
                self._keyring_values[key] = str(found) if found else None
            if self._keyring_values[key]:
                return self._keyring_values[key]
        if self.hub == "keyring":
            return None
        if self._file is None:
            self._file = read_stored()
        for origin in origins:
            value = self._file.get(origin, {}).get(name)
            if value:
                return value
        return None

    def get(self, name: str, origin: str, *, also: Sequence[str] = (), env_only: bool = False) -> str | None:
        """The value of ``name`` to send to ``origin``: the approved environment, else a stored one.

        ``also``: more origins whose stored values may serve ``origin`` (the pack's own servers,
        when ``origin`` is a trusted override).
        """
        value = self.from_env(name, origin)
        if value or env_only:
            return value
        return self.stored(name, (origin, *also))


def slot_origins(
    slots: Sequence[CredentialSlot],
    operations: Iterable[Any],
    document: Mapping[str, Any],
    *,
    every_enum: bool = True,
) -> dict[str, tuple[str, ...]]:
    """For each slot (by variable), the origins its value is sent to: what ``connect`` binds it to.

    The origins of the servers of every bound operation that may use the slot's scheme (server
    variables at their defaults and, with ``every_enum``, every value of their enums); for OAuth2
    client credentials, also the origin of the token URL.
    """
    from packc_runtime.calling.openapi.request import (
        server_origins,  # request imports httpx: only connect and calls need it
    )

    components = document.get("components")
    schemes = components.get("securitySchemes", {}) if isinstance(components, Mapping) else {}
    by_scheme: dict[str, list[str]] = {}
    for op in operations:
        keys = {str(k) for requirement in op.security or () for k in requirement}
        if not keys:
            continue
        bases = server_origins(op, every_enum=every_enum)
        for key in keys:
            found = by_scheme.setdefault(key, [])
            found.extend(o for o in bases if o not in found)
            scheme = resolve(document, schemes.get(key)) if isinstance(schemes, Mapping) else None
            flows = scheme.get("flows") if isinstance(scheme, Mapping) else None
            flow = flows.get("clientCredentials") if isinstance(flows, Mapping) else None
            token_url = flow.get("tokenUrl") if isinstance(flow, Mapping) else None
            for base in bases if isinstance(token_url, str) else ():
                token_origin = origin_of(urljoin(base + "/", token_url))
                if token_origin and token_origin not in found:
                    found.append(token_origin)
    out: dict[str, tuple[str, ...]] = {}
    for slot in slots:
        found = [o for key in slot.schemes for o in by_scheme.get(key, ())]
        out[slot.env] = tuple(dict.fromkeys(found))
    return out


def prompt_and_store(
    slots: Iterable[CredentialSlot],
    prompt: Callable[[str], str],
    origins: Mapping[str, Sequence[str]],
    *,
    target: Literal["keyring", "file"] | None = None,
) -> tuple[list[str], str | None]:
    """Ask for each slot's value (no echo; empty skips) and store the given ones bound to their origins.

    Args:
        slots: the pack's credential slots.
        prompt: asks for one value without echo (``getpass.getpass``).
        origins: per slot variable, the origins the value is bound to (:func:`slot_origins`).
        target: ``keyring`` or ``file``; default the keyring when secure, else the file.
    """
    values: dict[tuple[str, ...], dict[str, str]] = {}
    for slot in slots:
        bound = tuple(origins.get(slot.env, ()))
        value = prompt(f"{slot.env} for {', '.join(bound) or '(no origin)'} ({slot.description}): ").strip()
        if value:
            values.setdefault(bound, {})[slot.env] = value
    where = None
    for bound, group in values.items():
        where = store_credentials(group, bound, target=target)
    return sorted(name for group in values.values() for name in group), where

"""packc_runtime: load a pack and execute its verbs over httpx with bound credentials."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .credentials import CredentialSlot, credential_slots
    from .diagnostics import Diagnostic
    from .errors import PackRuntimeError
    from .manifest import Manifest, Policy, read_manifest, read_policy
    from .pack import Pack, load_pack
    from .send import Limits

__all__ = [
    "CredentialSlot",
    "Diagnostic",
    "Limits",
    "Manifest",
    "Pack",
    "PackRuntimeError",
    "Policy",
    "credential_slots",
    "load_pack",
    "read_manifest",
    "read_policy",
]

# Exports load on first use: a pack's CLI must not pay for pydantic (the manifest models) when it
# only runs a verb; that import alone doubles its cold start.
_HOMES = {
    "CredentialSlot": "credentials",
    "Diagnostic": "diagnostics",
    "Limits": "send",
    "Manifest": "manifest",
    "Pack": "pack",
    "PackRuntimeError": "errors",
    "Policy": "manifest",
    "credential_slots": "credentials",
    "load_pack": "pack",
    "read_manifest": "manifest",
    "read_policy": "manifest",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'packc_runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""packc_runtime: load a pack and execute its verbs over httpx with bound credentials."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from packc_runtime.calling.pack import Pack, load_pack
    from packc_runtime.calling.results import Envelope
    from packc_runtime.calling.send import Limits
    from packc_runtime.credentials.slots import CredentialSlot, credential_slots
    from packc_runtime.diagnostics import Diagnostic
    from packc_runtime.errors import PackRuntimeError
    from packc_runtime.format.manifest import Manifest, Policy, read_manifest, read_policy

__all__ = [
    "CredentialSlot",
    "Diagnostic",
    "Envelope",
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
    "CredentialSlot": "credentials.slots",
    "Diagnostic": "diagnostics",
    "Envelope": "calling.results",
    "Limits": "calling.send",
    "Manifest": "format.manifest",
    "Pack": "calling.pack",
    "PackRuntimeError": "errors",
    "Policy": "format.manifest",
    "credential_slots": "credentials.slots",
    "load_pack": "calling.pack",
    "read_manifest": "format.manifest",
    "read_policy": "format.manifest",
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

"""What a pack's ``binding`` says about credentials: whether a call asks for one, and where it comes from.

The manifest reference's binding fields, as this runtime honours them:

- ``mode``: ``public`` and ``mock`` never ask for or send a credential (``mock`` sends nothing at
  all: calling/mock.py); ``user`` and ``local`` use the hub; ``mothership`` needs a control service
  this runtime does not have and is refused when the pack is loaded (a ``plane: control`` pack
  without a binding is ``mothership`` too, as the reference defaults it).
- ``hub``: ``keyring``, the OS keyring only (never the environment or the credentials file);
  ``local-credential`` (and no hub named), packc's local store: the approved environment, the
  keyring, the 0600 file; ``public`` and ``none``, no credential.
"""

from __future__ import annotations

from typing import Any, Literal

from packc_runtime.errors import InvalidPack

__all__ = ["CredentialHub", "asks_credentials", "binding_mode", "credential_hub"]

# Where a pack's credentials come from; None (from credential_hub) is "none is asked for or sent".
CredentialHub = Literal["local-credential", "keyring"]


def binding_mode(manifest: Any) -> str | None:
    """``binding.mode``, or ``mothership`` for a ``plane: control`` pack that names none."""
    binding = getattr(manifest, "binding", None)
    mode = getattr(binding, "mode", None)
    if mode is None and getattr(manifest, "plane", None) == "control":
        return "mothership"
    return mode if isinstance(mode, str) else None


def asks_credentials(manifest: Any) -> bool:
    """Whether the pack's binding lets a call ask for and send credentials (never raises)."""
    hub = getattr(getattr(manifest, "binding", None), "hub", None)
    return binding_mode(manifest) not in ("public", "mock") and hub not in ("public", "none")


def credential_hub(manifest: Any) -> CredentialHub | None:
    """Where the pack's credentials come from, or None when its binding uses none.

    Raises:
        InvalidPack: the binding is ``mothership``, which this runtime cannot serve.
    """
    if binding_mode(manifest) == "mothership":
        raise InvalidPack(
            "This pack's binding.mode is mothership: its credentials are minted by a control service "
            "(a mothership) that this runtime does not have, so it cannot run here. Use a pack bound "
            'with mode "user" or "local" (credentials from packc\'s local store), or "public".'
        )
    if not asks_credentials(manifest):
        return None
    hub = getattr(getattr(manifest, "binding", None), "hub", None)
    return "keyring" if hub == "keyring" else "local-credential"

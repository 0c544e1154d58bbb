"""packc_runtime: load a pack and execute its verbs over httpx with bound credentials."""

from .diagnostics import Diagnostic
from .manifest import Manifest, Policy, read_manifest, read_policy

__all__ = ["Diagnostic", "Manifest", "Policy", "read_manifest", "read_policy"]

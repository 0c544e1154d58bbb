"""The stable entry of the command-line face: every pack launcher imports `pack_main` from here.

Launchers written by packc (`bin/<cliBin>`, a pack repo's module) and installed on people's machines
name this module, so it stays put while the face itself lives in `packc_runtime.faces.cli`.
"""

from __future__ import annotations

from packc_runtime.faces.cli import pack_main

__all__ = ["pack_main"]

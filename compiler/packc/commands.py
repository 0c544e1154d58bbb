"""``packc commands``: every verb of a pack with its description and a ready-to-run example line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format.manifest import read_manifest, read_policy
from packc_runtime.format.templating import SHOWN_OPTIONAL, example_line

__all__ = ["CommandEntry", "list_commands"]


@dataclass(frozen=True, slots=True)
class CommandEntry:
    verb: str
    description: str
    access: str  # "read" or "write", policy.json first, else the verb's legacy hint
    line: str  # the ready-to-run line; empty when the verb has no cli form

    def to_json(self) -> dict[str, str]:
        return {"verb": self.verb, "description": self.description, "access": self.access, "line": self.line}


def list_commands(pack_dir: Path) -> tuple[list[CommandEntry], list[Diagnostic]]:
    """The pack's verbs in manifest order, or the diagnostics that stop reading the pack."""
    manifest, diagnostics = read_manifest(pack_dir)
    if manifest is None:
        return [], diagnostics
    policy, _ = read_policy(pack_dir)  # a missing policy still lets us list the verbs
    entries = []
    for name, verb in manifest.verbs.items():
        row = policy.commands.get(name) if policy else None
        access = row.access if row else (verb.policy or "read")
        if verb.cli:
            line = example_line(verb.cli, verb.args, optional=SHOWN_OPTIONAL)
        elif manifest.cliBin:
            line = example_line([manifest.cliBin, *name.split(".")], verb.args, optional=SHOWN_OPTIONAL)
        else:
            line = ""
        entries.append(CommandEntry(name, verb.description or "", access, line))
    return entries, []

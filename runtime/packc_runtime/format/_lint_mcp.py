"""Lint's MCP checks: can the pack be served (M040), and is HARNESS.md an Agent Skills file (M041)."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format._lint_codes import finding, pointer
from packc_runtime.format.manifest import Manifest

__all__ = ["check_mcp", "front_matter"]

# Agent Skills: `name` is lower-case letters, digits and single hyphens, at most 64 characters, and
# equals the skill's directory name; `description` says what it does and when, at most 1024.
_SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_NAME_MAX, _DESCRIPTION_MAX = 64, 1024


def front_matter(text: str) -> dict[str, str] | None:
    """The ``key: value`` lines between a leading ``---`` and the next; None when there is none."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    out: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() == "---":
            return out
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t")):
            value = value.strip()
            if value.startswith('"'):
                with contextlib.suppress(ValueError):
                    value = str(json.loads(value))
            elif len(value) > 1 and value[0] == value[-1] == "'":
                value = value[1:-1].replace("''", "'")
            out[key.strip()] = value
    return None


def check_mcp(m: Manifest, pack_dir: Path) -> list[Diagnostic]:
    """M040 and M041 (codes and levels in ``_lint_codes.CODES``)."""
    out: list[Diagnostic] = []
    if "mcp" in (m.transports or []) and m.kind != "openapi":
        out.append(
            finding(
                "M040",
                pointer("surface.json", "transports"),
                f"transports lists mcp but kind is {m.kind!r}: packc serve runs openapi packs only.",
                "Remove mcp from transports, or make the pack kind openapi.",
            )
        )
    harness = pack_dir / "HARNESS.md"
    if not harness.is_file():
        return out
    try:
        fields = front_matter(harness.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return out
    problems = []
    if fields is None:
        problems.append("it has no front matter")
    else:
        name, description = fields.get("name", ""), fields.get("description", "")
        if name != pack_dir.name:
            problems.append(f"name {name!r} is not the directory name {pack_dir.name!r}")
        if len(name) > _NAME_MAX or not _SKILL_NAME.match(name):
            problems.append(
                "name is not lower-case letters, digits and single hyphens of at most 64 characters"
            )
        if not description or len(description) > _DESCRIPTION_MAX:
            problems.append(f"description is empty or longer than {_DESCRIPTION_MAX} characters")
    if problems:
        out.append(
            finding(
                "M041",
                "HARNESS.md#/front-matter",
                "HARNESS.md is not an Agent Skills file: " + "; ".join(problems) + ".",
                "Start it with ---, name: <directory name>, description: "
                "<what the pack does, at most 1024 characters>, ---.",
            )
        )
    return out

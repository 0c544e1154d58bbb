"""Lint's registry of finding codes, and the two helpers every check builds a finding with.

Its own module so that ``lint.py`` and the checks kept beside it (``_lint_mcp.py``) share them
without importing each other.
"""

from __future__ import annotations

from packc_runtime.diagnostics import Diagnostic, Level, escape_token

__all__ = ["CODES", "finding", "pointer"]

# code -> (level, short title); messages are built where each check runs.
CODES: dict[str, tuple[Level, str]] = {
    "M001": ("error", "a pack file is missing or unreadable"),
    "M002": ("error", "a pack file is not valid JSON"),
    "M003": ("error", "a field has the wrong type, is missing, or is unknown"),
    "M004": ("error", "id differs from policy.json surface_id"),
    "M005": ("error", "kind wrap without wrap.bin"),
    "M006": ("error", "kind wrap without named commands or pass_through"),
    "M007": ("error", "plane control whose binding is not mothership"),
    "M008": ("error", "kind openapi without openapi"),
    "M009": ("error", "kind sense_only without a trigger"),
    "M010": ("error", "a verb has no policy.json row"),
    "M011": ("error", "a policy.json row names no verb"),
    "M012": ("error", "a stimulusTriggers ref has no policy.json stimuli row"),
    "M013": ("error", "hcp.pack_id differs from id"),
    "M014": ("error", "id is not lower-case"),
    "M015": ("error", "more than 12 verbs"),
    "M016": ("warning", "fewer than 5 verbs in a pack that is not a public read pack"),
    "M017": ("error", "a cli[] does not start with cliBin"),
    "M018": ("error", "a placeholder maps to no argument"),
    "M019": ("error", "a {{result.…}} placeholder outside a done title"),
    "M020": ("error", "args is not a valid JSON Schema object"),
    "M021": ("error", "an example does not validate against its property"),
    "M022": ("error", "x-position values are not distinct"),
    "M023": ("warning", "a CLI on PATH would run in the pack directory"),
    "M024": ("error", "wrap.bin leaves the pack directory"),
    "M025": ("error", "hcp metadata disagrees with the manifest"),
    "M026": ("error", "a verb name is not lower-case dotted words of at most 64 characters"),
    "M027": ("error", "openapi.path leaves the pack directory or does not exist"),
    "M028": ("warning", "a policy.json stimuli row names no trigger"),
    "M029": ("warning", "a verb has no description"),
    "M030": ("warning", "wrap.bin names a file the pack does not contain"),
    "M031": ("error", "policy.json makes a PUT, PATCH or DELETE verb a read"),
    "M032": ("warning", "policy.json does not mark a DELETE verb destructive"),
    "M033": ("error", "id, cliBin or binding.family is not a safe identifier"),
    "M034": ("error", "the pack's launcher is not the one packc writes"),
    "M040": ("error", "transports lists mcp but the pack's kind cannot be served"),
    "M041": ("warning", "HARNESS.md front matter is not an Agent Skills file"),
    "M042": ("error", "a verb is named run or exec"),
    "M043": ("error", "skill_url is not an http(s) URL"),
    "M044": ("warning", "a placeholder names no argument and is taken as an implied one"),
    "M045": ("warning", "an argument has no description"),
}


def finding(code: str, where: str, message: str, fix: str = "") -> Diagnostic:
    """A finding of ``code`` at the level :data:`CODES` gives it."""
    return Diagnostic(code, CODES[code][0], where, message, fix)


def pointer(file: str, *tokens: str | int) -> str:
    """``file#/a/b~1c``: a JSON pointer into one of the pack's files."""
    return f"{file}#" + "".join("/" + escape_token(t) for t in tokens)

"""Lint's checks of what the reference says about commands and their words: no ``run`` and no ``exec``
(M042), ``skill_url`` a URL (M043), placeholders a verb without ``args`` (or ``wrap.argv_template``)
takes as implied arguments (M044), arguments without a description (M045)."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format._lint_codes import finding, pointer
from packc_runtime.format.manifest import Manifest
from packc_runtime.format.templating import placeholders

__all__ = ["check_verbs"]

# "The set is closed, so every command is named and there is no run and no exec --."
_CATCH_ALL = frozenset({"run", "exec"})


def check_verbs(m: Manifest) -> list[Diagnostic]:
    """Every finding of this module for one manifest."""
    out = _check_skill_url(m)
    template = m.wrap.argv_template if m.kind == "wrap" and m.wrap is not None else []
    for name, verb in m.verbs.items():
        where = ("verbs", name)
        if name in _CATCH_ALL:
            out.append(
                finding(
                    "M042",
                    pointer("surface.json", *where),
                    f"Verb {name!r} is a catch-all: the set is closed, so there is no run and no exec.",
                    "Name each command the pack runs as its own verb.",
                )
            )
        props = verb.args.get("properties") if verb.args is not None else None
        known = set(props) if isinstance(props, Mapping) else set()
        if verb.args is None:  # each placeholder becomes an implied string argument, undescribed
            for i, token in enumerate(verb.cli or []):
                for word in placeholders(token):
                    if not word.startswith("result"):
                        out.append(_implied(name, word, pointer("surface.json", *where, "cli", i)))
        if verb.cli is None:  # wrap.argv_template is its command line
            for i, token in enumerate(template):
                for word in placeholders(token):
                    if word != "verb" and word not in known:
                        out.append(_implied(name, word, pointer("surface.json", "wrap", "argv_template", i)))
        for prop_name, prop in (props or {}).items() if isinstance(props, Mapping) else ():
            if isinstance(prop, Mapping) and not (
                isinstance(prop.get("description"), str) and prop["description"].strip()
            ):
                out.append(
                    finding(
                        "M045",
                        pointer("surface.json", *where, "args", "properties", prop_name),
                        f"Argument {prop_name!r} of {name!r} has no description.",
                        "Add a description: hosts and HARNESS.md show it to whoever fills the argument.",
                    )
                )
    return out


def _implied(verb: str, word: str, where: str) -> Diagnostic:
    return finding(
        "M044",
        where,
        f"Placeholder {{{{{word}}}}} of {verb!r} names no argument: it is taken as a required string.",
        f"Declare args for {verb!r} with a described {word!r} property.",
    )


def _check_skill_url(m: Manifest) -> list[Diagnostic]:
    if m.skill_url is None:
        return []
    try:
        parts = urlsplit(m.skill_url)
        ok = parts.scheme in ("https", "http") and bool(parts.hostname) and " " not in m.skill_url
    except ValueError:
        ok = False
    if ok:
        return []
    return [
        finding(
            "M043",
            pointer("surface.json", "skill_url"),
            f"skill_url {m.skill_url!r} is not an http(s) URL.",
            "Give the URL of the hosted copy of HARNESS.md, e.g. https://example.com/ledger/HARNESS.md.",
        )
    ]

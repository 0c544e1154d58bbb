"""What HARNESS.md tells an agent beyond the verb list: an argument's allowed values, and which
credentials are alternatives ("a token, or a username and password") rather than all needed."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from packc.text import inline_md, shorten
from packc_runtime.credentials.slots import CredentialSlot, bound_requirements
from packc_runtime.text.escaping import invisible, md_code, visible

__all__ = ["ENUM_SHOWN", "HIDDEN_SHOWN", "allowed_values", "credential_lines"]

ENUM_SHOWN = 5  # values listed before "and N more"
HIDDEN_SHOWN = 400  # characters of an escaped value holding unseen characters (C160) shown

_KIND_WORDS = {
    "api_key": "an API key",
    "token": "a token",
    "username": "a username",
    "password": "a password",
    "client_id": "an OAuth2 client ID",
    "client_secret": "an OAuth2 client secret",
}
_PAIRS = {
    ("username", "password"): "a username and password",
    ("client_id", "client_secret"): "an OAuth2 client ID and secret",
}


def _enum(prop: Mapping[str, Any]) -> list[Any] | None:
    for node in (prop, prop.get("items")):
        if isinstance(node, Mapping) and isinstance(node.get("enum"), list) and node["enum"]:
            return list(node["enum"])
    alternatives = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(alternatives, list):
        consts = [a["const"] for a in alternatives if isinstance(a, Mapping) and "const" in a]
        enums = [
            v
            for a in alternatives
            if isinstance(a, Mapping) and isinstance(a.get("enum"), list)
            for v in a["enum"]
        ]
        values = consts + enums
        return values or None
    return None


def _value(text: str) -> str:
    """One allowed value as Markdown. A value holding characters no one sees (tag characters,
    zero-width or bidi controls: compile warns C160) is shown whole in a code span with each of them
    written ``\\u{XXXX}``: cleaning them away would show a person ``open`` where a model reads
    ``open`` plus a hidden instruction."""
    if invisible(text):
        return md_code(shorten(visible(text), HIDDEN_SHOWN))
    return inline_md(shorten(text, 40))


def allowed_values(prop: Any) -> str:
    """``One of: open, closed, all.`` (the first few, then how many more); ``''`` without an enum."""
    values = _enum(prop) if isinstance(prop, Mapping) else None
    if not values:
        return ""
    values = [v for v in values if v is not None] or values
    shown = [
        _value(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True))
        for v in values[:ENUM_SHOWN]
    ]
    shown = [s if s else '""' for s in shown]
    rest = len(values) - len(shown)
    more = f", and {rest} more ({len(values)} values)" if rest > 0 else ""
    return f"One of: {', '.join(shown)}{more}."


def _what(slots: Sequence[CredentialSlot]) -> str:
    kinds = tuple(s.kind for s in slots)
    if kinds in _PAIRS:
        return _PAIRS[kinds]
    return " and ".join(_KIND_WORDS.get(k, k) for k in kinds)


def credential_lines(slots: Sequence[CredentialSlot], document: Mapping[str, Any]) -> list[str]:
    """Markdown lines for Setup: the alternatives when the document accepts one of several
    credentials, then each environment variable with what it is."""
    details = [f"- {md_code(s.env)}: {inline_md(s.description)}" for s in slots]
    requirements = bound_requirements(document)
    choices = [r for r in requirements if r]
    if len(choices) < 2:
        return [*details, ""]
    options: list[tuple[str, str]] = []
    for requirement in choices:
        # one slot may feed several schemes (one key sent in two places): each choice once
        chosen = list(dict.fromkeys(s for key in requirement for s in slots if key in s.schemes))
        envs = " and ".join(md_code(s.env) for s in chosen)
        if chosen and all(envs != seen for seen, _what_ in options):
            options.append((envs, _what(chosen)))
    if len(options) < 2:
        return [*details, ""]
    said = ", or ".join(what for _envs, what in options)
    lines = [f"Any one of these is enough ({said}):", ""]
    lines += [f"- {envs} ({what})" for envs, what in options]
    if () in requirements:
        lines.append("- none: some verbs also work without credentials")
    return [*lines, "", "What each one is:", "", *details, ""]

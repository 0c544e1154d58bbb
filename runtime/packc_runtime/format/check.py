"""The pack format's structural rules in the standard library: what the runtime refuses a pack for.

The same rules as the pydantic models of ``manifest.py`` (unknown fields, required fields, types,
closed sets, ``openapi``'s one of url or path) and lint's protocol-metadata checks (``hcp.pack_id``
equals ``id``, every field the ``hcp`` object sets agrees with the manifest), written out as tables
because a verb call's start-up must not import pydantic. tests/lint/test_check.py holds these
tables to the models on generated manifests: a pack one accepts the other accepts.

Each function returns the first problem as ``(pointer, message)``, or None; the pointer is a JSON
pointer into the file (``surface.json#/hcp/bogus``).
"""

from __future__ import annotations

from typing import Any

from packc_runtime.format.view import (
    ACCESSES,
    BINDING_MODES,
    HUBS,
    KINDS,
    PLANES,
    PREVIEW_KINDS,
    TRANSPORTS,
    WORKSPACE_MODES,
)
from packc_runtime.rules import escape_token as _escape

__all__ = ["manifest_problem", "policy_problem", "shape_problem"]

# A value's rule: a name ("str", "str1" non-empty, "int0" a non-negative integer, "bool", "object"
# any JSON object, "templates" a string or a list of strings, "one" the literal 1), a tuple of the
# strings allowed, ("list", rule), ("map", rule), or a record: (fields, names that may not be null).
# A field that may be null reads as unset (the models' ``X | None``); one that may not is required,
# or has a default that is not None (``kind``, ``verbs``, ``wrap.json_flag``).
_Rule = Any
_Record = tuple[dict[str, _Rule], frozenset[str], frozenset[str]]


def _record(fields: dict[str, _Rule], *required: str, not_null: tuple[str, ...] = ()) -> _Record:
    return fields, frozenset(required), frozenset(required + not_null)


_STRS = ("list", "str")
_WORKSPACE = _record({"mode": WORKSPACE_MODES}, not_null=("mode",))
_WRAP = _record(
    {
        "bin": "str1",
        "json_flag": _STRS,
        "argv_template": _STRS,
        "agent_env": ("map", "str"),
        "workspace": _WORKSPACE,
    },
    "bin",
    not_null=("json_flag", "argv_template"),
)
_OPENAPI = _record({"url": "str", "path": "str"})
_PASS_THROUGH = _record({"allowedSubcommands": _STRS, "maxArgv": "int0"}, "allowedSubcommands", "maxArgv")
_BINDING = _record({"mode": BINDING_MODES, "hub": HUBS, "family": "str", "connect_provider_id": "str"})
_TITLE = _record({"live": "templates", "done": "templates"})
_PREVIEW = _record({"kind": PREVIEW_KINDS, "title": "str", "fields": ("map", "str")}, "kind")
_VERB = _record(
    {
        "description": "str",
        "cli": _STRS,
        "args": "object",
        "json_flag": _STRS,
        "title": _TITLE,
        "policy": ACCESSES,
        "preview": _PREVIEW,
    }
)
_HCP = _record(
    {
        "hcp": "one",
        "pack_id": "str",
        "adapter_kind": KINDS,
        "binding": _record({"mode": BINDING_MODES, "hub": HUBS}),
        "wrap": _record({"bin": "str"}, "bin"),
        "plane": PLANES,
        "transports": ("list", TRANSPORTS),
    },
    "hcp",
    "pack_id",
)
_MANIFEST = _record(
    {
        "id": "str",
        "name": "str",
        "kind": KINDS,
        "cliBin": "str",
        "plane": PLANES,
        "transports": ("list", TRANSPORTS),
        "skill_url": "str",
        "binding": _BINDING,
        "wrap": _WRAP,
        "openapi": _OPENAPI,
        "pass_through": _PASS_THROUGH,
        "verbs": ("map", _VERB),
        "stimulusTriggers": ("list", _record({"ref": "str1"}, "ref")),
        "hcp": _HCP,
    },
    "id",
    not_null=("kind", "plane", "verbs"),
)
_POLICY = _record(
    {
        "surface_id": "str",
        "commands": ("map", _record({"access": ACCESSES, "destructive": "bool"}, "access")),
        "stimuli": ("map", _record({"description": "str"})),
    },
    "surface_id",
    not_null=("commands",),
)

_WHAT = {
    "str": "a string",
    "str1": "a non-empty string",
    "int0": "a whole number of at least 0",
    "bool": "true or false",
    "object": "a JSON object",
    "templates": "a string or a list of strings",
    "one": "1",
}


def _problem(value: Any, rule: _Rule, at: str) -> tuple[str, str] | None:
    """The first way ``value`` breaks ``rule``; ``at`` is its pointer. ``None`` is a problem only where
    the field is required (a field set to null reads as unset, as the models' ``| None`` allows)."""
    if value is None:
        return None
    if isinstance(rule, str):
        ok = {
            "str": isinstance(value, str),
            "str1": isinstance(value, str) and value != "",
            "int0": type(value) is int and value >= 0,
            "bool": isinstance(value, bool),
            "object": isinstance(value, dict),
            "templates": isinstance(value, str)
            or (isinstance(value, list) and all(isinstance(v, str) for v in value)),
            "one": isinstance(value, int | float) and value == 1,  # as a Literal[1] compares
        }[rule]
        return None if ok else (at, f"must be {_WHAT[rule]}")
    if isinstance(rule, tuple) and rule and rule[0] in ("list", "map") and len(rule) == 2:
        kind, item = rule
        if kind == "list":
            if not isinstance(value, list):
                return at, "must be a list"
            entries: Any = enumerate(value)
        else:
            if not isinstance(value, dict):
                return at, "must be a JSON object"
            entries = value.items()
        for key, entry in entries:
            where = f"{at}/{_escape(str(key))}"
            if entry is None:
                return where, "must not be null"
            found = _problem(entry, item, where)
            if found is not None:
                return found
        return None
    if isinstance(rule, tuple) and len(rule) == 3 and isinstance(rule[0], dict):
        return _record_problem(value, rule, at)
    # a closed set of strings
    if isinstance(value, str) and value in rule:
        return None
    return at, "must be one of " + ", ".join(repr(v) for v in rule)


def _record_problem(value: Any, record: _Record, at: str) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return at, "must be a JSON object"
    fields, required, not_null = record
    for name in value:
        if name not in fields:
            return f"{at}/{_escape(str(name))}", f"is an unknown field {name!r}"
    for name in sorted(required):
        if name not in value:
            return f"{at}/{_escape(name)}", "is required"
    for name in sorted(not_null):
        if name in value and value[name] is None:
            return f"{at}/{_escape(name)}", "must not be null"
    for name, item in value.items():
        found = _problem(item, fields[name], f"{at}/{_escape(name)}")
        if found is not None:
            return found
    return None


def manifest_problem(data: Any) -> tuple[str, str] | None:
    """The first thing wrong with a parsed ``surface.json``, as ``(pointer, message)``; None when sound."""
    found = shape_problem(data)
    if found is not None or not isinstance(data, dict):
        return found
    hcp = data.get("hcp")
    if not isinstance(hcp, dict):
        return None  # derived: nothing to disagree with
    if "adapter_kind" in data:
        data = {("kind" if k == "adapter_kind" else k): v for k, v in data.items()}
    return _hcp_problem(data, hcp, "surface.json#/hcp")


def shape_problem(data: Any) -> tuple[str, str] | None:
    """What the models alone refuse in a parsed ``surface.json`` (no cross-field hcp checks)."""
    at = "surface.json#"
    if not isinstance(data, dict):
        return at, "must hold a JSON object"
    if "adapter_kind" in data:  # the alias of kind, read as kind
        if "kind" in data:
            return f"{at}/adapter_kind", "repeats kind (adapter_kind is its alias): keep one"
        data = {("kind" if k == "adapter_kind" else k): v for k, v in data.items()}
    found = _record_problem(data, _MANIFEST, at)
    if found is not None:
        return found
    openapi = data.get("openapi")
    if isinstance(openapi, dict) and (openapi.get("url") is None) == (openapi.get("path") is None):
        return f"{at}/openapi", "needs exactly one of url or path"
    return None


def _hcp_problem(data: dict[str, Any], hcp: dict[str, Any], at: str) -> tuple[str, str] | None:
    """The protocol metadata against the manifest (lint's M013 and M025): a field it sets must say
    what the manifest says; one it leaves out is derived."""
    if hcp["pack_id"] != data["id"]:
        return f"{at}/pack_id", f"is {hcp['pack_id']!r} but id is {data['id']!r}: they must be equal"
    binding, wrap = data.get("binding") or {}, data.get("wrap") or {}
    hb, hw = hcp.get("binding"), hcp.get("wrap")
    checks = (
        ("adapter_kind", hcp.get("adapter_kind"), data.get("kind") or "composite"),
        ("plane", hcp.get("plane"), data.get("plane") or "runtime"),
        ("transports", hcp.get("transports"), data.get("transports")),
        ("wrap", hw.get("bin") if hw else None, wrap.get("bin") if data.get("wrap") else None),
        (
            "binding",
            (hb.get("mode"), hb.get("hub")) if hb else None,
            (binding.get("mode"), binding.get("hub")) if data.get("binding") else None,
        ),
    )
    for field, declared, actual in checks:
        if declared is not None and declared != actual:
            return f"{at}/{field}", f"is {declared!r} but the manifest says {actual!r}"
    return None


def policy_problem(data: Any) -> tuple[str, str] | None:
    """The first thing wrong with a parsed ``policy.json``, as ``(pointer, message)``; None when sound."""
    at = "policy.json#"
    if not isinstance(data, dict):
        return at, "must hold a JSON object"
    return _record_problem(data, _POLICY, at)

"""Lint: check a pack directory of any kind against the manifest reference and our pack decisions.

It lives in the runtime, not the compiler, so that a generated pack repo can lint itself with the
runtime alone (its smoke test does); `packc.lint` is the compiler's name for it.

Every finding is a :class:`Diagnostic` with a stable code; docs/lint-codes.md lists them all (a test
keeps the table and :data:`CODES` in step). Lint never raises on a wrong pack.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from packc_runtime.calling.openapi.operations import DESTRUCTIVE_METHODS, NEVER_READ_METHODS, bound_methods
from packc_runtime.diagnostics import Diagnostic, escape_token
from packc_runtime.format._lint_codes import CODES, finding, pointer
from packc_runtime.format._lint_mcp import check_mcp
from packc_runtime.format._lint_verbs import check_verbs
from packc_runtime.format._metaschema import meta_schema_problem
from packc_runtime.format.identifiers import CliBin, Family, Identifier, PackId, VerbName
from packc_runtime.format.launcher import is_launcher
from packc_runtime.format.manifest import Manifest, Policy, read_manifest, read_policy
from packc_runtime.format.templating import placeholders

__all__ = ["CODES", "lint_pack"]

_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_MIN_VERBS, _MAX_VERBS = 5, 12


# Every check builds its findings with these (``_lint_codes.py``, shared with ``_lint_mcp.py``).
_d = finding
_ptr = pointer


def lint_pack(pack_dir: Path) -> list[Diagnostic]:
    """Check the pack in ``pack_dir``; returns every finding, errors first then warnings."""
    manifest, found = read_manifest(pack_dir)
    policy, policy_found = read_policy(pack_dir)
    found = found + policy_found
    if manifest is not None:
        found += _check_manifest(manifest, pack_dir)
        found += _check_count(manifest, policy)
        found += check_mcp(manifest, pack_dir)
        found += check_verbs(manifest)
        if policy is not None:
            found += _check_policy(manifest, policy)
            found += _check_care(manifest, policy, pack_dir)
    return sorted(found, key=lambda d: (d.level != "error", d.code, d.pointer))


def _check_manifest(m: Manifest, pack_dir: Path) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if m.id != m.id.lower() or not _ID.match(m.id):
        out.append(
            _d(
                "M014",
                _ptr("surface.json", "id"),
                f"Pack id {m.id!r} is not a lower-case id.",
                "Use lower-case letters, digits, '.', '_' and '-'.",
            )
        )
    out += _check_identifiers(m)
    out += _check_launcher(m, pack_dir)
    out += _check_kind(m, pack_dir)
    out += _check_hcp(m)
    for name, verb in m.verbs.items():
        where = ("verbs", name)
        if not VerbName.is_valid(name):
            out.append(
                _d(
                    "M026",
                    _ptr("surface.json", *where),
                    f"Verb name {name!r} is not lower-case dotted words of at most 64 characters.",
                    "Rename it, e.g. 'pets.list'.",
                )
            )
        if not verb.description:
            out.append(
                _d(
                    "M029",
                    _ptr("surface.json", *where, "description"),
                    f"Verb {name!r} has no description.",
                    "Add one sentence saying what it does.",
                )
            )
        if verb.cli is not None and (not verb.cli or verb.cli[0] != m.cliBin):
            first = verb.cli[0] if verb.cli else ""
            out.append(
                _d(
                    "M017",
                    _ptr("surface.json", *where, "cli", 0),
                    f"cli[] of {name!r} starts with {first!r}, not cliBin {m.cliBin!r}.",
                    "Make the first token of every cli[] the cliBin.",
                )
            )
        out += _check_args(name, verb.args)
        out += _check_placeholders(name, verb)
    return out


def _check_identifiers(m: Manifest) -> list[Diagnostic]:
    """M033: the names that become a directory, a command and code follow the identifier grammar."""
    fields: list[tuple[type[Identifier], str | None, tuple[str, ...]]] = [
        (CliBin, m.cliBin, ("cliBin",)),
        (Family, m.binding.family if m.binding else None, ("binding", "family")),
    ]
    if m.id == m.id.lower() and _ID.match(m.id):  # else M014 says it already
        fields.insert(0, (PackId, m.id, ("id",)))
    return [
        _d(
            "M033",
            _ptr("surface.json", *where),
            f"The {kind.kind} {value!r} {kind.problem(value)}.",
            f"Use {kind.rule}.",
        )
        for kind, value, where in fields
        if value is not None and not kind.is_valid(value)
    ]


def _check_launcher(m: Manifest, pack_dir: Path) -> list[Diagnostic]:
    """M034: ``bin/<cliBin>`` is packc's fixed launcher, byte for byte (an edited one runs code for
    whoever runs the pack's command). A wrap pack's program may be that file: it is code by definition."""
    cli_bin = m.cliBin or m.id
    if not CliBin.is_valid(cli_bin):  # M033 says it; no path is built from it
        return []
    launcher = pack_dir / "bin" / cli_bin
    if not (launcher.exists() or launcher.is_symlink()) or is_launcher(launcher):
        return []
    if (
        m.wrap is not None
        and _inside(pack_dir, m.wrap.bin, must_exist=True)
        and (pack_dir / m.wrap.bin).resolve() == launcher.resolve()
    ):
        return []
    return [
        _d(
            "M034",
            _ptr("surface.json", "cliBin"),
            f"bin/{cli_bin} is not the launcher packc writes: it differs, or is a link or a folder.",
            f"Compile the pack again, or restore bin/{cli_bin} from packc_runtime.format.launcher.LAUNCHER "
            "(packc install writes its own launcher and never runs the pack's).",
        )
    ]


def _check_kind(m: Manifest, pack_dir: Path) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if m.kind == "wrap":
        if m.wrap is None:
            out.append(
                _d(
                    "M005",
                    _ptr("surface.json", "wrap"),
                    "kind is wrap but wrap.bin is missing.",
                    "Add wrap.bin: a CLI on PATH or a path inside the pack.",
                )
            )
        if not m.verbs and m.pass_through is None:
            out.append(
                _d(
                    "M006",
                    _ptr("surface.json", "verbs"),
                    "kind is wrap but there are no named commands and no pass_through.",
                    "Name the commands under verbs.",
                )
            )
    if m.wrap is not None:
        out += _check_bin(m, pack_dir)
    if m.plane == "control" and (m.binding is None or m.binding.mode != "mothership"):
        out.append(
            _d(
                "M007",
                _ptr("surface.json", "binding", "mode"),
                "plane is control but binding.mode is not mothership.",
                "Set binding.mode to mothership, or plane to runtime.",
            )
        )
    if m.kind == "openapi":
        if m.openapi is None:
            out.append(
                _d(
                    "M008",
                    _ptr("surface.json", "openapi"),
                    "kind is openapi but openapi is missing.",
                    "Add openapi.path or openapi.url.",
                )
            )
        elif m.openapi.path is not None and not _inside(pack_dir, m.openapi.path, must_exist=True):
            out.append(
                _d(
                    "M027",
                    _ptr("surface.json", "openapi", "path"),
                    f"openapi.path {m.openapi.path!r} leaves the pack directory or does not exist.",
                    "Keep the document inside the pack and name it relative to the pack directory.",
                )
            )
    if m.kind == "sense_only" and not m.stimulusTriggers:
        out.append(
            _d(
                "M009",
                _ptr("surface.json", "stimulusTriggers"),
                "kind is sense_only but there is no trigger.",
                "Declare at least one stimulusTriggers entry.",
            )
        )
    return out


def _inside(pack_dir: Path, relative: str, *, must_exist: bool) -> bool:
    posix = PurePosixPath(relative.replace("\\", "/"))
    if posix.is_absolute() or ".." in posix.parts or re.match(r"^[A-Za-z]:", relative):
        return False
    root = pack_dir.resolve()
    target = (pack_dir / relative).resolve()  # follows symlinks, so an escaping link is caught
    if not target.is_relative_to(root):
        return False
    return target.exists() or not must_exist


def _check_bin(m: Manifest, pack_dir: Path) -> list[Diagnostic]:
    assert m.wrap is not None
    binary = m.wrap.bin
    where = _ptr("surface.json", "wrap", "bin")
    if "/" in binary or "\\" in binary:
        if not _inside(pack_dir, binary, must_exist=False):
            return [
                _d(
                    "M024",
                    where,
                    f"wrap.bin {binary!r} leaves the pack directory.",
                    "Install copies only the pack: put the program inside it and name it relative to the pack, without '..'.",
                )
            ]
        if not (pack_dir / binary).exists():
            return [
                _d("M030", where, f"wrap.bin {binary!r} is not in the pack.", "Add the program to the pack.")
            ]
        return []
    mode = m.wrap.workspace.mode if m.wrap.workspace else "none"
    if mode == "none":
        return [
            _d(
                "M023",
                _ptr("surface.json", "wrap", "workspace", "mode"),
                f"The CLI {binary!r} on PATH would run in the pack directory (workspace.mode none).",
                "Set wrap.workspace.mode to project (or workspace) so it runs where it is useful.",
            )
        ]
    return []


def _check_hcp(m: Manifest) -> list[Diagnostic]:
    if m.hcp is None:
        return []
    out: list[Diagnostic] = []
    h = m.hcp
    if h.pack_id != m.id:
        out.append(
            _d(
                "M013",
                _ptr("surface.json", "hcp", "pack_id"),
                f"hcp.pack_id {h.pack_id!r} differs from id {m.id!r}.",
                "Make hcp.pack_id equal the id.",
            )
        )
    checks: list[tuple[str, Any, Any]] = [
        ("adapter_kind", h.adapter_kind, m.kind),
        ("plane", h.plane, m.plane),
        ("transports", h.transports, m.transports),
        ("wrap", h.wrap.bin if h.wrap else None, m.wrap.bin if m.wrap else None),
        (
            "binding",
            (h.binding.mode, h.binding.hub) if h.binding else None,
            (m.binding.mode, m.binding.hub) if m.binding else None,
        ),
    ]
    for field, declared, actual in checks:
        if declared is not None and declared != actual:
            out.append(
                _d(
                    "M025",
                    _ptr("surface.json", "hcp", field),
                    f"hcp.{field} is {declared!r} but the manifest says {actual!r}.",
                    "Make the hcp metadata agree with the manifest, or drop it and let it be derived.",
                )
            )
    return out


def _is_public_read(m: Manifest, policy: Policy | None = None) -> bool:
    if m.binding is None or m.binding.mode != "public":
        return False
    for name, verb in m.verbs.items():
        row = policy.commands.get(name) if policy else None
        access = row.access if row else (verb.policy or "read")
        if access != "read":
            return False
    return True


def _check_count(m: Manifest, policy: Policy | None) -> list[Diagnostic]:
    n = len(m.verbs)
    if m.kind == "sense_only" or (n == 0 and (m.pass_through is not None or m.kind == "wrap")):
        return []
    where = _ptr("surface.json", "verbs")
    if n > _MAX_VERBS:
        return [
            _d(
                "M015",
                where,
                f"The pack names {n} verbs; at most {_MAX_VERBS} are allowed.",
                "Split it into two packs (packc compile --split does this).",
            )
        ]
    if n < _MIN_VERBS and not _is_public_read(m, policy):
        return [
            _d(
                "M016",
                where,
                f"The pack names {n} verb(s); a pack that needs credentials or writes should name "
                f"at least {_MIN_VERBS} (fine for a small API).",
                "Add verbs if the API has more; a small API's pack may stay small.",
            )
        ]
    return []


def _check_args(verb: str, args: Mapping[str, Any] | None) -> list[Diagnostic]:
    if args is None:
        return []
    where = _ptr("surface.json", "verbs", verb, "args")
    problem = _schema_problem(args)
    if problem:
        return [
            _d(
                "M020",
                where,
                f"args of {verb!r} is not a valid JSON Schema object: {problem}.",
                "Fix args: an object schema with properties and required.",
            )
        ]
    out: list[Diagnostic] = []
    properties = args.get("properties", {})
    positions: dict[Any, str] = {}
    for name, prop in properties.items():
        if not isinstance(prop, Mapping):
            continue
        if "x-position" in prop:
            pos = prop["x-position"]
            if pos in positions or not isinstance(pos, int) or isinstance(pos, bool) or pos < 0:
                out.append(
                    _d(
                        "M022",
                        f"{where}/properties/{escape_token(name)}/x-position",
                        f"x-position {pos!r} of {name!r} is not a distinct non-negative integer"
                        + (f" (also used by {positions[pos]!r})." if pos in positions else "."),
                        "Give each positional argument its own x-position.",
                    )
                )
            else:
                positions[pos] = name
        for i, example in enumerate(prop.get("examples", []) or []):
            error = _validation_error(prop, example)
            if error:
                out.append(
                    _d(
                        "M021",
                        f"{where}/properties/{escape_token(name)}/examples/{i}",
                        f"Example {example!r} of {name!r} does not validate: {error}.",
                        "Fix the example or the property's schema.",
                    )
                )
    return out


def _schema_problem(args: Mapping[str, Any]) -> str:
    where, problem = meta_schema_problem(args)
    if problem:
        return f"{problem} (at {where})" if where else problem
    if args.get("type", "object") != "object":
        return "the top level must be of type object"
    properties = args.get("properties", {})
    missing = [r for r in args.get("required", []) if r not in properties]
    if missing:
        return f"required names {', '.join(map(repr, missing))} that are not properties"
    return ""


def _validation_error(schema: Any, value: Any) -> str:
    try:  # the packs of one API repeat most argument schemas and their examples: check each pair once
        return _cached_validation_error(
            json.dumps(schema, ensure_ascii=False), json.dumps(value, ensure_ascii=False)
        )
    except (TypeError, ValueError):  # not JSON (a pack read from JSON never gets here)
        return _apply(schema, value)


@functools.lru_cache(maxsize=8192)
def _cached_validation_error(schema: str, value: str) -> str:
    return _apply(json.loads(schema), json.loads(value))


def _apply(schema: Any, value: Any) -> str:
    from jsonschema import Draft202012Validator

    from packc_runtime.text.patterns import validator

    try:  # risky patterns are skipped and no remote $ref is fetched while linting an untrusted pack
        error = next(iter(validator(Draft202012Validator, schema).iter_errors(value)), None)
    except Exception as exc:  # unresolvable refs, bad patterns: the example cannot be checked
        return f"the schema cannot be applied ({type(exc).__name__})"
    return error.message if error is not None else ""


def _templates(verb: Any) -> Iterator[tuple[str, str, bool]]:
    """(pointer suffix, template, is_done_title) for every template of a verb."""
    for i, token in enumerate(verb.cli or []):
        yield f"cli/{i}", token, False
    if verb.title is not None:
        for part in ("live", "done"):
            value = getattr(verb.title, part)
            items = [value] if isinstance(value, str) else (value or [])
            for i, template in enumerate(items):
                suffix = f"title/{part}" if isinstance(value, str) else f"title/{part}/{i}"
                yield suffix, template, part == "done"
    if verb.preview is not None:
        if verb.preview.title is not None:
            yield "preview/title", verb.preview.title, False
        for key, template in (verb.preview.fields or {}).items():
            yield f"preview/fields/{escape_token(key)}", template, False


def _check_placeholders(name: str, verb: Any) -> list[Diagnostic]:
    props = verb.args.get("properties", {}) if isinstance(verb.args, Mapping) else {}
    known = set(props) if isinstance(props, Mapping) else set()
    out: list[Diagnostic] = []
    for suffix, template, is_done in _templates(verb):
        where = f"{_ptr('surface.json', 'verbs', name)}/{suffix}"
        for placeholder in placeholders(template):
            if placeholder == "result" or placeholder.startswith("result."):
                if not is_done:
                    out.append(
                        _d(
                            "M019",
                            where,
                            f"{{{{{placeholder}}}}} is only allowed in a done title.",
                            "Use an argument placeholder here, or move it to title.done.",
                        )
                    )
            elif verb.args is not None and placeholder not in known:
                # A verb without args takes its placeholders as implied string arguments (the
                # reference's own ledger `connect` does); once args is declared it must be complete.
                out.append(
                    _d(
                        "M018",
                        where,
                        f"Placeholder {{{{{placeholder}}}}} of {name!r} maps to no argument.",
                        "Add the argument to args.properties or fix the placeholder's name.",
                    )
                )
    return out


def _check_policy(m: Manifest, p: Policy) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if p.surface_id != m.id:
        out.append(
            _d(
                "M004",
                _ptr("policy.json", "surface_id"),
                f"policy.json surface_id {p.surface_id!r} differs from id {m.id!r}.",
                "Make surface_id equal the manifest id.",
            )
        )
    for verb in m.verbs:
        if verb not in p.commands:
            out.append(
                _d(
                    "M010",
                    _ptr("policy.json", "commands", verb),
                    f"Verb {verb!r} has no policy.json row.",
                    'Add {"access": "read"} or {"access": "write"} for it.',
                )
            )
    for command in p.commands:
        if command not in m.verbs:
            out.append(
                _d(
                    "M011",
                    _ptr("policy.json", "commands", command),
                    f"policy.json row {command!r} names no verb.",
                    "Remove the row or add the verb.",
                )
            )
    refs = [t.ref for t in m.stimulusTriggers or []]
    stimuli = p.stimuli or {}
    for i, ref in enumerate(refs):
        if ref not in stimuli:
            out.append(
                _d(
                    "M012",
                    _ptr("surface.json", "stimulusTriggers", i, "ref"),
                    f"Trigger {ref!r} has no policy.json stimuli row.",
                    f'Add "{ref}": {{}} under stimuli in policy.json.',
                )
            )
    for ref in stimuli:
        if ref not in refs:
            out.append(
                _d(
                    "M028",
                    _ptr("policy.json", "stimuli", ref),
                    f"stimuli row {ref!r} names no trigger.",
                    "Remove the row or declare the trigger in stimulusTriggers.",
                )
            )
    return out


def _check_care(m: Manifest, p: Policy, pack_dir: Path) -> list[Diagnostic]:
    """M031/M032: policy.json may not lower what a verb's HTTP method implies (a hand-edited pack)."""
    if (
        m.kind != "openapi"
        or m.openapi is None
        or m.openapi.path is None
        or not _inside(pack_dir, m.openapi.path, must_exist=True)
    ):
        return []
    try:
        document = json.loads((pack_dir / m.openapi.path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return []
    methods = bound_methods(document) if isinstance(document, Mapping) else {}
    out: list[Diagnostic] = []
    for verb, row in p.commands.items():
        method = methods.get(verb)
        if method in NEVER_READ_METHODS and row.access == "read":
            out.append(
                _d(
                    "M031",
                    _ptr("policy.json", "commands", verb, "access"),
                    f"Verb {verb!r} sends a {method} but policy.json makes it a read (sent without confirmation).",
                    'Set "access": "write" (the runtime treats it as a write anyway).',
                )
            )
        if method in DESTRUCTIVE_METHODS and not row.destructive:
            out.append(
                _d(
                    "M032",
                    _ptr("policy.json", "commands", verb, "destructive"),
                    f"Verb {verb!r} sends a DELETE but policy.json does not mark it destructive.",
                    'Add "destructive": true to its row.',
                )
            )
    return out

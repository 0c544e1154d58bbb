"""User control without editing the source: stub manifest fields and ``x-packc`` extensions (Overlays
are a front-end stage: ``_overlay.py``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar, cast, get_args

from packc.model import Api, Operation
from packc_runtime.diagnostics import Diagnostic, escape_token
from packc_runtime.format.identifiers import RESERVED_VERBS, CliBin, Family, Identifier, PackId, VerbName
from packc_runtime.format.manifest import Access, Binding, Manifest, PreviewKind, Verb

__all__ = [
    "IDENTIFIER_CODES",
    "VERB_RE",
    "OpOverride",
    "Overrides",
    "collect_overrides",
]

VERB_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
# Errors about a name that would become a path, a command or code: nothing is written when one is found.
IDENTIFIER_CODES = frozenset({"C107", "C108", "C109"})
_I = TypeVar("_I", bound=Identifier)
_ID_CODES: dict[type[Identifier], str] = {PackId: "C107", CliBin: "C108", Family: "C109"}
_PREVIEW_KINDS: tuple[str, ...] = get_args(PreviewKind)
_OP_KEYS = {
    "exclude",
    "include",
    "verb",
    "access",
    "destructive",
    "preview",
    "idempotent",
    "group",
    "description",
}
_ROOT_KEYS = {"id", "name", "cliBin", "include", "exclude", "family"}


@dataclass(frozen=True, slots=True)
class OpOverride:
    """What the user said about one operation."""

    exclude: bool = False
    include: bool = False
    verb: str | None = None
    access: Access | None = None
    destructive: bool | None = None
    by_user: bool = False  # access/destructive came from an --overlay, not from the document
    by_hand: bool = False  # include/exclude came from --include/--exclude (a person), not x-packc
    preview: PreviewKind | None = None
    idempotent: bool | None = None
    group: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Overrides:
    """Everything the user controls, gathered from stub, root ``x-packc`` and operations."""

    api_id: PackId | None = None
    name: str | None = None
    cli_bin: CliBin | None = None
    binding: Binding | None = None
    ops: Mapping[str, OpOverride] = field(default_factory=dict)  # by Operation.key
    stub_verbs: Mapping[str, Verb] | None = None  # a stub that names verbs keeps only those
    goal: str | None = None  # a stub's "for": the task its one pack serves (``--for`` wins over it)


def _where(op: Operation) -> str:
    return op.pointer or f"#/paths/{op.path}"


def _op_override(op: Operation, diags: list[Diagnostic]) -> OpOverride:
    raw = op.extensions.get("x-packc")
    out = OpOverride()
    bound = op.extensions.get("x-packc-binding")
    if (
        isinstance(bound, Mapping)
        and isinstance(bound.get("verb"), str)
        and VERB_RE.match(bound["verb"])
        and bound["verb"] not in RESERVED_VERBS
    ):
        # A pack's own document: keep the verb name it was compiled with (not a CLI command's: named anew).
        out = replace(
            out,
            verb=bound["verb"],
            idempotent=bound.get("idempotent") if isinstance(bound.get("idempotent"), bool) else None,
        )
    if raw is None:
        return out
    where = _where(op) + "/x-packc"
    if not isinstance(raw, Mapping):
        diags.append(
            Diagnostic(
                "C101",
                "warning",
                where,
                "x-packc must be an object; it is ignored.",
                'Write x-packc: {verb: "pets.adopt", access: "read"}.',
            )
        )
        return out
    for key in sorted(set(raw) - _OP_KEYS):
        diags.append(
            Diagnostic(
                "C102",
                "warning",
                f"{where}/{key}",
                f"Unknown x-packc key {key!r} is ignored.",
                f"Use one of: {', '.join(sorted(_OP_KEYS))}.",
            )
        )
    verb = raw.get("verb")
    if verb is not None and not (isinstance(verb, str) and VERB_RE.match(verb) and VerbName.is_valid(verb)):
        diags.append(
            Diagnostic(
                "C103",
                "error",
                f"{where}/verb",
                f"Verb name {verb!r} is not lower-case and dotted.",
                "Use a name like pets.adopt (at most 64 characters).",
            )
        )
        verb = None
    if verb in RESERVED_VERBS:
        diags.append(
            Diagnostic(
                "C103",
                "error",
                f"{where}/verb",
                f"Verb name {verb!r} is a command of the pack's CLI.",
                f"Use a name with more than one word, like {verb}.run.",
            )
        )
        verb = None
    access = raw.get("access")
    if access is not None and access not in ("read", "write"):
        diags.append(
            Diagnostic(
                "C104",
                "error",
                f"{where}/access",
                f"access must be read or write, not {access!r}.",
                "Write access: read or access: write.",
            )
        )
        access = None
    destructive = raw.get("destructive")
    if destructive is not None and not isinstance(destructive, bool):
        diags.append(
            Diagnostic(
                "C104",
                "error",
                f"{where}/destructive",
                f"destructive must be true or false, not {destructive!r}.",
                "Write destructive: true (or leave it out).",
            )
        )
        destructive = None
    preview = raw.get("preview")
    if preview is not None and preview not in _PREVIEW_KINDS:
        diags.append(
            Diagnostic(
                "C105",
                "error",
                f"{where}/preview",
                f"Unknown preview kind {preview!r}.",
                f"Use one of: {', '.join(_PREVIEW_KINDS)}.",
            )
        )
        preview = None
    group = raw.get("group")
    desc = raw.get("description")
    return OpOverride(
        exclude=raw.get("exclude") is True,
        include=raw.get("include") is True,
        verb=verb or out.verb,
        access=cast(Access | None, access),
        destructive=destructive,
        preview=cast(PreviewKind | None, preview),
        idempotent=raw["idempotent"] if isinstance(raw.get("idempotent"), bool) else out.idempotent,
        group=group if isinstance(group, str) and group else None,
        description=desc if isinstance(desc, str) and desc else None,
    )


def _matches(op: Operation, names: object) -> bool:
    if not isinstance(names, list):
        return False
    return any(n in (op.operation_id, op.key, f"{op.method} {op.path}") for n in names if isinstance(n, str))


def collect_overrides(
    api: Api, stub: Manifest | None, *, care_by_user: frozenset[str] = frozenset()
) -> tuple[Overrides, list[Diagnostic]]:
    """Gather the user's overrides; stub fields win over root ``x-packc``, which wins over defaults.

    Args:
        api: the model (after any overlay).
        stub: the stub manifest the input was, if any.
        care_by_user: operation keys whose access/destructive an ``--overlay`` set (``packc.read._overlay.care_changed``).
    """
    diags: list[Diagnostic] = []
    root = api.extensions.get("x-packc")
    if root is not None and not isinstance(root, Mapping):
        diags.append(
            Diagnostic(
                "C101",
                "warning",
                "#/x-packc",
                "x-packc must be an object; it is ignored.",
                "Write x-packc: {id: my-api}.",
            )
        )
        root = None
    root = root or {}
    for key in sorted(set(root) - _ROOT_KEYS):
        diags.append(
            Diagnostic(
                "C102",
                "warning",
                f"#/x-packc/{key}",
                f"Unknown x-packc key {key!r} is ignored.",
                f"Use one of: {', '.join(sorted(_ROOT_KEYS))}.",
            )
        )
    ops: dict[str, OpOverride] = {}
    for op in api.operations:
        one = _op_override(op, diags)
        if _matches(op, root.get("exclude")):
            one = replace(one, exclude=True)
        if _matches(op, root.get("include")):
            one = replace(one, include=True)
        if op.key in care_by_user:
            one = replace(one, by_user=True)
        if one != OpOverride():
            ops[op.key] = one

    def text(key: str) -> str | None:
        value = root.get(key)
        return value if isinstance(value, str) and value else None

    def checked(kind: type[_I], value: object, where: str) -> _I | None:
        if value is None or value == "":
            return None
        if kind.is_valid(value):
            return kind(value)
        diags.append(
            Diagnostic(
                _ID_CODES[kind],
                "error",
                where,
                f"The {kind.kind} {value!r} {kind.problem(value)}.",
                f"Use {kind.rule}. Nothing is written until it is fixed.",
            )
        )
        return None

    api_id = checked(PackId, root.get("id"), "#/x-packc/id")
    cli_bin = checked(CliBin, root.get("cliBin"), "#/x-packc/cliBin")
    family = checked(Family, root.get("family"), "#/x-packc/family")
    name = text("name")
    binding = Binding(family=family) if family else None
    stub_verbs: Mapping[str, Verb] | None = None
    if stub is not None:
        diags += _not_carried(stub)
        api_id = checked(PackId, stub.id, "surface.json#/id") or api_id
        name = stub.name or name
        cli_bin = checked(CliBin, stub.cliBin, "surface.json#/cliBin") or cli_bin
        if stub.binding is not None:
            stub_family = checked(Family, stub.binding.family, "surface.json#/binding/family")
            binding = stub.binding.model_copy(update={"family": stub_family})
        if stub.verbs:
            stub_verbs = dict(stub.verbs)
    return Overrides(api_id, name, cli_bin, binding, ops, stub_verbs), diags


# What packc carries from a stub into the packs it writes: the pack's identity, its binding, which
# verbs it has and, of each, its description, access hint, titles and approval card's kind. The
# stub's openapi names the document to read. Anything else a stub sets is reported (C173), never
# dropped silently: the pack's faces, plane, triggers and hcp metadata are packc's to write, and a
# verb's command line and args come from the operation.
_STUB_KEPT = frozenset({"id", "name", "cliBin", "binding", "verbs", "openapi", "kind"})
_STUB_VERB_KEPT = frozenset({"description", "policy", "title", "preview"})
_STUB_PREVIEW_KEPT = frozenset({"kind"})


def _not_carried(stub: Manifest) -> list[Diagnostic]:
    """A warning for each field the stub sets that the packs will not hold as the stub says."""
    where: list[str] = [f"surface.json#/{key}" for key in sorted(stub.model_fields_set - _STUB_KEPT)]
    for name, verb in stub.verbs.items():
        at = f"surface.json#/verbs/{escape_token(name)}"
        where += [f"{at}/{key}" for key in sorted(verb.model_fields_set - _STUB_VERB_KEPT)]
        if verb.preview is not None:
            where += [
                f"{at}/preview/{key}" for key in sorted(verb.preview.model_fields_set - _STUB_PREVIEW_KEPT)
            ]
    return [
        Diagnostic(
            "C173",
            "warning",
            pointer,
            f"The stub sets {pointer.split('#', 1)[1][1:]!r}, which packc does not carry into the packs it "
            "writes: they hold what packc derives instead.",
            "Remove it from the stub, or edit the written surface.json (packc lint checks it).",
        )
        for pointer in where
    ]

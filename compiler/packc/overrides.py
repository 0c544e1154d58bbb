"""User control without editing the source: stub manifest fields, ``x-packc`` extensions, Overlays."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast, get_args

from packc_runtime.diagnostics import Diagnostic
from packc_runtime.manifest import Access, Binding, Manifest, PreviewKind, Verb

from .model import Api, Operation, resolve_pointer

__all__ = [
    "VERB_RE",
    "OpOverride",
    "Overrides",
    "apply_overlay",
    "care_by_overlay",
    "collect_overrides",
]

VERB_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
_PREVIEW_KINDS: tuple[str, ...] = get_args(PreviewKind)
_OP_KEYS = {"exclude", "include", "verb", "access", "destructive", "preview", "idempotent", "group", "description"}
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
    preview: PreviewKind | None = None
    idempotent: bool | None = None
    group: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Overrides:
    """Everything the user controls, gathered from stub, root ``x-packc`` and operations."""

    api_id: str | None = None
    name: str | None = None
    cli_bin: str | None = None
    binding: Binding | None = None
    ops: Mapping[str, OpOverride] = field(default_factory=dict)  # by Operation.key
    stub_verbs: Mapping[str, Verb] | None = None  # a stub that names verbs keeps only those
    stub_by_user: bool = True  # a local stub manifest is the user's file; a fetched one is not


def _where(op: Operation) -> str:
    return op.pointer or f"#/paths/{op.path}"


def _op_override(op: Operation, diags: list[Diagnostic]) -> OpOverride:
    raw = op.extensions.get("x-packc")
    out = OpOverride()
    bound = op.extensions.get("x-packc-binding")
    if isinstance(bound, Mapping) and isinstance(bound.get("verb"), str) and VERB_RE.match(bound["verb"]):
        # A pack's own document: keep the verb name it was compiled with.
        out = replace(out, verb=bound["verb"], idempotent=bound.get("idempotent") if isinstance(bound.get("idempotent"), bool) else None)
    if raw is None:
        return out
    where = _where(op) + "/x-packc"
    if not isinstance(raw, Mapping):
        diags.append(Diagnostic("C101", "warning", where, "x-packc must be an object; it is ignored.",
                                'Write x-packc: {verb: "pets.adopt", access: "read"}.'))
        return out
    for key in sorted(set(raw) - _OP_KEYS):
        diags.append(Diagnostic("C102", "warning", f"{where}/{key}", f"Unknown x-packc key {key!r} is ignored.",
                                f"Use one of: {', '.join(sorted(_OP_KEYS))}."))
    verb = raw.get("verb")
    if verb is not None and not (isinstance(verb, str) and VERB_RE.match(verb) and len(verb) <= 64):
        diags.append(Diagnostic("C103", "error", f"{where}/verb", f"Verb name {verb!r} is not lower-case and dotted.",
                                "Use a name like pets.adopt (at most 64 characters)."))
        verb = None
    access = raw.get("access")
    if access is not None and access not in ("read", "write"):
        diags.append(Diagnostic("C104", "error", f"{where}/access", f"access must be read or write, not {access!r}.",
                                "Write access: read or access: write."))
        access = None
    destructive = raw.get("destructive")
    if destructive is not None and not isinstance(destructive, bool):
        diags.append(Diagnostic("C104", "error", f"{where}/destructive",
                                f"destructive must be true or false, not {destructive!r}.",
                                "Write destructive: true (or leave it out)."))
        destructive = None
    preview = raw.get("preview")
    if preview is not None and preview not in _PREVIEW_KINDS:
        diags.append(Diagnostic("C105", "error", f"{where}/preview", f"Unknown preview kind {preview!r}.",
                                f"Use one of: {', '.join(_PREVIEW_KINDS)}."))
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


def care_by_overlay(before: Api, after: Api) -> frozenset[str]:
    """Keys of the operations whose ``x-packc`` access or destructive an overlay changed.

    An overlay is the user's own file, so what it says about care is the user's decision, which may
    lower a POST to read without a warning; the document's own ``x-packc`` may not (``access.py``).
    """
    def care(op: Operation) -> tuple[object, object]:
        raw = op.extensions.get("x-packc")
        return (raw.get("access"), raw.get("destructive")) if isinstance(raw, Mapping) else (None, None)

    old = {op.key: care(op) for op in before.operations}
    return frozenset(op.key for op in after.operations if care(op) != old.get(op.key, (None, None)))


def collect_overrides(api: Api, stub: Manifest | None, *, care_by_user: frozenset[str] = frozenset(),
                      stub_by_user: bool = True) -> tuple[Overrides, list[Diagnostic]]:
    """Gather the user's overrides; stub fields win over root ``x-packc``, which wins over defaults.

    Args:
        api: the model (after any overlay).
        stub: the stub manifest the input was, if any.
        care_by_user: operation keys whose access/destructive an ``--overlay`` set (:func:`care_by_overlay`).
        stub_by_user: the stub is a local file of the user's (a fetched stub is as untrusted as a document).
    """
    diags: list[Diagnostic] = []
    root = api.extensions.get("x-packc")
    if root is not None and not isinstance(root, Mapping):
        diags.append(Diagnostic("C101", "warning", "#/x-packc", "x-packc must be an object; it is ignored.",
                                "Write x-packc: {id: my-api}."))
        root = None
    root = root or {}
    for key in sorted(set(root) - _ROOT_KEYS):
        diags.append(Diagnostic("C102", "warning", f"#/x-packc/{key}", f"Unknown x-packc key {key!r} is ignored.",
                                f"Use one of: {', '.join(sorted(_ROOT_KEYS))}."))
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

    api_id, name, cli_bin = text("id"), text("name"), text("cliBin")
    binding = Binding(family=text("family")) if text("family") else None
    stub_verbs: Mapping[str, Verb] | None = None
    if stub is not None:
        api_id = stub.id or api_id
        name = stub.name or name
        cli_bin = stub.cliBin or cli_bin
        binding = stub.binding or binding
        if stub.verbs:
            stub_verbs = dict(stub.verbs)
    return Overrides(api_id, name, cli_bin, binding, ops, stub_verbs, stub_by_user), diags


# --- OpenAPI Overlay 1.0: update/remove with simple JSONPath targets ------------------------------

_SEGMENT = re.compile(r"""\.([A-Za-z_$][\w$-]*)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*(\d+)\s*\]|\.\*|\[\s*\*\s*\]""")


def _parse_path(target: str) -> list[str | int | None] | None:
    """``$.paths['/pets'].get`` → ``['paths', '/pets', 'get']``; ``*`` is None; unsupported → None."""
    if not target.startswith("$"):
        return None
    pos, out = 1, cast(list[str | int | None], [])
    while pos < len(target):
        m = _SEGMENT.match(target, pos)
        if m is None:
            return None
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(m.group(2).replace("\\'", "'"))
        elif m.group(3) is not None:
            out.append(m.group(3).replace('\\"', '"'))
        elif m.group(4) is not None:
            out.append(int(m.group(4)))
        else:
            out.append(None)
        pos = m.end()
    return out


def _select(node: Any, path: list[str | int | None], parent: Any = None, key: Any = None) -> list[tuple[Any, Any, Any]]:
    """All (parent, key, node) triples the path reaches."""
    if not path:
        return [(parent, key, node)]
    head, rest = path[0], path[1:]
    found: list[tuple[Any, Any, Any]] = []
    if head is None:
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for k, child in items:
            found += _select(child, rest, node, k)
    elif isinstance(node, dict) and isinstance(head, str) and head in node:  # noqa: SIM114
        found += _select(node[head], rest, node, head)
    elif isinstance(node, list) and isinstance(head, int) and head < len(node):
        found += _select(node[head], rest, node, head)
    return found


def _merge(target: Any, update: Any) -> Any:
    if isinstance(target, dict) and isinstance(update, Mapping):
        out = dict(target)
        for k, v in update.items():
            out[k] = _merge(out.get(k), v) if k in out else copy.deepcopy(v)
        return out
    if isinstance(target, list) and isinstance(update, list):
        return target + copy.deepcopy(update)
    return copy.deepcopy(update)


def _apply_actions(document: dict[str, Any], overlay: Mapping[str, Any], diags: list[Diagnostic]) -> dict[str, Any]:
    doc = copy.deepcopy(document)
    actions = overlay.get("actions")
    if not isinstance(overlay.get("overlay"), str) or not isinstance(actions, list):
        diags.append(Diagnostic("C140", "error", "overlay#", "Not an OpenAPI Overlay 1.0 document.",
                                "Give it `overlay: 1.0.0`, `info` and a list of `actions`."))
        return doc
    for i, action in enumerate(actions):
        where = f"overlay#/actions/{i}"
        target = action.get("target") if isinstance(action, Mapping) else None
        path = _parse_path(target) if isinstance(target, str) else None
        if path is None:
            diags.append(Diagnostic("C141", "error", where, f"Unsupported or missing target {target!r}.",
                                    "Use a simple JSONPath such as $.paths['/pets'].get."))
            continue
        hits = _select(doc, path)
        if not hits:
            diags.append(Diagnostic("C142", "warning", where, f"Target {target} selects nothing.",
                                    "Check the path and method spelling."))
            continue
        if action.get("remove") is True:
            for parent, key, _ in sorted(hits, key=lambda h: h[1] if isinstance(h[1], int) else 0, reverse=True):
                if isinstance(parent, dict):
                    parent.pop(key, None)
                elif isinstance(parent, list):
                    del parent[key]
        elif "update" in action:
            for parent, key, node in hits:
                merged = _merge(node, action["update"])
                if parent is None:
                    doc = merged
                else:
                    parent[key] = merged
    return doc


def apply_overlay(api: Api, overlay: Mapping[str, Any]) -> tuple[Api, list[Diagnostic]]:
    """Apply an Overlay to the API document and refresh what the plan reads from it.

    Operations the overlay removes disappear; ``x-*`` keys of operations and of the root are re-read,
    so an overlay can add ``x-packc`` to any operation.
    """
    diags: list[Diagnostic] = []
    # The model describes the document as read: operations' deferred parts are read before the
    # overlay changes (in place) objects the document shares with the copy.
    api.materialize()
    doc = _apply_actions(dict(api.document), overlay, diags)
    ops = []
    for op in api.operations:
        item = resolve_pointer(doc, "#/paths/" + op.path.replace("~", "~0").replace("/", "~1"))
        if isinstance(item, Mapping) and isinstance(item.get("$ref"), str):
            item = resolve_pointer(doc, item["$ref"])
        node = item.get(op.method) if isinstance(item, Mapping) else None
        if not isinstance(node, Mapping):
            continue  # removed by the overlay
        ext = {k: v for k, v in node.items() if isinstance(k, str) and k.startswith("x-")}
        ops.append(replace(op, extensions=ext, deprecated=bool(node.get("deprecated", op.deprecated))))
    root_ext = {k: v for k, v in doc.items() if isinstance(k, str) and k.startswith("x-")}
    return replace(api, document=doc, operations=tuple(ops), extensions=root_ext), diags


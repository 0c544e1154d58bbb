"""Cut the document down to the operations a pack uses and the components they reach.

The cut shares its subtrees with ``Api.document`` instead of copying them: nothing mutates the
model, the cut is only written out, and a family of packs cut from one large document (Microsoft
Graph: 1,216 packs) reaches the same big components over and over.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from packc_runtime.openapi import unescape_token

from .model import Api, Operation, resolve_pointer

__all__ = ["cut_document"]

_KEEP_ROOT = ("openapi", "info", "jsonSchemaDialect", "externalDocs")


def _refs(node: Any) -> Iterator[str]:
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, Mapping):
            ref = cur.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                yield ref
            stack.extend(v for k, v in cur.items() if k != "$ref")
        elif isinstance(cur, list):
            stack.extend(cur)


def _tokens(ref: str) -> list[str]:
    return [unescape_token(t) for t in ref[2:].split("/")]


def _copy_target(source: Mapping[str, Any], out: dict[str, Any], ref: str) -> Any:
    """Put what ``ref`` points at in ``source`` into ``out`` at the same place; return it, or None
    when it is there already."""
    target = resolve_pointer(source, ref)
    if target is None:
        return None
    tokens = _tokens(ref)
    node: Any = out
    shared: Any = source  # the source's node at the same place, while there is one
    for token in tokens[:-1]:
        if node is shared:
            return None  # this whole subtree of the source is in the cut already (never add to it)
        if not isinstance(node, dict):
            return None
        shared = shared.get(token) if isinstance(shared, Mapping) else None
        node = node.setdefault(token, {})
    if not isinstance(node, dict) or not tokens:
        return None
    if tokens[-1] in node:
        return None  # already there: its refs were followed when it was copied
    node[tokens[-1]] = target
    return target


def _security_keys(api: Api, ops: Sequence[Operation]) -> set[str]:
    keys: set[str] = set()
    for op in ops:
        for requirement in op.security if op.security is not None else api.security:
            keys |= {k for k, _ in requirement}
    return keys


def cut_document(api: Api, ops: Sequence[Operation], bindings: Mapping[str, Mapping[str, Any]],
                 servers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A self-contained OpenAPI 3.x document holding only ``ops``, each with its ``x-packc-binding``.

    Args:
        api: the API read by the front end.
        ops: the operations the pack's verbs use.
        bindings: ``x-packc-binding`` values by ``Operation.key``.
        servers: the servers to write (absolute URLs).
    """
    doc = api.document
    out: dict[str, Any] = {k: doc[k] for k in _KEEP_ROOT if k in doc}
    if not str(out.get("openapi", "")).startswith("3."):
        out["openapi"] = "3.0.3"
    out.setdefault("info", {"title": api.info.title or "API", "version": api.info.version or "1"})
    if servers:
        out["servers"] = [dict(s) for s in servers]
    if "security" in doc:
        out["security"] = doc["security"]
    paths: dict[str, Any] = {}
    raw_paths = doc.get("paths", {}) if isinstance(doc.get("paths"), Mapping) else {}
    for op in sorted(ops, key=lambda o: (o.path, o.method)):
        item = api.deref(raw_paths.get(op.path, {}))
        if not isinstance(item, Mapping) or not isinstance(item.get(op.method), Mapping):
            continue
        new_item = paths.setdefault(op.path, {k: v for k, v in item.items()
                                              if k in ("summary", "description", "parameters", "servers")})
        node = dict(item[op.method])
        node["x-packc-binding"] = dict(bindings[op.key])
        new_item[op.method] = node
    out["paths"] = paths
    used_tags = sorted({t for op in ops for t in op.tags})
    if isinstance(doc.get("tags"), list):
        tags = [t for t in doc["tags"] if isinstance(t, Mapping) and t.get("name") in used_tags]
        if tags:
            out["tags"] = tags
    # Security schemes the operations name, then everything reachable by $ref, transitively.
    schemes = resolve_pointer(doc, "#/components/securitySchemes")
    for key in sorted(_security_keys(api, ops)):
        if isinstance(schemes, Mapping) and key in schemes:
            _copy_target(doc, out, "#/components/securitySchemes/" + key.replace("~", "~0").replace("/", "~1"))
    pending = list(_refs(out))
    while pending:
        ref = pending.pop()
        if ref.startswith("#/components/") and ref.count("/") > 3:
            # A ref into a component (…/Pet/properties/name): copy the whole component, so a later
            # ref to the component itself never finds it half-copied.
            ref = "/".join(ref.split("/")[:4])
        copied = _copy_target(doc, out, ref)
        if copied is not None:
            pending.extend(_refs(copied))
    if "components" in out:
        out["components"] = {k: dict(sorted(v.items())) if isinstance(v, dict) else v
                             for k, v in sorted(out["components"].items())}
    return out

"""Cut the document down to the operations a pack uses and the components they reach.

Everything a request is built from (parameters, bodies, security schemes) is kept with all it
reaches. Responses are kept to :data:`RESPONSE_HOPS` component hops: a response schema and the
components it names are in the cut, but their refs (Stripe's expandable fields, where a payment
intent names a customer, which names invoices, which name ... 485 schemas; and the refs back that
make cycles) become permissive stubs saying what was left out. Nothing that builds or checks a request is lost; a
mock still answers with the response's own shape.

The cut shares its subtrees with ``Api.document`` instead of copying them (only components with a
stubbed ref are copies): nothing mutates the model, the cut is only written out, and a family of
packs cut from one large document (Microsoft Graph: 1,216 packs) reaches the same big components
over and over.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence, Set
from typing import Any

from packc.model import Api, Operation, resolve_pointer
from packc_runtime.rules import HTTP_METHODS, escape_token, unescape_token

__all__ = ["RESPONSE_HOPS", "cut_document"]

RESPONSE_HOPS = 2  # components followed from a response: its schema's own, then the ones it names

_KEEP_ROOT = ("openapi", "info", "jsonSchemaDialect", "externalDocs")
_METHODS = frozenset(HTTP_METHODS)


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


def _component(ref: str) -> str:
    """A ref into a component (…/Pet/properties/name) as the whole component's ref."""
    return "/".join(ref.split("/")[:4]) if ref.startswith("#/components/") and ref.count("/") > 3 else ref


def _stubbed(node: Any, out: Mapping[str, Any], keep: Set[str] | None = None) -> Any:
    """``node`` with each ``$ref`` replaced by a permissive stub when its target is not in ``out``
    (or, given ``keep``, when its component is not one of those): a copy where something changed,
    the same object where nothing did."""
    if isinstance(node, Mapping):
        ref = node.get("$ref")
        dropped = (
            isinstance(ref, str)
            and ref.startswith("#/")
            and (resolve_pointer(out, ref) is None if keep is None else _component(ref) not in keep)
        )
        if dropped:
            stub = {k: v for k, v in node.items() if k != "$ref"}
            stub["description"] = (
                f"Left out of this pack's document by packc ({ref}); see the API's own document."
            )
            return stub
        changed = {k: _stubbed(v, out, keep) for k, v in node.items()}
        return node if all(changed[k] is node[k] for k in node) else changed
    if isinstance(node, list):
        items = [_stubbed(v, out, keep) for v in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    return node


def _tokens(ref: str) -> list[str]:
    return [unescape_token(t, fragment=True) for t in ref[2:].split("/")]


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


def _defined(api: Api, security: Any) -> Any:
    """A ``security`` list without the requirements that name a scheme the API does not define
    (D051): the runtime could never meet them."""
    if not isinstance(security, list):
        return security
    known = api.security_schemes
    return [r for r in security if not isinstance(r, Mapping) or all(k in known for k in r)]


def _security_keys(api: Api, ops: Sequence[Operation]) -> set[str]:
    keys: set[str] = set()
    for op in ops:
        for requirement in op.security if op.security is not None else api.security:
            keys |= {k for k, _ in requirement}
    return keys


def cut_document(
    api: Api,
    ops: Sequence[Operation],
    bindings: Mapping[str, Mapping[str, Any]],
    servers: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
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
        out["security"] = _defined(api, doc["security"])
    paths: dict[str, Any] = {}
    raw_paths = doc.get("paths", {}) if isinstance(doc.get("paths"), Mapping) else {}
    for op in sorted(ops, key=lambda o: (o.path, o.method)):
        item = api.deref(raw_paths.get(op.path, {}))
        if not isinstance(item, Mapping) or not isinstance(item.get(op.method), Mapping):
            continue
        new_item = paths.setdefault(
            op.path,
            {k: v for k, v in item.items() if k in ("summary", "description", "parameters", "servers")},
        )
        node = dict(item[op.method])
        if "security" in node:
            node["security"] = _defined(api, node["security"])
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
            _copy_target(doc, out, "#/components/securitySchemes/" + escape_token(key))
    # What requests are built from, transitively. A ref into a component (…/Pet/properties/name)
    # copies the whole component, so a later ref to the component itself never finds it half-copied.
    requests: list[Any] = [v for k, v in out.items() if k != "paths"]
    for item in paths.values():
        requests.append({k: v for k, v in item.items() if k not in _METHODS})
        requests.extend(
            {k: v for k, v in op.items() if k != "responses"}
            for m, op in item.items()
            if m in _METHODS and isinstance(op, Mapping)
        )
    pending = list(_refs(requests))
    request_side: set[str] = set()
    while pending:
        ref = _component(pending.pop())
        request_side.add(ref)
        copied = _copy_target(doc, out, ref)
        if copied is not None:
            pending.extend(_refs(copied))
    # Responses, to RESPONSE_HOPS component hops. The last hop's refs are stubbed, except to what a
    # request needs: a ref back to a response component would close a cycle (charge -> customer ->
    # charge), and Prism did not start in 300 s on a 235 KB Stripe cut full of them.
    frontier = [
        ref
        for item in paths.values()
        for op in item.values()
        if isinstance(op, Mapping)
        for ref in _refs(op.get("responses", {}))
    ]
    edge: list[str] = []
    for hop in range(RESPONSE_HOPS):
        following: list[str] = []
        for ref in frontier:
            ref = _component(ref)
            if _copy_target(doc, out, ref) is None:
                continue
            if hop + 1 < RESPONSE_HOPS:
                following.extend(_refs(resolve_pointer(doc, ref)))
            else:
                edge.append(ref)
        frontier = following
    for ref in edge:
        tokens = _tokens(ref)
        parent_ref = "#/" + "/".join(escape_token(t) for t in tokens[:-1])
        parent = resolve_pointer(out, parent_ref)
        if isinstance(parent, dict) and parent is not resolve_pointer(
            doc, parent_ref
        ):  # never edit the source
            parent[tokens[-1]] = _stubbed(parent[tokens[-1]], out, request_side)
    for item in out["paths"].values():
        for method, op in list(item.items()):
            if isinstance(op, Mapping) and "responses" in op:
                responses = _stubbed(op["responses"], out)
                if responses is not op["responses"]:
                    item[method] = {**op, "responses": responses}
    if "components" in out:
        out["components"] = {
            k: dict(sorted(v.items())) if isinstance(v, dict) else v
            for k, v in sorted(out["components"].items())
        }
    return out

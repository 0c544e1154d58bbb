"""Prism's copy of a pack's document: the same API, written so Prism can route and read it.

Two of Prism's limits would reject correct requests; each rewrite below changes only how the
document is written for Prism, never what it allows. Neither touches the pack's own files.

**Operations that share a URL.** A path key may carry what HTTP never sends as a path: a fragment
(AWS ``/#X-Amz-Target=Svc.Op``, ``/tags/{arn}#tagKeys``; Azure ``.../Evaluate#overload=url``) or a
query (flickr's ``/rest?method=flickr.photos.getInfo``). The runtime sends the URL (the fragment
dropped, the key's query pairs first in the query) and the API tells such operations apart by a
header, the query or the body. Prism matches on the path alone, so it routes all of them to one
operation or to none. :func:`routes` puts every path key under a route-group prefix
(``/packc-route-0/...``) with its URL path, so that no two operations of one group share a
(method, path); a ``?k=v`` key's pairs become required query parameters with a one-value enum on
the path item, so Prism still checks them. Each operation object stays byte-identical, and so does
the rest of its path item. The proxy prepends the prefix of the verb being called
(``RecordingProxy.prefix``); what is recorded is the request as the pack sent it.

**Arrays in form and multipart bodies.** OpenAPI's default encoding of an array property is
``style: form, explode: true`` (``a=1&a=2``; in multipart, one part per item). Prism 5.14 reads an
array only when the media type's ``encoding`` says so explicitly: without it, ``a=1`` and even
``a=1&a=2`` are "must be array" (measured; stoplightio/prism#2654 is the open change for repeated
keys). :func:`explicit_encodings` writes that default out for array properties that have none.
"""

from __future__ import annotations

import copy
import re
from typing import Any
from urllib.parse import parse_qsl

from packc_runtime.calling.openapi.operations import resolve
from packc_runtime.errors import InvalidPack

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
PREFIX = "/packc-route-"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_TEMPLATE = re.compile(r"\{[^{}]*\}")


def split_key(key: str) -> tuple[str, list[tuple[str, str]]]:
    """A path key's URL path and the query pairs it carries (the fragment dropped, as the runtime does)."""
    path, _, query = key.partition("#")[0].partition("?")
    return path or "/", parse_qsl(query, keep_blank_values=True)


def _deref(document: dict[str, Any], node: Any) -> Any:
    """``node``, following internal ``$ref``s; a ref that points at nothing is kept as it is."""
    try:
        return resolve(document, node)
    except InvalidPack:
        return node


def _with_key_query(shared: dict[str, Any], pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """The path item's own fields plus one required, one-value query parameter per pair of the key."""
    if not pairs:
        return shared
    declared = [p for p in shared.get("parameters") or [] if isinstance(p, dict)]
    have = {(p.get("in"), p.get("name")) for p in declared}
    added = [
        {
            "name": name,
            "in": "query",
            "required": True,
            "schema": {"type": "string", "enum": [value]},
            "description": "From the document's path key (added for Prism, which routes on the path only).",
        }
        for name, value in pairs
        if ("query", name) not in have
    ]
    return {**shared, "parameters": [*(shared.get("parameters") or []), *added]}


def routes(document: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]] | None:
    """A copy of ``document`` Prism can route, and each verb's path prefix; None when no key needs it.

    An operation goes to the first group where its (method, path template) is free and where the
    operations already under that path came from a path item with the same other fields
    (path-level parameters, servers, ...), so every operation keeps its own path item's fields.
    """
    paths = document.get("paths")
    if not isinstance(paths, dict) or not any(isinstance(k, str) and ("#" in k or "?" in k) for k in paths):
        return None
    # per group: path template with names blanked -> [URL path, the path item's own fields, {method: operation}]
    groups: list[dict[str, list[Any]]] = []
    prefixes: dict[str, str] = {}
    others: dict[str, Any] = {}
    for key, raw in paths.items():
        item = _deref(document, raw)
        if not (isinstance(key, str) and key.startswith("/") and isinstance(item, dict)):
            others[key] = raw  # x- keys under paths; Prism ignores them
            continue
        path, pairs = split_key(key)
        shared = _with_key_query({k: v for k, v in item.items() if k not in METHODS}, pairs)
        shape = _TEMPLATE.sub("{}", path)
        for method in (m for m in METHODS if isinstance(item.get(m), dict)):
            index = 0
            while True:
                if index == len(groups):
                    groups.append({})
                slot = groups[index].get(shape)
                if slot is None:
                    groups[index][shape] = [path, shared, {method: item[method]}]
                    break
                if slot[0] == path and slot[1] == shared and method not in slot[2]:
                    slot[2][method] = item[method]
                    break
                index += 1
            binding = item[method].get("x-packc-binding")
            if isinstance(binding, dict) and isinstance(binding.get("verb"), str):
                prefixes[binding["verb"]] = f"{PREFIX}{index}"
    out: dict[str, Any] = {}
    for index, group in enumerate(groups):
        for path, shared, operations in group.values():
            out[f"{PREFIX}{index}{path}"] = {**shared, **operations}
    return {**document, "paths": {**out, **others}}, prefixes


def _array_properties(document: dict[str, Any], schema: Any, depth: int = 0) -> list[str]:
    """Names of the body schema's properties whose schema is an array (allOf parts included)."""
    schema = _deref(document, schema)
    if not isinstance(schema, dict) or depth > 4:
        return []
    names = [
        name
        for name, prop in (schema.get("properties") or {}).items()
        if isinstance(_deref(document, prop), dict) and _deref(document, prop).get("type") == "array"
    ]
    for part in schema.get("allOf") or []:
        names += [n for n in _array_properties(document, part, depth + 1) if n not in names]
    return names


def explicit_encodings(document: dict[str, Any]) -> tuple[dict[str, Any], int] | None:
    """A copy of ``document`` whose form and multipart bodies state OpenAPI's default encoding for
    array properties (``style: form, explode: true``) where the document leaves it implicit, and how
    many it wrote; None when there are none."""
    out = copy.deepcopy(document)
    written = 0
    for item in (out.get("paths") or {}).values():
        for method in METHODS:
            op = _deref(out, item).get(method) if isinstance(_deref(out, item), dict) else None
            body = _deref(out, op.get("requestBody")) if isinstance(op, dict) else None
            content = body.get("content") if isinstance(body, dict) else None
            for media_type, media in (content or {}).items():
                if media_type.split(";")[0].strip().lower() not in FORM_TYPES or not isinstance(media, dict):
                    continue
                for name in _array_properties(out, media.get("schema")):
                    encoding = media.setdefault("encoding", {})
                    entry = encoding.setdefault(name, {}) if isinstance(encoding, dict) else None
                    if isinstance(entry, dict) and "style" not in entry and "explode" not in entry:
                        entry.update({"style": "form", "explode": True})
                        written += 1
    return (out, written) if written else None


def prism_document(document: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """The document to give Prism (None: the pack's own one will do) and each verb's route prefix."""
    routed = routes(document)
    current, prefixes = routed if routed is not None else (document, {})
    encoded = explicit_encodings(current)
    if encoded is not None:
        current = encoded[0]
    return (current if current is not document else None), prefixes

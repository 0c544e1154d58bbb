"""Checks of what the compiled operations ask for that no request can give exactly as written.

Each finding is a warning at the document's own pointer: the pack is still written, and the
request it sends is the one the document means, but a server or validator that reads the document
literally may reject it. Conformance runs against Prism found each of these in real documents
(docs/conformance.md); the codes are documented in docs/compile.md.

- C150 a path key carries a ``#fragment``: never sent, so operations share one URL.
- C151 schemes of one AND-requirement write the same header: only one can be applied.
- C152 an ``enum`` none of whose members has the schema's own ``type``: no value can satisfy it.
- C153 a binary body typed ``object`` with ``format: file`` (Swagger 2.0 ``type: file`` mis-converted).
- C154 an object parameter with object/array properties: OpenAPI leaves their serialization undefined.
- C155 a body schema ``required`` names that are not among its ``properties`` (and may not be added).
- C158 (:func:`silent_auth`) the document declares no security at all, yet operations that write
  were packed: the pack would say no credentials are needed and could not be given one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from packc.build._schemas import validates
from packc.model import Api, Operation, SecurityRequirement
from packc_runtime.diagnostics import Diagnostic, pointer
from packc_runtime.rules import escape_token

__all__ = ["capped", "check_operations", "operation_findings", "silent_auth"]

MAX_LISTED = 5  # findings of one code listed; the rest are counted in one more warning
_JSONISH = ("json", "form", "text/", "xml")
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}


def _collect(api: Api, ops: Sequence[Operation]) -> list[tuple[Operation, Diagnostic]]:
    found: list[tuple[Operation, Diagnostic]] = []
    urls: Counter[tuple[str, str]] = Counter()
    if any("#" in op.path for op in ops):
        urls.update((str(op.method), op.path.partition("#")[0]) for op in api.operations)
    for op in ops:
        found += [(op, d) for d in _fragment(op, urls)]
        found += [(op, d) for d in _shared_headers(api, op)]
        found += [(op, d) for d in _parameters(api, op)]
        found += [(op, d) for d in _body(api, op)]
    return found


def check_operations(api: Api, ops: Sequence[Operation]) -> list[Diagnostic]:
    """Warnings about the operations that made verbs, each once, at most ``MAX_LISTED`` per code."""
    return capped(d for _op, d in _collect(api, ops))


def capped(found: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Each (code, pointer) once, at most ``MAX_LISTED`` per code, then one warning counting the rest."""
    listed: dict[str, int] = {}
    out: list[Diagnostic] = []
    seen: set[tuple[str, str]] = set()
    for d in found:
        if (d.code, d.pointer) in seen:
            continue
        seen.add((d.code, d.pointer))
        listed[d.code] = listed.get(d.code, 0) + 1
        if listed[d.code] <= MAX_LISTED:
            out.append(d)
    for code, count in listed.items():
        if count > MAX_LISTED:
            out.append(
                Diagnostic(
                    code,
                    "warning",
                    "#/paths",
                    f"{count - MAX_LISTED} more warning(s) like the ones above are not listed.",
                    "Fix the ones listed, then compile again.",
                )
            )
    return out


_WRITES = ("post", "put", "patch", "delete")


def silent_auth(api: Api, ops: Sequence[Operation]) -> list[Diagnostic]:
    """C158 once, when the document declares no security anywhere and some packed operation writes.

    Public APIs that take writes exist, so it is a warning: it says how to declare the auth the
    document is silent about (an Overlay, which packc applies before reading the document).
    """
    if api.security_schemes or any(op.security for op in api.operations):
        return []
    writes = [op for op in ops if str(op.method).lower() in _WRITES]
    if not writes:
        return []
    named = ", ".join(f"{op.method.upper()} {op.path}" for op in writes[:3])
    more = f" and {len(writes) - 3} more" if len(writes) > 3 else ""
    return [
        Diagnostic(
            "C158",
            "warning",
            "#/components/securitySchemes",
            f"The document declares no security, yet {len(writes)} packed operation(s) write ({named}{more}): the "
            "pack says no credentials are needed and cannot be given one.",
            "If the API needs auth, declare it without editing the document: an Overlay that adds "
            "components.securitySchemes and a top-level security requirement (packc compile --overlay auth.yaml; "
            "see specs/overlays/github-auth.yaml). x-packc and a stub manifest cannot add a scheme.",
        )
    ]


def operation_findings(api: Api, ops: Sequence[Operation]) -> dict[str, list[str]]:
    """Each operation's finding codes by its key (``METHOD /path``), none left out (for tools)."""
    out: dict[str, list[str]] = {}
    for op, d in _collect(api, ops):
        codes = out.setdefault(op.key, [])
        if d.code not in codes:
            codes.append(d.code)
    return out


def _fragment(op: Operation, urls: Counter[tuple[str, str]]) -> Iterable[Diagnostic]:
    if "#" not in op.path:
        return
    path = op.path.partition("#")[0]
    shared = urls[(op.method, path)]
    also = (
        f"; {shared - 1} other operation(s) of the document use that URL too, so the server must tell them "
        "apart by headers, query or body"
        if shared > 1
        else ""
    )
    where = op.pointer.rpartition("/")[0] if op.pointer else pointer("paths", op.path)
    yield Diagnostic(
        "C150",
        "warning",
        where,
        f"The path key carries a fragment, which HTTP never sends: {op.method.upper()} {path or '/'} is "
        f"what goes out{also}.",
        "Key the operation by its real path and move what the fragment names into a parameter "
        "(a header with an enum, a required query parameter).",
    )


def _header(api: Api, key: str) -> str | None:
    scheme = api.security_schemes.get(key)
    if scheme is None:
        return None
    if scheme.type == "apiKey":
        return scheme.param_name.lower() if scheme.location == "header" else None
    return "authorization" if scheme.type in ("http", "oauth2", "openIdConnect") else None


def _shared_headers(api: Api, op: Operation) -> Iterable[Diagnostic]:
    requirements: tuple[SecurityRequirement, ...] = api.security if op.security is None else op.security
    base = "#/security" if op.security is None else f"{op.pointer}/security"
    for index, requirement in enumerate(requirements):
        by_header: dict[str, list[str]] = {}
        for key, _scopes in requirement:
            header = _header(api, key)
            if header is not None:
                by_header.setdefault(header, []).append(key)
        for header, keys in by_header.items():
            if len(keys) < 2:
                continue
            http = [k for k in keys if api.security_schemes[k].type == "http"]
            applied = (
                f"{http[0]!r} when its credential is set, else the first other one set"
                if http
                else "the first one whose credential is set"
            )
            yield Diagnostic(
                "C151",
                "warning",
                f"{base}/{index}",
                f"The security requirement names {', '.join(map(repr, keys))} together, and each "
                f"writes the {header!r} header, which a request carries once: the runtime applies "
                f"one of them ({applied}).",
                "List them as alternatives (separate requirement objects) if either is enough.",
            )


def _type_rejects_enum(schema: Any) -> bool:
    """An ``enum`` none of whose members the schema's own ``type`` accepts."""
    if not isinstance(schema, Mapping) or "type" not in schema:
        return False
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    if not kinds or not all(k in _JSON_TYPES for k in kinds):
        return False  # an unknown type is another problem (the args schema drops it)
    enum = schema.get("enum")
    if not isinstance(enum, list) or not enum:
        return False
    typed = {"type": schema["type"]}
    return not any(validates(typed, member) for member in enum)


def _enum_finding(where: str, what: str, schema: Mapping[str, Any]) -> Diagnostic:
    members = ", ".join(repr(m) for m in schema["enum"][:5])
    return Diagnostic(
        "C152",
        "warning",
        where,
        f"{what} has type {schema['type']!r} and an enum of {members}: no value can satisfy both. "
        "packc keeps what the enum means (numbers become their text, an array-level enum is dropped), "
        "so a validator reading the document as written rejects every value.",
        "Give the enum members the schema's type (or move an array's enum to its items).",
    )


def _nested(api: Api, schema: Any) -> list[str]:
    """Properties of an object schema whose own schema is an object or an array."""
    schema = api.deref(schema)
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return []
    out = []
    for name, prop in props.items():
        prop = api.deref(prop)
        if isinstance(prop, Mapping) and (prop.get("type") in ("object", "array") or "properties" in prop):
            out.append(str(name))
    return out


def _parameters(api: Api, op: Operation) -> Iterable[Diagnostic]:
    for p in op.parameters:
        schema = api.deref(p.schema) if p.schema is not None else None
        where = f"{p.pointer or op.pointer}/schema"
        if isinstance(schema, Mapping) and _type_rejects_enum(schema):
            yield _enum_finding(where, f"Parameter {p.name!r}", schema)
        if (
            isinstance(schema, Mapping)
            and p.location != "path"
            and p.content is None
            and (schema.get("type") == "object" or "properties" in schema)
        ):
            nested = _nested(api, schema)
            if nested:
                yield Diagnostic(
                    "C154",
                    "warning",
                    where,
                    f"Object parameter {p.name!r} ({p.location}, style {p.style}) has properties that "
                    f"are objects or arrays ({', '.join(nested[:5])}): OpenAPI leaves their serialization "
                    "undefined; packc sends each as JSON text.",
                    "Describe the parameter with `content: {application/json: ...}`, or flatten it.",
                )


def _body(api: Api, op: Operation) -> Iterable[Diagnostic]:
    body = op.request_body
    if body is None:
        return
    base = body.pointer or f"{op.pointer}/requestBody"
    for media in body.content:
        schema = api.deref(media.schema) if media.schema is not None else None
        if not isinstance(schema, Mapping):
            continue
        where = f"{base}/content/{escape_token(media.content_type)}/schema"
        binary_media = not any(mark in media.content_type for mark in _JSONISH)
        if binary_media and schema.get("type") == "object" and schema.get("format") == "file":
            yield Diagnostic(
                "C153",
                "warning",
                where,
                f"The {media.content_type} body is typed object with format file (Swagger 2.0's "
                "`type: file`, converted to OpenAPI 3 as an object): packc sends the file's bytes, "
                "which a validator reading the document as written rejects.",
                "Write the schema as `type: string, format: binary`.",
            )
            return  # the other media types of the body say the same
        props = schema.get("properties")
        required = schema.get("required")
        if isinstance(props, Mapping) and isinstance(required, list):
            missing = [str(n) for n in required if isinstance(n, str) and n not in props]
            if missing and not _has_all_of(schema):
                yield Diagnostic(
                    "C155",
                    "warning",
                    where,
                    f"The body schema requires {', '.join(map(repr, missing[:5]))}, which are not among "
                    "its properties: no argument sets them, so the request never has them.",
                    "Move the names to the `required` of the schema whose properties they are.",
                )
        for name, prop in (props or {}).items() if isinstance(props, Mapping) else ():
            prop = api.deref(prop)
            if _type_rejects_enum(prop):
                yield _enum_finding(
                    f"{where}/properties/{escape_token(str(name))}",
                    f"Body property {name!r}",
                    prop,
                )


def _has_all_of(schema: Mapping[str, Any]) -> bool:
    """Parts of allOf/anyOf/oneOf may declare the property: then the name is not known to be missing."""
    return any(isinstance(schema.get(k), list) and schema[k] for k in ("allOf", "anyOf", "oneOf"))

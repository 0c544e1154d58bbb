"""Read a pack's OpenAPI document: the operations that carry ``x-packc-binding``, as frozen values."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple

from packc_runtime.errors import InvalidPack
from packc_runtime.rules import HTTP_METHODS, escape_token, unescape_token

__all__ = [
    "BINDING_KEY",
    "DESTRUCTIVE_METHODS",
    "NEVER_READ_METHODS",
    "ArgBinding",
    "Operation",
    "Parameter",
    "Server",
    "bound_methods",
    "load_document",
    "read_operations",
    "resolve",
]

BINDING_KEY = "x-packc-binding"
# What HTTP itself says changes data, whatever a document or a policy.json says: never a read, so
# never sent without a person's confirmation (the compiler, the runtime and lint share this rule).
NEVER_READ_METHODS = frozenset({"PUT", "PATCH", "DELETE"})
DESTRUCTIVE_METHODS = frozenset({"DELETE"})
Location = Literal["path", "query", "header", "cookie", "body"]
_DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}


class Server(NamedTuple):
    """One ``servers`` entry: a URL template and its variables (``{name: {default, enum}}``)."""

    url: str
    variables: Mapping[str, Mapping[str, Any]] = {}


class Parameter(NamedTuple):
    """A parameter as the document declares it, with its serialization settled."""

    name: str
    location: Literal["path", "query", "header", "cookie"]
    style: str
    explode: bool
    allow_reserved: bool
    schema: Mapping[str, Any]
    content_type: str | None = None  # parameters declared with ``content`` (serialized as that type)
    required: bool = False


class ArgBinding(NamedTuple):
    """Where one verb argument goes: ``location`` and the original name (None = the whole body)."""

    location: Location
    name: str | None


class Operation(NamedTuple):
    """One bound operation: everything the request builder needs, references resolved."""

    verb: str
    method: str
    path: str
    servers: tuple[Server, ...]
    parameters: Mapping[tuple[str, str], Parameter]  # (location, name) -> parameter
    args: Mapping[str, ArgBinding]
    content_type: str | None
    body_schema: Mapping[str, Any] | None
    body_encoding: Mapping[str, Any]
    security: tuple[Mapping[str, tuple[str, ...]], ...] | None  # None = none declared anywhere
    idempotent: bool
    pointer: str
    body_required: bool = False
    response_types: tuple[str, ...] = ()  # media types of the success responses (else of any response)
    # Amount arguments in the currency's smallest unit (Stripe's 500 is 5.00 USD), each with the argument
    # that names its currency ("" when none does): a preview shows them as the person reads money.
    amounts: Mapping[str, str] = {}
    # Object arguments that hold an amount in the smallest unit and its currency, by those keys
    # (Square's amount_money {amount, currency}).
    money_objects: Mapping[str, Mapping[str, str]] = {}
    mime: tuple[
        str, ...
    ] = ()  # arguments holding a whole base64 email (Gmail's raw): a card shows its headers


def load_document(path: Path) -> dict[str, Any]:
    """Load the pack's OpenAPI JSON document."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InvalidPack(f"The pack's OpenAPI document {path.name} is missing.") from exc
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidPack(f"The pack's OpenAPI document {path.name} is not readable JSON.") from exc
    if not isinstance(data, dict) or not isinstance(data.get("paths"), dict):
        raise InvalidPack(f"The pack's OpenAPI document {path.name} has no paths object.")
    return data


def resolve(document: Mapping[str, Any], node: Any, *, depth: int = 0) -> Any:
    """Follow internal ``$ref`` chains (``#/...``) until a node that is not a reference."""
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        if not ref.startswith("#/") or depth > 32:
            raise InvalidPack(f"Reference {ref!r} cannot be resolved inside the pack's document.")
        target: Any = document
        for token in ref[2:].split("/"):
            key = unescape_token(token, fragment=True)
            if isinstance(target, Mapping) and key in target:
                target = target[key]
            elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
                target = target[int(key)]
            else:
                raise InvalidPack(f"Reference {ref!r} points at nothing in the pack's document.")
        node = target
        depth += 1
    return node


def _servers(raw: Any) -> tuple[Server, ...]:
    if not isinstance(raw, list):
        return ()
    out = []
    for entry in raw:
        if isinstance(entry, Mapping) and isinstance(entry.get("url"), str):
            variables = entry.get("variables")
            out.append(Server(entry["url"], dict(variables) if isinstance(variables, Mapping) else {}))
    return tuple(out)


def _parameter(document: Mapping[str, Any], raw: Any) -> Parameter | None:
    node = resolve(document, raw)
    if not isinstance(node, Mapping):
        return None
    name, location = node.get("name"), node.get("in")
    if not isinstance(name, str) or location not in ("path", "query", "header", "cookie"):
        return None
    style = node.get("style") or _DEFAULT_STYLE[location]
    explode = node.get("explode")
    content_type = None
    schema: Any = node.get("schema")
    content = node.get("content")
    if schema is None and isinstance(content, Mapping) and content:
        content_type = sorted(content)[0]
        media = content[content_type]
        schema = media.get("schema") if isinstance(media, Mapping) else None
    schema = resolve(document, schema) if schema is not None else {}
    return Parameter(
        name=name,
        location=location,
        style=str(style),
        explode=bool(explode) if explode is not None else style == "form",
        allow_reserved=bool(node.get("allowReserved", False)),
        schema=schema if isinstance(schema, Mapping) else {},
        content_type=content_type,
        required=node.get("required") is True,
    )


def _security(raw: Any) -> tuple[Mapping[str, tuple[str, ...]], ...] | None:
    if not isinstance(raw, list):
        return None
    out = []
    for requirement in raw:
        if isinstance(requirement, Mapping):
            out.append({str(k): tuple(v) if isinstance(v, list) else () for k, v in requirement.items()})
    return tuple(out)


def _response_types(document: Mapping[str, Any], raw: Any) -> tuple[str, ...]:
    """Media types the operation's 2xx responses declare, in order; those of any response when no
    2xx declares one."""
    responses = resolve(document, raw)
    if not isinstance(responses, Mapping):
        return ()
    success: list[str] = []
    other: list[str] = []
    for code, response in responses.items():
        node = resolve(document, response)
        content = node.get("content") if isinstance(node, Mapping) else None
        if not isinstance(content, Mapping):
            continue
        target = success if str(code).startswith("2") else other
        target.extend(str(t) for t in content if str(t) not in target)
    return tuple(success or other)


def _binding_args(verb: str, raw: Any) -> dict[str, ArgBinding]:
    if not isinstance(raw, Mapping):
        raise InvalidPack(f"The binding of verb {verb!r} has no args object.")
    out = {}
    for arg, spec in raw.items():
        if not isinstance(spec, Mapping) or spec.get("in") not in (
            "path",
            "query",
            "header",
            "cookie",
            "body",
        ):
            raise InvalidPack(f"The binding of argument {arg!r} of verb {verb!r} has no valid 'in'.")
        name = spec.get("name")
        out[str(arg)] = ArgBinding(spec["in"], name if isinstance(name, str) else None)
    return out


def _binding_amounts(verb: str, raw: Any, args: Mapping[str, ArgBinding]) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not all(
        isinstance(k, str) and k in args and isinstance(v, str) and (v == "" or v in args)
        for k, v in raw.items()
    ):
        raise InvalidPack(
            f"The binding of verb {verb!r} has an 'amounts' that does not map its arguments to theirs."
        )
    return dict(raw)


def _binding_money(verb: str, raw: Any, args: Mapping[str, ArgBinding]) -> dict[str, dict[str, str]]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not all(
        isinstance(k, str)
        and k in args
        and isinstance(v, Mapping)
        and set(v) == {"amount", "currency"}
        and all(isinstance(x, str) for x in v.values())
        for k, v in raw.items()
    ):
        raise InvalidPack(
            f"The binding of verb {verb!r} has a 'moneyObjects' that does not name its arguments' "
            "amount and currency keys."
        )
    return {k: dict(v) for k, v in raw.items()}


def _binding_mime(verb: str, raw: Any, args: Mapping[str, ArgBinding]) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(k, str) and k in args for k in raw):
        raise InvalidPack(f"The binding of verb {verb!r} has a 'mime' that does not list its arguments.")
    return tuple(raw)


def bound_methods(document: Mapping[str, Any]) -> dict[str, str]:
    """Each bound verb's HTTP method (upper case); never raises (lint reads untrusted packs with it)."""
    out: dict[str, str] = {}
    paths = document.get("paths")
    for raw_item in paths.values() if isinstance(paths, Mapping) else ():
        try:
            item = resolve(document, raw_item)
        except InvalidPack:
            continue
        if not isinstance(item, Mapping):
            continue
        for method in HTTP_METHODS:
            op = item.get(method)
            binding = op.get(BINDING_KEY) if isinstance(op, Mapping) else None
            if isinstance(binding, Mapping) and isinstance(binding.get("verb"), str):
                out.setdefault(binding["verb"], method.upper())
    return out


def read_operations(document: Mapping[str, Any]) -> dict[str, Operation]:
    """Every operation carrying ``x-packc-binding``, keyed by its verb name."""
    top_servers = _servers(document.get("servers"))
    top_security = _security(document.get("security"))
    out: dict[str, Operation] = {}
    for path, raw_item in document["paths"].items():
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        item = resolve(document, raw_item)
        if not isinstance(item, Mapping):
            continue
        path_params: list[Any] = item["parameters"] if isinstance(item.get("parameters"), list) else []
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, Mapping) or not isinstance(op.get(BINDING_KEY), Mapping):
                continue
            binding = op[BINDING_KEY]
            verb = binding.get("verb")
            if not isinstance(verb, str):
                raise InvalidPack(f"The binding on {method.upper()} {path} has no verb name.")
            if verb in out:
                raise InvalidPack(f"Verb {verb!r} is bound to more than one operation.")
            params: dict[tuple[str, str], Parameter] = {}
            op_params: list[Any] = op["parameters"] if isinstance(op.get("parameters"), list) else []
            for raw in [*path_params, *op_params]:  # operation-level wins over path-level
                param = _parameter(document, raw)
                if param is not None:
                    params[(param.location, param.name)] = param
            content_type = binding.get("contentType") if isinstance(binding.get("contentType"), str) else None
            body_schema: Mapping[str, Any] | None = None
            encoding: Mapping[str, Any] = {}
            body = resolve(document, op.get("requestBody")) if op.get("requestBody") is not None else None
            if content_type and isinstance(body, Mapping) and isinstance(body.get("content"), Mapping):
                media = body["content"].get(content_type)
                if isinstance(media, Mapping):
                    schema = resolve(document, media.get("schema", {}))
                    body_schema = schema if isinstance(schema, Mapping) else {}
                    encoding = media["encoding"] if isinstance(media.get("encoding"), Mapping) else {}
            servers = _servers(op.get("servers")) or _servers(item.get("servers")) or top_servers
            security = _security(op.get("security"))
            args = _binding_args(verb, binding.get("args", {}))
            out[verb] = Operation(
                verb=verb,
                method=method.upper(),
                path=path,
                servers=servers,
                parameters=params,
                args=args,
                content_type=content_type,
                body_schema=body_schema,
                body_encoding=encoding,
                security=security if security is not None else top_security,
                idempotent=binding.get("idempotent") is True,
                body_required=isinstance(body, Mapping) and body.get("required") is True,
                response_types=_response_types(document, op.get("responses")),
                pointer="#/paths/" + escape_token(path) + "/" + method,
                amounts=_binding_amounts(verb, binding.get("amounts"), args),
                money_objects=_binding_money(verb, binding.get("moneyObjects"), args),
                mime=_binding_mime(verb, binding.get("mime"), args),
            )
    return out

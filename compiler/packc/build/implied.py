"""Parameters that carry the caller's credential become the pack's credential, not arguments.

OpenAPI says credentials belong to security schemes, yet documents declare them as parameters.
Two kinds, one pass (:func:`imply_security`), run on the planned operations:

- A required ``Authorization`` header parameter on an operation that names no security
  (just-eat: "Containing a partner issued API key e.g. `JE-API-KEY ABCDE123456789`"). OpenAPI
  ignores it, so it is never an argument (C121); without this the pack could not send it and every
  call would be refused. The operation's security becomes the document's apiKey scheme in the
  ``Authorization`` header when it has one, else one packc adds (``packc_authorization``): C156.
- A query, header or cookie parameter whose name says it is the caller's credential (Slack's
  ``token``, Google's ``key`` and ``access_token``, ``api_key``, ``X-API-Key``; the one rule is
  :func:`packc_runtime.credentials.redact.is_credential_parameter`), or one the document marks
  ``x-packc: {credential: true}``. It becomes an apiKey scheme in its place (the document's own
  when one is sent there, else ``packc_<name>`` added) and one more alternative of the operation's
  security, so the credential machinery (slots bound to origins, environment approval, keyring,
  ``connect``, redaction) fills it; it leaves the operation's parameters, so it is no argument. An
  optional one leaves the call possible without it (an empty alternative is added when the
  operation names no security); a required one on an operation with no security makes it required.
  ``x-packc: {credential: false}`` on the parameter keeps it an argument. C172. A path parameter is
  never one (``/objects/{key}``), nor a parameter where a scheme of the operation already sends
  (C159 covers that).

The operation in the model and in the document the pack carries gets the new security; the
document the front end read is not changed (copies on write). Each finding is reported at the
parameter, at most five per code, then a count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from packc.build.checks import capped
from packc.curate.plan import PackPlan, Plan
from packc.model import Api, Operation, Parameter, SecurityRequirement, SecurityScheme
from packc_runtime.credentials.redact import is_credential_parameter
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.rules import RESERVED_HEADERS

__all__ = ["ADDED_SCHEME", "credential_parameter", "imply_security"]

ADDED_SCHEME = "packc_authorization"
_ADDED = {
    "type": "apiKey",
    "in": "header",
    "name": "Authorization",
    "description": "The value of the Authorization header the document asks for as a parameter.",
}
_NOT_KEY = re.compile(r"[^A-Za-z0-9]+")


def _requirements(api: Api, op: Operation) -> tuple[SecurityRequirement, ...]:
    return op.security if op.security is not None else api.security


def _needs(api: Api, op: Operation) -> bool:
    if any(requirement for requirement in _requirements(api, op)):
        return (
            False  # the document already names a credential (an Authorization parameter beside it is ignored)
        )
    return any(
        p.location == "header" and p.name.lower() == "authorization" and p.required for p in op.parameters
    )


def credential_parameter(param: Parameter, *, unsecured: bool = False) -> bool:
    """Whether ``param`` is the caller's credential: its ``x-packc: {credential}`` says so, else its
    name (and, for a bare ``token`` or ``key``, its description, or none on an operation that names
    no credential: ``unsecured``); never a path parameter or a header HTTP or OpenAPI reserves."""
    if param.location == "path" or (param.location == "header" and param.name.lower() in RESERVED_HEADERS):
        return False
    if param.credential is not None:
        return param.credential
    return is_credential_parameter(param.name, param.description, unsecured=unsecured)


def _sent(api: Api, requirements: tuple[SecurityRequirement, ...]) -> set[tuple[str, str]]:
    """Where the apiKey schemes of ``requirements`` send (location, name without case)."""
    out: set[tuple[str, str]] = set()
    for requirement in requirements:
        for key, _scopes in requirement:
            scheme = api.security_schemes.get(key)
            if scheme is not None and scheme.type == "apiKey" and scheme.location:
                out.add((scheme.location, scheme.param_name.casefold()))
    return out


def _credentials(api: Api, op: Operation) -> list[Parameter]:
    """The parameters of ``op`` that are the caller's credential and no scheme of it sends already."""
    requirements = _requirements(api, op)
    sent = _sent(api, requirements)
    unsecured = not any(requirement for requirement in requirements)
    return [
        p
        for p in op.parameters
        if credential_parameter(p, unsecured=unsecured) and (p.location, p.name.casefold()) not in sent
    ]


def _apikey_scheme(api: Api, schemes: dict[str, SecurityScheme], param: Parameter) -> tuple[str, bool]:
    """The key of the apiKey scheme sent where ``param`` is, and whether packc adds it (to ``schemes``)."""
    for key, scheme in schemes.items():
        if (
            scheme.type == "apiKey"
            and scheme.location == param.location
            and scheme.param_name.casefold() == param.name.casefold()
        ):
            return key, key not in api.security_schemes
    base = "packc_" + (_NOT_KEY.sub("_", param.name).strip("_").lower() or "credential")
    key, n = base, 1
    while key in schemes:  # the same name in another place, or a document scheme of that key
        n += 1
        key = f"{base}_{param.location}" if n == 2 else f"{base}_{param.location}_{n}"
    location = param.location
    assert location in ("query", "header", "cookie")  # credential_parameter: never a path parameter
    schemes[key] = SecurityScheme(
        key=key,
        type="apiKey",
        location=location,
        param_name=param.name,
        description=f"The credential the document takes as the {location} parameter {param.name!r}.",
    )
    return key, True


def _scheme_json(scheme: SecurityScheme) -> dict[str, Any]:
    return {
        "type": "apiKey",
        "in": scheme.location,
        "name": scheme.param_name,
        "description": scheme.description,
    }


def _document(
    api: Api, security: Mapping[str, tuple[SecurityRequirement, ...]], added: Mapping[str, dict[str, Any]]
) -> dict[str, Any]:
    """A shallow copy of the document whose operations in ``security`` (by key) carry it, with ``added`` schemes."""
    doc = dict(api.document)
    paths = dict(doc.get("paths") or {})
    for op in api.operations:
        if op.key not in security:
            continue
        item = api.deref(paths.get(op.path, {}))
        if not isinstance(item, Mapping) or not isinstance(item.get(op.method), Mapping):
            continue
        written = [{key: list(scopes) for key, scopes in requirement} for requirement in security[op.key]]
        paths[op.path] = {**item, op.method: {**item[op.method], "security": written}}
    doc["paths"] = paths
    if added:
        components = dict(doc.get("components") or {})
        components["securitySchemes"] = {**(components.get("securitySchemes") or {}), **added}
        doc["components"] = components
    return doc


def _authorization(api: Api, op: Operation, key: str, added: bool) -> Diagnostic:
    param = next(p for p in op.parameters if p.location == "header" and p.name.lower() == "authorization")
    how = f"the document's scheme {key!r}" if not added else f"a scheme packc adds ({key!r})"
    return Diagnostic(
        "C156",
        "warning",
        param.pointer or op.pointer,
        f"The operation names no security but requires an Authorization header parameter: "
        f"the pack sends it as a credential with {how}, an API key in that header.",
        "Name the security scheme on the operation (or the document) instead of the parameter.",
    )


def _recognised(op: Operation, param: Parameter, key: str) -> Diagnostic:
    why = "the document marks it x-packc credential: true" if param.credential else "its name says so"
    return Diagnostic(
        "C172",
        "warning",
        param.pointer or op.pointer,
        f"The {param.location} parameter {param.name!r} is the caller's credential ({why}): the pack "
        f"fills it from the credential of scheme {key!r}, bound to the API's origin; it is not an argument.",
        "If it is not a credential, mark the parameter x-packc: {credential: false} "
        "(in the document or with --overlay); better, name a security scheme instead of the parameter.",
    )


def _alternatives(
    before: tuple[SecurityRequirement, ...],
    implied: tuple[SecurityRequirement, ...] | None,
    keys: list[tuple[str, bool]],
) -> tuple[SecurityRequirement, ...]:
    """The operation's security with its credential parameters' schemes (``keys``: key, required).

    An operation that names a scheme keeps it first; each parameter is one more way (Slack's
    OAuth2 token, or its ``token``). Otherwise the parameters are what the call needs: the required
    ones together (BBC: the ``Authorization`` of C156 and ``X-API-Key``; ``key`` and ``token``), the
    optional ones with them when bound, else without; with none required, any one, or none.
    """
    named = [requirement for requirement in before if requirement]
    one = list(dict.fromkeys(key for key, _required in keys))
    if named:
        out = named + [((key, ()),) for key in one if ((key, ()),) not in named]
        return (*out, ()) if () in before else tuple(out)
    needed = [key for key, _scopes in implied[0]] if implied else []
    needed += [key for key, required in keys if required and key not in needed]
    optional = [key for key in one if key not in needed]
    if not needed:
        return (*(((key, ()),) for key in optional), ())
    together = tuple((key, ()) for key in (*needed, *optional))
    alone = tuple((key, ()) for key in needed)
    return (together, alone) if optional else (alone,)


def imply_security(api: Api, plan_: Plan) -> tuple[Api, Plan, list[Diagnostic]]:
    """The API and plan with the planned operations' credential parameters made their credentials."""
    planned = [v.op for pack in plan_.packs for v in pack.verbs]
    schemes = dict(api.security_schemes)
    replaced: dict[str, Operation] = {}
    security: dict[str, tuple[SecurityRequirement, ...]] = {}
    diags: list[Diagnostic] = []
    authorization = [op for op in planned if _needs(api, op)]
    if authorization:
        key = next(
            (
                k
                for k, s in api.security_schemes.items()
                if s.type == "apiKey" and s.location == "header" and s.param_name.lower() == "authorization"
            ),
            ADDED_SCHEME,
        )
        if key == ADDED_SCHEME:
            schemes[key] = SecurityScheme(
                key=key,
                type="apiKey",
                location="header",
                param_name="Authorization",
                description=str(_ADDED["description"]),
            )
        for op in authorization:
            security[op.key] = (((key, ()),),)
            replaced[op.key] = replace(op, security=security[op.key])
            diags.append(_authorization(api, op, key, key == ADDED_SCHEME))
    for op in planned:
        found = _credentials(api, op)
        if not found:
            continue
        keys = []
        for param in found:
            key, _added = _apikey_scheme(api, schemes, param)
            keys.append((key, param.required))
            diags.append(_recognised(op, param, key))
        security[op.key] = _alternatives(_requirements(api, op), security.get(op.key), keys)
        parameters = tuple(p for p in op.parameters if p not in found)
        replaced[op.key] = replace(replaced.get(op.key, op), security=security[op.key], parameters=parameters)
    if not replaced:
        return api, plan_, []
    added = {
        key: (dict(_ADDED) if key == ADDED_SCHEME else _scheme_json(scheme))
        for key, scheme in schemes.items()
        if key not in api.security_schemes
    }
    new_api = replace(
        api,
        security_schemes=schemes,
        document=_document(api, security, added),
        operations=tuple(replaced.get(op.key, op) for op in api.operations),
    )
    packs = tuple(
        PackPlan(pack.id, pack.group, tuple(replace(v, op=replaced.get(v.op.key, v.op)) for v in pack.verbs))
        for pack in plan_.packs
    )
    return new_api, replace(plan_, packs=packs), capped(diags)

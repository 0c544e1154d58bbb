"""A required ``Authorization`` header parameter on an operation with no security is a credential.

OpenAPI says a header parameter named Authorization SHALL be ignored: credentials belong to
security schemes. Some documents still declare one, required, on operations that name no security
(just-eat: "Containing a partner issued API key e.g. `JE-API-KEY ABCDE123456789`"); it is never an
argument (C121), so without this pass the pack could not send it and every call would be refused.

:func:`imply_security` gives each such selected operation a security requirement instead: the
document's own apiKey scheme in the ``Authorization`` header when it has one, else one packc adds
(``packc_authorization``). The operation in the model and in the document the pack carries gets
``security: [{key: []}]``; the document the front end read is not changed (copies on write). Each
is reported (warning C156) at the parameter, at most five, then a count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from packc.build.checks import capped
from packc.curate.plan import PackPlan, Plan
from packc.model import Api, Operation, SecurityScheme
from packc_runtime.diagnostics import Diagnostic

__all__ = ["ADDED_SCHEME", "imply_security"]

ADDED_SCHEME = "packc_authorization"
_ADDED = {
    "type": "apiKey",
    "in": "header",
    "name": "Authorization",
    "description": "The value of the Authorization header the document asks for as a parameter.",
}


def _needs(api: Api, op: Operation) -> bool:
    requirements = op.security if op.security is not None else api.security
    if any(requirement for requirement in requirements):
        return (
            False  # the document already names a credential (an Authorization parameter beside it is ignored)
        )
    return any(
        p.location == "header" and p.name.lower() == "authorization" and p.required for p in op.parameters
    )


def _scheme_key(api: Api) -> str | None:
    """The document's apiKey scheme sent in the Authorization header, if any."""
    for key, scheme in api.security_schemes.items():
        if (
            scheme.type == "apiKey"
            and scheme.location == "header"
            and scheme.param_name.lower() == "authorization"
        ):
            return key
    return None


def _document(api: Api, ops: list[Operation], key: str, add_scheme: bool) -> dict[str, Any]:
    """A shallow copy of the document whose path items of ``ops`` carry ``security: [{key: []}]``."""
    doc = dict(api.document)
    paths = dict(doc.get("paths") or {})
    for op in ops:
        item = api.deref(paths.get(op.path, {}))
        if not isinstance(item, Mapping) or not isinstance(item.get(op.method), Mapping):
            continue
        paths[op.path] = {**item, op.method: {**item[op.method], "security": [{key: []}]}}
    doc["paths"] = paths
    if add_scheme:
        components = dict(doc.get("components") or {})
        components["securitySchemes"] = {**(components.get("securitySchemes") or {}), key: dict(_ADDED)}
        doc["components"] = components
    return doc


def imply_security(api: Api, plan_: Plan) -> tuple[Api, Plan, list[Diagnostic]]:
    """The API and plan with the planned operations that need it given their Authorization credential."""
    ops = [v.op for pack in plan_.packs for v in pack.verbs if _needs(api, v.op)]
    if not ops:
        return api, plan_, []
    key = _scheme_key(api)
    add_scheme = key is None
    key = key or ADDED_SCHEME
    schemes = dict(api.security_schemes)
    if add_scheme:
        schemes[key] = SecurityScheme(
            key=key,
            type="apiKey",
            location="header",
            param_name="Authorization",
            description=str(_ADDED["description"]),
        )
    replaced = {op.key: replace(op, security=(((key, ()),),)) for op in ops}
    new_api = replace(
        api,
        security_schemes=schemes,
        document=_document(api, ops, key, add_scheme),
        operations=tuple(replaced.get(op.key, op) for op in api.operations),
    )
    packs = tuple(
        PackPlan(pack.id, pack.group, tuple(replace(v, op=replaced.get(v.op.key, v.op)) for v in pack.verbs))
        for pack in plan_.packs
    )
    diags = []
    for op in ops:
        param = next(p for p in op.parameters if p.location == "header" and p.name.lower() == "authorization")
        how = f"the document's scheme {key!r}" if not add_scheme else f"a scheme packc adds ({key!r})"
        diags.append(
            Diagnostic(
                "C156",
                "warning",
                param.pointer or op.pointer,
                f"The operation names no security but requires an Authorization header parameter: "
                f"the pack sends it as a credential with {how}, an API key in that header.",
                "Name the security scheme on the operation (or the document) instead of the parameter.",
            )
        )
    return new_api, replace(plan_, packs=packs), capped(diags)

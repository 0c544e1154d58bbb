"""Normalize servers and security: server URLs and variables, security schemes, requirements."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal
from urllib.parse import urljoin, urlsplit

from packc.model import JSON, OAuthFlow, SecurityRequirement, SecurityScheme, Server, ServerVariable
from packc.read._normalize_common import Context, ptr, text
from packc_runtime.rules import PATH_TEMPLATE

__all__ = ["read_security", "read_security_schemes", "read_servers"]

_SCHEME_TYPES = ("apiKey", "http", "oauth2", "openIdConnect", "mutualTLS")
FlowKind = Literal["implicit", "password", "clientCredentials", "authorizationCode"]
_FLOW_KINDS: tuple[FlowKind, ...] = ("implicit", "password", "clientCredentials", "authorizationCode")


def read_servers(ctx: Context, raw: JSON, where: str, *, default_root: bool = False) -> tuple[Server, ...]:
    """The usable servers of a ``servers`` list; relative URLs resolved against the document's URL."""
    if raw is None and default_root:
        # OpenAPI's default when servers is absent; without a document URL, D030 alone says so.
        raw = [{"url": "/"}] if ctx.base_url else []
    if not isinstance(raw, list):
        return ()
    out: list[Server] = []
    for index, entry in enumerate(raw):
        here = ptr(where, index)
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            ctx.warn("D031", here, "A server has no url; it is skipped.", "Give each server a url.")
            continue
        variables = _server_variables(ctx, entry.get("variables"), f"{here}/variables")
        url = entry["url"].strip()
        concrete = _substitute(url, variables)
        try:
            parts = urlsplit(concrete)
        except ValueError:  # "https://[::1/": a bracket never closed
            ctx.warn(
                "D031",
                f"{here}/url",
                f"The server URL {url!r} is not a URL; it is skipped.",
                "Give an http or https server URL.",
            )
            continue
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            if parts.scheme and parts.scheme.lower() not in ("http", "https"):
                ctx.warn(
                    "D031",
                    f"{here}/url",
                    f"The server URL {url!r} is not http(s); it is skipped.",
                    "Use an http or https server URL.",
                )
                continue
            if ctx.base_url is None:
                ctx.warn(
                    "D031",
                    f"{here}/url",
                    f"The server URL {url!r} is relative and the document was read from a file, so it has no origin.",
                    "Give an absolute server URL, or pass --server URL when compiling.",
                )
                continue
            url = urljoin(ctx.base_url, url)
        out.append(Server(url=url, description=text(entry.get("description")), variables=variables))
    return tuple(out)


def _server_variables(ctx: Context, raw: JSON, where: str) -> tuple[ServerVariable, ...]:
    if not isinstance(raw, dict):
        return ()
    out: list[ServerVariable] = []
    for name, var in raw.items():
        if not isinstance(var, dict):
            continue
        enum = (
            tuple(str(v) for v in var["enum"]) if isinstance(var.get("enum"), list) and var["enum"] else None
        )
        default = var.get("default")
        if not isinstance(default, str | int | float) or isinstance(default, bool):
            ctx.warn(
                "D032",
                ptr(where, name),
                f"The server variable {name!r} has no default.",
                "Give the variable a default value.",
            )
            default = enum[0] if enum else ""
        out.append(
            ServerVariable(
                name=str(name), default=str(default), enum=enum, description=text(var.get("description"))
            )
        )
    return tuple(out)


def _substitute(url: str, variables: tuple[ServerVariable, ...]) -> str:
    return PATH_TEMPLATE.sub(lambda m: _default_of(variables, m.group(1)), url)


def _default_of(variables: tuple[ServerVariable, ...], name: str) -> str:
    for variable in variables:
        if variable.name == name:
            return variable.default
    return "x"  # an undeclared variable: any placeholder shows whether the URL is absolute


def read_security_schemes(ctx: Context, raw: JSON) -> dict[str, SecurityScheme]:
    """``components.securitySchemes`` by key; schemes of no known type (or incomplete) are skipped."""
    out: dict[str, SecurityScheme] = {}
    if not isinstance(raw, dict):
        return out
    for key, value in raw.items():
        node, here = ctx.deref(value, ptr("#", "components", "securitySchemes", key))
        if not isinstance(node, dict) or node.get("type") not in _SCHEME_TYPES:
            ctx.warn(
                "D047",
                here,
                f"The security scheme {key!r} has no known type; it is skipped.",
                "Set type to apiKey, http, oauth2, openIdConnect or mutualTLS.",
            )
            continue
        kind = node["type"]
        location = node.get("in")
        if kind == "apiKey" and (
            location not in ("header", "query", "cookie") or not isinstance(node.get("name"), str)
        ):
            ctx.warn(
                "D047",
                here,
                f"The API key scheme {key!r} needs name and in (header, query or cookie).",
                "Add name and in.",
            )
            continue
        out[str(key)] = SecurityScheme(
            key=str(key),
            type=kind,
            description=text(node.get("description")),
            location=location if kind == "apiKey" else None,
            param_name=str(node.get("name", "")) if kind == "apiKey" else "",
            scheme=str(node.get("scheme", "")).lower() if kind == "http" else "",
            bearer_format=str(node.get("bearerFormat", "")) if kind == "http" else "",
            flows=_flows(node.get("flows")) if kind == "oauth2" else (),
            openid_connect_url=str(node.get("openIdConnectUrl", "")) if kind == "openIdConnect" else "",
        )
    return out


def _flows(raw: JSON) -> tuple[OAuthFlow, ...]:
    if not isinstance(raw, dict):
        return ()
    out: list[OAuthFlow] = []
    for kind in _FLOW_KINDS:
        flow = raw.get(kind)
        if isinstance(flow, dict):
            scopes = flow.get("scopes")
            out.append(
                OAuthFlow(
                    kind=kind,
                    authorization_url=str(flow.get("authorizationUrl", "")),
                    token_url=str(flow.get("tokenUrl", "")),
                    refresh_url=str(flow.get("refreshUrl", "")),
                    scopes=tuple(str(s) for s in scopes) if isinstance(scopes, dict) else (),
                )
            )
    return tuple(out)


def read_security(
    ctx: Context, raw: JSON, where: str, schemes: Mapping[str, SecurityScheme]
) -> tuple[SecurityRequirement, ...] | None:
    """A ``security`` list as an OR of ANDs; None when absent (or not a list: inherit).

    A requirement that names a scheme the document never defines can never be met (the pack would
    fail every call with invalid_pack): it is left out with D051, and the others are kept; when none
    is left, the operation is sent without credentials.
    """
    if raw is None:
        return None
    if not isinstance(raw, list):
        ctx.warn(
            "D046",
            where,
            "security must be a list of requirement objects; it is ignored.",
            "Write security as a list, e.g. [{apiKey: []}].",
        )
        return None
    out: list[SecurityRequirement] = []
    for index, requirement in enumerate(raw):
        if not isinstance(requirement, dict):
            continue
        unknown = [str(key) for key in requirement if key not in schemes]
        if unknown:
            others = sum(1 for r in raw if isinstance(r, dict) and all(k in schemes for k in r))
            ctx.warn(
                "D051",
                ptr(where, index, unknown[0]),
                f"The security requirement names the scheme {unknown[0]!r}, which components.securitySchemes "
                "does not define: it is left out of the pack"
                + (
                    f", which uses the {others} other requirement(s) here."
                    if others
                    else "; no requirement is left here, so the operation is sent without credentials."
                ),
                "Define the scheme under components.securitySchemes (an --overlay can add it) or fix the name.",
            )
            continue
        entries = [
            (str(k), tuple(str(s) for s in v) if isinstance(v, list) else ()) for k, v in requirement.items()
        ]
        out.append(tuple(entries))
    return tuple(out)

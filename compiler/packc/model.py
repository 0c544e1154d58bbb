"""The frozen intermediate model of an API: what normalize produces and every later stage reads.

Schemas stay JSON (dicts, or booleans in 3.1) in OpenAPI 3.x form with ``$ref``s that are internal
to ``Api.document`` (``#/components/...``): Swagger 2.0 refs are rewritten and external files are
bundled in by the front end. ``Api.deref`` follows a ref lazily, so the cost of reading schemas
follows what the selected operations reach.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from packc_runtime.openapi import unescape_token

JSON = Any  # a JSON value: dict, list, str, int, float, bool or None
Schema = Mapping[str, Any] | bool

ParamLocation = Literal["path", "query", "header", "cookie"]
HttpMethod = Literal["get", "put", "post", "delete", "options", "head", "patch", "trace"]
HTTP_METHODS: tuple[HttpMethod, ...] = (
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
)
SchemeType = Literal["apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"]


@dataclass(frozen=True, slots=True)
class Info:
    title: str
    version: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class ServerVariable:
    name: str
    default: str
    enum: tuple[str, ...] | None = None
    description: str = ""


@dataclass(frozen=True, slots=True)
class Server:
    """A server; ``url`` is absolute once the front end resolved it against the document's URL."""

    url: str
    description: str = ""
    variables: tuple[ServerVariable, ...] = ()


@dataclass(frozen=True, slots=True)
class OAuthFlow:
    kind: Literal["implicit", "password", "clientCredentials", "authorizationCode"]
    authorization_url: str = ""
    token_url: str = ""
    refresh_url: str = ""
    scopes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SecurityScheme:
    """A security scheme keyed by ``key`` in ``components.securitySchemes``."""

    key: str
    type: SchemeType
    description: str = ""
    location: Literal["header", "query", "cookie"] | None = None  # apiKey
    param_name: str = ""  # apiKey
    scheme: str = ""  # http: "basic", "bearer", ... (lower-cased)
    bearer_format: str = ""
    flows: tuple[OAuthFlow, ...] = ()  # oauth2
    openid_connect_url: str = ""


# One requirement is an AND of (scheme key, scopes); a list of them is an OR.
# The empty requirement () means "anonymous is allowed".
SecurityRequirement = tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True, slots=True)
class Example:
    value: JSON
    summary: str = ""


@dataclass(frozen=True, slots=True)
class Encoding:
    content_type: str = ""
    style: str | None = None
    explode: bool | None = None
    allow_reserved: bool = False
    headers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MediaType:
    content_type: str  # lower-cased, without parameters, e.g. "application/json"
    schema: Schema | None = None
    examples: tuple[Example, ...] = ()
    encoding: Mapping[str, Encoding] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Parameter:
    """A parameter after path-level and operation-level ones are merged by (name, location)."""

    name: str
    location: ParamLocation
    required: bool = False
    description: str = ""
    deprecated: bool = False
    schema: Schema | None = None
    style: str = ""  # the effective style (defaults applied by location)
    explode: bool = False  # the effective explode
    allow_reserved: bool = False
    content: MediaType | None = None  # a content-typed parameter (instead of schema)
    examples: tuple[Example, ...] = ()
    pointer: str = ""


@dataclass(frozen=True, slots=True)
class RequestBody:
    required: bool = False
    description: str = ""
    content: tuple[MediaType, ...] = ()  # in document order
    pointer: str = ""


@dataclass(frozen=True, slots=True)
class Response:
    status: str  # "200", "2XX", "default"
    description: str = ""
    content: tuple[MediaType, ...] = ()


@dataclass(frozen=True, slots=True)
class Operation:
    method: HttpMethod
    path: str  # the path template, e.g. "/pets/{petId}"
    operation_id: str | None = None
    summary: str = ""
    description: str = ""
    tags: tuple[str, ...] = ()
    deprecated: bool = False
    parameters: tuple[Parameter, ...] = ()
    request_body: RequestBody | None = None
    responses: tuple[Response, ...] = ()
    security: tuple[SecurityRequirement, ...] | None = None  # None: inherit the document's
    servers: tuple[Server, ...] = ()  # operation- or path-level servers, most specific first
    extensions: Mapping[str, JSON] = field(default_factory=dict)  # x-* keys of the operation
    pointer: str = ""  # e.g. "#/paths/~1pets/get"

    @property
    def key(self) -> str:
        """A stable identity: ``METHOD /path``."""
        return f"{self.method.upper()} {self.path}"


@dataclass(frozen=True, slots=True)
class Tag:
    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Api:
    """One API document, read and normalized.

    ``document`` is the whole document in OpenAPI 3.x form (Swagger 2.0 converted, external files
    bundled under ``components``); emit cuts it down to what the verbs reach.
    """

    source: str  # the path or URL it was read from
    source_version: str  # "2.0", "3.0.3", "3.1.0", ...
    info: Info
    servers: tuple[Server, ...]
    security_schemes: Mapping[str, SecurityScheme]
    security: tuple[SecurityRequirement, ...]  # document-level default
    operations: tuple[Operation, ...]  # in document order
    tags: tuple[Tag, ...] = ()
    document: Mapping[str, JSON] = field(default_factory=dict)
    extensions: Mapping[str, JSON] = field(default_factory=dict)  # x-* keys of the root

    def deref(self, node: JSON, *, limit: int = 64) -> JSON:
        """Follow ``$ref`` chains of ``node`` within ``document``; other nodes are returned as is.

        A cycle or a dangling ref returns the last node reached (a dict with ``$ref``), so callers
        never loop; they treat an unresolved ref as an opaque schema.
        """
        seen = 0
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and seen < limit:
            target = resolve_pointer(self.document, node["$ref"])
            if target is None:
                return node
            node = target
            seen += 1
        return node


def resolve_pointer(document: Mapping[str, JSON], ref: str) -> JSON | None:
    """Resolve an internal ref like ``#/components/schemas/Pet``; None when it does not exist."""
    if not ref.startswith("#"):
        return None
    fragment = ref[1:]
    if fragment in ("", "/"):
        return document
    node: JSON = document
    for raw in fragment.lstrip("/").split("/"):
        token = unescape_token(raw)
        if isinstance(node, Mapping):
            if token not in node:
                return None
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


"""The frozen intermediate model of an API: what normalize produces and every later stage reads.

Schemas stay JSON (dicts, or booleans in 3.1) in OpenAPI 3.x form with ``$ref``s that are internal
to ``Api.document`` (``#/components/...``): Swagger 2.0 refs are rewritten and external files are
bundled in by the front end. ``Api.deref`` follows a ref lazily, so the cost of reading schemas
follows what the selected operations reach. In the same spirit an operation's parameters, request
body and responses are read from the document on first use (see ``Operation``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from packc_runtime.diagnostics import Diagnostic
from packc_runtime.rules import HttpMethod, unescape_token

__all__ = [
    "JSON",
    "Api",
    "Encoding",
    "Example",
    "Info",
    "MediaType",
    "OAuthFlow",
    "Operation",
    "ParamLocation",
    "Parameter",
    "Parts",
    "RequestBody",
    "Response",
    "Schema",
    "SchemeType",
    "SecurityRequirement",
    "SecurityScheme",
    "Server",
    "ServerVariable",
    "Tag",
    "resolve_pointer",
]

JSON = Any  # a JSON value: dict, list, str, int, float, bool or None
Schema = Mapping[str, Any] | bool

ParamLocation = Literal["path", "query", "header", "cookie"]
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
    # The content key as the document spells it, e.g. "application/json; charset=utf-8": the runtime
    # looks a request body's media type up by it. "" when the media type was not read from a document.
    key: str = ""


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
    # The parameter's ``x-packc: {credential: true|false}``: whether it is the caller's credential
    # whatever its name says (None: its name and description decide, ``build/implied.py``).
    credential: bool | None = None


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


# What reads an operation's deferred parts: (parameters, request body, responses).
Parts = tuple[tuple[Parameter, ...], RequestBody | None, tuple[Response, ...]]
_DEFERRED = ("parameters", "request_body", "responses")  # in the order of Parts


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation.

    From normalize, ``parameters``, ``request_body`` and ``responses`` are read from the document
    on first use (planning needs none of them, derive only the selected operations'), then kept:
    to a reader they are plain fields of a frozen object (see ``_ReadOnFirstUse``). Warnings that
    reading reports are kept by the ``Api`` (``Api.read_parts``, ``Api.materialize``).
    """

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
    # Set by normalize, whose operations leave the three slots above empty: what reads them, once.
    # Declared last, so pickling (which reads the fields in order) fills the slots before it.
    _read_parts: Callable[[], Parts] | None = field(default=None, repr=False, compare=False)

    @property
    def key(self) -> str:
        """A stable identity: ``METHOD /path``."""
        return f"{self.method.upper()} {self.path}"


class _ReadOnFirstUse:
    """The attribute of one of ``Operation``'s deferred fields: the field's slot, filled on first read.

    ``dataclass(slots=True)`` stores each field in a slot, whose descriptor this one wraps. An
    operation from normalize leaves the three deferred slots empty and holds ``_read_parts``; the
    first read of any of them reads all three and fills their slots, once, through the slots' own
    descriptors (as the dataclass's ``__init__`` does: the frozen ``__setattr__`` stays closed to
    everyone else). Every later read is the slot's. To mypy the fields are the annotated ones above.
    """

    __slots__ = ("_slot",)

    def __init__(self, slot: Any) -> None:
        self._slot = slot  # the member descriptor of the field's slot

    def __get__(self, op: Operation | None, owner: type | None = None) -> Any:
        if op is None:
            return self
        try:
            return self._slot.__get__(op, owner)
        except AttributeError:  # an empty slot: the parts are still to be read
            _fill_parts(op)
            return self._slot.__get__(op, owner)

    def __set__(self, op: Operation, value: Any) -> None:  # the dataclass's __init__, replace, unpickling
        self._slot.__set__(op, value)

    def __delete__(self, op: Operation) -> None:
        self._slot.__delete__(op)


_SLOTS = {name: Operation.__dict__[name] for name in (*_DEFERRED, "_read_parts")}
for _name in _DEFERRED:
    setattr(Operation, _name, _ReadOnFirstUse(_SLOTS[_name]))


def _fill_parts(op: Operation) -> None:
    """Read ``op``'s deferred parts into their slots if they are still to be read."""
    read: Callable[[], Parts] | None = _SLOTS["_read_parts"].__get__(op, Operation)
    if read is None:  # read already, or built with its fields given
        return
    for name, value in zip(_DEFERRED, read(), strict=True):
        _SLOTS[name].__set__(op, value)
    _SLOTS["_read_parts"].__set__(op, None)


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
    # Warnings from reading operations' deferred parts, in the order they were read; normalize
    # shares the list with the reader that appends to it.
    _deferred: list[Diagnostic] = field(default_factory=list, repr=False, compare=False)

    def deferred_diagnostics(self) -> tuple[Diagnostic, ...]:
        """Warnings reported so far while reading operations' parameters, request bodies and responses.

        Normalize defers that reading to first use, so these cover the operations used so far;
        :meth:`read_parts` reads given operations first, :meth:`materialize` all of them.
        """
        return tuple(self._deferred)

    def read_parts(self, operations: Iterable[Operation]) -> tuple[Diagnostic, ...]:
        """Read the deferred parts of ``operations`` (this API's) now, those not read yet.

        Returns:
            Every warning reading parts has reported so far, in the order the parts were read:
            the operations' read before (planning reads some), then these.
        """
        for op in operations:
            _fill_parts(op)
        return tuple(self._deferred)

    def materialize(self) -> tuple[Diagnostic, ...]:
        """Read every operation's deferred parts now; returns every warning reading them reported.

        With the front end's own warnings, these are the whole document's: what
        ``read_api(..., eager=True)`` (and ``strict``) returns, which reads the parts during normalize.
        """
        # As in read_api: the cyclic GC would walk the acyclic document again and again while
        # thousands of model objects are allocated.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self.read_parts(self.operations)
        finally:
            if collecting:
                gc.enable()

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
        token = unescape_token(raw, fragment=True)
        if isinstance(node, Mapping):
            if token not in node:
                return None
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node

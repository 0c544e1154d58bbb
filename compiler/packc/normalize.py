"""Normalize stage: an OpenAPI 3.x dict into the frozen ``Api`` model (the only stage reading raw OpenAPI)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, Literal, TypeVar
from urllib.parse import urljoin, urlsplit

from packc_runtime.diagnostics import Diagnostic

from .model import (
    HTTP_METHODS,
    JSON,
    Api,
    Encoding,
    Example,
    Info,
    MediaType,
    OAuthFlow,
    Operation,
    Parameter,
    ParamLocation,
    RequestBody,
    Response,
    SecurityRequirement,
    SecurityScheme,
    Server,
    ServerVariable,
    Tag,
    resolve_pointer,
)

__all__ = ["normalize"]

_LOCATIONS: tuple[ParamLocation, ...] = ("path", "query", "header", "cookie")
_TEMPLATE = re.compile(r"\{([^{}/]+)\}")
_SCHEME_TYPES = ("apiKey", "http", "oauth2", "openIdConnect", "mutualTLS")
_FLOW_KINDS: tuple[FlowKind, ...] = ("implicit", "password", "clientCredentials", "authorizationCode")
_MAX_HOPS = 32
_SCHEMA_TYPES = (dict, bool)  # a tuple: `dict | bool` would build a union object on every call
_METHODS = frozenset(HTTP_METHODS)
_LOCATION_SET = frozenset(_LOCATIONS)
FlowKind = Literal["implicit", "password", "clientCredentials", "authorizationCode"]
_T = TypeVar("_T")


def _builder(cls: type[_T]) -> Callable[..., _T]:
    """A faster constructor of the frozen, slotted model class ``cls``, taking every field by keyword.

    The dataclass ``__init__`` of a frozen class sets each field with ``object.__setattr__(self,
    name, value)``; setting the slots through their descriptors builds the same object in half the
    time, which matters for the thousands of operations, parameters, responses and media types of a
    big document. Every field must be given (there are no defaults), so a field added to the model
    fails loudly here instead of being left unset.
    """
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make(*, {', '.join(names)}):", "    self = _new(_cls)"]
    for name in names:
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
        lines.append(f"    _set_{name}(self, {name})")
    lines.append("    return self")
    exec("\n".join(lines), namespace)
    make: Callable[..., _T] = namespace["make"]
    return make


_make_operation = _builder(Operation)
_make_parameter = _builder(Parameter)
_make_request_body = _builder(RequestBody)
_make_response = _builder(Response)
_make_media_type = _builder(MediaType)


def normalize(document: Mapping[str, JSON], *, source: str, source_version: str,
              base_url: str | None) -> tuple[Api, list[Diagnostic]]:
    """Read an OpenAPI 3.x document (refs internal) into an :class:`Api`.

    Args:
        document: the OpenAPI 3.x document (converted from 2.0 and bundled when needed).
        source: the path or URL it was read from (recorded in the model).
        source_version: the version the input declared ("2.0", "3.0.3", "3.1.0", ...).
        base_url: the document's URL when it was fetched, used to resolve relative server URLs.

    Returns:
        The model and warnings for the parts read with a guess or skipped.
    """
    reader = _Reader(document, base_url)
    api = reader.api(source, source_version)
    return api, reader.diagnostics


class _Reader:
    def __init__(self, document: Mapping[str, JSON], base_url: str | None) -> None:
        self.doc = document
        self.base_url = base_url
        self.diagnostics: list[Diagnostic] = []
        self._operation_ids: dict[str, tuple[str, str]] = {}  # operationId -> (method, path) of its first use
        self._targets: dict[str, JSON] = {}  # ref -> target; real documents repeat refs thousands of times
        # Objects shared through refs are read once: keyed by id() of the raw dict, which the
        # document keeps alive for the reader's lifetime.
        self._parameter_cache: dict[int, Parameter] = {}
        self._media_cache: dict[int, tuple[MediaType, ...]] = {}
        self._response_cache: dict[tuple[str, str], Response] = {}  # (status, $ref) -> Response
        self._content_types: dict[str, str] = {}  # raw media type key -> normalized content type

    def warn(self, code: str, where: str, message: str, fix: str) -> None:
        self.diagnostics.append(Diagnostic(code, "warning", where, message, fix))

    def deref(self, node: JSON, where: str) -> tuple[JSON, str]:
        """Follow internal refs; a dangling or circular ref gives (None, pointer) and a warning."""
        hops = 0
        while isinstance(node, dict) and "$ref" in node and isinstance(node["$ref"], str):
            ref = node["$ref"]
            target = self._targets.get(ref)
            if target is None:
                target = self._targets[ref] = resolve_pointer(self.doc, ref)
            if target is None:
                self.warn("D020", where, f"The $ref {ref!r} points at nothing in the document; the object is skipped.",
                          "Fix the ref so it names an existing component.")
                return None, where
            hops += 1
            if hops > _MAX_HOPS:
                self.warn("D025", where, f"The $ref {ref!r} is part of a cycle of refs; the object is skipped.",
                          "Break the cycle so the ref reaches a real object.")
                return None, where
            node, where = target, ref
        return node, where

    # -- document -------------------------------------------------------------------------------

    def api(self, source: str, source_version: str) -> Api:
        doc = self.doc
        info = self._info(doc.get("info"))
        servers = self._servers(doc.get("servers"), "#/servers", default_root=True)
        components = doc.get("components")
        raw_schemes = components.get("securitySchemes") if isinstance(components, dict) else None
        schemes = self._security_schemes(raw_schemes)
        security = self._security(doc.get("security"), "#/security", schemes) or ()
        operations = self._operations(doc.get("paths"), schemes)
        if not servers and not any(op.servers for op in operations):
            self.warn("D030", "#/servers", "The document names no usable server, so a pack has no origin to call.",
                      "Add an absolute URL under servers, or pass --server URL when compiling.")
        if not operations:
            self.warn("D048", "#/paths", "The document has no operations.", "Add operations under paths.")
        return Api(
            source=source,
            source_version=source_version,
            info=info,
            servers=servers,
            security_schemes=schemes,
            security=security,
            operations=tuple(operations),
            tags=self._tags(doc.get("tags")),
            document=doc,
            extensions={k: v for k, v in doc.items() if isinstance(k, str) and k.startswith("x-")},
        )

    def _info(self, raw: JSON) -> Info:
        if not isinstance(raw, dict):
            self.warn("D061", "#/info", "The document has no info object.", "Add info with a title and a version.")
            return Info(title="", version="")
        title, version = raw.get("title"), raw.get("version")
        if not isinstance(title, str) or not title:
            self.warn("D061", "#/info/title", "The document has no title.", "Add info.title.")
        return Info(title=title if isinstance(title, str) else "",
                    version=str(version) if isinstance(version, str | int | float) else "",
                    description=_text(raw.get("description")))

    def _tags(self, raw: JSON) -> tuple[Tag, ...]:
        if not isinstance(raw, list):
            return ()
        return tuple(Tag(name=t["name"], description=_text(t.get("description")))
                     for t in raw if isinstance(t, dict) and isinstance(t.get("name"), str))

    # -- servers --------------------------------------------------------------------------------

    def _servers(self, raw: JSON, where: str, *, default_root: bool = False) -> tuple[Server, ...]:
        if raw is None and default_root:
            # OpenAPI's default when servers is absent; without a document URL, D030 alone says so.
            raw = [{"url": "/"}] if self.base_url else []
        if not isinstance(raw, list):
            return ()
        out: list[Server] = []
        for index, entry in enumerate(raw):
            here = _ptr(where, index)
            if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
                self.warn("D031", here, "A server has no url; it is skipped.", "Give each server a url.")
                continue
            variables = self._server_variables(entry.get("variables"), f"{here}/variables")
            url = entry["url"].strip()
            concrete = _substitute(url, variables)
            parts = urlsplit(concrete)
            if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
                if parts.scheme and parts.scheme.lower() not in ("http", "https"):
                    self.warn("D031", f"{here}/url", f"The server URL {url!r} is not http(s); it is skipped.",
                              "Use an http or https server URL.")
                    continue
                if self.base_url is None:
                    self.warn("D031", f"{here}/url",
                              f"The server URL {url!r} is relative and the document was read from a file, so it has no origin.",
                              "Give an absolute server URL, or pass --server URL when compiling.")
                    continue
                url = urljoin(self.base_url, url)
            out.append(Server(url=url, description=_text(entry.get("description")), variables=variables))
        return tuple(out)

    def _server_variables(self, raw: JSON, where: str) -> tuple[ServerVariable, ...]:
        if not isinstance(raw, dict):
            return ()
        out: list[ServerVariable] = []
        for name, var in raw.items():
            if not isinstance(var, dict):
                continue
            enum = tuple(str(v) for v in var["enum"]) if isinstance(var.get("enum"), list) and var["enum"] else None
            default = var.get("default")
            if not isinstance(default, str | int | float) or isinstance(default, bool):
                self.warn("D032", _ptr(where, name), f"The server variable {name!r} has no default.",
                          "Give the variable a default value.")
                default = enum[0] if enum else ""
            out.append(ServerVariable(name=str(name), default=str(default), enum=enum,
                                      description=_text(var.get("description"))))
        return tuple(out)

    # -- security -------------------------------------------------------------------------------

    def _security_schemes(self, raw: JSON) -> dict[str, SecurityScheme]:
        out: dict[str, SecurityScheme] = {}
        if not isinstance(raw, dict):
            return out
        for key, value in raw.items():
            node, here = self.deref(value, _ptr("#", "components", "securitySchemes", key))
            if not isinstance(node, dict) or node.get("type") not in _SCHEME_TYPES:
                self.warn("D047", here, f"The security scheme {key!r} has no known type; it is skipped.",
                          "Set type to apiKey, http, oauth2, openIdConnect or mutualTLS.")
                continue
            kind = node["type"]
            location = node.get("in")
            if kind == "apiKey" and (location not in ("header", "query", "cookie") or not isinstance(node.get("name"), str)):
                self.warn("D047", here, f"The API key scheme {key!r} needs name and in (header, query or cookie).",
                          "Add name and in.")
                continue
            out[str(key)] = SecurityScheme(
                key=str(key), type=kind, description=_text(node.get("description")),
                location=location if kind == "apiKey" else None,
                param_name=str(node.get("name", "")) if kind == "apiKey" else "",
                scheme=str(node.get("scheme", "")).lower() if kind == "http" else "",
                bearer_format=str(node.get("bearerFormat", "")) if kind == "http" else "",
                flows=self._flows(node.get("flows")) if kind == "oauth2" else (),
                openid_connect_url=str(node.get("openIdConnectUrl", "")) if kind == "openIdConnect" else "",
            )
        return out

    def _flows(self, raw: JSON) -> tuple[OAuthFlow, ...]:
        if not isinstance(raw, dict):
            return ()
        out: list[OAuthFlow] = []
        for kind in _FLOW_KINDS:
            flow = raw.get(kind)
            if isinstance(flow, dict):
                scopes = flow.get("scopes")
                out.append(OAuthFlow(kind=kind, authorization_url=str(flow.get("authorizationUrl", "")),
                                     token_url=str(flow.get("tokenUrl", "")),
                                     refresh_url=str(flow.get("refreshUrl", "")),
                                     scopes=tuple(str(s) for s in scopes) if isinstance(scopes, dict) else ()))
        return tuple(out)

    def _security(self, raw: JSON, where: str,
                  schemes: Mapping[str, SecurityScheme]) -> tuple[SecurityRequirement, ...] | None:
        if raw is None:
            return None
        if not isinstance(raw, list):
            self.warn("D046", where, "security must be a list of requirement objects; it is ignored.",
                      "Write security as a list, e.g. [{apiKey: []}].")
            return None
        out: list[SecurityRequirement] = []
        for index, requirement in enumerate(raw):
            if not isinstance(requirement, dict):
                continue
            entries: list[tuple[str, tuple[str, ...]]] = []
            for key, scopes in requirement.items():
                if key not in schemes:
                    self.warn("D046", _ptr(where, index, key),
                              f"The security requirement names the unknown scheme {key!r}.",
                              "Define it under components.securitySchemes or fix the name.")
                entries.append((str(key), tuple(str(s) for s in scopes) if isinstance(scopes, list) else ()))
            out.append(tuple(entries))
        return tuple(out)

    # -- operations -----------------------------------------------------------------------------
    # The hot path: on a big document everything below runs once per operation, so it avoids work
    # whose result is not used (pointers are only built where a model field or a warning needs them).

    def _operations(self, raw: JSON, schemes: Mapping[str, SecurityScheme]) -> list[Operation]:
        out: list[Operation] = []
        if not isinstance(raw, dict):
            self.warn("D048", "#/paths", "The document has no paths object.", "Add paths.")
            return out
        methods = _METHODS
        for path, item in raw.items():
            if not isinstance(path, str) or path.startswith("x-"):
                continue
            where = "#/paths/" + _escape(path)
            if not path.startswith("/"):
                self.warn("D040", where, f"The path {path!r} does not start with '/'; it is skipped.",
                          "Start every path with '/'.")
                continue
            node = item if type(item) is dict and "$ref" not in item else self.deref(item, where)[0]
            if not isinstance(node, dict):
                self.warn("D040", where, "The path item is not an object; it is skipped.", "Make it an object.")
                continue
            raw_shared = node.get("parameters")
            shared = self._raw_parameters(raw_shared, f"{where}/parameters") if raw_shared is not None else []
            raw_servers = node.get("servers")
            path_servers = self._servers(raw_servers, f"{where}/servers") if raw_servers is not None else ()
            template: list[str] = _TEMPLATE.findall(path) if "{" in path else []
            for method, op in node.items():
                if method not in methods:
                    continue
                here = f"{where}/{method}"
                if not isinstance(op, dict):
                    self.warn("D040", here, "The operation is not an object; it is skipped.", "Make it an object.")
                    continue
                out.append(self._operation(method, path, op, here, node, shared, template, path_servers, schemes))
        return out

    def _operation(self, method: Any, path: str, op: dict[str, JSON], where: str, item: Mapping[str, JSON],
                   shared: list[tuple[Mapping[str, JSON], str]], template: list[str],
                   path_servers: tuple[Server, ...], schemes: Mapping[str, SecurityScheme]) -> Operation:
        get = op.get
        operation_id = get("operationId")
        if not isinstance(operation_id, str) or not operation_id:
            operation_id = None
        else:
            first = self._operation_ids.get(operation_id)
            if first is None:
                self._operation_ids[operation_id] = (method, path)
            else:
                self.warn("D044", f"{where}/operationId",
                          f"The operationId {operation_id!r} is also used by {first[0].upper()} {first[1]}.",
                          "Give every operation a unique operationId.")
        raw_own = get("parameters")
        own = self._raw_parameters(raw_own, f"{where}/parameters") if raw_own is not None else []
        tags = get("tags")
        summary = get("summary")
        description = get("description")
        raw_body = get("requestBody")
        return _make_operation(
            method=method,
            path=path,
            operation_id=operation_id,
            summary=summary if isinstance(summary, str) and summary else _text(item.get("summary")),
            description=(description if isinstance(description, str) and description
                         else _text(item.get("description"))),
            tags=tuple([t for t in tags if isinstance(t, str)]) if isinstance(tags, list) else (),
            deprecated=get("deprecated") is True,
            parameters=self._parameters(path, shared, own, where, template) if shared or own or template else (),
            request_body=self._request_body(raw_body, where) if raw_body is not None else None,
            responses=self._responses(get("responses"), where),
            security=self._security(op["security"], f"{where}/security", schemes) if "security" in op else None,
            servers=(self._servers(op["servers"], f"{where}/servers") + path_servers
                     if "servers" in op else path_servers),
            # Joining the keys is a cheap test that spares most operations the comprehension.
            extensions={k: v for k, v in op.items() if k.startswith("x-")} if "x-" in "\n".join(op) else {},
            pointer=where,
        )

    def _raw_parameters(self, raw: JSON, where: str) -> list[tuple[Mapping[str, JSON], str]]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            self.warn("D041", where, "parameters must be a list; it is ignored.", "Write parameters as a list.")
            return []
        out: list[tuple[Mapping[str, JSON], str]] = []
        locations = _LOCATION_SET
        targets = self._targets
        for index, entry in enumerate(raw):
            if type(entry) is dict and "$ref" not in entry:
                node, here = entry, f"{where}/{index}"
            elif (type(entry) is dict and type(ref := entry["$ref"]) is str
                  and type(target := targets.get(ref)) is dict and "$ref" not in target):
                node, here = target, ref  # a ref seen before, to an object: what deref would give
            else:
                node, here = self.deref(entry, f"{where}/{index}")
                if node is None:
                    continue
            if not isinstance(node, dict):
                name, location = None, None
            else:
                name, location = node.get("name"), node.get("in")
            if not isinstance(name, str) or not name or not isinstance(location, str) or location not in locations:
                self.warn("D041", here, "A parameter lacks a name or a valid 'in' (path, query, header, cookie); it is skipped.",
                          "Give the parameter a name and in.")
                continue
            out.append((node, here))
        return out

    def _parameters(self, path: str, shared: list[tuple[Mapping[str, JSON], str]],
                    own: list[tuple[Mapping[str, JSON], str]], where: str, template: list[str]) -> tuple[Parameter, ...]:
        given = shared + own if shared and own else shared or own
        if len(given) > 1:
            # Operation-level wins over path-level (a later duplicate keeps the first one's place).
            given = list({(node["name"], node["in"]): (node, here) for node, here in given}.values())
        cache = self._parameter_cache
        params: list[Parameter] = []
        declared: set[str] = set()
        for node, here in given:
            if node["in"] == "path":
                name = node["name"]
                if name not in template:
                    self.warn("D049", here, f"The path parameter {name!r} is not in the path {path!r}; it is skipped.",
                              "Remove it, or add {" + name + "} to the path.")
                    continue
                declared.add(name)
            parameter = cache.get(id(node))
            if parameter is None:
                parameter = cache[id(node)] = self._read_parameter(node, here)
            params.append(parameter)
        for name in template:
            if name not in declared:
                self.warn("D043", where, f"The path variable {{{name}}} has no parameter; it is read as a required string.",
                          "Declare it under parameters with in: path.")
                params.append(Parameter(name=name, location="path", required=True, schema={"type": "string"},
                                        style="simple", pointer=where))
                declared.add(name)
        return tuple(params)

    def _read_parameter(self, node: Mapping[str, JSON], where: str) -> Parameter:
        location: ParamLocation = node["in"]
        required = node.get("required") is True
        if location == "path" and not required:
            self.warn("D042", where, "A path parameter must be required; it is read as required.",
                      "Add required: true.")
            required = True
        style = node.get("style")
        if not isinstance(style, str):
            style = "form" if location in ("query", "cookie") else "simple"
        explode = node.get("explode")
        if not isinstance(explode, bool):
            explode = style == "form"
        schema = node.get("schema")
        content = None
        raw_content = node.get("content")
        if isinstance(raw_content, dict) and raw_content:
            media = self._media_types(raw_content, where)
            content = media[0] if media else None
        if schema is None and content is None:
            self.warn("D045", where, "The parameter has neither schema nor content; any string is accepted.",
                      "Add a schema.")
        elif not (isinstance(schema, _SCHEMA_TYPES) or schema is None):
            self.warn("D045", f"{where}/schema", "The parameter schema is not an object; it is ignored.",
                      "Make the schema an object.")
            schema = None
        return _make_parameter(
            name=node["name"],
            location=location,
            required=required,
            description=_text(node.get("description")),
            deprecated=node.get("deprecated") is True,
            schema=schema,
            style=style,
            explode=explode,
            allow_reserved=node.get("allowReserved") is True,
            content=content,
            examples=self._examples(node, where),
            pointer=where,
        )

    def _examples(self, node: Mapping[str, JSON], where: str) -> tuple[Example, ...]:
        if "example" not in node and "examples" not in node:
            return ()
        out: list[Example] = []
        if "example" in node:
            out.append(Example(value=node["example"]))
        examples = node.get("examples")
        if isinstance(examples, dict):
            for name, entry in examples.items():
                value, _ = self.deref(entry, _ptr(where, "examples", name))
                if isinstance(value, dict) and "value" in value:
                    out.append(Example(value=value["value"], summary=_text(value.get("summary"))))
        elif isinstance(examples, list):  # 3.1 schema-style examples given on the object
            out.extend(Example(value=v) for v in examples)
        return tuple(out)

    def _media_types(self, raw: JSON, base: str, *tokens: str) -> tuple[MediaType, ...]:
        """The media types of a content map; ``_ptr(base, *tokens)`` points at its owner (built only
        when an example needs a pointer)."""
        if not isinstance(raw, dict):
            return ()
        cached = self._media_cache.get(id(raw))
        if cached is None:
            cached = self._media_cache[id(raw)] = self._read_media_types(raw, base, tokens)
        return cached

    def _read_media_types(self, raw: dict[str, JSON], base: str, tokens: tuple[str, ...]) -> tuple[MediaType, ...]:
        content_types = self._content_types
        if len(raw) == 1:  # the common case, without examples or encodings: no merging, no pointers
            [(raw_type, entry)] = raw.items()
            if type(entry) is dict and "example" not in entry and "examples" not in entry and "encoding" not in entry:
                content_type = content_types.get(raw_type)
                if content_type is None:
                    content_type = content_types[raw_type] = str(raw_type).split(";", 1)[0].strip().lower()
                schema = entry.get("schema")
                return (_make_media_type(content_type=content_type,
                                         schema=schema if isinstance(schema, _SCHEMA_TYPES) else None,
                                         examples=(), encoding={}),)
        out: dict[str, MediaType] = {}
        for raw_type, entry in raw.items():
            content_type = content_types.get(raw_type)
            if content_type is None:
                content_type = content_types[raw_type] = str(raw_type).split(";", 1)[0].strip().lower()
            if content_type in out:
                continue
            node = entry if isinstance(entry, dict) else {}
            schema = node.get("schema")
            if not isinstance(schema, _SCHEMA_TYPES):
                schema = None
            examples: tuple[Example, ...] = ()
            if "example" in node or "examples" in node:
                # Pointers are only needed for diagnostics about examples; build them only then.
                here = (_ptr(base, *tokens, "content", raw_type) if "examples" in node
                        else _ptr(base, *tokens, "content"))
                examples = self._examples(node, here)
            encoding = node.get("encoding")
            out[content_type] = _make_media_type(
                content_type=content_type, schema=schema, examples=examples,
                encoding=self._encodings(encoding) if encoding else {})
        return tuple(out.values())

    def _encodings(self, raw: JSON) -> dict[str, Encoding]:
        if not isinstance(raw, dict):
            return {}
        out: dict[str, Encoding] = {}
        for name, entry in raw.items():
            if not isinstance(entry, dict):
                continue
            headers = entry.get("headers")
            out[str(name)] = Encoding(
                content_type=str(entry.get("contentType", "")),
                style=entry["style"] if isinstance(entry.get("style"), str) else None,
                explode=entry["explode"] if isinstance(entry.get("explode"), bool) else None,
                allow_reserved=entry.get("allowReserved") is True,
                headers=tuple(str(h) for h in headers) if isinstance(headers, dict) else (),
            )
        return out

    def _request_body(self, raw: JSON, operation: str) -> RequestBody | None:
        where = operation + "/requestBody"
        node, here = (raw, where) if isinstance(raw, dict) and "$ref" not in raw else self.deref(raw, where)
        if not isinstance(node, dict):
            return None
        content = self._media_types(node.get("content"), here)
        if not content:
            self.warn("D045", here, "The request body has no content types; it is ignored.",
                      "Add content, e.g. application/json with a schema.")
            return None
        return _make_request_body(required=node.get("required") is True, description=_text(node.get("description")),
                                  content=content, pointer=here)

    def _responses(self, raw: JSON, operation: str) -> tuple[Response, ...]:
        if not isinstance(raw, dict):
            return ()
        out: list[Response] = []
        cache = self._response_cache
        for status, entry in raw.items():
            if status.startswith("x-"):
                continue
            if type(entry) is dict and "$ref" not in entry:
                # Inline: its pointer is only needed for diagnostics about examples.
                description = entry.get("description")
                out.append(_make_response(
                    status=status, description=description if isinstance(description, str) else "",
                    content=self._media_types(entry.get("content"), operation, "responses", status)))
                continue
            # A response by ref depends only on its status and the ref: one Response serves every
            # operation using it (a failed ref is not kept, so its warning repeats where it is used).
            ref = entry.get("$ref") if isinstance(entry, dict) else None
            key = (status, ref) if isinstance(ref, str) else None
            response = cache.get(key) if key is not None else None
            if response is None:
                node, here = self.deref(entry, _ptr(operation, "responses", status))
                if not isinstance(node, dict):
                    continue
                description = node.get("description")
                response = _make_response(status=status, description=description if isinstance(description, str) else "",
                                          content=self._media_types(node.get("content"), here))
                if key is not None:
                    cache[key] = response
            out.append(response)
        return tuple(out)


def _ptr(base: str, *tokens: str | int) -> str:
    """A JSON pointer below ``base`` (a hot path: escapes only tokens that need it)."""
    return base + "".join("/" + _escape(str(token)) for token in tokens)


def _escape(text: str) -> str:
    return text.replace("~", "~0").replace("/", "~1") if "~" in text or "/" in text else text


def _substitute(url: str, variables: tuple[ServerVariable, ...]) -> str:
    return _TEMPLATE.sub(lambda m: _default_of(variables, m.group(1)), url)


def _default_of(variables: tuple[ServerVariable, ...], name: str) -> str:
    for variable in variables:
        if variable.name == name:
            return variable.default
    return "x"  # an undeclared variable: any placeholder shows whether the URL is absolute


def _text(value: JSON) -> str:
    return value if isinstance(value, str) else ""

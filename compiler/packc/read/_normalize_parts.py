"""Normalize an operation's deferred parts: parameters, request body, responses (and their media types).

Read on first use of an ``Operation``'s ``parameters``, ``request_body`` or ``responses`` (see
``packc.model.Operation``); ``normalize`` hands each operation a reader bound to its raw object.
"""

from __future__ import annotations

from collections.abc import Mapping

from packc.model import (
    JSON,
    Encoding,
    Example,
    MediaType,
    Parameter,
    ParamLocation,
    Parts,
    RequestBody,
    Response,
)
from packc.read._normalize_common import SCHEMA_TYPES, Context, builder, ptr, text
from packc_runtime.rules import template_names

__all__ = ["PartsReader", "PathItem"]

_LOCATIONS = frozenset(("path", "query", "header", "cookie"))
RawParameters = list[tuple[Mapping[str, JSON], str]]  # (parameter object, its pointer)

_make_parameter = builder(Parameter)
_make_request_body = builder(RequestBody)
_make_response = builder(Response)
_make_media_type = builder(MediaType)


class PathItem:
    """What the operations of one path item share, read once, when the first of them is read."""

    __slots__ = ("_shared", "node", "path", "where")

    def __init__(self, path: str, node: Mapping[str, JSON], where: str) -> None:
        self.path = path
        self.node = node
        self.where = where
        self._shared: RawParameters | None = None

    def shared(self, reader: PartsReader) -> RawParameters:
        """The path-level parameters (warnings about them are given once per path item)."""
        if self._shared is None:
            raw = self.node.get("parameters")
            self._shared = reader.raw_parameters(raw, f"{self.where}/parameters") if raw is not None else []
        return self._shared


class PartsReader:
    """Reads operations' parameters, request bodies and responses; shares what refs share."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # Objects shared through refs are read once: keyed by id() of the raw dict, which the
        # document keeps alive as long as the Api (and so this reader) lives.
        self._parameter_cache: dict[int, Parameter] = {}
        self._media_cache: dict[int, tuple[MediaType, ...]] = {}
        self._response_cache: dict[tuple[str, str], Response] = {}  # (status, $ref) -> Response
        self._content_types: dict[str, str] = {}  # raw media type key -> normalized content type

    def read(self, op: Mapping[str, JSON], where: str, item: PathItem) -> Parts:
        """The parts of the operation ``op`` at ``where`` in the path item ``item``."""
        shared = item.shared(self)
        raw_own = op.get("parameters")
        own = self.raw_parameters(raw_own, f"{where}/parameters") if raw_own is not None else []
        path = item.path
        template = template_names(path)
        raw_body = op.get("requestBody")
        return (
            self._parameters(path, shared, own, where, template) if shared or own or template else (),
            self._request_body(raw_body, where) if raw_body is not None else None,
            self._responses(op.get("responses"), where),
        )

    def raw_parameters(self, raw: JSON, where: str) -> RawParameters:
        """The usable parameter objects of a ``parameters`` list, refs followed."""
        ctx = self.ctx
        if raw is None:
            return []
        if not isinstance(raw, list):
            ctx.warn(
                "D041", where, "parameters must be a list; it is ignored.", "Write parameters as a list."
            )
            return []
        out: RawParameters = []
        locations = _LOCATIONS
        targets = ctx.targets
        for index, entry in enumerate(raw):
            if type(entry) is dict and "$ref" not in entry:
                node, here = entry, f"{where}/{index}"
            elif (
                type(entry) is dict
                and type(ref := entry["$ref"]) is str
                and type(target := targets.get(ref)) is dict
                and "$ref" not in target
            ):
                node, here = target, ref  # a ref seen before, to an object: what deref would give
            else:
                node, here = ctx.deref(entry, f"{where}/{index}")
                if node is None:
                    continue
            if not isinstance(node, dict):
                name, location = None, None
            else:
                name, location = node.get("name"), node.get("in")
            if (
                not isinstance(name, str)
                or not name
                or not isinstance(location, str)
                or location not in locations
            ):
                ctx.warn(
                    "D041",
                    here,
                    "A parameter lacks a name or a valid 'in' (path, query, header, cookie); it is skipped.",
                    "Give the parameter a name and in.",
                )
                continue
            out.append((node, here))
        return out

    def _parameters(
        self, path: str, shared: RawParameters, own: RawParameters, where: str, template: list[str]
    ) -> tuple[Parameter, ...]:
        ctx = self.ctx
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
                    ctx.warn(
                        "D049",
                        here,
                        f"The path parameter {name!r} is not in the path {path!r}; it is skipped.",
                        "Remove it, or add {" + name + "} to the path.",
                    )
                    continue
                declared.add(name)
            parameter = cache.get(id(node))
            if parameter is None:
                parameter = cache[id(node)] = self._read_parameter(node, here)
            params.append(parameter)
        for name in template:
            if name not in declared:
                ctx.warn(
                    "D043",
                    where,
                    f"The path variable {{{name}}} has no parameter; it is read as a required string.",
                    "Declare it under parameters with in: path.",
                )
                params.append(
                    Parameter(
                        name=name,
                        location="path",
                        required=True,
                        schema={"type": "string"},
                        style="simple",
                        pointer=where,
                    )
                )
                declared.add(name)
        return tuple(params)

    def _read_parameter(self, node: Mapping[str, JSON], where: str) -> Parameter:
        ctx = self.ctx
        location: ParamLocation = node["in"]
        required = node.get("required") is True
        if location == "path" and not required:
            ctx.warn(
                "D042",
                where,
                "A path parameter must be required; it is read as required.",
                "Add required: true.",
            )
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
            ctx.warn(
                "D045",
                where,
                "The parameter has neither schema nor content; any string is accepted.",
                "Add a schema.",
            )
        elif not (isinstance(schema, SCHEMA_TYPES) or schema is None):
            ctx.warn(
                "D045",
                f"{where}/schema",
                "The parameter schema is not an object; it is ignored.",
                "Make the schema an object.",
            )
            schema = None
        return _make_parameter(
            name=node["name"],
            location=location,
            required=required,
            description=text(node.get("description")),
            deprecated=node.get("deprecated") is True,
            schema=schema,
            style=style,
            explode=explode,
            allow_reserved=node.get("allowReserved") is True,
            content=content,
            examples=self._examples(node, where),
            pointer=where,
            credential=self._credential(node, where),
        )

    def _credential(self, node: Mapping[str, JSON], where: str) -> bool | None:
        """The parameter's ``x-packc: {credential: bool}``; anything else there is ignored (C102)."""
        raw = node.get("x-packc")
        if raw is None:
            return None
        if (
            not isinstance(raw, dict)
            or set(raw) - {"credential"}
            or not isinstance(raw.get("credential"), bool)
        ):
            self.ctx.warn(
                "C102",
                f"{where}/x-packc",
                "A parameter's x-packc takes one key, credential (true or false); it is ignored.",
                "Write x-packc: {credential: false} on a parameter that is not the caller's credential.",
            )
            return None
        return bool(raw["credential"])

    def _examples(self, node: Mapping[str, JSON], where: str) -> tuple[Example, ...]:
        if "example" not in node and "examples" not in node:
            return ()
        out: list[Example] = []
        if "example" in node:
            out.append(Example(value=node["example"]))
        examples = node.get("examples")
        if isinstance(examples, dict):
            for name, entry in examples.items():
                value, _ = self.ctx.deref(entry, ptr(where, "examples", name))
                if isinstance(value, dict) and "value" in value:
                    out.append(Example(value=value["value"], summary=text(value.get("summary"))))
        elif isinstance(examples, list):  # 3.1 schema-style examples given on the object
            out.extend(Example(value=v) for v in examples)
        return tuple(out)

    def _media_types(self, raw: JSON, base: str, *tokens: str) -> tuple[MediaType, ...]:
        """The media types of a content map; ``ptr(base, *tokens)`` points at its owner (built only
        when an example needs a pointer)."""
        if not isinstance(raw, dict):
            return ()
        cached = self._media_cache.get(id(raw))
        if cached is None:
            cached = self._media_cache[id(raw)] = self._read_media_types(raw, base, tokens)
        return cached

    def _read_media_types(
        self, raw: dict[str, JSON], base: str, tokens: tuple[str, ...]
    ) -> tuple[MediaType, ...]:
        content_types = self._content_types
        if len(raw) == 1:  # the common case, without examples or encodings: no merging, no pointers
            [(raw_type, entry)] = raw.items()
            if (
                type(entry) is dict
                and "example" not in entry
                and "examples" not in entry
                and "encoding" not in entry
            ):
                content_type = content_types.get(raw_type)
                if content_type is None:
                    content_type = content_types[raw_type] = str(raw_type).split(";", 1)[0].strip().lower()
                schema = entry.get("schema")
                return (
                    _make_media_type(
                        content_type=content_type,
                        schema=schema if isinstance(schema, SCHEMA_TYPES) else None,
                        examples=(),
                        encoding={},
                        key=raw_type if type(raw_type) is str else content_type,
                    ),
                )
        out: dict[str, MediaType] = {}
        for raw_type, entry in raw.items():
            content_type = content_types.get(raw_type)
            if content_type is None:
                content_type = content_types[raw_type] = str(raw_type).split(";", 1)[0].strip().lower()
            if content_type in out:
                continue
            node = entry if isinstance(entry, dict) else {}
            schema = node.get("schema")
            if not isinstance(schema, SCHEMA_TYPES):
                schema = None
            examples: tuple[Example, ...] = ()
            if "example" in node or "examples" in node:
                # Pointers are only needed for diagnostics about examples; build them only then.
                here = (
                    ptr(base, *tokens, "content", raw_type)
                    if "examples" in node
                    else ptr(base, *tokens, "content")
                )
                examples = self._examples(node, here)
            encoding = node.get("encoding")
            out[content_type] = _make_media_type(
                content_type=content_type,
                schema=schema,
                examples=examples,
                encoding=_encodings(encoding) if encoding else {},
                key=raw_type if type(raw_type) is str else content_type,
            )
        return tuple(out.values())

    def _request_body(self, raw: JSON, operation: str) -> RequestBody | None:
        where = operation + "/requestBody"
        node, here = (
            (raw, where) if isinstance(raw, dict) and "$ref" not in raw else self.ctx.deref(raw, where)
        )
        if not isinstance(node, dict):
            return None
        content = self._media_types(node.get("content"), here)
        if not content:
            self.ctx.warn(
                "D045",
                here,
                "The request body has no content types; it is ignored.",
                "Add content, e.g. application/json with a schema.",
            )
            return None
        return _make_request_body(
            required=node.get("required") is True,
            description=text(node.get("description")),
            content=content,
            pointer=here,
        )

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
                out.append(
                    _make_response(
                        status=status,
                        description=description if isinstance(description, str) else "",
                        content=self._media_types(entry.get("content"), operation, "responses", status),
                    )
                )
                continue
            # A response by ref depends only on its status and the ref: one Response serves every
            # operation using it (a failed ref is not kept, so its warning repeats where it is used).
            ref = entry.get("$ref") if isinstance(entry, dict) else None
            key = (status, ref) if isinstance(ref, str) else None
            response = cache.get(key) if key is not None else None
            if response is None:
                node, here = self.ctx.deref(entry, ptr(operation, "responses", status))
                if not isinstance(node, dict):
                    continue
                description = node.get("description")
                response = _make_response(
                    status=status,
                    description=description if isinstance(description, str) else "",
                    content=self._media_types(node.get("content"), here),
                )
                if key is not None:
                    cache[key] = response
            out.append(response)
        return tuple(out)


def _encodings(raw: JSON) -> dict[str, Encoding]:
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

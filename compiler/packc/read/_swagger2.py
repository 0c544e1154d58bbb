"""Convert a Swagger 2.0 document into an OpenAPI 3.0.3 document (new objects; the input is not changed)."""

from __future__ import annotations

from typing import Any

from packc.model import resolve_pointer
from packc_runtime.diagnostics import Diagnostic, pointer
from packc_runtime.rules import SWAGGER2_METHODS, unescape_token

__all__ = ["convert_swagger2"]

# Keys of a 2.0 non-body parameter that belong to its schema in 3.0.
_SCHEMA_FIELDS = (
    "type",
    "format",
    "items",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
)
_FLOWS = {
    "implicit": "implicit",
    "password": "password",
    "application": "clientCredentials",
    "accessCode": "authorizationCode",
}
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def convert_swagger2(doc: dict[str, Any]) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Convert a Swagger 2.0 document to OpenAPI 3.0.3.

    Refs are rewritten (``#/definitions/X`` → ``#/components/schemas/X``, ``#/parameters/X`` →
    ``#/components/parameters/X`` or ``.../requestBodies/X`` for body parameters, ``#/responses/X`` →
    ``#/components/responses/X``); body and formData parameters become request bodies by ``consumes``;
    responses get content by ``produces``; ``host``/``basePath``/``schemes`` become ``servers``.

    Returns:
        The 3.0.3 document and diagnostics for parts with no exact 3.0 equivalent.
    """
    return _Converter(doc).run()


class _Converter:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.diagnostics: list[Diagnostic] = []
        self.consumes = _str_list(doc.get("consumes")) or ["application/json"]
        self.produces = _str_list(doc.get("produces")) or ["application/json"]
        params = doc.get("parameters")
        self.global_params: dict[str, Any] = params if isinstance(params, dict) else {}

    def run(self) -> tuple[dict[str, Any], list[Diagnostic]]:
        doc = self.doc
        out: dict[str, Any] = {"openapi": "3.0.3"}
        info = doc.get("info")
        out["info"] = dict(info) if isinstance(info, dict) else {"title": "", "version": ""}
        servers = self._servers()
        if servers:
            out["servers"] = servers
        for key in ("tags", "externalDocs"):
            if key in doc:
                out[key] = doc[key]
        if isinstance(doc.get("security"), list):
            out["security"] = doc["security"]
        out["paths"] = self._paths()
        components = self._components()
        if components:
            out["components"] = components
        for key, value in doc.items():
            if isinstance(key, str) and key.startswith("x-"):
                out[key] = value
        return out, self.diagnostics

    def _warn(self, code: str, where: str, message: str, fix: str) -> None:
        self.diagnostics.append(Diagnostic(code, "warning", where, message, fix))

    # -- servers ------------------------------------------------------------------------------

    def _servers(self) -> list[dict[str, Any]]:
        host = self.doc.get("host")
        base_path = self.doc.get("basePath")
        base = base_path if isinstance(base_path, str) and base_path.startswith("/") else ""
        if not isinstance(host, str) or not host:
            # A relative server: the front end resolves it against the document's URL.
            return [{"url": base}] if base else []  # none: OpenAPI's default "/" applies
        schemes = [s for s in _str_list(self.doc.get("schemes")) if s in ("http", "https")] or ["https"]
        return [{"url": f"{scheme}://{host}{base}"} for scheme in schemes]

    # -- components -----------------------------------------------------------------------------

    def _components(self) -> dict[str, Any]:
        components: dict[str, Any] = {}
        definitions = self.doc.get("definitions")
        if isinstance(definitions, dict):
            components["schemas"] = {name: self.schema(s) for name, s in definitions.items()}
        parameters: dict[str, Any] = {}
        bodies: dict[str, Any] = {}
        for name, param in self.global_params.items():
            where = pointer("parameters", name)
            if not isinstance(param, dict):
                continue
            if param.get("in") == "body":
                bodies[name] = self._body_from_param(param, self.consumes)
            elif param.get("in") == "formData":
                self._warn(
                    "D050",
                    where,
                    "A shared formData parameter is merged into each request body that uses it.",
                    "",
                )
            else:
                parameters[name] = self._parameter(param, where)
        if parameters:
            components["parameters"] = parameters
        if bodies:
            components["requestBodies"] = bodies
        responses = self.doc.get("responses")
        if isinstance(responses, dict):
            components["responses"] = {
                name: self._response(r, self.produces) for name, r in responses.items()
            }
        schemes = self.doc.get("securityDefinitions")
        if isinstance(schemes, dict):
            components["securitySchemes"] = {
                name: self._security_scheme(s, pointer("securityDefinitions", name))
                for name, s in schemes.items()
                if isinstance(s, dict)
            }
        return components

    def _security_scheme(self, scheme: dict[str, Any], where: str) -> dict[str, Any]:
        kind = scheme.get("type")
        out: dict[str, Any] = {}
        if kind == "basic":
            out = {"type": "http", "scheme": "basic"}
        elif kind == "apiKey":
            out = {"type": "apiKey", "name": scheme.get("name", ""), "in": scheme.get("in", "header")}
        elif kind == "oauth2":
            flow = _FLOWS.get(str(scheme.get("flow")), "implicit")
            body: dict[str, Any] = {
                "scopes": scheme.get("scopes") if isinstance(scheme.get("scopes"), dict) else {}
            }
            if flow in ("implicit", "authorizationCode"):
                body["authorizationUrl"] = scheme.get("authorizationUrl", "")
            if flow != "implicit":
                body["tokenUrl"] = scheme.get("tokenUrl", "")
            out = {"type": "oauth2", "flows": {flow: body}}
        else:
            self._warn(
                "D047",
                where,
                f"The security scheme type {kind!r} is unknown; it is read as an API key header.",
                "Use basic, apiKey or oauth2.",
            )
            out = {"type": "apiKey", "name": "Authorization", "in": "header"}
        if isinstance(scheme.get("description"), str):
            out["description"] = scheme["description"]
        return out

    # -- paths and operations -------------------------------------------------------------------

    def _paths(self) -> dict[str, Any]:
        paths = self.doc.get("paths")
        out: dict[str, Any] = {}
        if not isinstance(paths, dict):
            return out
        for path, raw_item in paths.items():
            item = raw_item
            # A path item by $ref is converted where it is used: its target is 2.0 and 3.0 has no
            # components slot for path items.
            for _ in range(8):
                if not (isinstance(item, dict) and isinstance(item.get("$ref"), str)):
                    break
                target = resolve_pointer(self.doc, item["$ref"])
                if not isinstance(target, dict):
                    break
                item = target
            if not isinstance(item, dict):
                out[path] = item
                continue
            where = pointer("paths", path)
            new_item: dict[str, Any] = {}
            raw_shared = item.get("parameters")
            shared: list[Any] = raw_shared if isinstance(raw_shared, list) else []
            for key, value in item.items():
                if key in SWAGGER2_METHODS and isinstance(value, dict):
                    new_item[key] = self._operation(value, shared, pointer(key, base=where))
                elif key == "$ref" and isinstance(value, str):
                    new_item[key] = _rewrite_ref(value)
                elif key != "parameters":
                    new_item[key] = value
            out[path] = new_item
        return out

    def _operation(self, op: dict[str, Any], shared: list[Any], where: str) -> dict[str, Any]:
        consumes = _str_list(op.get("consumes")) or self.consumes
        produces = _str_list(op.get("produces")) or self.produces
        out: dict[str, Any] = {}
        for key, value in op.items():
            if key in ("parameters", "responses", "consumes", "produces", "schemes"):
                continue
            out[key] = value
        # Operation-level parameters override path-level ones with the same (name, in).
        merged: dict[tuple[str, str], tuple[Any, str]] = {}
        raw_own = op.get("parameters")
        own: list[Any] = raw_own if isinstance(raw_own, list) else []
        for source, items in (("path", shared), ("op", own)):
            for index, param in enumerate(items):
                resolved = self._deref_param(param)
                if not isinstance(resolved, dict):
                    continue
                base = pointer("parameters", index, base=where if source == "op" else where.rsplit("/", 1)[0])
                merged[(str(resolved.get("name")), str(resolved.get("in")))] = (param, base)
        parameters: list[Any] = []
        body: dict[str, Any] | None = None
        form: list[dict[str, Any]] = []
        for param, param_where in merged.values():
            resolved = self._deref_param(param)
            location = resolved.get("in")
            if location == "body":
                if isinstance(param, dict) and isinstance(param.get("$ref"), str):
                    body = {"$ref": _rewrite_ref(param["$ref"], body=True)}
                else:
                    body = self._body_from_param(resolved, consumes)
            elif location == "formData":
                form.append(resolved)
            elif isinstance(param, dict) and isinstance(param.get("$ref"), str):
                parameters.append({"$ref": _rewrite_ref(param["$ref"])})
            else:
                parameters.append(self._parameter(resolved, param_where))
        if form:
            if body is not None:
                self._warn(
                    "D050",
                    where,
                    "The operation has both a body and formData parameters; the formData ones are dropped.",
                    "Use either a body parameter or formData parameters.",
                )
            else:
                body = self._form_body(form, consumes)
        if parameters:
            out["parameters"] = parameters
        if body is not None:
            out["requestBody"] = body
        responses = op.get("responses")
        out["responses"] = (
            {code: self._response(r, produces) for code, r in responses.items()}
            if isinstance(responses, dict) and responses
            else {"default": {"description": ""}}
        )
        return out

    def _deref_param(self, param: Any) -> Any:
        if isinstance(param, dict) and isinstance(param.get("$ref"), str):
            ref = param["$ref"]
            if ref.startswith("#/parameters/"):
                return self.global_params.get(unescape_token(ref[len("#/parameters/") :], fragment=True), {})
        return param

    def _parameter(self, param: dict[str, Any], where: str) -> dict[str, Any]:
        location = param.get("in")
        out: dict[str, Any] = {"name": param.get("name", ""), "in": location}
        for key in ("description", "required", "allowEmptyValue", "deprecated"):
            if key in param:
                out[key] = param[key]
        if location == "path":
            out["required"] = True
        if location != "query":
            out.pop("allowEmptyValue", None)  # only query parameters may allow empty values
        out["schema"] = self._param_schema(param)
        style = _collection_style(param, str(location))
        if style is not None:
            if style[0] == "tsv":
                self._warn(
                    "D050",
                    where,
                    "collectionFormat tsv has no OpenAPI 3 equivalent; it is sent comma-separated.",
                    "Use csv, ssv, pipes or multi.",
                )
            else:
                out["style"], out["explode"] = style
        for key, value in param.items():
            if isinstance(key, str) and key.startswith("x-"):
                out[key] = value
        if "x-example" in param:
            out["example"] = param["x-example"]
        return out

    def _param_schema(self, param: dict[str, Any]) -> dict[str, Any]:
        schema = {k: param[k] for k in _SCHEMA_FIELDS if k in param}
        return self.schema(schema)  # type: ignore[no-any-return]

    def _body_from_param(self, param: dict[str, Any], consumes: list[str]) -> dict[str, Any]:
        schema = self.schema(param.get("schema", {}))
        types = [t for t in consumes if t not in _FORM_TYPES] or ["application/json"]
        body: dict[str, Any] = {"content": {t: {"schema": schema} for t in types}}
        if param.get("required"):
            body["required"] = True
        if isinstance(param.get("description"), str):
            body["description"] = param["description"]
        if isinstance(param.get("name"), str):
            body["x-body-name"] = param["name"]
        if "x-examples" in param and isinstance(param["x-examples"], dict):
            for media, example in param["x-examples"].items():
                if media in body["content"]:
                    body["content"][media]["example"] = example
        return body

    def _form_body(self, form: list[dict[str, Any]], consumes: list[str]) -> dict[str, Any]:
        has_file = any(p.get("type") == "file" for p in form)
        media = (
            "multipart/form-data"
            if has_file
            or ("multipart/form-data" in consumes and "application/x-www-form-urlencoded" not in consumes)
            else "application/x-www-form-urlencoded"
        )
        properties: dict[str, Any] = {}
        required: list[str] = []
        encoding: dict[str, Any] = {}
        for param in form:
            name = str(param.get("name", ""))
            prop = self._param_schema(param)
            if isinstance(param.get("description"), str):
                prop["description"] = param["description"]
            properties[name] = prop
            if param.get("required"):
                required.append(name)
            style = _collection_style(param, "query")
            if style is not None and style[0] != "tsv" and media == "application/x-www-form-urlencoded":
                encoding[name] = {"style": style[0], "explode": style[1]}
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        media_obj: dict[str, Any] = {"schema": schema}
        if encoding:
            media_obj["encoding"] = encoding
        body: dict[str, Any] = {"content": {media: media_obj}}
        if required:
            body["required"] = True
        return body

    def _response(self, response: Any, produces: list[str]) -> Any:
        if not isinstance(response, dict):
            return response
        if isinstance(response.get("$ref"), str):
            return {"$ref": _rewrite_ref(response["$ref"])}
        out: dict[str, Any] = {"description": response.get("description", "") or ""}
        if "schema" in response:
            schema = self.schema(response["schema"])
            out["content"] = {t: {"schema": schema} for t in produces}
            examples = response.get("examples")
            if isinstance(examples, dict):
                for media, example in examples.items():
                    if media in out["content"]:
                        out["content"][media]["example"] = example
        headers = response.get("headers")
        if isinstance(headers, dict):
            out["headers"] = {
                name: {
                    "schema": self._param_schema(h),
                    **({"description": h["description"]} if isinstance(h.get("description"), str) else {}),
                }
                for name, h in headers.items()
                if isinstance(h, dict)
            }
        for key, value in response.items():
            if isinstance(key, str) and key.startswith("x-"):
                out[key] = value
        return out

    # -- schemas --------------------------------------------------------------------------------

    def schema(self, node: Any, depth: int = 0) -> Any:
        """A 2.0 schema in 3.0 form: refs rewritten, ``file`` → binary string, ``x-nullable`` → ``nullable``."""
        if isinstance(node, list):
            return [self.schema(item, depth + 1) for item in node]
        if not isinstance(node, dict) or depth > 300:
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = _rewrite_ref(value)
            elif key == "collectionFormat":
                continue  # a 2.0 items field with no place in a 3.0 schema (style carries it)
            elif key == "x-nullable":
                out["nullable"] = bool(value)
            elif key == "type" and value == "file":
                out["type"], out["format"] = "string", "binary"
            elif key == "discriminator" and isinstance(value, str):
                out[key] = {"propertyName": value}
            elif key in ("example", "default", "enum", "x-example") or (
                isinstance(key, str) and key.startswith("x-")
            ):
                out[key] = value  # data, not schema: never rewrite inside
            elif key == "properties" and isinstance(value, dict):
                out[key] = {name: self.schema(v, depth + 1) for name, v in value.items()}
            else:
                out[key] = self.schema(value, depth + 1)
        return out


def _rewrite_ref(ref: str, *, body: bool = False) -> str:
    if ref.startswith("#/definitions/"):
        return "#/components/schemas/" + ref[len("#/definitions/") :]
    if ref.startswith("#/parameters/"):
        kind = "requestBodies" if body else "parameters"
        return f"#/components/{kind}/" + ref[len("#/parameters/") :]
    if ref.startswith("#/responses/"):
        return "#/components/responses/" + ref[len("#/responses/") :]
    return ref


def _collection_style(param: dict[str, Any], location: str) -> tuple[str, bool] | None:
    if param.get("type") != "array":
        return None
    fmt = param.get("collectionFormat", "csv")
    if fmt == "multi":
        return ("form", True)
    if fmt == "ssv":
        return ("spaceDelimited", False)
    if fmt == "pipes":
        return ("pipeDelimited", False)
    if fmt == "tsv":
        return ("tsv", False)
    return ("simple", False) if location in ("path", "header") else ("form", False)


def _str_list(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

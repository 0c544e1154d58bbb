"""Normalize stage: an OpenAPI 3.x dict into the frozen ``Api`` model (the only stage reading raw OpenAPI).

The document, its servers and security and every operation's identity (method, path, operationId,
texts, tags, security, servers, extensions) are read at once; an operation's parameters, request
body and responses are read on first use (``_normalize_parts``), unless ``eager`` asks for all now.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from packc.model import JSON, Api, Info, Operation, SecurityScheme, Tag
from packc.read._normalize_common import Context, builder, text
from packc.read._normalize_parts import PartsReader, PathItem
from packc.read._normalize_servers import read_security, read_security_schemes, read_servers
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.rules import HTTP_METHODS, escape_token

__all__ = ["normalize"]

_METHODS = frozenset(HTTP_METHODS)
_OPERATION_KEYS = frozenset(
    {
        "tags",
        "summary",
        "description",
        "externalDocs",
        "operationId",
        "parameters",
        "requestBody",
        "responses",
        "callbacks",
        "deprecated",
        "security",
        "servers",
    }
)
_DEFERRED = ("parameters", "request_body", "responses")
_make_operation = builder(Operation, skip=_DEFERRED)


def normalize(
    document: Mapping[str, JSON],
    *,
    source: str,
    source_version: str,
    base_url: str | None,
    eager: bool = False,
) -> tuple[Api, list[Diagnostic]]:
    """Read an OpenAPI 3.x document (refs internal) into an :class:`Api`.

    Args:
        document: the OpenAPI 3.x document (converted from 2.0 and bundled when needed).
        source: the path or URL it was read from (recorded in the model).
        source_version: the version the input declared ("2.0", "3.0.3", "3.1.0", ...).
        base_url: the document's URL when it was fetched, used to resolve relative server URLs.
        eager: also read every operation's parameters, request body and responses now, so the
            returned warnings are the whole document's (otherwise they are read on first use and
            their warnings kept by ``Api.deferred_diagnostics``).

    Returns:
        The model and warnings for the parts read with a guess or skipped.
    """
    reader = _Reader(document, base_url, eager)
    api = reader.api(source, source_version)
    found = reader.diagnostics
    reader.diagnostics = reader.deferred  # where what operations' parts report from now on goes
    return api, found


class _Reader(Context):
    def __init__(self, document: Mapping[str, JSON], base_url: str | None, eager: bool) -> None:
        super().__init__(document, base_url)
        self.eager = eager
        self.deferred: list[Diagnostic] = []  # the Api's: warnings from parts read after normalize
        self._operation_ids: dict[str, tuple[str, str]] = {}  # operationId -> (method, path) of its first use

    # -- document -------------------------------------------------------------------------------

    def api(self, source: str, source_version: str) -> Api:
        doc = self.doc
        info = self._info(doc.get("info"))
        servers = read_servers(self, doc.get("servers"), "#/servers", default_root=True)
        components = doc.get("components")
        raw_schemes = components.get("securitySchemes") if isinstance(components, dict) else None
        schemes = read_security_schemes(self, raw_schemes)
        security = read_security(self, doc.get("security"), "#/security", schemes) or ()
        operations = self._operations(doc.get("paths"), schemes)
        if not servers and not any(op.servers for op in operations):
            self.warn(
                "D030",
                "#/servers",
                "The document names no usable server, so a pack has no origin to call.",
                "Add an absolute URL under servers, or pass --server URL when compiling.",
            )
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
            _deferred=self.deferred,
        )

    def _info(self, raw: JSON) -> Info:
        if not isinstance(raw, dict):
            self.warn(
                "D061", "#/info", "The document has no info object.", "Add info with a title and a version."
            )
            return Info(title="", version="")
        title, version = raw.get("title"), raw.get("version")
        if not isinstance(title, str) or not title:
            self.warn("D061", "#/info/title", "The document has no title.", "Add info.title.")
        return Info(
            title=title if isinstance(title, str) else "",
            version=str(version) if isinstance(version, str | int | float) else "",
            description=text(raw.get("description")),
        )

    def _tags(self, raw: JSON) -> tuple[Tag, ...]:
        if not isinstance(raw, list):
            return ()
        return tuple(
            Tag(name=t["name"], description=text(t.get("description")))
            for t in raw
            if isinstance(t, dict) and isinstance(t.get("name"), str)
        )

    # -- operations -----------------------------------------------------------------------------
    # The hot path: on a big document everything below runs once per operation, so it reads only
    # what planning needs and avoids work whose result is not used (pointers are only built where
    # a model field or a warning needs them).

    def _operations(self, raw: JSON, schemes: Mapping[str, SecurityScheme]) -> list[Operation]:
        out: list[Operation] = []
        if not isinstance(raw, dict):
            self.warn("D048", "#/paths", "The document has no paths object.", "Add paths.")
            return out
        methods = _METHODS
        # Operations keep the parts reader (which keeps this one) until they are read; this reader
        # does not keep it, so no reference cycle holds the document after the Api is dropped.
        parts = PartsReader(self)
        read_parts = parts.read
        operation_ids = self._operation_ids
        for path, item in raw.items():
            if not isinstance(path, str) or path.startswith("x-"):
                continue
            where = "#/paths/" + escape_token(path)
            if not path.startswith("/"):
                self.warn(
                    "D040",
                    where,
                    f"The path {path!r} does not start with '/'; it is skipped.",
                    "Start every path with '/'.",
                )
                continue
            node = item if type(item) is dict and "$ref" not in item else self.deref(item, where)[0]
            if not isinstance(node, dict):
                self.warn(
                    "D040", where, "The path item is not an object; it is skipped.", "Make it an object."
                )
                continue
            path_item = PathItem(path, node, where)
            if self.eager:
                path_item.shared(parts)  # its parameters are warned about even with no operation
            # An operation without its own summary or description takes its path item's.
            item_summary, item_description = text(node.get("summary")), text(node.get("description"))
            raw_servers = node.get("servers")
            path_servers = (
                read_servers(self, raw_servers, f"{where}/servers") if raw_servers is not None else ()
            )
            for method, op in node.items():
                if method not in methods:
                    continue
                here = f"{where}/{method}"
                if type(op) is not dict:
                    self.warn(
                        "D040", here, "The operation is not an object; it is skipped.", "Make it an object."
                    )
                    continue
                # Inline, not a method: this runs once per operation of the document.
                get = op.get
                operation_id = get("operationId")
                if type(operation_id) is not str or not operation_id:
                    operation_id = None
                elif operation_id in operation_ids:
                    first = operation_ids[operation_id]
                    self.warn(
                        "D044",
                        f"{here}/operationId",
                        f"The operationId {operation_id!r} is also used by {first[0].upper()} {first[1]}.",
                        "Give every operation a unique operationId.",
                    )
                else:
                    operation_ids[operation_id] = (method, path)
                tags = get("tags")
                summary = get("summary")
                description = get("description")
                operation = _make_operation(
                    method=method,
                    path=path,
                    operation_id=operation_id,
                    summary=summary if type(summary) is str and summary else item_summary,
                    description=description if type(description) is str and description else item_description,
                    tags=_tag_names(tags),
                    deprecated=get("deprecated") is True,
                    security=(
                        read_security(self, op["security"], f"{here}/security", schemes)
                        if "security" in op
                        else None
                    ),
                    servers=(
                        read_servers(self, op["servers"], f"{here}/servers") + path_servers
                        if "servers" in op
                        else path_servers
                    ),
                    # Most operations have only OpenAPI's own keys: a set test spares them the comprehension.
                    extensions=(
                        {}
                        if op.keys() <= _OPERATION_KEYS
                        else {k: v for k, v in op.items() if k.startswith("x-")}
                    ),
                    pointer=here,
                    _read_parts=partial(read_parts, op, here, path_item),
                )
                if self.eager:
                    operation.parameters  # noqa: B018 - reading one deferred field reads all three
                out.append(operation)
        return out


def _tag_names(raw: JSON) -> tuple[str, ...]:
    if type(raw) is not list:
        return ()
    if len(raw) == 1 and type(raw[0]) is str:  # the common case
        return (raw[0],)
    return tuple([t for t in raw if type(t) is str])

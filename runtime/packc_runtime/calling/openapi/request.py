"""Build the httpx.Request for one bound operation, exactly as the document says."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import httpx

from packc_runtime.calling.openapi._forms import multipart_parts, urlencoded_body
from packc_runtime.calling.openapi._styles import (
    scalar_text,
    serialize_cookie,
    serialize_header,
    serialize_path,
    serialize_query,
)
from packc_runtime.calling.openapi.operations import Operation, Parameter, Server
from packc_runtime.credentials.origins import origin_of
from packc_runtime.errors import InvalidArgument, InvalidServer, MissingArgument
from packc_runtime.rules import PATH_TEMPLATE, RESERVED_HEADERS

__all__ = ["AuthParts", "build_request", "server_origins", "server_url"]

# A server variable may hold these only (no '/', '?', '#', '@', ':' or '\\' that would move the host).
_HOST_SAFE = re.compile(r"[A-Za-z0-9._~-]+")
_PATH_SAFE = re.compile(r"[A-Za-z0-9._~!$&'()*+,;=:@/-]+")
_MAX_FILE = 100 * 1024 * 1024
DEFAULT_ACCEPT = "application/json, */*;q=0.5"


class AuthParts:
    """What the chosen security requirement adds to a request; all of it is a credential."""

    __slots__ = ("cookies", "headers", "query")

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}
        self.query: list[tuple[str, str]] = []
        self.cookies: list[tuple[str, str]] = []

    def __repr__(self) -> str:  # values are secrets: show only where they go
        return (
            f"AuthParts(headers={sorted(self.headers)}, query={[k for k, _ in self.query]}, "
            f"cookies={[k for k, _ in self.cookies]})"
        )


def _check_override(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidServer(f"The server URL {url!r} must be an absolute http(s) URL.")
    if parts.username is not None or parts.password is not None or parts.fragment:
        raise InvalidServer("The server URL may not carry user:password@ or a #fragment.")
    return url


def server_url(
    op: Operation, *, override: str | None = None, variables: Mapping[str, str] | None = None
) -> str:
    """The base URL for ``op``: ``override`` as given, else its first server with variables filled.

    Variable values come from ``variables`` (checked against ``enum``) or the defaults. Values that
    would move the URL's host (``/``, ``?``, ``#``, ``@``, ``:``...) are refused.
    """
    if override:
        return _check_override(override.rstrip("/"))
    if not op.servers:
        raise InvalidServer("The document names no server for this operation; pass a server URL (--server).")
    server: Server = op.servers[0]
    variables = dict(variables or {})
    template = server.url
    authority_end = _authority_end(template)

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        spec = server.variables.get(name, {})
        value = variables.get(name, spec.get("default") if isinstance(spec, Mapping) else None)
        if value is None:
            raise InvalidServer(f"Server variable {name!r} has no value and no default.")
        value = str(value)
        enum = spec.get("enum") if isinstance(spec, Mapping) else None
        if name in variables and isinstance(enum, list) and enum and value not in [str(e) for e in enum]:
            raise InvalidServer(f"Server variable {name!r} must be one of {enum}, not {value!r}.")
        in_host = match.start() < authority_end
        if not (_HOST_SAFE if in_host else _PATH_SAFE).fullmatch(value) or ".." in value.split("/"):
            raise InvalidServer(
                f"Server variable {name!r} value {value!r} would change the URL's host or path "
                "structure; it is refused."
            )
        if in_host and name in variables and not enum and value != str(spec.get("default")):
            # Without an enum, an override may pick a port, or a label under a fixed parent domain
            # ("{region}.api.example.com"), never the host itself ("{host}/api").
            is_port = template[match.start() - 1] == ":"
            under_fixed_domain = re.match(
                r"[A-Za-z0-9-]*\.[A-Za-z0-9-]", template[match.end() : authority_end]
            )
            if not (value.isdigit() if is_port else under_fixed_domain):
                raise InvalidServer(
                    f"Server variable {name!r} value {value!r} would change the URL's host; it is "
                    "refused (the document gives no enum of allowed hosts)."
                )
        return value

    url = PATH_TEMPLATE.sub(fill, template).rstrip("/")
    if not urlsplit(url).scheme:
        raise InvalidServer(
            f"The document's server URL {url or '/'!r} is relative; pass an absolute one (--server)."
        )
    return _check_override(url)


def server_origins(
    op: Operation, variables: Mapping[str, str] | None = None, *, every_enum: bool = False
) -> tuple[str, ...]:
    """The origins of the operation's document servers, in order, variables filled.

    Variables take the given values, else their defaults; with ``every_enum``, also every value of
    their enums (a region or a sandbox host the document lists), at most 64 URLs per server.
    Servers whose URL cannot be built are skipped.
    """
    out: list[str] = []
    for server in op.servers:
        choices: list[dict[str, str]] = [dict(variables or {})]
        if every_enum:
            for name, spec in server.variables.items():
                enum = spec.get("enum") if isinstance(spec, Mapping) else None
                if isinstance(enum, list) and name not in (variables or {}):
                    choices = [{**c, name: str(v)} for c in choices for v in enum][:64] or choices
        for chosen in choices:
            try:
                origin = origin_of(server_url(op._replace(servers=(server,)), variables=chosen))
            except InvalidServer:
                continue
            if origin and origin not in out:
                out.append(origin)
    return tuple(out)


def _authority_end(template: str) -> int:
    start = template.find("://")
    if start < 0:
        return 0
    slash = template.find("/", start + 3)
    return len(template) if slash < 0 else slash


def _param_for(op: Operation, location: str, name: str) -> Parameter:
    param = op.parameters.get((location, name))
    if param is None:  # bound but undeclared: serialize with the location's defaults
        style = "simple" if location in ("path", "header") else "form"
        param = Parameter(name, location, style, style == "form", False, {})  # type: ignore[arg-type]
    return param


def _read_file(arg: str, value: Any) -> tuple[str, bytes]:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"Argument {arg!r} must be the path of a file to upload.", argument=arg)
    path = Path(value).expanduser()
    try:
        if path.stat().st_size > _MAX_FILE:
            raise InvalidArgument(f"The file for {arg!r} is larger than {_MAX_FILE} bytes.", argument=arg)
        return path.name, path.read_bytes()
    except OSError as exc:
        raise InvalidArgument(f"The file for {arg!r} cannot be read: {exc.strerror}.", argument=arg) from None


def _is_binary(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        schema.get("format") == "binary" or "contentMediaType" in schema or "contentEncoding" in schema
    )


def _body(
    op: Operation, body_args: Mapping[str | None, tuple[str, Any]]
) -> tuple[dict[str, Any], str | None]:
    """httpx keyword arguments for the body and the Content-Type to send (None: httpx sets it)."""
    ctype = op.content_type or "application/json"
    base = ctype.split(";")[0].strip().lower()
    schema = op.body_schema or {}
    props: Mapping[str, Any] = schema["properties"] if isinstance(schema.get("properties"), Mapping) else {}
    whole = body_args.get(None)
    if whole is not None:
        arg, value = whole
        if base == "application/json" or base.endswith("+json"):
            return {"content": json.dumps(value, ensure_ascii=False).encode()}, ctype
        if base.startswith("text/"):
            return {"content": scalar_text(value).encode()}, ctype
        if base in ("application/x-www-form-urlencoded", "multipart/form-data") and isinstance(
            value, Mapping
        ):
            body_args = {str(k): (arg, v) for k, v in value.items()}
        else:
            return {"content": _read_file(arg, value)[1]}, ctype  # octet-stream and other binary types
    fields = {name: value for name, (_, value) in body_args.items() if name is not None}
    arg_of = {name: arg for name, (arg, _) in body_args.items() if name is not None}
    if base == "application/x-www-form-urlencoded":
        return {"content": urlencoded_body(fields, op.body_encoding, arg_of)}, ctype
    if base == "multipart/form-data":
        # Every part, text ones included, goes in ``files`` (text parts with no filename), in the
        # binding's order: httpx encodes ``data`` without ``files`` as a urlencoded form instead.
        def is_file(name: str) -> bool:
            prop = props.get(name, {})
            items = prop.get("items") if isinstance(prop, Mapping) and prop.get("type") == "array" else None
            return _is_binary(prop) or _is_binary(items)

        parts = multipart_parts(
            fields,
            op.body_encoding,
            {name: is_file(name) for name in fields},
            lambda name, item: _read_file(arg_of[name], item),
            arg_of,
        )
        if not parts:
            return _empty_multipart()
        return {"files": parts}, None
    return {"content": json.dumps(fields, ensure_ascii=False).encode()}, ctype


def _empty_multipart() -> tuple[dict[str, Any], str]:
    """A multipart/form-data body with no part (httpx sends nothing for an empty ``files``)."""
    boundary = os.urandom(16).hex()
    return {"content": f"--{boundary}--\r\n".encode()}, f"multipart/form-data; boundary={boundary}"


def _declared_header(op: Operation, name: str) -> Parameter | None:
    """The header parameter the document declares under ``name`` (any case), if any."""
    for (location, declared), param in op.parameters.items():
        if location == "header" and declared.lower() == name:
            return param
    return None


def _is_json(media: str) -> bool:
    base = media.split(";")[0].strip().lower()
    return base == "application/json" or base.endswith("+json")


def _header_ok(value: str) -> bool:
    return bool(value) and value.isascii() and not any(ch in value for ch in "\r\n\x00")


def _choices(param: Parameter | None) -> list[str]:
    """The values a declared Accept/Content-Type parameter allows (``const``/``enum``); [] = any."""
    if param is None:
        return []
    schema = param.schema
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    return [v for v in values if isinstance(v, str) and _header_ok(v)] if isinstance(values, list) else []


def _default(param: Parameter | None) -> str | None:
    value = param.schema.get("default") if param is not None else None
    return value if isinstance(value, str) and _header_ok(value) else None


def _pick(choices: list[str], preferred: tuple[str, ...]) -> str:
    """A preferred choice (JSON first among them), else a JSON one, else the first."""
    ranked = (
        [c for c in choices if c in preferred and _is_json(c)]
        + [c for c in choices if c in preferred]
        + [c for c in choices if _is_json(c)]
    )
    return ranked[0] if ranked else choices[0]


def _accept(op: Operation) -> str:
    """Accept: one value a declared Accept parameter allows (its enum), else the declared response
    media types (JSON first, the others at q=0.9) and then anything at q=0.5 (error bodies)."""
    declared = _declared_header(op, "accept")
    types = [t.strip() for t in op.response_types if _header_ok(t) and "," not in t]
    choices = _choices(declared)
    if choices:
        return _pick(choices, tuple(types))
    if not types:
        return _default(declared) or DEFAULT_ACCEPT
    if types == ["application/json"]:
        return DEFAULT_ACCEPT
    json_types = [t for t in types if _is_json(t)]
    others = [t for t in types if not _is_json(t) and t != "*/*"]
    if not json_types and not others:
        return DEFAULT_ACCEPT
    if json_types:
        others = [f"{t};q=0.9" for t in others]
    return ", ".join([*json_types, *others, "*/*;q=0.5"])


def _bodyless_content_type(op: Operation) -> str | None:
    """The Content-Type of a request without a body: only when the document requires the header
    (an argument never fills it): an allowed value, else its default, else the binding's type."""
    declared = _declared_header(op, "content-type")
    if declared is None or not declared.required:
        return None
    preferred = (op.content_type,) if op.content_type else ()
    choices = _choices(declared)
    if choices:
        return _pick(choices, preferred)
    return _default(declared) or op.content_type or "application/json"


def _refuse_shadowing(arg: str, location: str, names: Iterable[str], credentials: set[str]) -> None:
    """Refuse an argument that would be sent under the name a credential is sent under, in the same place.

    Beside the credential (``?api_key=ATTACKER&api_key=REAL``) or in place of it, the argument
    could decide which key the server reads; the credential must always win. Names are compared
    without case (``casefold``): a server that reads query keys or cookies case-insensitively
    (ASP.NET) would see ``?API_KEY=ATTACKER&api_key=REAL`` as two values of one key. The compiler
    leaves such parameters out of args (C159); this is the runtime's own check (older or
    hand-written packs).
    """
    if not credentials:
        return
    folded = {c.casefold() for c in credentials}
    for name in names:
        if name.casefold() in folded:
            raise InvalidArgument(
                f"Argument {arg!r} would be sent as {name!r} in the {location}, where a credential "
                "is sent; it is refused (the credential always wins).",
                argument=arg,
            )


def build_request(
    op: Operation, args: Mapping[str, Any], base_url: str, auth: AuthParts | None = None
) -> httpx.Request:
    """The request for ``op`` with ``args`` (already validated) against ``base_url``.

    Path values are percent-encoded within their segment; query pieces are appended in a fixed
    order after any query of the server URL; headers are checked for CR, LF, NUL and non-ASCII.
    """
    auth = auth or AuthParts()
    path_values: dict[str, str] = {}
    query: list[str] = []
    headers: list[tuple[str, str]] = []
    cookies: list[tuple[str, str]] = []
    cookie_strings: list[str] = []
    body_args: dict[str | None, tuple[str, Any]] = {}
    for arg, binding in op.args.items():
        if arg not in args or args[arg] is None:
            continue
        value = args[arg]
        name = binding.name if binding.name is not None else arg
        if binding.location == "body":
            body_args[binding.name] = (arg, value)
        elif binding.location == "path":
            text = serialize_path(_param_for(op, "path", name), value)
            if text in ("", ".", ";" + name + "="):
                raise InvalidArgument(f"Path argument {arg!r} may not be empty.", argument=arg)
            path_values[name] = text
        elif binding.location == "query":
            pieces = serialize_query(_param_for(op, "query", name), value)
            _refuse_shadowing(
                arg,
                "query",
                (unquote(p.split("=", 1)[0]) for q in pieces for p in q.split("&")),
                {k for k, _ in auth.query},
            )
            query.extend(pieces)
        elif binding.location == "header" and name.lower() == "cookie":
            # A declared Cookie header parameter (vtex: session cookies from an earlier call) is a
            # cookie string; it opens the one Cookie header, before the cookie parameters.
            text = serialize_header(_param_for(op, "header", name), value)
            _refuse_shadowing(
                arg,
                "cookie",
                (c.split("=", 1)[0].strip() for c in text.split(";")),
                {k for k, _ in auth.cookies},
            )
            cookie_strings.append(text)
        elif binding.location == "header":
            if name.lower() not in RESERVED_HEADERS:  # OpenAPI: these are set by the runtime, not by args
                _refuse_shadowing(arg, "header", (name.lower(),), {k.lower() for k in auth.headers})
                headers.append((name, serialize_header(_param_for(op, "header", name), value)))
        else:
            pairs = serialize_cookie(_param_for(op, "cookie", name), value)
            _refuse_shadowing(arg, "cookie", (k for k, _ in pairs), {k for k, _ in auth.cookies})
            cookies.extend(pairs)

    def fill(match: re.Match[str]) -> str:
        if match.group(1) not in path_values:
            raise MissingArgument(
                f"{op.verb}: missing required path argument for {{{match.group(1)}}}.",
                missing=[match.group(1)],
            )
        return path_values[match.group(1)]

    # Path values are percent-encoded, so a '?' or '#' left is the template's own: a path key may
    # carry a query ("/rest?method=x"), whose pairs come first; a fragment is never sent.
    path, _, template_query = PATH_TEMPLATE.sub(fill, op.path).partition("#")[0].partition("?")
    if any(segment in (".", "..") for segment in path.split("/")):
        # label-style prefixes and delimiters are literal dots: empty items can make a dot segment
        raise InvalidArgument(
            f"{op.verb}: the path values would form a '.' or '..' segment, which would leave the "
            "path template; refused."
        )
    base = urlsplit(base_url)
    pieces = [piece for piece in (base.query, template_query) if piece]
    pieces.extend(query)
    pieces.extend(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in auth.query)
    url = f"{base.scheme}://{base.netloc}{base.path.rstrip('/')}{path}"
    if pieces:
        url += "?" + "&".join(pieces)
    for key, value in auth.headers.items():
        headers = [(k, v) for k, v in headers if k.lower() != key.lower()]
        headers.append((key, value))
    all_cookies = [text for text in cookie_strings if text] + [f"{k}={v}" for k, v in cookies + auth.cookies]
    if all_cookies:
        headers.append(("Cookie", "; ".join(all_cookies)))
    extra: dict[str, Any] = {}
    ctype: str | None = None
    if body_args:
        extra, ctype = _body(op, body_args)
    elif op.body_required and op.content_type:
        # A required body whose fields are all optional and absent is still sent: empty, of its type.
        base_type = op.content_type.split(";")[0].strip().lower()
        if _is_json(base_type):
            extra = {"content": b"[]" if (op.body_schema or {}).get("type") == "array" else b"{}"}
            ctype = op.content_type
        elif base_type == "application/x-www-form-urlencoded":
            extra, ctype = {"content": b""}, op.content_type
        elif base_type == "multipart/form-data":
            extra, ctype = _empty_multipart()
    if ctype is None and "files" not in extra:
        ctype = _bodyless_content_type(op)
    if ctype:
        headers.append(("Content-Type", ctype))
    headers.append(("Accept", _accept(op)))
    try:
        return httpx.Request(op.method, httpx.URL(url), headers=headers, **extra)
    except (httpx.InvalidURL, UnicodeEncodeError, ValueError) as exc:
        raise InvalidArgument(f"{op.verb}: the request cannot be built: {exc}.") from None

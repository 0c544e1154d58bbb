"""Facts the compiler and the runtime both decide by: one home each, imported by both (habit 17).

HTTP methods, the headers that are never arguments, the ``{name}`` template grammar of paths and
server URLs, the ``{{name}}`` placeholder grammar of titles, cards and cli lines, the JSON Schema
keywords that hold subschemas (and one walker over them), and JSON-pointer token escaping.
Standard library only: it is on a pack call's start-up path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal
from urllib.parse import unquote

__all__ = [
    "HTTP_METHODS",
    "OPENAPI_IGNORED_HEADERS",
    "PATH_TEMPLATE",
    "PLACEHOLDER",
    "PLACEHOLDER_NAME",
    "RESERVED_HEADERS",
    "SCHEMA_LIST_KEYWORDS",
    "SCHEMA_MAP_KEYWORDS",
    "SCHEMA_ONE_KEYWORDS",
    "SWAGGER2_METHODS",
    "HttpMethod",
    "escape_token",
    "subschemas",
    "template_names",
    "unescape_token",
]

# --- HTTP methods ---------------------------------------------------------------------------------

HttpMethod = Literal["get", "put", "post", "delete", "options", "head", "patch", "trace"]
# The operations of an OpenAPI 3 path item, in the specification's order (tests check it is
# HttpMethod's own list).
HTTP_METHODS: tuple[HttpMethod, ...] = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# Swagger 2.0's path item has no trace.
SWAGGER2_METHODS: tuple[HttpMethod, ...] = tuple(m for m in HTTP_METHODS if m != "trace")

# --- headers that are never arguments ----------------------------------------------------------

# OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored.
OPENAPI_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
# Never an argument, whatever the document declares (lower case): those OpenAPI ignores, and those
# that frame, route or negotiate the message (Content-Length, Transfer-Encoding, Host, Expect...):
# an argument must never be able to desynchronise the request (smuggling) or redirect it. The
# compiler makes no argument of them and the runtime drops them. A declared ``Cookie`` header
# parameter is not among them (OpenAPI does not say so): its value joins the cookie parameters.
RESERVED_HEADERS = OPENAPI_IGNORED_HEADERS | frozenset(
    {
        "content-length",
        "transfer-encoding",
        "host",
        "connection",
        "upgrade",
        "te",
        "trailer",
        "keep-alive",
        "proxy-authorization",
        "proxy-connection",
        "expect",
    }
)

# --- the two template grammars ------------------------------------------------------------------

# ``{name}`` in a path or a server URL (OpenAPI path templating, server variables). A name never
# holds "/": a template expression stands in one path segment, so ``{a/b}`` is literal text.
PATH_TEMPLATE = re.compile(r"\{([^{}/]+)\}")
# ``{{name}}`` or ``{{result.a.b}}`` in titles, preview cards and cli lines; whitespace inside the
# braces is tolerated. PLACEHOLDER finds every one as written (lint checks each name); only a name
# that fits PLACEHOLDER_NAME is filled when a title or a card is rendered.
PLACEHOLDER = re.compile(r"\{\{\s*([^{}\s]*)\s*\}\}")
PLACEHOLDER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def template_names(path: str) -> list[str]:
    """The ``{name}`` template names of a path or server URL, in order."""
    return PATH_TEMPLATE.findall(path) if "{" in path else []


# --- subschemas ----------------------------------------------------------------------------------

# The keywords whose value is one subschema: JSON Schema 2020-12's applicators, contentSchema, and
# additionalItems (draft 4 to 2019-09, which OpenAPI 3.0 documents still use).
SCHEMA_ONE_KEYWORDS = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
# Whose value is an array of subschemas (``items`` too in its draft-4 tuple form).
SCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
# Whose value is an object of subschemas under any names (``definitions`` is draft 4 to 7's $defs).
SCHEMA_MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
)


def subschemas(schema: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Each direct subschema of ``schema`` (a mapping or a boolean) with its relative JSON pointer
    (``properties/a~1b``, ``allOf/0``), in ``schema``'s key order. Values of the wrong shape are skipped.
    """
    for key, value in schema.items():
        if key in SCHEMA_ONE_KEYWORDS and isinstance(value, Mapping | bool):
            yield key, value
        elif (key in SCHEMA_LIST_KEYWORDS or key == "items") and isinstance(value, list):
            yield from ((f"{key}/{i}", v) for i, v in enumerate(value) if isinstance(v, Mapping | bool))
        elif key in SCHEMA_MAP_KEYWORDS and isinstance(value, Mapping):
            yield from (
                (f"{key}/{escape_token(str(k))}", v)
                for k, v in value.items()
                if isinstance(v, Mapping | bool)
            )


# --- JSON pointers (RFC 6901) ---------------------------------------------------------------------


def escape_token(token: str | int) -> str:
    """Escape one JSON-pointer reference token: ``~`` → ``~0``, then ``/`` → ``~1``."""
    text = str(token)
    return text.replace("~", "~0").replace("/", "~1") if "~" in text or "/" in text else text


def unescape_token(token: str, *, fragment: bool = False) -> str:
    """Decode one reference token: ``~1`` → ``/``, then ``~0`` → ``~`` (in that order).

    With ``fragment``, the token comes from a ``#/...`` URI fragment and is percent-decoded first.
    """
    if fragment and "%" in token:
        token = unquote(token)
    return token.replace("~1", "/").replace("~0", "~") if "~" in token else token

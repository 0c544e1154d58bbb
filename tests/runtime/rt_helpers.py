"""Helpers for the runtime tests: an httpx request seen through openapi-core's Request protocol."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote

import httpx
from openapi_core.datatypes import RequestParameters  # noqa: TID251 - tests may use openapi-core
from werkzeug.datastructures import Headers, ImmutableMultiDict


def _query_pairs(query: str) -> list[tuple[str, str]]:
    # openapi-core splits spaceDelimited values on a literal "%20" after decoding (a quirk of
    # openapi_core.deserializing.styles.util): keep "%20" encoded so it sees what a server sees.
    marker = "\x00SP\x00"
    pairs = parse_qsl(query.replace("%20", marker), keep_blank_values=True)
    return [(k.replace(marker, " "), v.replace(marker, "%20")) for k, v in pairs]


class OpenApiRequest:
    """An httpx request seen through openapi-core's Request protocol."""

    def __init__(self, request: httpx.Request, path: dict[str, str] | None = None) -> None:
        self.host_url = f"{request.url.scheme}://{request.url.netloc.decode()}"
        self.path = request.url.raw_path.decode().split("?")[0]
        self.method = request.method.lower()
        self.body: bytes | None = request.content or None
        self.content_type = request.headers.get("content-type", "").lower()
        cookies = [tuple(p.split("=", 1)) for p in request.headers.get("cookie", "").split("; ") if "=" in p]
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(_query_pairs(request.url.query.decode())),
            header=Headers(dict(request.headers)),
            cookie=ImmutableMultiDict([(k, unquote(v)) for k, v in cookies]),
            path=path or {},
        )

"""Apply an operation's security requirements: API keys, HTTP basic/bearer, OAuth2 tokens."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, urljoin

import httpx

from .credentials import CredentialSlot, CredentialSources
from .errors import InvalidPack, MissingCredentials, Unauthorized
from .openapi import Operation, resolve
from .redact import Redactor
from .request import AuthParts
from .send import Steps

__all__ = ["Authenticator"]

# Sends the token request: a generator of send effects whose result is a Received.
TokenSender = Callable[[httpx.Request], Steps]
_EXPIRY_MARGIN = 30.0
_POLL = 0.02  # seconds between checks while another call fetches the same token


def _header_safe(env: str, value: str) -> str:
    if any(ch in value for ch in "\r\n\x00") or not value.isascii():
        raise MissingCredentials(f"The credential in {env} contains CR, LF, NUL or non-ASCII characters; "
                                 "it cannot be sent in a header.", env=[env])
    return value


class Authenticator:
    """Turns the first satisfiable security requirement of an operation into request parts."""

    def __init__(self, document: Mapping[str, Any], slots: Sequence[CredentialSlot], sources: CredentialSources,
                 redactor: Redactor) -> None:
        components = document.get("components")
        schemes = components.get("securitySchemes", {}) if isinstance(components, Mapping) else {}
        self._document = document
        self._schemes: Mapping[str, Any] = schemes if isinstance(schemes, Mapping) else {}
        self._slots: dict[str, dict[str, str]] = {}
        for slot in slots:
            self._slots.setdefault(slot.scheme, {})[slot.kind] = slot.env
        self._sources = sources
        self._redactor = redactor
        self._tokens: dict[tuple[str, str, str], tuple[str, float]] = {}
        self._fetching: set[tuple[str, str, str]] = set()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Authenticator(schemes={sorted(self._schemes)})"

    def _value(self, env: str, *, env_only: bool) -> str | None:
        value = self._sources.from_env(env) if env_only else self._sources.get(env)
        if value:
            self._redactor.add_secret(value)
        return value

    def _values(self, scheme_key: str, *, env_only: bool = False) -> dict[str, str] | None:
        """The scheme's credential values by slot kind, or None when any is missing."""
        wanted = self._slots.get(scheme_key, {})
        out = {}
        for kind, env in wanted.items():
            value = self._value(env, env_only=env_only)
            if value is None:
                return None
            out[kind] = value
        return out

    def _scheme(self, key: str) -> Mapping[str, Any]:
        scheme = resolve(self._document, self._schemes.get(key))
        return scheme if isinstance(scheme, Mapping) else {}

    def _header(self, key: str) -> str | None:
        """The request header scheme ``key`` writes (lower-cased), or None (query, cookie, unknown)."""
        scheme = self._scheme(key)
        if scheme.get("type") == "apiKey":
            return str(scheme.get("name", "")).lower() if scheme.get("in") == "header" else None
        return "authorization" if scheme.get("type") in ("http", "oauth2", "openIdConnect") else None

    def _alternatives(self, requirement: Mapping[str, Sequence[str]]) -> list[list[str]]:
        """The requirement's schemes as groups, one scheme of each group to be applied.

        Schemes of one AND-requirement that write the same header cannot all be applied: a request
        carries one ``Authorization`` (azure containerregistry: http basic AND an apiKey named
        Authorization). They form one group, http schemes first (their header also satisfies the
        apiKey's presence), then document order; every other scheme is a group of its own.
        """
        by_header: dict[str, list[str]] = {}
        out: list[list[str]] = []
        for key in requirement:
            header = self._header(key)
            if header is None:
                out.append([key])
            elif header in by_header:
                by_header[header].append(key)
            else:
                by_header[header] = [key]
                out.append(by_header[header])
        return [sorted(group, key=lambda k: self._scheme(k).get("type") != "http") for group in out]

    def _met(self, requirement: Mapping[str, Sequence[str]], *, env_only: bool) -> dict[str, dict[str, str]] | None:
        """The values of the schemes to apply for ``requirement``, or None when it cannot be met."""
        found: dict[str, dict[str, str]] = {}
        for group in self._alternatives(requirement):
            for key in group:
                values = self._values(key, env_only=env_only)
                if values is not None:
                    found[key] = values
                    break
            else:
                return None
        return found

    def _choose(self, security: Sequence[Mapping[str, Sequence[str]]]
                ) -> tuple[Mapping[str, Sequence[str]], dict[str, dict[str, str]]] | None:
        """The requirement to apply and the values of the schemes applied: the first requirement the
        environment alone meets (no keyring or file is touched), else the first all sources meet.
        Of schemes that write the same header, the first with a bound credential is applied."""
        for env_only in (True, False):
            for requirement in security:
                found = self._met(requirement, env_only=env_only)
                if found is not None:
                    return requirement, found
        return None

    def apply(self, op: Operation, base_url: str, send: TokenSender) -> Steps:
        """The parts for the first requirement whose credentials are all present.

        A generator of send effects (see :class:`~packc_runtime.send.Sender`): an OAuth2 token
        may have to be fetched first, with ``send(request)`` (itself a generator of effects).

        Raises:
            MissingCredentials: no requirement can be met; names the variables to set.
        """
        if not op.security:
            return AuthParts()
        chosen = self._choose(op.security)
        if chosen is not None:
            requirement, found = chosen
            parts = AuthParts()
            for key, values in found.items():
                yield from self._apply_one(key, values, requirement[key], parts, base_url, send)
            return parts
        names = sorted({env for req in op.security for key in req for env in self._slots.get(key, {}).values()})
        raise MissingCredentials(
            f"{op.verb} needs credentials: set " + (" or ".join(names) if names else "a supported scheme") +
            " (environment, keyring via 'connect', or the credentials file).", env=names)

    def _apply_one(self, key: str, values: Mapping[str, str], scopes: Sequence[str], parts: AuthParts,
                   base_url: str, send: TokenSender) -> Steps:
        scheme = resolve(self._document, self._schemes.get(key))
        if not isinstance(scheme, Mapping):
            raise InvalidPack(f"Security scheme {key!r} is not defined in the pack's document.")
        kind = scheme.get("type")
        env = self._slots.get(key, {})
        if kind == "apiKey":
            name, where, value = str(scheme.get("name", "")), scheme.get("in"), values["api_key"]
            if where == "header":
                parts.headers[name] = _header_safe(env["api_key"], value)
            elif where == "query":
                self._redactor.add_query_key(name)
                parts.query.append((name, value))
            elif where == "cookie":
                parts.cookies.append((name, quote(value, safe="")))
        elif kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
            raw = f"{values['username']}:{values['password']}".encode()
            token = base64.b64encode(raw).decode("ascii")
            self._redactor.add_secret(token)
            parts.headers["Authorization"] = "Basic " + _header_safe(env["username"], token)
        elif kind == "http":
            label = str(scheme.get("scheme", "bearer"))
            label = "Bearer" if label.lower() == "bearer" else label
            parts.headers["Authorization"] = f"{label} {_header_safe(env['token'], values['token'])}"
        elif kind == "oauth2" and "client_id" in values:
            token = yield from self._client_credentials(key, scheme, values, scopes, base_url, send)
            parts.headers["Authorization"] = f"Bearer {_header_safe(env['client_id'], token)}"
        elif kind in ("oauth2", "openIdConnect"):
            parts.headers["Authorization"] = f"Bearer {_header_safe(env['token'], values['token'])}"

    def _client_credentials(self, key: str, scheme: Mapping[str, Any], values: Mapping[str, str],
                            scopes: Sequence[str], base_url: str, send: TokenSender) -> Steps:
        flow = scheme.get("flows", {}).get("clientCredentials", {})
        token_url = urljoin(base_url + "/", str(flow.get("tokenUrl", "")))
        cache_key = (key, values["client_id"], token_url)
        while True:  # single flight: concurrent calls wait for the one token request in progress
            with self._lock:
                cached = self._tokens.get(cache_key)
                if cached and cached[1] > time.monotonic():
                    return cached[0]
                if cache_key not in self._fetching:
                    self._fetching.add(cache_key)
                    break
            yield ("sleep", _POLL)  # ends when the other fetch does (its deadline bounds it)
        try:
            token, lifetime = yield from self._fetch_token(values, scopes, token_url, send)
            with self._lock:
                self._tokens[cache_key] = (token, time.monotonic() + max(0.0, lifetime - _EXPIRY_MARGIN))
        finally:
            with self._lock:
                self._fetching.discard(cache_key)
        return token

    def _fetch_token(self, values: Mapping[str, str], scopes: Sequence[str], token_url: str,
                     send: TokenSender) -> Steps:
        form = "grant_type=client_credentials"
        if scopes:
            form += "&scope=" + quote(" ".join(scopes), safe="")
        basic = base64.b64encode(
            f"{quote(values['client_id'], safe='')}:{quote(values['client_secret'], safe='')}".encode()).decode()
        self._redactor.add_secret(basic)
        request = httpx.Request("POST", token_url, content=form.encode(), headers={
            "Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json"})
        response = yield from send(request)
        try:
            data = json.loads(response.content)
        except ValueError:
            data = None
        if response.status != 200 or not isinstance(data, dict) or not isinstance(data.get("access_token"), str):
            raise Unauthorized(f"The OAuth2 token endpoint refused the client credentials (HTTP {response.status}).",
                               status=response.status)
        token: str = data["access_token"]
        self._redactor.add_secret(token)
        expires = data.get("expires_in")
        lifetime = float(expires) if isinstance(expires, (int, float)) and not isinstance(expires, bool) else 3600.0
        return token, lifetime

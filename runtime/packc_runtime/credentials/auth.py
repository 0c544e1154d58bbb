"""Apply an operation's security requirements: API keys, HTTP basic/bearer, OAuth2 tokens."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import quote, urljoin

import httpx

from packc_runtime.calling.openapi.operations import Operation, resolve
from packc_runtime.calling.openapi.request import AuthParts
from packc_runtime.calling.send import Steps
from packc_runtime.credentials.oauth_tokens import TokenSets, parse_token_set, token_answer
from packc_runtime.credentials.origins import origin_of, secure_url
from packc_runtime.credentials.redact import Redactor
from packc_runtime.credentials.slots import CredentialSlot, CredentialSources
from packc_runtime.errors import (
    InsecureServer,
    InvalidPack,
    MissingCredentials,
    PackRuntimeError,
    UnapprovedCredentials,
    Unauthorized,
    UntrustedServer,
)

__all__ = ["Authenticator"]

# Sends the token request: a generator of send effects whose result is a Received.
TokenSender = Callable[[httpx.Request], Steps]
_EXPIRY_MARGIN = 30.0
_POLL = 0.02  # seconds between checks while another call fetches the same token


def _header_safe(env: str, value: str) -> str:
    if any(ch in value for ch in "\r\n\x00") or not value.isascii():
        raise MissingCredentials(
            f"The credential in {env} contains CR, LF, NUL or non-ASCII characters; "
            "it cannot be sent in a header.",
            env=[env],
        )
    return value


class _Reach(NamedTuple):
    """Where one call's credentials go: the request's origin and the pack's own server origins."""

    base_url: str
    target: str
    home: tuple[str, ...]  # the origins of the operation's document servers


class Authenticator:
    """Turns the first satisfiable security requirement of an operation into request parts.

    A value is used only for an origin it is bound to (see :class:`CredentialSources`): a slot's
    name comes from the document, so the name alone never decides where a secret goes.
    """

    def __init__(
        self,
        document: Mapping[str, Any],
        slots: Sequence[CredentialSlot],
        sources: CredentialSources,
        redactor: Redactor,
        *,
        connect_command: str = "packc connect PACK",
    ) -> None:
        components = document.get("components")
        schemes = components.get("securitySchemes", {}) if isinstance(components, Mapping) else {}
        self._document = document
        self._schemes: Mapping[str, Any] = schemes if isinstance(schemes, Mapping) else {}
        self._slots: dict[str, dict[str, str]] = {}
        for slot in slots:
            for key in slot.schemes:
                self._slots.setdefault(key, {})[slot.kind] = slot.env
        self._sources = sources
        self._redactor = redactor
        self._connect = connect_command
        self._tokens: dict[tuple[str, str, str], tuple[str, float]] = {}
        self._fetching: set[tuple[str, str, str]] = set()
        self._lock = threading.Lock()
        self._token_sets = TokenSets(redactor)  # tokens `connect` obtained (authorization code, device)

    def __repr__(self) -> str:
        return f"Authenticator(schemes={sorted(self._schemes)})"

    def evict_tokens(self) -> bool:
        """Forget the cached OAuth2 tokens (a 401 says the API no longer takes one); True when one was
        cached, so a call may fetch a fresh one and retry once."""
        with self._lock:
            had = bool(self._tokens)
            self._tokens.clear()
        return self._token_sets.evict() or had

    def _targets(self, key: str, reach: _Reach) -> tuple[str, ...]:
        """The origins scheme ``key``'s values are sent to: the request's, and an OAuth2 token URL's."""
        out = [reach.target]
        flows = self._scheme(key).get("flows")
        flow = flows.get("clientCredentials") if isinstance(flows, Mapping) else None
        if isinstance(flow, Mapping) and "client_id" in self._slots.get(key, {}):
            token = origin_of(urljoin(reach.base_url + "/", str(flow.get("tokenUrl", ""))))
            if token and token not in out:
                out.append(token)
        return tuple(out)

    def _value(
        self,
        env: str,
        targets: Sequence[str],
        reach: _Reach,
        *,
        env_only: bool,
        unapproved: set[tuple[str, str]],
    ) -> str | None:
        """The value of ``env`` bound to every origin in ``targets`` (one value for all), else None."""
        found: set[str] = set()
        for origin in targets:
            also = reach.home if self._sources.trusts(origin) else ()
            value = self._sources.get(env, origin, also=also, env_only=env_only)
            if value is None:
                if self._sources.unapproved_env(env, origin):
                    unapproved.add((env, origin))
                return None
            found.add(value)
        if len(found) != 1:
            return None
        value = found.pop()
        self._redactor.add_secret(value)
        return value

    def _values(
        self, scheme_key: str, reach: _Reach, *, env_only: bool, unapproved: set[tuple[str, str]]
    ) -> dict[str, str] | None:
        """The scheme's credential values by slot kind, or None when any is missing (or the scheme is
        not defined: a requirement naming one is never met, so another requirement is chosen)."""
        if not self._scheme(scheme_key):
            return None
        wanted = self._slots.get(scheme_key, {})
        targets = self._targets(scheme_key, reach)
        out = {}
        for kind, env in wanted.items():
            value = self._value(env, targets, reach, env_only=env_only, unapproved=unapproved)
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

    def _met(
        self,
        requirement: Mapping[str, Sequence[str]],
        reach: _Reach,
        *,
        env_only: bool,
        unapproved: set[tuple[str, str]],
    ) -> dict[str, dict[str, str]] | None:
        """The values of the schemes to apply for ``requirement``, or None when it cannot be met."""
        found: dict[str, dict[str, str]] = {}
        for group in self._alternatives(requirement):
            for key in group:
                values = self._values(key, reach, env_only=env_only, unapproved=unapproved)
                if values is not None:
                    found[key] = values
                    break
            else:
                return None
        return found

    def _choose(
        self, security: Sequence[Mapping[str, Sequence[str]]], reach: _Reach, unapproved: set[tuple[str, str]]
    ) -> tuple[Mapping[str, Sequence[str]], dict[str, dict[str, str]]] | None:
        """The requirement to apply and the values of the schemes applied: the first requirement the
        environment alone meets (no keyring or file is touched), else the first all sources meet.
        Of schemes that write the same header, the first with a bound credential is applied."""
        for env_only in (True, False):
            for requirement in security:
                found = self._met(requirement, reach, env_only=env_only, unapproved=unapproved)
                if found is not None:
                    return requirement, found
        return None

    def apply(self, op: Operation, base_url: str, send: TokenSender, home: Sequence[str] = ()) -> Steps:
        """The parts for the first requirement whose credentials are all bound to where they go.

        A generator of send effects (see :class:`~packc_runtime.calling.send.Sender`): an OAuth2 token
        may have to be fetched first, with ``send(request)`` (itself a generator of effects).

        Args:
            op: the operation.
            base_url: the server URL the request goes to (a ``--server`` override included).
            send: sends the OAuth2 token request.
            home: the origins of the operation's document servers.

        Raises:
            UntrustedServer: an override origin that no credential is bound to and that is not the pack's.
            UnapprovedCredentials: a variable is set but not approved for the origin; names the command.
            MissingCredentials: no requirement can be met; names the variables to set.
        """
        if not op.security:
            return AuthParts()
        reach = _Reach(base_url, origin_of(base_url) or base_url, tuple(home))
        unapproved: set[tuple[str, str]] = set()
        chosen = self._choose(op.security, reach, unapproved)
        if chosen is not None and not secure_url(base_url) and not self._sources.trusts(reach.target):
            # A secret in plain http crosses every network between (SendGrid's own document names
            # http://api.sendgrid.com): refused unless the person listed the origin themselves.
            raise InsecureServer(
                f"{op.verb} would send credentials over plain http to {reach.target}, where anyone on the "
                "network path can read them, so nothing is sent. Use its https server (--server "
                f"https://{reach.target.split('://', 1)[-1]}), or list {reach.target} in PACKC_TRUSTED_ORIGINS "
                "if it is a test server you trust.",
                origin=reach.target,
            )
        if chosen is not None:
            requirement, found = chosen
            parts = AuthParts()
            for key, values in found.items():
                yield from self._apply_one(key, values, requirement[key], parts, base_url, send)
            return parts
        raise self._refusal(op, reach, unapproved)

    def _refusal(self, op: Operation, reach: _Reach, unapproved: set[tuple[str, str]]) -> PackRuntimeError:
        target = reach.target
        names = sorted(
            {env for req in op.security or () for key in req for env in self._slots.get(key, {}).values()}
        )
        untrusted = target not in reach.home and not self._sources.trusts(target)
        if self._sources.hub == "keyring" and not any(
            self._sources.stored(n, (target, *reach.home)) for n in names
        ):
            server = "" if target in reach.home else f" --server {target}"
            return MissingCredentials(
                f"{op.verb} needs credentials for {target} and none is in the OS keyring, so nothing is sent. "
                f"This pack's binding.hub is keyring: its credentials come from the OS keyring only, never "
                f"the environment or a file. Store them with `{self._connect}{server}`.",
                env=names,
            )
        if untrusted and not any(
            self._sources.env_set(n) or self._sources.stored(n, (target, *reach.home)) for n in names
        ):
            # Nothing is set anywhere: the server is not the problem yet, the missing credential is.
            server = f" --server {target}"
            return MissingCredentials(
                f"{op.verb} needs credentials and none is set, so nothing is sent. Run "
                f"`{self._connect}{server}` to store them for {target}, or set "
                + (" or ".join(names) if names else "a supported scheme")
                + f" in the environment and approve it with `{self._connect} --approve-env{server}`.",
                env=names,
            )
        if untrusted:
            server = f" --server {target}"
            return UntrustedServer(
                f"{op.verb} sends credentials, and {target} is not the pack's server; none is bound to it, so nothing "
                f"is sent. To send them there: `{self._connect}{server}` (store them for it), "
                f"`{self._connect} --approve-env{server}` (approve your environment variables for it), or list it in "
                "PACKC_TRUSTED_ORIGINS.",
                origin=target,
            )
        if unapproved:
            names = sorted({name for name, _ in unapproved})
            origins = sorted({origin for _, origin in unapproved})
            command = f"{self._connect} --approve-env"
            return UnapprovedCredentials(
                f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} set in your environment but not approved "
                f"for {', '.join(origins)}: an environment variable is only sent to an origin you approved, since "
                f"the pack's document chose its name. Check that {', '.join(origins)} is the API you meant, then "
                f"run `{command}` once (or answer the question a terminal asks), or list the origin in "
                "PACKC_TRUSTED_ORIGINS.",
                env=names,
                origins=origins,
                command=command,
            )
        return MissingCredentials(
            f"{op.verb} needs credentials for {target}: store them with `{self._connect}`, or set "
            + (" or ".join(names) if names else "a supported scheme")
            + " in the environment and approve it for "
            f"{target} with `{self._connect} --approve-env`.",
            env=names,
        )

    def _apply_one(
        self,
        key: str,
        values: Mapping[str, str],
        scopes: Sequence[str],
        parts: AuthParts,
        base_url: str,
        send: TokenSender,
    ) -> Steps:
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
            token = yield from self._access_token(env["token"], values["token"], send)
            parts.headers["Authorization"] = f"{label} {_header_safe(env['token'], token)}"
        elif kind == "oauth2" and "client_id" in values:
            token = yield from self._client_credentials(key, scheme, values, scopes, base_url, send)
            parts.headers["Authorization"] = f"Bearer {_header_safe(env['client_id'], token)}"
        elif kind in ("oauth2", "openIdConnect"):
            token = yield from self._access_token(env["token"], values["token"], send)
            parts.headers["Authorization"] = f"Bearer {_header_safe(env['token'], token)}"

    def _access_token(self, env: str, value: str, send: TokenSender) -> Steps:
        """The token a token slot sends: its value, or the access token of connect's stored token set
        (refreshed when due, at the token URL it recorded). The set itself (refresh token, client
        secret) is never sent, whichever scheme reads the slot: a plain ``http bearer`` of another
        document for the same family reads the same ``<FAMILY>_TOKEN``."""
        stored = parse_token_set(value)
        if stored is None:
            return value
        token: str = yield from self._token_sets.access_token(env, stored, send)
        return token

    def _client_credentials(
        self,
        key: str,
        scheme: Mapping[str, Any],
        values: Mapping[str, str],
        scopes: Sequence[str],
        base_url: str,
        send: TokenSender,
    ) -> Steps:
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

    def _fetch_token(
        self, values: Mapping[str, str], scopes: Sequence[str], token_url: str, send: TokenSender
    ) -> Steps:
        form = "grant_type=client_credentials"
        if scopes:
            form += "&scope=" + quote(" ".join(scopes), safe="")
        basic = base64.b64encode(
            f"{quote(values['client_id'], safe='')}:{quote(values['client_secret'], safe='')}".encode()
        ).decode()
        self._redactor.add_secret(basic)
        request = httpx.Request(
            "POST",
            token_url,
            content=form.encode(),
            headers={
                "Authorization": f"Basic {basic}",
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
        )
        response = yield from send(request)
        ok, data = token_answer(response.status, response.content)
        if not ok:
            raise Unauthorized(
                f"The OAuth2 token endpoint refused the client credentials (HTTP {response.status}).",
                status=response.status,
            )
        token: str = data["access_token"]
        self._redactor.add_secret(token)
        expires = data.get("expires_in")
        lifetime = (
            float(expires) if isinstance(expires, (int, float)) and not isinstance(expires, bool) else 3600.0
        )
        return token, lifetime

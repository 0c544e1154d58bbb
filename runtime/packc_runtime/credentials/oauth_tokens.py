"""OAuth2 tokens obtained by ``connect`` (authorization code, device flow): stored, used, refreshed.

``connect`` stores one **token set** per slot (``<FAMILY>_TOKEN``), as a JSON value in the same
place as any other secret (keyring ``NAME@ORIGIN``, else the 0600 file), bound to the API's origins
and the token endpoint's origin. A call sends its access token as a bearer; shortly before it
expires, or after the API answers 401, the refresh token is sent to the token endpoint **recorded
at connect time** (never to one a document names later), one refresh at a time per slot
(single flight), and a rotated refresh token is stored again.

Refreshing is one plain form POST through the call's own :class:`~packc_runtime.calling.send.Sender`
(deadline, size caps): the runtime's call path does not import authlib, which only ``connect``
needs, so a generated pack's dependency set stays httpx, pydantic and jsonschema.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any, NamedTuple
from urllib.parse import urlencode

import httpx

from packc_runtime.credentials.redact import Redactor, masked_repr
from packc_runtime.errors import Unauthorized

__all__ = ["MARKER", "TokenSet", "TokenSets", "parse_token_set", "token_answer"]

MARKER = "packc_oauth"
REFRESH_MARGIN = 60.0  # seconds before expiry at which a token is refreshed
_POLL = 0.02

Steps = Generator[tuple[str, Any], Any, Any]
TokenSender = Callable[[httpx.Request], Steps]


def token_answer(status: int, content: bytes) -> tuple[bool, dict[str, Any]]:
    """A token endpoint's answer: whether it granted a token (200 and an ``access_token`` string)
    and its JSON object (empty when the body is not one). Refresh and client credentials share it."""
    try:
        data = json.loads(content)
    except ValueError:
        data = None
    found: dict[str, Any] = data if isinstance(data, dict) else {}
    return status == 200 and isinstance(found.get("access_token"), str), found


class TokenSet(NamedTuple):
    """What ``connect`` obtained for one slot (``expires_at`` is wall-clock seconds, or None)."""

    access_token: str
    refresh_token: str | None
    expires_at: float | None
    token_url: str
    client_id: str
    client_secret: str | None
    scopes: tuple[str, ...]
    origins: tuple[str, ...]

    def __repr__(self) -> str:  # tracebacks with locals, debuggers and error trackers print reprs
        return masked_repr(self, ("access_token", "refresh_token", "client_secret"))

    def to_value(self) -> str:
        """The stored form: a JSON object marked as a packc token set."""
        data: dict[str, Any] = {MARKER: 1, **self._asdict()}
        data["scopes"], data["origins"] = list(self.scopes), list(self.origins)
        return json.dumps({k: v for k, v in data.items() if v is not None}, sort_keys=True)

    def due(self, now: float | None = None) -> bool:
        """Whether the access token expires within the refresh margin."""
        return self.expires_at is not None and (now or time.time()) >= self.expires_at - REFRESH_MARGIN

    def status(self) -> dict[str, Any]:
        """What ``connect --status`` shows: never a secret."""
        return {
            "token_origin": self.token_url,
            "scopes": list(self.scopes),
            "origins": list(self.origins),
            "expires_at": self.expires_at,
            "refreshable": self.refresh_token is not None,
        }


def parse_token_set(value: str) -> TokenSet | None:
    """The token set stored in ``value``, or None when it is a plain token."""
    if not value.startswith("{") or MARKER not in value:
        return None
    try:
        data = json.loads(value)
        if not isinstance(data, dict) or data.get(MARKER) != 1:
            return None
        expires = data.get("expires_at")
        return TokenSet(
            str(data["access_token"]),
            _str(data.get("refresh_token")),
            float(expires) if isinstance(expires, (int, float)) else None,
            str(data["token_url"]),
            str(data.get("client_id", "")),
            _str(data.get("client_secret")),
            tuple(str(s) for s in data.get("scopes", [])),
            tuple(str(o) for o in data.get("origins", [])),
        )
    except (ValueError, KeyError, TypeError):
        return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def token_set_from_response(data: dict[str, Any], previous: TokenSet, now: float | None = None) -> TokenSet:
    """The token set after a token endpoint's JSON answer (refresh token kept unless rotated)."""
    expires = data.get("expires_in")
    lifetime = float(expires) if isinstance(expires, (int, float)) and not isinstance(expires, bool) else None
    scope = data.get("scope")
    return previous._replace(
        access_token=str(data["access_token"]),
        refresh_token=_str(data.get("refresh_token")) or previous.refresh_token,
        expires_at=(now or time.time()) + lifetime if lifetime is not None else None,
        scopes=tuple(scope.split()) if isinstance(scope, str) and scope else previous.scopes,
    )


class TokenSets:
    """The token sets of one pack's calls: the latest per slot, refreshed one at a time."""

    def __init__(
        self,
        redactor: Redactor,
        save: Callable[[str, TokenSet], None] | None = None,
        load: Callable[[str, TokenSet], TokenSet | None] | None = None,
    ) -> None:
        self._redactor = redactor
        self._save = save or _store
        self._load = load or _load_stored
        self._latest: dict[str, TokenSet] = {}
        self._stale: set[str] = set()
        self._fetching: set[str] = set()
        self._lock = threading.Lock()

    def evict(self) -> bool:
        """After a 401: every refreshable set is refreshed on its next use; True when there is one."""
        with self._lock:
            keys = {k for k, s in self._latest.items() if s.refresh_token}
            self._stale |= keys
            return bool(keys)

    def access_token(self, env: str, stored: TokenSet, send: TokenSender) -> Steps:
        """The access token to send for slot ``env`` (a generator of send effects), refreshed when due."""
        while True:
            with self._lock:
                current = self._latest.setdefault(env, stored)  # what this process refreshed last wins
                fresh = not current.due() and env not in self._stale
                if fresh or current.refresh_token is None:
                    self._redactor.add_secret(current.access_token)
                    return current.access_token
                if env not in self._fetching:
                    self._fetching.add(env)
                    break
            yield ("sleep", _POLL)
        try:
            try:
                renewed = yield from self._refresh(current, send)
            except Unauthorized as refused:
                renewed = yield from self._saved_meanwhile(env, current, send, refused)
            else:
                self._save(env, renewed)
            with self._lock:
                self._latest[env] = renewed
                self._stale.discard(env)
        finally:
            with self._lock:
                self._fetching.discard(env)
        return renewed.access_token

    def renewed(self, env: str, stored: TokenSet, send: TokenSender) -> Steps:
        """``stored`` refreshed now and saved (``connect`` checks that a family's grant still works);
        a generator of send effects whose result is the new set. Raises Unauthorized when refused."""
        with self._lock:
            self._latest[env] = stored
            self._stale.add(env)
        yield from self.access_token(env, stored, send)
        with self._lock:
            return self._latest[env]

    def _saved_meanwhile(
        self, env: str, current: TokenSet, send: TokenSender, refused: Unauthorized
    ) -> Steps:
        """After a refused refresh: the set another process saved since ours was read (it rotated the
        refresh token we sent), used as it is or refreshed once; else the refusal stands."""
        other = self._load(env, current)
        if (
            other is None
            or other.refresh_token == current.refresh_token
            or other.token_url != current.token_url
        ):
            raise refused
        self._redactor.add_secret(other.access_token)
        if not other.due() or other.refresh_token is None:
            return other
        renewed = yield from self._refresh(other, send)
        self._save(env, renewed)
        return renewed

    def _refresh(self, current: TokenSet, send: TokenSender) -> Steps:
        assert current.refresh_token is not None
        self._redactor.add_secret(current.refresh_token)
        form = {
            "grant_type": "refresh_token",
            "refresh_token": current.refresh_token,
            "client_id": current.client_id,
        }
        if current.client_secret:
            self._redactor.add_secret(current.client_secret)
            form["client_secret"] = current.client_secret
        request = httpx.Request(
            "POST",
            current.token_url,
            content=urlencode(form).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
        )
        response = yield from send(request)
        ok, data = token_answer(response.status, response.content)
        if not ok:
            error = data.get("error")
            raise Unauthorized(
                f"The OAuth2 token endpoint refused to refresh the token (HTTP {response.status}"
                + (f", {error}" if isinstance(error, str) else "")
                + "): the authorization was revoked or has "
                "expired. Run connect again to sign in.",
                status=response.status,
            )
        renewed = token_set_from_response(data, current)
        self._redactor.add_secret(renewed.access_token)
        if renewed.refresh_token:
            self._redactor.add_secret(renewed.refresh_token)
        return renewed


def _load_stored(env: str, tokens: TokenSet) -> TokenSet | None:
    """The token set stored now for ``env`` under the set's first origin (read afresh)."""
    from packc_runtime.credentials.slots import CredentialSources

    value = CredentialSources(environ={}).stored(env, tokens.origins[:1])
    return parse_token_set(value) if value else None


def _store(env: str, tokens: TokenSet) -> None:
    from packc_runtime.credentials.store import store_credentials

    store_credentials({env: tokens.to_value()}, tokens.origins)


def bound_origins(api_origins: Sequence[str], token_url: str) -> tuple[str, ...]:
    """The origins a token set is stored for: the API's and the token endpoint's."""
    from packc_runtime.credentials.origins import origin_of

    out = [o for o in api_origins if o]
    token_origin = origin_of(token_url)
    if token_origin and token_origin not in out:
        out.append(token_origin)
    return tuple(out)

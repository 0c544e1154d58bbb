"""A real OAuth2 authorization server for the tests, built with authlib, served by werkzeug on 127.0.0.1.

- ``GET /authorize``: authlib's authorization code grant with PKCE (S256 required); consent is
  given or refused by ``consent`` (the test plays the person), the redirect goes to the client's
  loopback URI (any 127.0.0.1 port, RFC 8252), unless ``allow_loopback`` is off.
- ``POST /token``: authorization code, refresh token (rotated: the old one is revoked) and the
  device code grant.
- ``POST /device``: authlib's RFC 8628 device authorization endpoint; ``approve_device`` is the
  person entering the code.
- ``GET /v1/me``: the API; 401 for any token not issued and unexpired (``revoke`` forgets them).
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx
from authlib.oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin, JsonRequest, OAuth2Request, grants
from authlib.oauth2.rfc6749.requests import OAuth2Payload
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc8628 import DeviceAuthorizationEndpoint, DeviceCodeGrant, DeviceCredentialDict
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from packc_runtime.faces.cli import connect_main
from packc_runtime.faces.oauth_cli import OAuthOptions

CLIENT_ID = "packc-test-client"


class Client(ClientMixin):  # type: ignore[misc]
    def __init__(self, server: TestAuthServer) -> None:
        self.server = server

    def get_client_id(self) -> str:
        return CLIENT_ID

    def get_default_redirect_uri(self) -> str:
        return "http://127.0.0.1/callback"

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(s for s in (scope or "").split() if s in ("read", "write", "admin", "offline_access"))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        parts = urlsplit(redirect_uri)
        return self.server.allow_loopback and parts.hostname == "127.0.0.1" and parts.path == "/callback"

    def check_client_secret(self, client_secret: str) -> bool:
        return False  # a public client: PKCE, no secret

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "none"

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return True


class Payload(OAuth2Payload):  # type: ignore[misc]
    def __init__(self, request: Request) -> None:
        self._request = request

    @property
    def data(self) -> Any:
        return self._request.values

    @property
    def datalist(self) -> Any:
        return {k: self._request.values.getlist(k) for k in self._request.values}


class WerkzeugRequest(OAuth2Request):  # type: ignore[misc]
    def __init__(self, request: Request) -> None:
        super().__init__(method=request.method, uri=request.url, headers=request.headers)
        self.payload = Payload(request)
        self._request = request

    @property
    def args(self) -> Any:
        return self._request.args

    @property
    def form(self) -> Any:
        return self._request.form


class Code:
    def __init__(self, **kwargs: Any) -> None:
        self.__dict__.update(kwargs)

    def get_redirect_uri(self) -> str:
        return str(self.redirect_uri)

    def get_scope(self) -> str:
        return str(self.scope)


class CodeGrant(grants.AuthorizationCodeGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["none"]

    def save_authorization_code(self, code: str, request: Any) -> None:
        payload = request.payload
        self.server.codes[code] = Code(
            code=code,
            redirect_uri=payload.redirect_uri,
            scope=payload.scope or "",
            code_challenge=payload.data.get("code_challenge"),
            code_challenge_method=payload.data.get("code_challenge_method"),
        )

    def query_authorization_code(self, code: str, client: Any) -> Any:
        return self.server.codes.get(code)

    def delete_authorization_code(self, authorization_code: Any) -> None:
        self.server.codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code: Any) -> str:
        return "user-1"


class Stored:
    def __init__(self, token: dict[str, Any]) -> None:
        self.token = token
        self.revoked = False

    def get_scope(self) -> str:
        return str(self.token.get("scope", ""))

    def check_client(self, client: Any) -> bool:
        return True

    def is_expired(self) -> bool:
        return False

    def is_revoked(self) -> bool:
        return self.revoked


class RefreshGrant(grants.RefreshTokenGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["none"]
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation

    def authenticate_refresh_token(self, refresh_token: str) -> Any:
        self.server.refresh_requests += 1
        time.sleep(self.server.refresh_delay)  # a slow token endpoint: concurrent calls arrive meanwhile
        found = self.server.refresh_tokens.get(refresh_token)
        return found if found and not found.revoked else None

    def authenticate_user(self, refresh_token: Any) -> str:
        return "user-1"

    def revoke_old_credential(self, refresh_token: Any) -> None:
        refresh_token.revoked = True


class DeviceEndpoint(DeviceAuthorizationEndpoint):  # type: ignore[misc]
    INTERVAL = 1

    def get_verification_uri(self) -> str:
        return f"{self.server.url}/activate"

    def save_device_credential(self, client_id: str, scope: str, data: dict[str, Any]) -> None:
        self.server.devices[data["device_code"]] = {
            "client_id": client_id,
            "scope": scope,
            "expires_at": time.time() + self.server.device_lifetime,
            **data,
        }
        if self.server.device_person is not None:  # the person enters the code on another device
            self.server.approve_device(data["user_code"], self.server.device_person)


class DeviceGrant(DeviceCodeGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["none"]

    def query_device_credential(self, device_code: str) -> Any:
        found = self.server.devices.get(device_code)
        return DeviceCredentialDict(found) if found else None

    def query_user_grant(self, user_code: str) -> Any:
        return self.server.device_grants.get(user_code)

    def should_slow_down(self, credential: Any) -> bool:
        return False


class TestAuthServer(AuthorizationServer):  # type: ignore[misc]
    """The authorization server and the API it protects (one origin: ``url``)."""

    __test__ = False

    def __init__(self, *, access_lifetime: int = 3600) -> None:
        super().__init__()
        self.url = ""
        self.consent = True
        self.allow_loopback = True
        self.codes: dict[str, Code] = {}
        self.access: dict[str, float] = {}  # access token -> expiry (wall clock)
        self.granted: dict[str, set[str]] = {}  # access token -> its scopes
        self.refresh_tokens: dict[str, Stored] = {}
        self.devices: dict[str, dict[str, Any]] = {}
        self.device_grants: dict[str, tuple[str, bool]] = {}
        self.refresh_requests = 0
        self.refresh_delay = 0.0
        self.issued: list[str] = []  # every access and refresh token ever issued
        self.device_lifetime = 60.0
        self.device_person: bool | None = True  # approves (True), denies (False) or never comes (None)
        self.seen: list[str] = []  # Authorization headers the API received
        self.log: list[str] = []  # every request line with its body: what reached the server
        self.lifetime = access_lifetime
        self.endpoint_host = ""  # where the discovery document puts the endpoints (default: ``url``)
        self.register_token_generator(
            "default",
            BearerTokenGenerator(
                lambda **_: _token("at"), lambda **_: _token("rt"), lambda client, grant_type: self.lifetime
            ),
        )
        self.register_grant(CodeGrant, [CodeChallenge(required=True)])
        self.register_grant(RefreshGrant)
        self.register_grant(DeviceGrant)
        self.register_endpoint(DeviceEndpoint)
        self._lock = threading.Lock()

    def query_client(self, client_id: str) -> Client | None:
        return Client(self) if client_id == CLIENT_ID else None

    def save_token(self, token: dict[str, Any], request: Any) -> None:
        with self._lock:
            self.issued.extend(str(token[k]) for k in ("access_token", "refresh_token") if k in token)
            self.access[token["access_token"]] = time.time() + float(token.get("expires_in", 3600))
            self.granted[token["access_token"]] = set(str(token.get("scope", "")).split())
            if "refresh_token" in token:
                self.refresh_tokens[token["refresh_token"]] = Stored(token)

    def discovery(self) -> dict[str, Any]:
        """The OpenID Connect discovery document (``endpoint_host`` moves the endpoints elsewhere)."""
        at = self.endpoint_host or self.url
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{at}/authorize",
            "token_endpoint": f"{at}/token",
            "device_authorization_endpoint": f"{at}/device",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": ["openid", "read", "write"],
        }

    def revoke_access(self) -> None:
        self.access.clear()

    def approve_device(self, user_code: str, allow: bool = True) -> None:
        self.device_grants[user_code] = ("user-1", allow)

    def create_oauth2_request(self, request: Request) -> WerkzeugRequest:
        return WerkzeugRequest(request)

    def create_json_request(self, request: Request) -> JsonRequest:
        return JsonRequest(request.method, request.url, request.headers)

    def handle_response(self, status: int, body: Any, headers: Any) -> Response:
        text = json.dumps(body) if isinstance(body, dict) else body
        return Response(text, status=status, headers=headers)

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        return None

    def wsgi(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        self.log.append(
            f"{request.method} {request.full_path} {request.get_data(as_text=True)} "
            f"{request.headers.get('Authorization', '')}"
        )
        if request.path == "/authorize":
            response = self.create_authorization_response(
                request, grant_user="user-1" if self.consent else None
            )
        elif request.path == "/token":
            response = self.create_token_response(request)
        elif request.path == "/device":
            response = self.create_endpoint_response("device_authorization", request)
        elif request.path == "/.well-known/openid-configuration":  # OpenID Connect discovery
            response = Response(json.dumps(self.discovery()), content_type="application/json")
        elif request.path == "/v1/me":
            sent = request.headers.get("Authorization", "")
            self.seen.append(sent)
            expiry = self.access.get(sent.removeprefix("Bearer "))
            ok = expiry is not None and expiry > time.time()
            response = Response(
                '{"id": "user-1"}' if ok else '{"error": "invalid_token"}',
                status=200 if ok else 401,
                content_type="application/json",
            )
        elif request.path == "/v1/admin":  # a resource server that checks the token's scopes
            sent = request.headers.get("Authorization", "")
            self.seen.append(sent)
            token = sent.removeprefix("Bearer ")
            expiry = self.access.get(token)
            if expiry is None or expiry <= time.time():
                response = Response('{"error": "invalid_token"}', status=401, content_type="application/json")
            elif "admin" not in self.granted.get(token, set()):
                response = Response(
                    '{"error": "insufficient_scope"}', status=403, content_type="application/json"
                )
            else:
                response = Response('{"admin": true}', content_type="application/json")
        else:
            response = Response("not found", status=404)
        return response(environ, start_response)


def _token(prefix: str) -> str:
    import secrets

    return f"{prefix}-{secrets.token_urlsafe(24)}"


@contextmanager
def running(server: TestAuthServer) -> Iterator[str]:
    """Serve ``server`` on 127.0.0.1 (a free port) until the block ends; yields its URL."""
    httpd = make_server("127.0.0.1", 0, server.wsgi, threaded=True)
    server.url = f"http://127.0.0.1:{httpd.server_port}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        httpd.shutdown()
        thread.join(10)


# --- the API document, the person at the browser, and connect as a test calls it ---


def document(url: str, *, device: bool = False, oidc: bool = False) -> dict[str, Any]:
    """An API whose verbs need the ``read`` and ``write`` scopes of an authorization code flow (or,
    with ``oidc``, of an openIdConnect scheme whose endpoints come from discovery)."""
    flow: dict[str, Any] = {
        "authorizationUrl": f"{url}/authorize",
        "tokenUrl": f"{url}/token",
        "scopes": {"read": "read", "write": "write", "admin": "admin"},
    }
    if device:
        flow["x-device-authorization-url"] = f"{url}/device"
    ok = {"200": {"description": "ok"}}
    scheme: dict[str, Any] = {"type": "oauth2", "flows": {"authorizationCode": flow}}
    if oidc:
        scheme = {"type": "openIdConnect", "openIdConnectUrl": f"{url}/.well-known/openid-configuration"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Tasks", "version": "1"},
        "servers": [{"url": url}],
        "components": {"securitySchemes": {"oauth": scheme}},
        "paths": {
            "/v1/me": {
                "get": {
                    "operationId": "getMe",
                    "summary": "Read the signed-in user",
                    "security": [{"oauth": ["read"]}],
                    "responses": ok,
                },
                "put": {
                    "operationId": "updateMe",
                    "summary": "Update the signed-in user",
                    "security": [{"oauth": ["read", "write"]}],
                    "responses": ok,
                },
            }
        },
    }


def person(tamper: Callable[[str], str] = lambda url: url) -> Callable[[str], bool]:
    """A browser: opens the authorization URL, follows the provider's redirect to the loopback port."""

    def visit(url: str) -> None:
        answer = httpx.get(url, timeout=10)
        if answer.status_code == 302:
            httpx.get(tamper(answer.headers["location"]), timeout=10)

    def open_url(url: str) -> bool:
        threading.Thread(target=visit, args=(url,), daemon=True).start()
        return True

    return open_url


def stored() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(Path(os.environ["PACKC_CREDENTIALS_FILE"]).read_text())
    return data


def connect(
    pack_dir: Path, browser: Callable[[str], bool] | None = None, as_json: bool = False, **options: object
) -> tuple[int, str]:
    """``connect`` with the test's client id; its exit code and what it printed."""
    out = io.StringIO()
    code = connect_main(
        pack_dir,
        stdout=out,
        oauth=OAuthOptions(**{"client_id": CLIENT_ID, "timeout": 10.0, **options}),  # type: ignore[arg-type]
        browser=browser or person(),
        as_json=as_json,
    )
    return code, out.getvalue()


def secrets_of(server: TestAuthServer) -> list[str]:
    return list(server.issued)

"""``connect`` for OAuth2 schemes: authorization code with PKCE on a loopback redirect, or the device flow.

Only ``connect`` imports this module, and only it imports authlib (the ``oauth`` extra): the
client pieces (PKCE S256, the authorization URL, the code exchange) are authlib's. The loopback
receiver is a one-request ``http.server`` on 127.0.0.1 (RFC 8252, section 7.3).
"""

from __future__ import annotations

import contextlib
import http.server
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, NamedTuple
from urllib.parse import parse_qs, urljoin, urlsplit

from packc_runtime.calling.openapi.operations import resolve
from packc_runtime.credentials.oauth_tokens import TokenSet, bound_origins
from packc_runtime.credentials.origins import secure_url
from packc_runtime.errors import OAuthFailed

__all__ = ["OAuthPlan", "authorize_code", "authorize_device", "discover", "oauth_plans"]

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>packc connect</title>"
    "<p>{}</p><p>You can close this tab and return to the terminal.</p>"
)


class OAuthPlan(NamedTuple):
    """What ``connect`` needs to sign in for one slot of an ``oauth2``/``openIdConnect`` scheme."""

    env: str  # the slot the token set is stored under (``<FAMILY>_TOKEN``)
    scheme: str
    authorization_url: str | None
    token_url: str
    device_url: str | None
    scopes: tuple[str, ...]  # the union of what the pack's verbs require
    origins: tuple[str, ...]  # the API's origins, then the token endpoint's
    discovery_url: str | None = None  # openIdConnect: the endpoints are read from here (``discover``)


def _absolute(base: str, url: Any) -> str | None:
    return urljoin(base + "/", url) if isinstance(url, str) and url else None


def oauth_plans(
    document: Mapping[str, Any],
    slots: Sequence[Any],
    operations: Sequence[Any],
    origins: Mapping[str, Sequence[str]],
    *,
    device_url: str | None = None,
) -> list[OAuthPlan]:
    """One plan per token slot of an oauth2 scheme with an authorization code or device flow, or of
    an ``openIdConnect`` scheme (its endpoints come later, from ``discover``).

    A device endpoint comes from ``device_url``, OpenAPI 3.2's ``deviceAuthorization`` flow,
    ``x-device-authorization-url`` on the flow or the scheme, or the discovery document.
    """
    components = document.get("components")
    schemes = components.get("securitySchemes", {}) if isinstance(components, Mapping) else {}
    plans = []
    for slot in slots:
        scheme = resolve(document, schemes.get(slot.scheme)) if isinstance(schemes, Mapping) else None
        if slot.kind != "token" or not isinstance(scheme, Mapping):
            continue
        api = tuple(origins.get(slot.env, ()))
        base = next(iter(_servers(operations, slot.scheme)), api[0] if api else "")
        scopes: list[str] = []
        for op in operations:
            for requirement in op.security or ():
                scopes.extend(s for s in requirement.get(slot.scheme, ()) if s not in scopes)
        if scheme.get("type") == "openIdConnect":
            discovery = _absolute(base, scheme.get("openIdConnectUrl"))
            if discovery is not None:
                plans.append(
                    OAuthPlan(slot.env, slot.scheme, None, "", device_url, tuple(scopes), api, discovery)
                )
            continue
        if scheme.get("type") != "oauth2":
            continue
        flows = _mapping(scheme.get("flows"))
        code, device = _mapping(flows.get("authorizationCode")), _mapping(flows.get("deviceAuthorization"))
        token_url = _absolute(base, code.get("tokenUrl") or device.get("tokenUrl"))
        if (not code and not device) or token_url is None:
            continue
        found_device = device_url or _absolute(
            base,
            device.get("deviceAuthorizationUrl")
            or code.get("x-device-authorization-url")
            or scheme.get("x-device-authorization-url"),
        )
        plans.append(
            OAuthPlan(
                slot.env,
                slot.scheme,
                _absolute(base, code.get("authorizationUrl")),
                token_url,
                found_device,
                tuple(scopes),
                bound_origins(api, token_url),
            )
        )
    return plans


def discover(plan: OAuthPlan) -> OAuthPlan:
    """The plan with its endpoints: an ``openIdConnect`` plan's read from its discovery document
    (``authorization_endpoint``, ``token_endpoint``, ``device_authorization_endpoint``); every plan's
    endpoints, and the discovery URL before it is fetched, checked to be https (plain http only on
    loopback: the code and tokens cross them).

    Raises:
        OAuthFailed: the discovery document cannot be read, or it or an endpoint is not https.
    """
    if plan.discovery_url is not None:
        import httpx

        if not secure_url(plan.discovery_url):  # its answer names where the code and tokens go
            raise OAuthFailed(
                f"The OpenID Connect discovery URL {plan.discovery_url!r} is not https: anyone on the "
                "way could name their own token endpoint. Nothing was sent.",
                reason="insecure_endpoint",
            )
        url, data, why = plan.discovery_url, None, "no token_endpoint"
        try:
            # no redirect is followed (a 30x reads as a failure): discovery names where tokens go
            answer = httpx.get(
                url, headers={"Accept": "application/json"}, timeout=15.0, follow_redirects=False
            )
            if answer.status_code != 200:
                why = f"HTTP {answer.status_code}"
            else:
                data = answer.json()
        except httpx.HTTPError as exc:
            why = f"{type(exc).__name__}: {exc}"
        except ValueError:
            why = "not JSON"
        if not isinstance(data, dict) or not isinstance(data.get("token_endpoint"), str):
            raise OAuthFailed(
                f"The OpenID Connect discovery document {url} could not be read ({why}): check that "
                "the provider is reachable, or sign in elsewhere and enter the token with connect "
                "(without --client-id).",
                reason="discovery_failed",
            )
        token_url = data["token_endpoint"]
        plan = plan._replace(
            authorization_url=_text(data.get("authorization_endpoint")),
            token_url=token_url,
            device_url=plan.device_url or _text(data.get("device_authorization_endpoint")),
            origins=bound_origins(plan.origins, token_url),
            discovery_url=None,
        )
    for name, endpoint in (
        ("token", plan.token_url),
        ("authorization", plan.authorization_url),
        ("device authorization", plan.device_url),
    ):
        if endpoint is not None and not secure_url(endpoint):
            raise OAuthFailed(
                f"The {name} endpoint {endpoint!r} is not https: the authorization code and tokens "
                "would cross the network readable by anyone on the way. Nothing was sent.",
                reason="insecure_endpoint",
            )
    return plan


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _servers(operations: Sequence[Any], scheme: str) -> list[str]:
    from packc_runtime.calling.openapi.request import server_url

    out = []
    for op in operations:
        if any(scheme in requirement for requirement in op.security or ()):
            try:
                out.append(server_url(op))
            except Exception:  # an unresolvable server: the next operation's
                continue
    return out


class _Callback(http.server.BaseHTTPRequestHandler):
    """Receives the provider's redirect: keeps the query of the first request to the callback path."""

    server: _Receiver

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != "/callback" or self.server.query is not None:
            self.send_error(404)
            return
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.server.query = query
        good = query.get("state") == self.server.state and "code" in query
        text = (
            "Signed in: packc has the authorization."
            if good
            else "Sign-in did not complete; see the terminal."
        )
        body = _PAGE.format(text).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # the query holds the code: never logged
        return


class _Receiver(http.server.HTTPServer):
    query: dict[str, str] | None = None
    state = ""


def _wait(receiver: _Receiver, timeout: float) -> dict[str, str] | None:
    deadline = time.monotonic() + timeout
    receiver.timeout = 0.2
    while receiver.query is None and time.monotonic() < deadline:
        receiver.handle_request()
    return receiver.query


def _client(plan: OAuthPlan, client_id: str, client_secret: str | None, **extra: Any) -> Any:
    try:
        from authlib.integrations.httpx_client import OAuth2Client
    except ImportError:
        raise OAuthFailed(
            "Signing in with OAuth2 needs authlib: pip install 'packc-runtime[oauth]'.",
            reason="missing_extra",
        ) from None
    return OAuth2Client(
        client_id,
        client_secret,
        scope=" ".join(plan.scopes) or None,
        token_endpoint_auth_method="client_secret_post" if client_secret else "none",
        timeout=30.0,
        follow_redirects=False,  # the code, verifier and secret go to the token endpoint shown, nowhere else
        **extra,
    )


def _exchange_failed(exc: object, client_id: str) -> OAuthFailed:
    error = str(getattr(exc, "error", "") or "")
    text = str(getattr(exc, "description", "") or "")
    if error == "invalid_client":
        return OAuthFailed(
            f"The provider does not know client id {client_id!r} (invalid_client): check --client-id "
            "against the app you registered with the provider (and its secret, if it has one).",
            reason="invalid_client",
        )
    return OAuthFailed(
        f"The provider refused to issue a token ({error or type(exc).__name__}"
        + (f": {text}" if text else "")
        + "). Run connect again; if it repeats, check the app's "
        "settings with the provider.",
        reason=error or "token_refused",
    )


def _token_set(
    plan: OAuthPlan, token: Mapping[str, Any], client_id: str, client_secret: str | None
) -> TokenSet:
    expires = token.get("expires_at")
    scope = token.get("scope")
    return TokenSet(
        str(token["access_token"]),
        token.get("refresh_token") or None,
        float(expires) if isinstance(expires, (int, float)) else None,
        plan.token_url,
        client_id,
        client_secret,
        tuple(scope.split()) if isinstance(scope, str) and scope else plan.scopes,
        plan.origins,
    )


def authorize_code(
    plan: OAuthPlan,
    client_id: str,
    client_secret: str | None,
    *,
    out: IO[str],
    port: int = 0,
    open_browser: bool = True,
    timeout: float = 300.0,
    browser: Callable[[str], bool] | None = None,
) -> TokenSet:
    """Authorization code + PKCE (S256) through a redirect to ``http://127.0.0.1:PORT/callback``.

    Raises:
        OAuthFailed: timeout, denied consent, state mismatch, unknown client, loopback refused.
    """
    if plan.authorization_url is None:
        raise OAuthFailed(
            f"Scheme {plan.scheme!r} has no authorization code flow; use --device.", reason="no_flow"
        )
    try:
        receiver = _Receiver(("127.0.0.1", port), _Callback)
    except OSError as exc:
        raise OAuthFailed(
            f"Cannot listen on 127.0.0.1:{port} for the redirect ({exc.strerror}); pick another --port.",
            reason="port_in_use",
        ) from None
    with receiver:
        redirect_uri = f"http://127.0.0.1:{receiver.server_address[1]}/callback"
        client = _client(
            plan, client_id, client_secret, redirect_uri=redirect_uri, code_challenge_method="S256"
        )
        verifier = secrets.token_urlsafe(64)
        url, state = client.create_authorization_url(plan.authorization_url, code_verifier=verifier)
        receiver.state = state
        out.write(
            f"Scopes requested: {' '.join(plan.scopes) or '(none)'}\n"
            f"Open this URL in a browser to sign in (the redirect comes back to {redirect_uri}):\n{url}\n"
        )
        out.flush()
        if open_browser:
            if browser is None:
                import webbrowser

                browser = webbrowser.open
            with contextlib.suppress(Exception):  # no browser: the URL is printed
                browser(url)
        query = _wait(receiver, timeout)
    if query is None:
        raise OAuthFailed(
            f"No redirect came back to {redirect_uri} within {timeout:g} s. If the provider's page said the "
            "redirect URI is not allowed, register http://127.0.0.1:PORT/callback for your app and pass "
            f"--port PORT, or use --device; if it said the client is unknown, check --client-id ({client_id!r}); "
            "otherwise run connect again and finish signing in sooner (--timeout SECONDS gives more time).",
            reason="timeout",
        )
    if query.get("state") != state:
        raise OAuthFailed(
            "The redirect's state does not match this sign-in (another tab or a forged redirect); "
            "nothing was stored. Run connect again and use only the URL it prints.",
            reason="state_mismatch",
        )
    error = query.get("error")
    if error:
        raise _redirect_error(error, query.get("error_description", ""), client_id)
    if "code" not in query:
        raise OAuthFailed("The redirect carried no authorization code; run connect again.", reason="no_code")
    try:
        token = client.fetch_token(plan.token_url, code=query["code"], code_verifier=verifier)
    except Exception as exc:  # authlib's OAuthError, or a transport failure
        raise _exchange_failed(exc, client_id) from None
    finally:
        client.close()
    return _token_set(plan, token, client_id, client_secret)


def _redirect_error(error: str, description: str, client_id: str) -> OAuthFailed:
    if error == "access_denied":
        return OAuthFailed(
            "You declined the authorization (access_denied): nothing was stored. Run connect again "
            "and approve, if you meant to.",
            reason="access_denied",
        )
    if error in ("unauthorized_client", "invalid_client"):
        return OAuthFailed(
            f"The provider refused client id {client_id!r} ({error}): check --client-id against "
            "the app you registered.",
            reason="invalid_client",
        )
    if "redirect" in description.lower():
        return OAuthFailed(
            f"The provider refused the loopback redirect ({error}: {description}). Register "
            "http://127.0.0.1:PORT/callback for your app and pass --port PORT, or use --device.",
            reason="loopback_refused",
        )
    return OAuthFailed(
        f"The provider answered {error}"
        + (f": {description}" if description else "")
        + ". Run connect again; if it repeats, check the app's settings.",
        reason=error,
    )


def authorize_device(
    plan: OAuthPlan,
    client_id: str,
    client_secret: str | None,
    *,
    out: IO[str],
    sleep: Callable[[float], None] = time.sleep,
) -> TokenSet:
    """RFC 8628: show the user code and the verification URL, poll the token endpoint until done."""
    if plan.device_url is None:
        raise OAuthFailed(
            "The document names no device authorization endpoint: pass --device-url URL.",
            reason="no_device_endpoint",
        )
    client = _client(plan, client_id, client_secret)
    try:
        form = {"client_id": client_id, **({"scope": " ".join(plan.scopes)} if plan.scopes else {})}
        import httpx

        answer = httpx.post(
            plan.device_url,
            data=form,
            headers={"Accept": "application/json"},
            timeout=30.0,
            follow_redirects=False,  # the form names the client: it goes nowhere but the endpoint shown
        )
        data = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
        if answer.status_code != 200 or "device_code" not in data:
            raise _exchange_failed(_Err(data), client_id)
        uri = data.get("verification_uri_complete") or data.get("verification_uri")
        out.write(
            f"Scopes requested: {' '.join(plan.scopes) or '(none)'}\nOn any device, open {uri}\n"
            f"and enter the code: {data.get('user_code')}\n"
        )
        out.flush()
        interval = float(data["interval"]) if isinstance(data.get("interval"), (int, float)) else 5.0
        ends = time.monotonic() + float(data.get("expires_in") or 900)
        while time.monotonic() < ends:
            sleep(interval)
            try:
                token = client.fetch_token(
                    plan.token_url, grant_type=DEVICE_GRANT, device_code=data["device_code"]
                )
            except Exception as exc:
                error = str(getattr(exc, "error", ""))
                if error == "authorization_pending":
                    continue
                if error == "slow_down":
                    interval += 5
                    continue
                if error == "expired_token":
                    break
                if error == "access_denied":
                    raise _redirect_error(error, "", client_id) from None
                raise _exchange_failed(exc, client_id) from None
            return _token_set(plan, token, client_id, client_secret)
    finally:
        client.close()
    raise OAuthFailed(
        "The device code expired before the sign-in was finished (expired_token): run connect "
        "--device again and enter the new code sooner.",
        reason="expired_token",
    )


class _Err:
    def __init__(self, data: Mapping[str, Any]) -> None:
        self.error = data.get("error", "device_authorization_refused")
        self.description = data.get("error_description", "")

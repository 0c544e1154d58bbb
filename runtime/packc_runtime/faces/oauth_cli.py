"""``connect`` for a pack's OAuth2 slots: sign in, ``--status``, ``--logout`` (the flows are oauth_connect.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, Literal, NamedTuple

from packc_runtime.credentials.redact import masked_repr
from packc_runtime.errors import InvalidArgument, OAuthFailed

__all__ = ["OAUTH_FLAGS", "OAuthOptions", "oauth_connect", "options_from"]

# flag -> (option, takes a value)
OAUTH_FLAGS: dict[str, tuple[str, bool]] = {
    "--client-id": ("client_id", True),
    "--client-secret": ("client_secret", True),
    "--port": ("port", True),
    "--timeout": ("timeout", True),
    "--device-url": ("device_url", True),
    "--no-browser": ("no_browser", False),
    "--device": ("device", False),
    "--status": ("status", False),
    "--logout": ("logout", False),
}


class OAuthOptions(NamedTuple):
    """The OAuth2 options of ``connect`` (``packc connect`` and ``<cliBin> connect`` take the same)."""

    client_id: str | None = None
    client_secret: str | None = None
    port: int = 0
    timeout: float = 300.0
    device_url: str | None = None
    no_browser: bool = False
    device: bool = False
    status: bool = False
    logout: bool = False

    def __repr__(self) -> str:  # tracebacks with locals, debuggers and error trackers print reprs
        return masked_repr(self, ("client_secret",))


def options_from(found: Mapping[str, Any]) -> OAuthOptions:
    """Checked options (``--port`` a port number, ``--timeout`` positive seconds)."""
    values = {k: v for k, v in found.items() if v is not None and v is not False}
    try:
        if "port" in values:
            values["port"] = int(values["port"])
            if not 0 <= values["port"] < 65536:
                raise ValueError
    except ValueError:
        raise InvalidArgument(
            "--port takes a port number (0 to 65535; 0 picks a free one).", argument="port"
        ) from None
    try:
        if "timeout" in values:
            values["timeout"] = float(values["timeout"])
            if not values["timeout"] > 0:
                raise ValueError
    except ValueError:
        raise InvalidArgument("--timeout takes a number of seconds above 0.", argument="timeout") from None
    return OAuthOptions(**values)


def _when(expires_at: float | None) -> str:
    if expires_at is None:
        return "no expiry given"
    left = expires_at - time.time()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(expires_at))
    return f"expires {stamp} ({'in ' + str(int(left)) + ' s' if left > 0 else 'expired; refreshed on next call'})"


def _status(plans: Sequence[Any], out: IO[str], as_json: bool) -> int:
    import json

    from packc_runtime.credentials.oauth_tokens import parse_token_set
    from packc_runtime.credentials.slots import CredentialSources

    sources = CredentialSources(environ={})
    rows = []
    for plan in plans:
        value = sources.stored(plan.env, plan.origins[:1])
        tokens = parse_token_set(value) if value else None
        rows.append(
            {
                "env": plan.env,
                "scheme": plan.scheme,
                "connected": tokens is not None,
                **(tokens.status() if tokens else {"origins": list(plan.origins)}),
            }
        )
        if not as_json:
            if tokens is None:
                out.write(f"{plan.env:<28} not connected (for {', '.join(plan.origins)})\n")
            else:
                out.write(
                    f"{plan.env:<28} connected for {', '.join(tokens.origins)}\n{'':<28} scopes: "
                    f"{' '.join(tokens.scopes) or '(none)'}; {_when(tokens.expires_at)}; "
                    f"{'refreshable' if tokens.refresh_token else 'no refresh token'}\n"
                )
    if as_json:
        out.write(json.dumps({"oauth": rows}, indent=2, sort_keys=True) + "\n")
    return 0


def _logout(plans: Sequence[Any], out: IO[str]) -> int:
    from packc_runtime.credentials.oauth_tokens import parse_token_set
    from packc_runtime.credentials.slots import CredentialSources
    from packc_runtime.credentials.store import remove_credentials

    sources = CredentialSources(environ={})
    for plan in plans:
        value = sources.stored(plan.env, plan.origins[:1])
        tokens = parse_token_set(value) if value else None
        removed = remove_credentials([plan.env], {*plan.origins, *(tokens.origins if tokens else ())})
        out.write(
            f"{plan.env}: "
            + (
                f"removed for {', '.join(sorted({r.partition('@')[2] for r in removed}))}.\n"
                if removed
                else "nothing was stored.\n"
            )
        )
    return 0


def _family_grant(plan: Any, target: Literal["keyring", "file"] | None) -> Any:
    """The token set already stored in the plan's slot by a pack of the same family (the slot is
    ``<FAMILY>_TOKEN``, bound to the same origins) from the same token endpoint, else None."""
    from packc_runtime.credentials.oauth_tokens import parse_token_set
    from packc_runtime.credentials.slots import CredentialSources

    sources = CredentialSources(environ={}, hub="keyring" if target == "keyring" else "local-credential")
    value = sources.stored(plan.env, plan.origins)
    tokens = parse_token_set(value) if value else None
    # Another authorization server's grant is not this consent: it is replaced, not extended.
    return tokens if tokens is not None and tokens.token_url == plan.token_url else None


def _still_granted(env: str, granted: Any) -> Any:
    """``granted`` when it still works: refreshed once at its own token endpoint (and saved), or
    unexpired when it has no refresh token; None when it is refused or expired (sign in again)."""
    import time

    import httpx

    from packc_runtime.calling.send import Limits, Sender
    from packc_runtime.calling.transport import LazyTLSTransport
    from packc_runtime.credentials.oauth_tokens import TokenSets
    from packc_runtime.credentials.redact import Redactor
    from packc_runtime.errors import PackRuntimeError

    if granted.refresh_token is None:
        return None if granted.due() else granted
    limits = Limits()
    with httpx.Client(transport=LazyTLSTransport(), follow_redirects=False, timeout=limits.timeout) as client:
        sender = Sender(client, limits)
        deadline = time.monotonic() + limits.deadline

        def send(request: httpx.Request) -> Any:  # the refresh token goes to its own endpoint only
            return sender.steps(request, retry=False, deadline_at=deadline, same_origin=True)

        try:
            return sender.run(TokenSets(Redactor()).renewed(env, granted, send))
        except (PackRuntimeError, httpx.HTTPError):
            return None


def oauth_connect(
    document: Mapping[str, Any],
    slots: Sequence[Any],
    operations: Sequence[Any],
    origins: Mapping[str, Sequence[str]],
    options: OAuthOptions,
    *,
    out: IO[str],
    as_json: bool = False,
    target: Literal["keyring", "file"] | None = None,
    environ: Mapping[str, str] | None = None,
    browser: Callable[[str], bool] | None = None,
) -> tuple[int, set[str]] | None:
    """Sign in for the pack's OAuth2 slots (or show/remove them); None when the pack has none.

    Returns the exit code and the slot variables handled (the caller prompts for the others).
    """
    from packc_runtime.credentials.oauth_connect import (
        authorize_code,
        authorize_device,
        discover,
        oauth_plans,
    )

    plans = oauth_plans(document, slots, operations, origins, device_url=options.device_url)
    if not plans:
        if options.status or options.logout or options.device or options.client_id:
            raise OAuthFailed(
                "This pack has no OAuth2 authorization code or device flow to sign in with.", reason="no_flow"
            )
        return None
    handled = {plan.env for plan in plans}
    if options.status:
        return _status(plans, out, as_json), handled
    if options.logout:
        return _logout(plans, out), handled
    from packc_runtime.credentials.store import store_credentials

    env = os.environ if environ is None else environ
    explicit = options.device or options.no_browser or options.port or options.device_url
    for plan in plans:
        prefix = plan.env.removesuffix("_TOKEN")
        client_id = options.client_id or env.get(f"{prefix}_CLIENT_ID")
        if not client_id and not explicit:  # a token obtained beforehand is asked for, as before
            handled.discard(plan.env)
            out.write(
                f"{plan.env} can be obtained by signing in with OAuth2: run connect again with --client-id ID "
                f"(or set {prefix}_CLIENT_ID). Else enter a token obtained beforehand.\n"
            )
            continue
        if not client_id:
            raise InvalidArgument(
                f"{plan.env} is obtained by signing in with OAuth2, which needs the client id of an app you "
                f"registered with the provider: pass --client-id ID or set {prefix}_CLIENT_ID (packs never carry one).",
                argument="client-id",
            )
        secret = options.client_secret or env.get(f"{prefix}_CLIENT_SECRET") or None
        plan = discover(plan)  # openIdConnect endpoints; every endpoint https (or loopback)
        if options.device and plan.device_url is None:
            raise OAuthFailed(
                f"{plan.env}: the document names no device authorization endpoint: pass --device-url "
                "URL (the provider's documentation names it), or sign in without --device.",
                reason="no_device_endpoint",
            )
        granted = _family_grant(plan, target)
        if granted is not None:  # the family's one consent: this pack's scopes join it
            adds = [scope for scope in plan.scopes if scope not in granted.scopes]
            bound = tuple(dict.fromkeys((*granted.origins, *plan.origins)))
            alive = None if adds else _still_granted(plan.env, granted)
            if alive is not None:
                if bound != alive.origins:  # this pack calls an origin the family's set was not bound to
                    store_credentials(
                        {plan.env: alive._replace(origins=bound).to_value()}, bound, target=target
                    )
                out.write(
                    f"{plan.env} is already connected for this pack's family with scopes "
                    f"{' '.join(alive.scopes) or '(none)'}, which cover this pack's: nothing to ask.\n"
                )
                continue
            out.write(
                f"{plan.env} is shared by the packs of this family and holds "
                f"{' '.join(granted.scopes) or '(no scope)'}; "
                + (f"this pack adds {' '.join(adds)}" if adds else "that grant no longer works")
                + ". One sign-in grants them all, and every pack of the family uses the new token set.\n"
            )
            # The family's scopes stay asked for: a narrower token would break the packs connected before.
            plan = plan._replace(scopes=tuple(dict.fromkeys((*granted.scopes, *plan.scopes))), origins=bound)
        out.write(
            f"Signing in for {plan.env}: tokens come from {plan.token_url} and are stored for "
            f"{', '.join(plan.origins)}; the refresh token is sent to that token endpoint only.\n"
        )
        if options.device:
            tokens = authorize_device(plan, client_id, secret, out=out)
        else:
            tokens = authorize_code(
                plan,
                client_id,
                secret,
                out=out,
                port=options.port,
                open_browser=not options.no_browser,
                timeout=options.timeout,
                browser=browser,
            )
        where = store_credentials({plan.env: tokens.to_value()}, tokens.origins, target=target)
        out.write(
            f"Connected {plan.env} for {', '.join(tokens.origins)}; scopes: {' '.join(tokens.scopes) or '(none)'}; "
            f"{_when(tokens.expires_at)}; stored in {where}.\n"
        )
    return 0, handled

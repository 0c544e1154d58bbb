"""The token never appears in output, logs or envelopes (issue 14): every access and refresh token the
test's server issued is looked for in all that connect, calls, refreshes, --status and --logout print,
log (every logger at DEBUG: httpx, httpcore, authlib, packc) and answer."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
from oauth_server import TestAuthServer, connect

from packc_runtime import load_pack
from packc_runtime.faces.cli import pack_main

pytestmark = pytest.mark.e2e
# The test's authorization server logs what it issues (authlib's server side, werkzeug): not packc's logs.
SERVER = (
    "werkzeug",
    "authlib.oauth2.rfc6749.grants",
    "authlib.oauth2.rfc6749.authenticate_client",
    "authlib.oauth2.rfc6749.authorization_server",
    "authlib.oauth2.rfc8628",
    "authlib.oauth2.rfc7636",
)


def test_no_token_in_output_logs_or_envelopes(
    pack_dir: Path,
    auth_server: TestAuthServer,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)  # the root logger: every library's debug records reach the capture
    for name in ("httpx", "httpcore", "authlib", "packc_runtime"):
        caplog.set_level(logging.DEBUG, logger=name)
    seen: list[str] = []  # everything a person, a log or an agent could read

    code, text = connect(pack_dir)  # authorization code + PKCE
    assert code == 0, text
    seen.append(text)
    auth_server.lifetime = 30  # from now on every token is due at once: each call refreshes
    code, text = connect(pack_dir, device=True)  # the device flow, stored over the first
    assert code == 0, text
    seen.append(text)
    with load_pack(pack_dir) as pack:
        read = next(v for v in sorted(pack.verbs) if not pack.is_write(v))
        envelopes = [pack.call(read, {})]  # refresh before expiry (rotated)
        auth_server.revoke_access()
        envelopes.append(pack.call(read, {}))  # a 401: refresh, retry
        auth_server.revoke_access()
        auth_server.refresh_tokens.clear()  # the authorization is revoked: the failure envelope
        envelopes.append(pack.call(read, {}))
    assert [e["ok"] for e in envelopes] == [True, True, False], envelopes
    seen.extend(json.dumps(e) for e in envelopes)
    code, text = connect(pack_dir)  # sign in again, then the pack's own CLI
    seen.append(text)
    out = io.StringIO()
    assert pack_main(pack_dir, [*read.split("."), "--json"], stdout=out) == 0, out.getvalue()
    seen.append(out.getvalue())
    for options in ({"status": True}, {"status": True, "as_json": True}, {"logout": True}):
        code, text = connect(pack_dir, **options)  # type: ignore[arg-type]
        assert code == 0, text
        seen.append(text)
    captured = capfd.readouterr()
    seen.extend([captured.out, captured.err])
    records = [
        f"{r.name} {r.getMessage()} {r.args!r}" for r in caplog.records if not r.name.startswith(SERVER)
    ]
    seen.extend(records)

    secrets = auth_server.issued
    assert len(secrets) >= 10  # code, device, 2 refreshes, code again: each an access and a refresh token
    assert any(r.startswith("httpx ") for r in records)  # and the log capture really captured
    assert "connected for" in "".join(seen) and "scopes: read write" in "".join(seen)
    leaks = [(secret[:6], where[:120]) for secret in secrets for where in seen if secret in where]
    assert not leaks

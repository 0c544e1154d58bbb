"""``connect`` signs in with OAuth2 against a real authlib server on 127.0.0.1; calls use and refresh the
tokens (issue 14). The test plays the browser: it follows the authorization URL with httpx, and the
server redirects to connect's loopback port."""

from __future__ import annotations

import io
import json
import os
import threading
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from oauth_server import TestAuthServer, connect, person, secrets_of, stored

from packc_runtime import load_pack
from packc_runtime.credentials.oauth_tokens import parse_token_set
from packc_runtime.faces.cli import connect_main, pack_main
from packc_runtime.faces.oauth_cli import OAuthOptions

pytestmark = pytest.mark.e2e


def test_code_with_pkce_through_the_loopback_redirect(pack_dir: Path, auth_server: TestAuthServer) -> None:
    code, text = connect(pack_dir)
    assert code == 0, text
    assert "Scopes requested: read write" in text and "code_challenge_method=S256" in text
    assert (
        "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in text
        and f"Connected TASKS_TOKEN for {auth_server.url}" in text
    )
    authorize = next(line for line in auth_server.log if line.startswith("GET /authorize"))
    assert "code_challenge=" in authorize and "state=" in authorize
    exchange = next(line for line in auth_server.log if line.startswith("POST /token"))
    assert "code_verifier=" in exchange and "grant_type=authorization_code" in exchange
    tokens = parse_token_set(stored()[auth_server.url]["TASKS_TOKEN"])
    assert tokens is not None and tokens.refresh_token and tokens.scopes == ("read", "write")
    with load_pack(pack_dir) as pack:
        envelope = pack.call("me.get", {}) if "me.get" in pack.verbs else pack.call(sorted(pack.verbs)[0], {})
    assert envelope["ok"], envelope
    assert auth_server.seen[-1] == f"Bearer {tokens.access_token}" and auth_server.refresh_requests == 0
    assert not any(secret in text + json.dumps(envelope) for secret in secrets_of(auth_server))


def test_status_and_logout_never_show_a_secret(pack_dir: Path, auth_server: TestAuthServer) -> None:
    assert connect(pack_dir)[0] == 0
    code, text = connect(pack_dir, status=True)
    assert code == 0 and "TASKS_TOKEN" in text and "connected for" in text and "scopes: read write" in text
    assert "refreshable" in text and not any(secret in text for secret in secrets_of(auth_server))
    out = io.StringIO()
    assert pack_main(pack_dir, ["connect", "--status"], stdout=out) == 0  # the pack's own CLI takes the flags
    assert "connected for" in out.getvalue()
    code, text = connect(pack_dir, logout=True)
    assert code == 0 and "removed for" in text and "TASKS_TOKEN" not in json.dumps(stored())
    assert "not connected" in connect(pack_dir, status=True)[1]


def _calls(pack_dir: Path, n: int) -> list[dict[str, object]]:
    with load_pack(pack_dir) as pack:
        verb = next(v for v in sorted(pack.verbs) if not pack.is_write(v))
        return [pack.call(verb, {}) for _ in range(n)]


def test_refresh_before_expiry_rotates_and_saves_the_new_refresh_token(
    pack_dir: Path, auth_server: TestAuthServer
) -> None:
    auth_server.lifetime = 30  # inside the refresh margin: due at once
    assert connect(pack_dir)[0] == 0
    first = parse_token_set(stored()[auth_server.url]["TASKS_TOKEN"])
    assert first is not None
    envelopes = _calls(pack_dir, 1)
    assert envelopes[0]["ok"], envelopes
    assert auth_server.refresh_requests == 1
    second = parse_token_set(stored()[auth_server.url]["TASKS_TOKEN"])
    assert second is not None and second.refresh_token != first.refresh_token  # rotated, and saved
    assert auth_server.refresh_tokens[str(first.refresh_token)].revoked
    assert auth_server.seen[-1] == f"Bearer {second.access_token}"
    envelopes = _calls(pack_dir, 1)  # a new process: only the saved, rotated refresh token works
    assert envelopes[0]["ok"] and auth_server.refresh_requests == 2
    assert not any(secret in json.dumps(envelopes) for secret in secrets_of(auth_server))


def test_a_401_refreshes_once_and_retries(pack_dir: Path, auth_server: TestAuthServer) -> None:
    assert connect(pack_dir)[0] == 0
    with load_pack(pack_dir) as pack:
        verb = next(v for v in sorted(pack.verbs) if not pack.is_write(v))
        assert pack.call(verb, {})["ok"] and auth_server.refresh_requests == 0
        auth_server.revoke_access()  # the API no longer takes the access token
        envelope = pack.call(verb, {})
        assert envelope["ok"], envelope
        assert auth_server.refresh_requests == 1 and auth_server.seen[-2] != auth_server.seen[-1]
        auth_server.revoke_access()
        auth_server.refresh_tokens.clear()  # the authorization is revoked: refresh fails, said plainly
        refused = pack.call(verb, {})
    assert refused["error"]["code"] == "unauthorized" and "connect again" in refused["error"]["message"]


def test_concurrent_calls_refresh_once(pack_dir: Path, auth_server: TestAuthServer) -> None:
    """Eight calls find the token due while the token endpoint takes 0.5 s: one refresh serves them all
    (without single flight each would send the same refresh token, and rotation would refuse seven)."""
    auth_server.lifetime = 30  # due at once
    assert connect(pack_dir)[0] == 0
    auth_server.lifetime, auth_server.refresh_delay = 3600, 0.5  # the refreshed token is fresh for an hour
    with load_pack(pack_dir) as pack:
        verb = next(v for v in sorted(pack.verbs) if not pack.is_write(v))
        results: list[dict[str, object]] = []
        start = threading.Barrier(8)

        def call() -> None:
            start.wait(10)
            results.append(pack.call(verb, {}))

        threads = [threading.Thread(target=call) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert len(results) == 8 and all(r["ok"] for r in results), results
    assert auth_server.refresh_requests == 1
    assert len(set(auth_server.seen[-8:])) == 1  # every call sent the one refreshed token


def test_denied_consent_stores_nothing(pack_dir: Path, auth_server: TestAuthServer) -> None:
    auth_server.consent = False
    code, text = connect(pack_dir)
    assert code == 5 and "oauth_failed" in text and "declined" in text and "access_denied" in text
    assert not Path(os.environ["PACKC_CREDENTIALS_FILE"]).exists()


def test_state_mismatch_is_refused(pack_dir: Path, auth_server: TestAuthServer) -> None:
    def forge(location: str) -> str:
        parts = urlsplit(location)
        query = dict(parse_qsl(parts.query))
        query["state"] = "forged"
        return parts._replace(query=urlencode(query)).geturl()

    code, text = connect(pack_dir, browser=person(forge))
    assert code == 5 and "state does not match" in text
    assert not Path(os.environ["PACKC_CREDENTIALS_FILE"]).exists()


def test_a_redirect_that_never_comes_and_a_refused_loopback(
    pack_dir: Path, auth_server: TestAuthServer
) -> None:
    code, text = connect(pack_dir, browser=lambda url: True, timeout=0.5)
    assert code == 5 and "No redirect came back" in text and "--device" in text and "--port" in text
    auth_server.allow_loopback = False  # the provider shows an error page instead of redirecting
    code, text = connect(pack_dir, timeout=1.0)
    assert code == 5 and "redirect URI is not allowed" in text


def test_missing_client_id_names_the_flag_and_the_variable(
    pack_dir: Path, auth_server: TestAuthServer
) -> None:
    out = io.StringIO()
    code = connect_main(pack_dir, stdout=out, oauth=OAuthOptions(device=True), browser=person())
    assert code == 2 and "--client-id" in out.getvalue() and "TASKS_CLIENT_ID" in out.getvalue()
    out = io.StringIO()  # no OAuth2 flag: a token obtained beforehand is asked for, with the hint
    code = connect_main(pack_dir, stdout=out, prompt=lambda text: "", browser=person())
    assert code == 0 and "--client-id" in out.getvalue() and "Nothing entered" in out.getvalue()
    assert not auth_server.log


def test_device_flow(pack_dir: Path, auth_server: TestAuthServer) -> None:
    code, text = connect(pack_dir, device=True)
    assert code == 0, text
    assert "enter the code" in text and "Connected TASKS_TOKEN" in text
    assert _calls(pack_dir, 1)[0]["ok"]


def test_device_flow_expired_code_and_wrong_client(pack_dir: Path, auth_server: TestAuthServer) -> None:
    auth_server.device_person, auth_server.device_lifetime = None, 0.5  # nobody enters the code in time
    code, text = connect(pack_dir, device=True)
    assert code == 5 and "expired" in text and "--device again" in text
    code, text = connect(pack_dir, device=True, client_id="not-registered")
    assert code == 5 and "invalid_client" in text and "--client-id" in text


def test_calls_and_refresh_never_import_authlib(pack_dir: Path, auth_server: TestAuthServer) -> None:
    import subprocess
    import sys

    auth_server.lifetime = 30  # the call below refreshes
    assert connect(pack_dir)[0] == 0
    probe = (
        "import sys, json; from packc_runtime import load_pack\n"
        f"pack = load_pack({str(pack_dir)!r})\n"
        "verb = next(v for v in sorted(pack.verbs) if not pack.is_write(v))\n"
        "print(json.dumps([pack.call(verb, {})['ok'], 'authlib' in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=os.environ
    )
    assert json.loads(done.stdout) == [True, False], done.stderr
    assert auth_server.refresh_requests == 1


def test_the_client_id_from_the_environment_and_packs_never_carry_secrets(
    pack_dir: Path, auth_server: TestAuthServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``<PREFIX>_CLIENT_ID`` (and ``_CLIENT_SECRET``) come from the environment; compiling the document
    again, or the pack itself, with them set and a token stored, writes none of them into a pack."""
    from oauth_server import CLIENT_ID

    from packc import compile as compile_api

    harness = (pack_dir / "HARNESS.md").read_text("utf-8")  # the person is told how to sign in
    assert (
        "`TASKS_TOKEN`: OAuth2 access token for scheme 'oauth' (oauth2): a person signs in with connect --client-id ID"
        in harness
    )
    monkeypatch.setenv("TASKS_CLIENT_ID", CLIENT_ID)
    out = io.StringIO()
    assert connect_main(pack_dir, stdout=out, oauth=OAuthOptions(timeout=10.0), browser=person()) == 0, (
        out.getvalue()
    )
    assert "Connected TASKS_TOKEN" in out.getvalue()
    monkeypatch.setenv("TASKS_CLIENT_SECRET", "s3cret-not-for-packs")  # (the test's public client has none)
    again = compile_api(pack_dir / "surface.json", tmp_path / "again").packs[0].directory
    assert again is not None
    secrets = [CLIENT_ID, "s3cret-not-for-packs", *secrets_of(auth_server)]
    assert len(secrets) >= 4
    for directory in (pack_dir, again):
        for path in directory.rglob("*"):
            if path.is_file():
                text = path.read_bytes().decode("utf-8", "replace")
                assert not [s for s in secrets if s in text], path


def test_another_process_rotated_the_refresh_token_meanwhile(
    pack_dir: Path, auth_server: TestAuthServer
) -> None:
    """Two processes share the stored token set: the one that refreshes second finds its refresh token
    rotated away (invalid_grant), reads the set the other saved and uses it instead of failing."""
    assert connect(pack_dir)[0] == 0
    with load_pack(pack_dir) as first, load_pack(pack_dir) as second:
        verb = next(v for v in sorted(first.verbs) if not first.is_write(v))
        assert first.call(verb, {})["ok"] and second.call(verb, {})["ok"]  # both hold the connected set
        auth_server.revoke_access()  # both access tokens stop working: each process refreshes
        assert first.call(verb, {})["ok"] and auth_server.refresh_requests == 1  # rotated and saved
        envelope = second.call(verb, {})  # its refresh token was revoked by the rotation
        assert envelope["ok"], envelope
        assert auth_server.refresh_requests == 2  # the refused one; then the saved set served
        saved = parse_token_set(stored()[auth_server.url]["TASKS_TOKEN"])
        assert saved is not None and auth_server.seen[-1] == f"Bearer {saved.access_token}"

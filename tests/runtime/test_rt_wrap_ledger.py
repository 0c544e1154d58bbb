"""The reference's ``ledger`` wrap pack, as written, run through every face it lists (``cli``:
``packc call`` and the pack CLI; ``json_exec``: ``packc exec``) and the Python API. Its bin,
``bin/ledger.mjs``, is a real program run as a child process, keeping its store in the pack folder
(``workspace.mode`` defaults to ``none``)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from packc_runtime import load_pack
from packc_runtime.faces.cli import call_main, exec_main, pack_main

LEDGER = Path(__file__).resolve().parents[1] / "fixtures" / "ledger"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="the ledger's bin is a node script")


@pytest.fixture()
def ledger(tmp_path: Path) -> Path:
    shutil.copytree(LEDGER, tmp_path / "ledger")
    return tmp_path / "ledger"


def _store(pack: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pack / "ledger.json").read_text())
    return data


def test_python_api_runs_every_verb(ledger: Path) -> None:
    with load_pack(ledger) as pack:
        assert pack.call("setup.status")["body"] == {"ready": False}
        refused = pack.call("setup.apply")
        assert refused["error"]["code"] == "not_confirmed" and not (ledger / "ledger.json").exists()
        assert pack.call("setup.apply", confirm=True)["body"] == {"ready": True}
        assert pack.call("connect", {"provider": "demo-bank"}, confirm=True)["body"] == {
            "linked": "demo-bank"
        }
        assert pack.call("connect", {}, confirm=True)["error"]["missing"] == ["provider"]
        paid = pack.call("transfer", {"amount": "2.80", "payee": "demo-transit"}, confirm=True)
        assert paid["ok"] and paid["title"] == "Paid 2.80 to demo-transit"
        assert paid["body"] == {"amount": "2.80", "payee": "demo-transit", "memo": None}
        assert pack.call("status")["body"] == {"balance": "97.20", "currency": "EUR", "link": "ok"}
        assert pack.call("list")["body"][0]["payee"] == "demo-transit"


def test_the_ledgers_own_confirm_token_is_not_the_persons(ledger: Path) -> None:
    """cli[] writes ``--confirm`` for the ledger; the runtime still asks a person, with the card."""
    with load_pack(ledger) as pack:
        pack.call("setup.apply", confirm=True)
        card = pack.call("transfer", {"amount": "9.99", "payee": "demo-transit", "memo": "lunch"})
    assert card["error"]["code"] == "not_confirmed"
    assert card["error"]["preview"] == {
        "kind": "payment",
        "title": "Pay demo-transit",
        "fields": {"amount": "9.99", "currency": "EUR", "to": "demo-transit", "memo": "lunch"},
    }
    assert _store(ledger)["entries"] == []


def test_packc_call_and_exec(ledger: Path) -> None:
    out = io.StringIO()
    assert call_main(ledger, "setup.apply", None, confirm=True, stdout=out) == 0
    out = io.StringIO()
    code = call_main(ledger, "transfer", '{"amount": "1.50", "payee": "cafe"}', stdout=out)
    assert code == 4 and json.loads(out.getvalue())["error"]["preview"]["fields"]["to"] == "cafe"
    request = {
        "verb": "transfer",
        "args": {"amount": "1.50", "payee": "cafe", "memo": "tea"},
        "confirm": True,
    }
    out = io.StringIO()
    assert exec_main(ledger, stdin=io.StringIO(json.dumps(request)), stdout=out) == 0
    assert json.loads(out.getvalue())["body"] == {"amount": "1.50", "payee": "cafe", "memo": "tea"}
    out = io.StringIO()
    assert exec_main(ledger, stdin=io.StringIO('{"verb": "list"}'), stdout=out) == 0
    assert json.loads(out.getvalue())["body"][0]["memo"] == "tea"


def test_pack_cli_reads_the_ledgers_own_lines(ledger: Path) -> None:
    def run(*argv: str) -> tuple[int, dict[str, Any]]:
        out = io.StringIO()
        code = pack_main(ledger, [*argv, "--json"], stdout=out, stderr=io.StringIO(), ask=lambda q: "n")
        return code, json.loads(out.getvalue())

    assert run("setup", "all", "-y", "--confirm")[1]["body"] == {"ready": True}  # cli[]'s words
    # The line packc commands prints: its --confirm is the ledger's own token, not the person's.
    code, card = run("transfer", "2.80", "--to", "demo-transit", "--confirm")
    assert code == 4 and card["error"]["code"] == "not_confirmed"
    code, paid = run("transfer", "2.80", "--to", "demo-transit", "--memo", "bus", "--confirm", "--confirm")
    assert code == 0 and paid["body"] == {"amount": "2.80", "payee": "demo-transit", "memo": "bus"}
    # a verb named like the CLI's own connect command is reached with -- (docs/runtime.md)
    assert run("--", "connect", "demo-bank", "--confirm")[1]["body"] == {"linked": "demo-bank"}
    assert run("status")[1]["body"]["balance"] == "97.20"


def test_the_packc_command_runs_it_in_a_real_process(ledger: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "packc.cli", "call", str(ledger), "setup.status"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["body"] == {"ready": False}


def test_a_failing_ledger_command_is_an_error_envelope(ledger: Path) -> None:
    with load_pack(ledger) as pack:
        failed = pack.call("status")  # not set up: the ledger exits 3
    assert failed["error"]["code"] == "command_failed" and failed["error"]["exit_status"] == 3
    assert "not set up" in failed["error"]["stderr"]

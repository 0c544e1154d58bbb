"""Errors that say what to do (issue 24, item 7): no credential names connect, not the server;
`packc exec` documents its request; an unknown verb names only the words that could be one; a verb's
--help reads its types as a person does."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from packc import compile as packc_compile
from packc_runtime import load_pack
from packc_runtime.faces.cli import pack_main
from servers import PACKS

PACKC = [sys.executable, "-m", "packc.cli"]


def test_no_credential_and_a_mock_server_says_run_connect_not_untrusted() -> None:
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200, json={}))  # type: ignore[func-returns-value]
    with load_pack(PACKS / "authz", transport=transport, environ={}) as pack:
        envelope = pack.call("whoami.bearer", {}, server="http://127.0.0.1:4010")
    error = envelope["error"]
    assert error["code"] == "missing_credentials" and seen == []
    assert "none is set" in error["message"] and "connect --server http://127.0.0.1:4010" in error["message"]
    assert error["env"] == ["AUTHZ_BEARER_TOKEN"]
    # A credential that is set is still not sent to a server nobody named: that refusal is unchanged.
    with load_pack(PACKS / "authz", transport=transport, environ={"AUTHZ_BEARER_TOKEN": "t"}) as pack:
        envelope = pack.call("whoami.bearer", {}, server="http://127.0.0.1:4010")
    assert envelope["error"]["code"] == "untrusted_server" and seen == []


def test_packc_exec_help_shows_the_request_and_a_flag_gets_execs_usage() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    shown = subprocess.run([*PACKC, "exec", "--help"], capture_output=True, text=True, env=env, check=True)
    assert '{"verb": "pets.get", "args": {"pet_id": "42"}, "confirm": false, "server": null}' in shown.stdout
    wrong = subprocess.run(
        [*PACKC, "exec", str(PACKS / "echo"), "--server", "http://127.0.0.1:4010"],
        capture_output=True,
        text=True,
        env=env,
        input="",
    )
    assert wrong.returncode == 2
    assert wrong.stderr.startswith("usage: packc exec")  # its own usage, not packc's list of commands
    assert "the request on stdin carries verb, args, confirm and server" in wrong.stderr


def test_an_unknown_verb_names_only_the_words_that_could_be_a_verb() -> None:
    err = io.StringIO()
    code = pack_main(
        PACKS / "echo", ["item", "get", "octocat", "hello-world"], stdout=io.StringIO(), stderr=err
    )
    assert code == 2
    assert "no verb 'item get'." in err.getvalue() and "octocat" not in err.getvalue()
    assert "Did you mean 'echo items get'?" in err.getvalue()


def test_a_verbs_help_prints_types_as_words_and_describes_a_choice(tmp_path: Path) -> None:
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "Tracker", "version": "1"},
        "servers": [{"url": "https://tracker.example.com"}],
        "paths": {
            "/issues": {
                "get": {
                    "operationId": "issues_list",
                    "summary": "List issues.",
                    "parameters": [
                        {"name": "label", "in": "query", "schema": {"type": ["string", "null"]}},
                        {
                            "name": "milestone",
                            "in": "query",
                            "schema": {
                                "oneOf": [
                                    {"type": "integer", "description": "A milestone's number."},
                                    {"type": "string", "enum": ["*", "none"], "description": "Any or none."},
                                ]
                            },
                        },
                    ],
                    "responses": {"200": {"description": "issues"}},
                }
            }
        },
    }
    (tmp_path / "tracker.json").write_text(json.dumps(doc))
    pack = packc_compile(tmp_path / "tracker.json", tmp_path / "packs").packs[0].directory
    shown = subprocess.run(
        [sys.executable, str(pack / "bin" / "tracker"), "issues", "list", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "['string'" not in shown
    label = next(line for line in shown.splitlines() if line.strip().startswith("--label"))
    milestone = next(line for line in shown.splitlines() if line.strip().startswith("--milestone"))
    assert "string or null" in label
    assert "integer or string" in milestone and "A milestone's number. Or: Any or none." in milestone


@pytest.mark.parametrize("argv", [["zebra"], ["items"]])
def test_a_short_unknown_verb_is_named_whole(argv: list[str]) -> None:
    err = io.StringIO()
    pack_main(PACKS / "echo", argv, stdout=io.StringIO(), stderr=err)
    assert f"no verb {' '.join(argv)!r}" in err.getvalue()

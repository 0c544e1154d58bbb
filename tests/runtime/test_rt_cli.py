"""The transports: the pack's own CLI, packc call, packc exec (json_exec) and packc connect."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from packc.cli import main as packc_main
from packc_runtime.errors import ERROR_CLASSES
from packc_runtime.faces.cli import call_main, exec_main, pack_main
from servers import PACKS
from servers.echo_app import EchoApp

Server = tuple[EchoApp, str]


def run_pack(pack: str, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = pack_main(PACKS / pack, argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.e2e
def test_pack_cli_positional_flags_and_coercion(echo_server: Server) -> None:
    _, url = echo_server
    code, out, _ = run_pack(
        "echo",
        [
            "items",
            "get",
            "42",
            "--limit",
            "5",
            "--tags",
            "a",
            "--tags=b",
            "--verbose",
            "--server",
            url + "/api",
            "--json",
        ],
    )
    envelope = json.loads(out)
    assert code == 0 and envelope["ok"] and envelope["verb"] == "items.get"
    assert envelope["body"]["path"] == "/api/echo/items/42"
    assert envelope["body"]["query"] == "limit=5&tags=a&tags=b&verbose=true"
    assert envelope["title"] == "Read GET 42"


@pytest.mark.e2e
def test_pack_cli_human_output_and_write_confirmation(echo_server: Server) -> None:
    app, url = echo_server
    before = len(app.log)
    code, out, err = run_pack("echo", ["items", "delete", "7", "--server", url + "/api"])
    assert code == ERROR_CLASSES["not_confirmed"].exit_code == 4
    assert "not_confirmed" in err and '"title": "Delete item 7"' in err
    assert len(app.log) == before  # nothing was sent
    code, out, err = run_pack("echo", ["items", "delete", "7", "--confirm", "--server", url + "/api"])
    assert code == 0 and json.loads(out)["method"] == "DELETE"


def test_pack_cli_usage_errors() -> None:
    code, out, _ = run_pack("echo", [])
    assert code == 2 and "items get" in out and "[write]" in out
    code, out, _ = run_pack("echo", ["--help"])
    assert code == 0
    code, out, _ = run_pack("echo", ["items", "delete", "--help"])
    assert code == 0 and "<item_id> (position 0)" in out and "write: needs --confirm" in out
    code, _, err = run_pack("echo", ["items", "nope"])
    assert code == 2 and "no verb" in err
    code, out, _ = run_pack("echo", ["items", "get", "1", "2", "--json"])
    assert code == 2 and "unexpected: 2" in json.loads(out)["error"]["message"]
    code, out, _ = run_pack("echo", ["items", "get", "1", "--limit", "many", "--json"])
    assert code == 2 and json.loads(out)["error"]["code"] == "invalid_argument"
    code, out, _ = run_pack("echo", ["items", "get", "1", "--colour", "red", "--json"])
    assert json.loads(out)["error"]["unknown"] == ["colour"]


def test_pack_cli_connect_subcommand_lists_credentials() -> None:
    code, out, _ = run_pack("authz", ["connect", "--list", "--json"])
    assert code == 0
    assert "AUTHZ_BEARER_TOKEN" in [c["env"] for c in json.loads(out)["credentials"]]


def test_invalid_pack_is_an_envelope(tmp_path: Path) -> None:
    out = io.StringIO()
    code = call_main(tmp_path, "x", "{}", stdout=out)
    envelope = json.loads(out.getvalue())
    assert envelope["error"]["code"] == "invalid_pack" and code == 3


@pytest.mark.e2e
def test_packc_call_and_exec(echo_server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    _, url = echo_server
    code = packc_main(
        ["call", str(PACKS / "echo"), "items.create", "--args", '{"name": "x"}', "--server", url + "/api"]
    )
    envelope = json.loads(capsys.readouterr().out)
    assert code == 4 and envelope["error"]["preview"]["title"] == "Create x"
    code = packc_main(
        [
            "call",
            str(PACKS / "echo"),
            "items.create",
            "--args",
            '{"name": "x"}',
            "--confirm",
            "--server",
            url + "/api",
        ]
    )
    assert code == 0 and json.loads(capsys.readouterr().out)["title"] == "Created x (POST)"
    assert packc_main(["call", str(PACKS / "echo"), "items.get", "--args", "[1]"]) == 2

    def exec_once(request: Any) -> tuple[int, dict[str, Any]]:
        out = io.StringIO()
        text = request if isinstance(request, str) else json.dumps(request)
        code = exec_main(PACKS / "echo", stdin=io.StringIO(text), stdout=out)
        lines = out.getvalue().splitlines()
        assert len(lines) == 1
        return code, json.loads(lines[0])

    code, envelope = exec_once(
        {"verb": "items.get", "args": {"item_id": "9"}, "confirm": False, "server": url + "/api"}
    )
    assert code == 0 and envelope["body"]["path"] == "/api/echo/items/9"
    code, envelope = exec_once(
        {"verb": "items.delete", "args": {"item_id": "9"}, "confirm": True, "server": url + "/api"}
    )
    assert code == 0 and envelope["body"]["method"] == "DELETE"
    code, envelope = exec_once("{not json")
    assert code == 2 and envelope["error"]["code"] == "invalid_request"
    code, envelope = exec_once({"verb": "items.get", "args": {}, "extra": 1})
    assert envelope["error"]["code"] == "invalid_request" and "extra" in envelope["error"]["message"]


@pytest.mark.e2e
def test_bin_launcher_runs_without_the_compiler(echo_server: Server) -> None:
    _, url = echo_server
    launcher = PACKS / "echo" / "bin" / "echo"
    assert os.access(launcher, os.X_OK)
    assert launcher.read_text().startswith("#!/usr/bin/env python3")
    probe = (
        "import runpy, sys\n"
        f"sys.argv = [{str(launcher)!r}, 'items', 'get', '5', '--server', {url + '/api'!r}, '--json']\n"
        "try:\n"
        f"    runpy.run_path({str(launcher)!r}, run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('packc', 'pydantic', 'jsonschema', 'keyring'))\n"
        "    print('EXIT', exc.code, heavy, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert json.loads(result.stdout)["body"]["path"] == "/api/echo/items/5"
    assert result.stderr.strip().endswith("EXIT 0 []"), result.stderr


@pytest.mark.e2e
def test_server_variables_from_the_command_line(
    echo_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    _, url = echo_server
    port = url.rsplit(":", 1)[1]
    pack = tmp_path / "echo"
    shutil.copytree(PACKS / "echo", pack)
    document = json.loads((pack / "openapi.json").read_text())
    document["servers"] = [
        {
            "url": "http://{host}:{port}/{base}",
            "variables": {
                "host": {"default": "127.0.0.1", "enum": ["127.0.0.1", "localhost"]},
                "port": {"default": "9"},
                "base": {"default": "api"},
            },
        }
    ]
    (pack / "openapi.json").write_text(json.dumps(document))
    out, err = io.StringIO(), io.StringIO()
    code = pack_main(
        pack, ["items", "get", "3", "--server-var", f"port={port}", "--json"], stdout=out, stderr=err
    )
    assert code == 0 and json.loads(out.getvalue())["body"]["path"] == "/api/echo/items/3"
    code = packc_main(
        [
            "call",
            str(pack),
            "items.get",
            "--args",
            '{"item_id": "4"}',
            "--server-var",
            f"port={port}",
            "--server-var",
            "host=localhost",
        ]
    )
    assert code == 0 and json.loads(capsys.readouterr().out)["body"]["headers"]["host"] == f"localhost:{port}"
    code = packc_main(
        ["call", str(pack), "items.get", "--args", '{"item_id": "4"}', "--server-var", "host=evil.example"]
    )
    assert code == 2 and json.loads(capsys.readouterr().out)["error"]["code"] == "invalid_server"
    code = packc_main(
        ["call", str(pack), "items.get", "--args", '{"item_id": "4"}', "--server-var", f"port={port}/x?"]
    )
    assert code == 2 and "refused" in json.loads(capsys.readouterr().out)["error"]["message"]

"""End to end: a compiled pack's own bin/ CLI calls the demo API on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from packc import compile

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e


def test_compiled_pack_cli_reads_and_writes_with_confirmation(demo_server: Any, tmp_path: Path) -> None:
    server = demo_server
    result = compile(ROOT / "specs/demo/petstore.yaml", tmp_path, server=server.url)
    assert result.ok
    pack = result.packs[0].directory
    assert pack is not None
    env = {
        **os.environ,
        "PETSTORE_API_KEY": server.api_key,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PACKC_TRUSTED_ORIGINS": server.url,
        "PACKC_CREDENTIALS_FILE": str(tmp_path / "creds" / "credentials.json"),
        "PACKC_KEYRING": "off",
    }  # the variable goes to the server's origin because it is named here

    def run(*words: str) -> dict[str, Any]:
        proc = subprocess.run(
            [str(pack / "bin" / "petstore"), *words, "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        return dict(json.loads(proc.stdout))

    listed = run("pets", "list", "--limit", "2")
    assert listed["ok"] and listed["status"] == 200 and len(listed["body"]) == 2
    got = run("pets", "get", "1")
    assert got["ok"] and got["body"]["id"] == 1 and got["title"] == "Got pet 1"
    refused = run("pets", "create", "--name", "Biscuit", "--species", "dog")
    assert not refused["ok"] and refused["error"]["code"] == "not_confirmed"
    assert refused["error"]["preview"]["kind"] == "record"
    created = run("pets", "create", "--name", "Biscuit", "--species", "dog", "--confirm")
    assert created["ok"] and created["status"] == 201 and created["body"]["name"] == "Biscuit"
    removed = run("pets", "delete", str(created["body"]["id"]), "--confirm")
    assert removed["ok"], removed
    missing = run("pets", "get", str(created["body"]["id"]))
    assert not missing["ok"] and missing["error"]["code"] == "not_found"

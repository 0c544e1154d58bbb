"""``packc serve`` over stdio, raw JSON-RPC lines (no SDK client): the pipe transport
(``packc_runtime.faces.mcp._stdio``) and the SDK's, taken when stdin is a regular file, answer alike; a
line that is not JSON is skipped; end of input ends the server cleanly; the descriptors' blocking mode is
the same after the server as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(os.name != "posix", reason="POSIX pipes")]
ECHO = Path(__file__).resolve().parents[1] / "fixtures" / "packs" / "echo"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
LINES = [
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}),
    "this is not JSON",
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "items.get", "arguments": {"item_id": 42, "extra": 1}, "_meta": META},
        }
    ),
]


def _serve(stdin: Any, stdout: Any = subprocess.PIPE) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "packc.cli", "serve", str(ECHO)],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env={**os.environ, "PACKC_KEYRING": "off"},
    )


def _check(out: bytes, err: bytes, code: int) -> None:
    assert code == 0 and b"Traceback" not in err, err.decode()
    answers = [json.loads(line) for line in out.decode().splitlines()]
    by_id = {a.get("id"): a for a in answers}
    assert "items.get" in [t["name"] for t in by_id[1]["result"]["tools"]]
    bad = by_id[2]["result"]  # refused before sending: an unknown argument
    assert bad["isError"] and bad["structuredContent"]["error"]["unknown"] == ["extra"]
    assert len(answers) == 2  # the line that is not JSON goes to the server as an error, which skips it


def test_pipes() -> None:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    try:
        proc = _serve(stdin_r, stdout_w)
        os.close(stdout_w)
        with os.fdopen(stdout_r, "rb") as out, os.fdopen(stdin_w, "wb", buffering=0) as into:
            into.write(("\n".join(LINES) + "\n").encode())
            answers = [out.readline(), out.readline()]  # end of input drops calls still under way: wait
            into.close()
            answers.append(out.read())
        assert proc.stderr is not None
        _check(b"".join(answers), proc.stderr.read(), proc.wait(60))
        # The child shared this open file with us: it made it non-blocking while serving and set it back.
        assert os.get_blocking(stdin_r)
    finally:
        os.close(stdin_r)


def test_a_regular_file_on_stdin_is_served_by_the_sdk_transport(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_text("\n".join(LINES[:2]) + "\n")  # the SDK ends in-flight calls at end of input: no call
    with requests.open("rb") as stdin:
        proc = _serve(stdin)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in err, err.decode()
    answers = [json.loads(line) for line in out.decode().splitlines()]
    assert len(answers) == 1 and "items.get" in [t["name"] for t in answers[0]["result"]["tools"]]

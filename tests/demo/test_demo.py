"""`make demo` end to end: every step runs and succeeds, and the server is stopped even when a step fails."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, load_module

pytestmark = pytest.mark.e2e


def _listening(url: str) -> bool:
    match = re.match(r"http://127\.0\.0\.1:(\d+)", url)
    assert match, url
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", int(match.group(1)))) == 0


def test_demo_runs_every_step(tmp_path: Path) -> None:
    env = {**os.environ, "PACKC_DEMO_OUT": str(tmp_path / "demo")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "demo.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=240,
        env=env,
        cwd=ROOT,
    )
    out = done.stdout  # what the person sees: the demo's lines and its commands' output and errors
    assert done.returncode == 0, out
    for number in range(1, 9):
        assert f"==> [{number}/8]" in out
    assert "0 error(s)" in out  # lint is clean
    assert "$ PETSTORE_API_KEY=demo-key " in out  # the key travels in the documented variable
    assert "not_confirmed" in out  # the unconfirmed write stopped at its preview
    assert out.count('"name": "Biscuit"') >= 2  # created, then listed
    assert (tmp_path / "demo" / "petstore" / "surface.json").is_file()
    url = re.search(r"^(http://127\.0\.0\.1:\d+/v1)$", out, re.M)
    assert url and not _listening(url.group(1))


def test_server_is_stopped_when_a_step_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = load_module(ROOT / "tools" / "demo.py", "demo_tool")
    monkeypatch.setattr(demo, "OUT", tmp_path / "demo")
    real_run = demo.run

    def failing_run(shown: list[str], *args: object, **kwargs: object) -> int:
        if shown[:2] == ["packc", "lint"]:
            raise demo.DemoFailed("lint broke on purpose")
        return int(real_run(shown, *args, **kwargs))

    monkeypatch.setattr(demo, "run", failing_run)
    assert demo.main() == 1
    out = capsys.readouterr().out
    assert "demo failed: lint broke on purpose" in out
    url = re.search(r"^(http://127\.0\.0\.1:\d+/v1)$", out, re.M)
    assert url and not _listening(url.group(1))

"""CI's slice of the official MCP conformance suite against `packc serve --http` (make conformance-mcp runs all)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
SUITE = (
    ROOT / ".mcp-conformance" / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
)


def test_the_slice_every_pack_server_must_pass(tmp_path: Path) -> None:
    if not SUITE.is_file():
        message = "the MCP conformance suite is not installed (make conformance-mcp installs and runs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "mcp_conformance.py"), "--slice", "-o", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    for scenario in (
        "server-initialize",
        "ping",
        "tools-list",
        "dns-rebinding-protection",
        "server-sse-multiple-streams",
    ):
        assert f"scenario '{scenario}'" in out, scenario
    failed = [int(n) for n in re.findall(r"(\d+) failed", out)]
    passed = [int(n) for n in re.findall(r"Passed: (\d+)/", out)]
    assert len(failed) == 5 and set(failed) == {0} and sum(passed) == 7, out


def test_the_stateless_revisions_scenarios_on_the_suites_pre_release(tmp_path: Path) -> None:
    suite = ROOT / ".mcp-conformance-next" / "node_modules" / "@modelcontextprotocol" / "conformance"
    if not (suite / "package.json").is_file():
        message = "the MCP conformance suite's pre-release is not installed (make conformance-mcp installs and runs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "mcp_conformance.py"), "--stateless"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    match = re.search(r"(\d+) checks passed, (\d+) failed", out)
    assert match and int(match.group(1)) >= 50 and match.group(2) == "0", out

"""`make demo-mcp` end to end: the demo pack served over stdio to the SDK's client."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


def test_mcp_demo_runs_every_step(tmp_path: Path) -> None:
    env = {**os.environ, "PACKC_DEMO_OUT": str(tmp_path / "mcp-demo")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "mcp_demo.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=240,
        env=env,
        cwd=ROOT,
    )
    out = done.stdout
    assert done.returncode == 0, out
    for number in range(1, 7):
        assert f"==> [{number}/6]" in out
    assert re.search(r"pets\.delete +readOnly=False destructive=True", out)
    assert "the person ticks yes" in out and re.search(r"Created pet( Biscuit)? \(HTTP 201\)", out)
    assert "error not_confirmed" in out and "Preview of what would be sent:" in out
    assert "Demo done" in out

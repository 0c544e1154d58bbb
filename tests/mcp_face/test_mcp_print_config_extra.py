"""Set-up words (issue 24, item 9): `<cliBin> mcp --print-config` without the mcp extra says the extra
is missing instead of printing a host entry whose server would stop at once."""

from __future__ import annotations

import io
import sys

import pytest

from packc_runtime.faces.cli import pack_main
from servers import PACKS


def test_print_config_without_the_mcp_extra_says_so_and_prints_no_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # how Python marks a module that cannot be imported
    out, err = io.StringIO(), io.StringIO()
    code = pack_main(PACKS / "echo", ["mcp", "--print-config", "claude-desktop"], stdout=out, stderr=err)
    assert code == 2 and out.getvalue() == ""
    assert "no host entry printed" in err.getvalue() and "pip install 'packc-runtime[mcp]'" in err.getvalue()


def test_print_config_with_the_extra_prints_the_entry() -> None:
    pytest.importorskip("mcp")
    out, err = io.StringIO(), io.StringIO()
    code = pack_main(PACKS / "echo", ["mcp", "--print-config", "claude-desktop"], stdout=out, stderr=err)
    assert code == 0 and '"mcpServers"' in out.getvalue()

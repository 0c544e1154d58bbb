"""title.live is shown while a command runs: on the pack CLI's stderr when it is a terminal."""

from __future__ import annotations

import io
from pathlib import Path

from packc_runtime.calling.results import live_title
from packc_runtime.faces.cli import pack_main
from servers.binding_pack import write_pack


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_live_title_is_shown_then_erased_on_a_terminal(tmp_path: Path) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "mock"})
    err = _Terminal()
    assert (
        pack_main(pack_dir, ["create", "--name", "lamp", "--confirm"], stdout=io.StringIO(), stderr=err) == 0
    )
    shown = err.getvalue()
    assert shown.startswith("Creating lamp…\r\x1b[2K")
    assert "Created lamp\n" in shown


def test_not_on_a_pipe_and_not_for_a_write_that_is_not_run(tmp_path: Path) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "mock"})
    piped = io.StringIO()
    assert pack_main(pack_dir, ["list"], stdout=io.StringIO(), stderr=piped) == 0
    assert "Listing things" not in piped.getvalue() and "Listed things" in piped.getvalue()
    err = _Terminal()
    assert pack_main(pack_dir, ["create", "--name", "lamp"], stdout=io.StringIO(), stderr=err) == 4
    assert "Creating lamp" not in err.getvalue()


def test_document_text_in_the_live_title_cannot_drive_the_terminal(tmp_path: Path) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "mock"})
    err = _Terminal()
    pack_main(
        pack_dir, ["create", "--name", "\x1b]0;pwned\x07", "--confirm"], stdout=io.StringIO(), stderr=err
    )
    assert "\x1b]0;" not in err.getvalue() and "\x07" not in err.getvalue()


def test_live_title_tries_templates_in_order() -> None:
    verb = {"title": {"live": ["Paying {{amount}} to {{payee}}", "Paying a payee"]}}
    assert live_title(verb, {"amount": 5, "payee": "Ada"}) == "Paying 5 to Ada"
    assert live_title(verb, {"amount": 5}) == "Paying a payee"
    assert live_title({"description": "x"}, {}) is None

"""Fixtures shared across test folders: the bundled demo API server on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]

# `make test-fast` runs hypothesis with fewer examples (PACKC_HYPOTHESIS=fast); CI runs the default.
settings.register_profile("fast", max_examples=10)
settings.load_profile(os.environ.get("PACKC_HYPOTHESIS", "default"))
DEMO_KEY = "demo-test-key"


def _demo_server_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "packc_tests_demo_server", ROOT / "specs" / "demo" / "server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _no_user_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the person's own credentials, approvals, keyring or downloads.

    A test that approved an origin in the real ``~/.config/packc`` made a later run of another test
    pass or fail by what was left there. Folders that need fixtures of their own (tests/runtime)
    add them on top of this one.
    """
    home = tmp_path_factory.mktemp("user-state")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("PACKC_CREDENTIALS_FILE", str(home / "config" / "packc" / "credentials.json"))
    monkeypatch.setenv("PACKC_KEYRING", "off")
    monkeypatch.setenv("PACKC_DOWNLOAD_DIR", str(home / "downloads"))
    monkeypatch.delenv("PACKC_TRUSTED_ORIGINS", raising=False)


@pytest.fixture()
def demo_server() -> Iterator[Any]:
    """The demo petstore server on a free 127.0.0.1 port; ``.url`` is its base URL, ``.api_key`` its key."""
    srv = _demo_server_module().DemoServer(0, DEMO_KEY)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


# Tests that need the npm parts (Prism, the APIs.guru corpus, GitHub's document, the MCP conformance
# suite): `make test-fast` leaves them out with `-m "not npm"`.
_NPM_FILES = (
    "tests/conformance/",
    "tests/compiler/test_bench_curation.py",
    "tests/compiler/test_silent_auth.py",
    "tests/frontend/test_corpus_tool.py",
    "tests/mcp_face/test_mcp_conformance.py",
    "tests/runtime/test_rt_cards_corpus.py",
    "tests/runtime/test_rt_forms_stripe.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``npm`` the tests of _NPM_FILES and any test skipped for a missing npm part."""
    for item in items:
        where = Path(str(item.path)).relative_to(ROOT).as_posix()
        reasons = " ".join(str(m.kwargs.get("reason", "")) for m in item.iter_markers("skipif")).lower()
        if where.startswith(_NPM_FILES) or "corpus" in reasons or "prism" in reasons:
            item.add_marker(pytest.mark.npm)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say in the summary when tests were skipped because the npm parts (Prism, the APIs.guru
    corpus) are missing: a green run without them has not checked conformance."""
    skipped = terminalreporter.stats.get("skipped", [])
    missing: dict[str, int] = {}
    for report in skipped:
        reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
        for part, what in (
            ("prism", "Prism"),
            ("corpus", "the APIs.guru corpus"),
            ("octokit", "GitHub's document"),
        ):
            if part in reason.lower():
                missing[what] = missing.get(what, 0) + 1
                break
    if missing:
        listed = ", ".join(f"{count} for {what}" for what, count in sorted(missing.items()))
        terminalreporter.write_line(
            f"NOTE: {sum(missing.values())} test(s) skipped because npm parts are missing ({listed}); "
            "conformance is not checked. `make conformance` and `make corpus` install them "
            "(CI=true makes them failures).",
            yellow=True,
        )

"""Every repository path the docs cite in backticks exists: after a move, a stale citation fails here.

A citation is a word inside backticks (alone, or in a command such as `python tools/corpus.py --compile`)
that starts with a repository folder (`compiler/`, `runtime/`, `tests/`, `tools/`, `specs/`) or an import
package (`packc/` under compiler/, `packc_runtime/` under runtime/) and names a file ending in .py, .md,
.yaml or .json, or a folder with a trailing `/`. A `::test_name` suffix (with or without `[params]`) must
name a function of that file. A word holding a `<placeholder>`, `{a,b}` or a glob is a pattern, not a
path, and is not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "ARCHITECTURE.md"]

_SPAN = re.compile(r"`([^`\n]+)`")
_CITATION = re.compile(
    r"(?<![\w./<>{}*-])"
    r"(?P<path>(?:compiler|runtime|tests|tools|specs|packc|packc_runtime)/[\w./-]*?(?:\.(?:py|md|yaml|json)|/))"
    r"(?:::(?P<test>\w+)(?:\[[^\]]*\])?)?"
    r"(?![\w./<>{}*-])"
)
_PACKAGES = {"packc": "compiler", "packc_runtime": "runtime"}


def _on_disk(path: str) -> Path:
    top = path.split("/", 1)[0]
    return ROOT / _PACKAGES[top] / path if top in _PACKAGES else ROOT / path


def _exists(path: str, test: str | None) -> bool:
    target = _on_disk(path)
    found = target.is_dir() if path.endswith("/") else target.is_file()
    if not found:
        return False
    return (
        test is None
        or re.search(rf"^\s*(?:async )?def {test}\(", target.read_text(encoding="utf-8"), re.M) is not None
    )


def missing_paths(text: str) -> list[str]:
    """The cited paths (and `path::test` suffixes) in `text` that name nothing in the repository."""
    missing: list[str] = []
    for span in _SPAN.findall(text):
        for cited in _CITATION.finditer(span):
            if not _exists(cited["path"], cited["test"]):
                missing.append(cited[0])
    return missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_cited_path_exists(doc: Path) -> None:
    assert missing_paths(doc.read_text(encoding="utf-8")) == []


def test_a_stale_citation_is_caught() -> None:
    text = (
        "Moved: `compiler/packc/derive.py`, `packc_runtime/credstore.py`, `tests/mcp_face/test_mcp_auth.py`,"
        " `tests/compiler/test_plan.py::test_no_such_test`, `packc/nowhere/`; here:"
        " `compiler/packc/build/derive.py`, `packc_runtime/credentials/store.py`, `packc/read/`,"
        " `tests/mcp_face/internals/test_mcp_auth.py::test_print_config_over_http_needs_a_port_and_token_file_and_never_prints_the_secret`,"
        " `tests/oauth/test_oauth_errors.py::test_each_failure_has_a_reason_and_says_what_to_do[state_mismatch]`;"
        " patterns: `tests/<area>/internals/`, `tests/fixtures/packs/{echo,authz}`; not paths: `surface.json`, `x/y.py`;"
        " in a command: `python tools/corpus.py --compile`, `python tools/nowhere.py --compile`."
    )
    assert missing_paths(text) == [
        "compiler/packc/derive.py",
        "packc_runtime/credstore.py",
        "tests/mcp_face/test_mcp_auth.py",
        "tests/compiler/test_plan.py::test_no_such_test",
        "packc/nowhere/",
        "tools/nowhere.py",
    ]

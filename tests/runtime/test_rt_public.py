"""The runtime's public surface: sorted, complete exports; every error code documented with its exit code."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import packc_runtime
from packc_runtime.errors import ERROR_CLASSES

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    "calling.args",
    "calling.openapi._styles",
    "calling.openapi.operations",
    "calling.openapi.request",
    "calling.pack",
    "calling.results",
    "calling.send",
    "credentials.auth",
    "credentials.redact",
    "credentials.slots",
    "errors",
    "faces.cli",
    "format._jsontext",
    "format._metaschema",
]


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_package_exports_are_sorted_and_resolve() -> None:
    assert packc_runtime.__all__ == sorted(packc_runtime.__all__)
    for name in packc_runtime.__all__:
        assert getattr(packc_runtime, name) is not None
    with pytest.raises(AttributeError):
        _ = packc_runtime.nothing_here  # type: ignore[attr-defined]


@pytest.mark.parametrize("module", MODULES)
def test_module_exports_are_sorted_public_and_defined(module: str) -> None:
    mod = importlib.import_module(f"packc_runtime.{module}")
    exported = mod.__all__
    assert exported == sorted(exported, key=_isort_key)
    assert all(not name.startswith("_") and hasattr(mod, name) for name in exported)


def test_every_error_code_is_documented_with_its_exit_code() -> None:
    text = (ROOT / "docs" / "runtime.md").read_text(encoding="utf-8")
    text = text.split("## Error codes and exit codes", 1)[1].split("\n## ", 1)[0]
    documented = {
        m.group(1): int(m.group(2)) for m in re.finditer(r"^\| `([a-z_]+)` \| (\d+) \|", text, re.M)
    }
    assert documented == {code: cls.exit_code for code, cls in ERROR_CLASSES.items()}


def test_importing_the_cli_path_stays_light() -> None:
    probe = (
        "import sys; from packc_runtime.cli import pack_main; from packc_runtime.calling.pack import load_pack; "
        f"load_pack({str(ROOT / 'tests/fixtures/packs/echo')!r}); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('packc', 'pydantic', 'jsonschema', 'keyring', 'asyncio', 'dataclasses')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("pack", ["echo", "authz", "flaky"])
def test_fixture_packs_are_valid_packs(pack: str) -> None:
    from packc.lint import lint_pack

    findings = lint_pack(ROOT / "tests" / "fixtures" / "packs" / pack)
    assert [str(f) for f in findings if f.level == "error"] == []

